// expect: E1672 — not supported yet: a warp accumulator stored to a swizzled shared tile.
use tessel::gemm_kernel;

gemm_kernel! {
    const BM = 64;
    const BN = 64;
    const BK = 64;
    __co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block,
               {w} by [1] : group {
        shared f16 [BM, BK] lhs_s;
        shared f16 [BN, BK] rhs_s;
        shared f16 [BM, BN] out_s;
        mc = mma.fill.f32 0.0f;
        foreach {kt} in [cdiv(K, BK)] {
          tma.copy.swiz<128> lhs.subspan(BM, BK).at(bm, kt) => lhs_s;
          tma.copy.swiz<128> rhs.subspan(BN, BK).at(bn, kt) => rhs_s;
          foreach {kk} in [BK / 16] {
            ma = mma.load lhs_s.subspan(BM, 16).at(0, kk);
            mb = mma.load rhs_s.subspan(BN, 16).at(0, kk);
            mma.row.row mc, ma, mb;
          }
        }
        mma.store mc, out_s;
        tma.copy.swiz<128> out_s => output.subspan(BM, BN).at(bm, bn);
      }
    }
}

fn main() {}
