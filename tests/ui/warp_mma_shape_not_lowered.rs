// expect: E1332 — not supported yet: an s8 warp tile of K = 16 (m16n8k16 exists; tessel lowers m16n8k32).
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
          foreach {kk} in [BK / 16] {
            ma = mma.load lhs_s.subspan(BM, 16).at(0, kk);
            mb = mma.load rhs.subspan(BN, 16).at(bn, kt * (BK / 16) + kk);
            mma.row.row mc, ma, mb;
          }
        }
        mma.store mc, output.subspan(BM, BN).at(bm, bn);
      }
    }
}

fn main() {}
