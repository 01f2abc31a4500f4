// expect: E1401 — no mma.sync shape of s8 tiles K = 8 (the smallest, m8n8k16, needs 16).
use tessel::gemm_kernel;

gemm_kernel! {
    const BM = 32;
    const BN = 32;
    const BK = 32;

    __co__ void matmul(
        global s8 [M, K] lhs,
        global s8 [N, K] rhs,
        global s32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block,
               {w} by [1] : group {
        shared s8 [BM, BK] lhs_s;
        mc = mma.fill.s32 0;
        foreach {kt} in [cdiv(K, BK)] {
          dma.copy lhs.subspan(BM, BK).at(bm, kt) => lhs_s;
          foreach {kk} in [BK / 8] {
            ma = mma.load lhs_s.subspan(BM, 8).at(0, kk);
            mb = mma.load rhs.subspan(BN, 8).at(bn, kt * (BK / 8) + kk);
            mma.row.row mc, ma, mb;
          }
        }
        mma.store mc, output.subspan(BM, BN).at(bm, bn);
      }
    }
}

fn main() {}
