// expect: E1424 — a scaled mma of s8 operands (scales apply to floating-point products).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global s8 [M, K] lhs,
        global f32 [M, KB] scale_lhs,
        global s8 [N, K] rhs,
        global f32 [NB, KB] scale_rhs,
        global s32 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block,
          by 1 : group-4 {
        shared s8 [64, 128] lhs_s;
        shared s8 [128, 128] rhs_s;
        shared s32 [64, 128] output_s;

        mc = mma.fill.s32 0;
        foreach {kb} in [cdiv(K, 128)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, kb) => lhs_s;
          tma.copy.swiz<128> rhs.chunkat(block_n, kb) => rhs_s;
          mma.row.row.scale mc, lhs_s, rhs_s, 2.0f, 0.5f;
        }
        mma.store mc, output_s;
        tma.copy output_s => output.subspan(64, 128).at(block_m, block_n);
      }
    }
}

fn main() {}
