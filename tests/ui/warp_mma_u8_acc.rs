// expect: E1404 — u8 operands accumulate in s32 only (mma.sync has no f32 accumulator for them).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global u8 [M, K] lhs,
        global s8 [N, K] rhs,
        global f32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 8)] : block,
               {w} by [1] : group {
        mc = mma.fill.f32 0.0f;
        foreach {k} in [cdiv(K, 16)] {
          ma = mma.load lhs.subspan(16, 16).at(bm, k);
          mb = mma.load rhs.subspan(8, 16).at(bn, k);
          mma.row.row mc, ma, mb;
        }
        mma.store mc, output.subspan(16, 8).at(bm, bn);
      }
    }
}

fn main() {}
