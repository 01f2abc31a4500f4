// expect: E1544 — the body of an accumulator's `apply` runs per element: no copies.
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
        foreach {kt} in [cdiv(K, BK)] {
          ma = mma.load lhs.subspan(16, BK).at(bm # wm, kt);
          mb = mma.load rhs.subspan(16, BK).at(bn # wn, kt);
          mma.row.row mc, ma, mb;
        }
        shared f32 [32] row_s;
        apply {i, j} in mc.span {
          dma.copy bias.subspan(32).at(bn) => row_s;
        }
        mma.store mc, output.subspan(16, 16).at(bm # wm, bn # wn);
      }
    }
}

fn main() {}
