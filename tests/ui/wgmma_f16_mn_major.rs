// expect: E1335 — an MN-major (`col`) f16 operand is not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [K, N] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block,
          by 1 : group-4 {
        shared f16 [64, 64] lhs_s;
        shared f16 [64, 64] rhs_s;
        shared f16 [64, 64] output_s;

        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, iv_k) => lhs_s;
          tma.copy.swiz<128> rhs.chunkat(iv_k, block_n) => rhs_s;
          mma.row.col mc, lhs_s, rhs_s;
        }
        mma.store mc, output_s;
        tma.copy output_s => output.subspan(64, 64).at(block_m, block_n);
      }
    }
}

fn main() {}
