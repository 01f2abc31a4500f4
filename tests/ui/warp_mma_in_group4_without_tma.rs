// expect: E1310 — not supported yet: warp-level `mma`s (a `: group` level inside `: group-4`)
// in a kernel with no TMA copy or event.
use tessel::gemm_kernel;

gemm_kernel! {
    const BM = 64;
    const BN = 64;
    const BK = 32;
    __co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block {
        parallel wg by 1 : group-4, w by 4 : group, lane by 32 : thread {
          mc = mma.fill.f32 0.0f;
          foreach {kt} in [cdiv(K, BK)] {
            ma = mma.load lhs.subspan(16, BK).at(bm * 4 + w, kt);
            mb = mma.load rhs.subspan(BN, BK).at(bn, kt);
            mma.row.row mc, ma, mb;
          }
          mma.store mc, output.subspan(16, BN).at(bm * 4 + w, bn);
        }
      }
    }
}

fn main() {}
