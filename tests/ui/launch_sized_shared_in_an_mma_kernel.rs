// expect: E1686 — a shared buffer sized at launch in a kernel with `mma` (its operands need
// compile-time extents).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void g(global f16 [M, K] a, global f16 [K, N] b, global f32 [M, N] c) {
      parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 8)] : block, {w} by [1] : group {
        shared f16 [16, K] a_s;
        shared f16 [16, 8] b_s;
        dma.copy a.subspan(16, K).at(bm, 0) => a_s;
        dma.copy b.subspan(16, 8).at(0, bn) => b_s;
        mc = mma.fill.f32 0.0f;
        ma = mma.load a_s.subspan(16, 16).at(0, 0);
        mb = mma.load b_s;
        mma.row.col mc, ma, mb;
        mma.store mc, c.subspan(16, 8).at(bm, bn);
      }
    }
}

fn main() {}
