// expect: E1450 — a warp accumulator is laid out by the first `mma` into it.
use tessel::gemm_kernel;

gemm_kernel! {
    const BK = 32;

    __co__ void fused(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f32 [N] bias,
        global f32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, 32), cdiv(N, 32)] : block,
               {wm, wn} by [2, 2] : group {
        mc = mma.fill.f32 0.0f;
        mc += 1.0f;
        foreach {kt} in [cdiv(K, BK)] {
          ma = mma.load lhs.subspan(16, BK).at(bm # wm, kt);
          mb = mma.load rhs.subspan(16, BK).at(bn # wn, kt);
          mma.row.row mc, ma, mb;
        }
        mma.store mc, output.subspan(16, 16).at(bm # wm, bn # wn);
      }
    }
}

fn main() {}
