// expect: E1673 — not supported yet: element-wise work on a warp accumulator in a TMA kernel.
use tessel::gemm_kernel;

gemm_kernel! {
    const BM = 32;
    const BN = 32;
    const BK = 32;

    __co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block,
               {w} by [1] : group {
        shared f16 [BM, BK] lhs_s;
        mc = mma.fill.f32 0.0f;
        foreach {kt} in [cdiv(K, BK)] {
          tma.copy lhs.subspan(BM, BK).at(bm, kt) => lhs_s;
          foreach {kk} in [BK / 16] {
            ma = mma.load lhs_s.subspan(BM, 16).at(0, kk);
            mb = mma.load rhs.subspan(BN, 16).at(bn, kt * (BK / 16) + kk);
            mma.row.row mc, ma, mb;
          }
        }
        mc *= 2.0f;
        mma.store mc, output.subspan(BM, BN).at(bm, bn);
      }
    }
}

fn main() {}
