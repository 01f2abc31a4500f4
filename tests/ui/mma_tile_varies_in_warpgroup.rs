// expect: E0913 — a WGMMA's stored tile chosen by a thread variable: the warpgroup's threads
// would each name a different tile of one instruction's accumulator.
use tessel::gemm_kernel;

gemm_kernel! {
    const BK = 64;
    __co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 128)] : block {
        shared f16 [64, BK] lhs_s;
        shared f16 [128, BK] rhs_s;
        parallel {wg} by [1] : group-4, {t} by [128] : thread {
          mc = mma.fill.f32 0.0f;
          foreach {kt} in [cdiv(K, BK)] {
            tma.copy.swiz<128> lhs.subspan(64, BK).at(bm, kt) => lhs_s;
            tma.copy.swiz<128> rhs.subspan(128, BK).at(bn, kt) => rhs_s;
            foreach {kk} in [BK / 16] {
              ma = mma.load.swiz<128> lhs_s.subspan(64, 16).at(0, kk);
              mb = mma.load.swiz<128> rhs_s.subspan(128, 16).at(0, kk);
              mma.row.row mc, ma, mb;
            }
          }
          mutable int col = bn;
          col += t / 64;
          mma.store mc, output.subspan(64, 128).at(bm, col);
        }
      }
    }
}

fn main() {}
