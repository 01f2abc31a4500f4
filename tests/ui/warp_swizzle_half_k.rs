// expect: E1670 — not supported yet: a swizzled warp operand tile of m16n8k8 instructions.
use tessel::gemm_kernel;

gemm_kernel! {
    const BM = 16;
    const BN = 16;
    const BK = 64;
    __co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block,
               {w} by [1] : group {
        shared f16 [BM, BK] lhs_s;
        mc = mma.fill.f32 0.0f;
        foreach {kt} in [cdiv(K, BK)] {
          tma.copy.swiz<128> lhs.subspan(BM, BK).at(bm, kt) => lhs_s;
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
