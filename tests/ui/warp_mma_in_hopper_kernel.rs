// expect: E1310 — not supported yet: a warp-level mma in a kernel with WGMMAs.
use tessel::gemm_kernel;

gemm_kernel! {
    const BM = 64;
    const BN = 64;
    const BK = 64;
    __co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block {
        shared f16 [BM, BK] lhs_s;
        shared f16 [BN, BK] rhs_s;
        parallel {w} by [4] : group {
          mc = mma.fill.f32 0.0f;
          foreach {kt} in [cdiv(K, BK)] {
            tma.copy.swiz<128> lhs.subspan(BM, BK).at(bm, kt) => lhs_s;
            tma.copy.swiz<128> rhs.subspan(BN, BK).at(bn, kt) => rhs_s;
            foreach {kk} in [BK / 16] {
              ma = mma.load lhs_s.subspan(16, 16).at(w, kk);
              mb = mma.load rhs_s.subspan(BN, 16).at(0, kk);
              mma.row.row mc, ma, mb;
            }
          }
          mma.store mc, output.subspan(16, BN).at(bm # w, bn);
        }
        parallel p by 1 : group-4 {
          mw = mma.fill.f32 0.0f;
          ma2 = mma.load.swiz<128> lhs_s;
          mb2 = mma.load.swiz<128> rhs_s;
          mma.row.row mw, ma2, mb2;
          mma.store mw, output.subspan(BM, BN).at(bm, bn);
        }
      }
    }
}

fn main() {}
