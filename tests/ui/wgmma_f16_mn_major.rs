// expect: E1335 — an MN-major (`col`) f16 A operand is not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [K, M] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block,
          by 1 : group-4 {
        shared f16 [64, 64] lhs_s;
        shared f16 [64, 64] rhs_s;
        shared f16 [64, 64] output_s;

        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          tma.copy.swiz<128> lhs.chunkat(iv_k, block_m) => lhs_s;
          tma.copy.swiz<128> rhs.chunkat(block_n, iv_k) => rhs_s;
          mma.col.row mc, lhs_s, rhs_s;
        }
        mma.store mc, output_s;
        tma.copy output_s => output.subspan(64, 64).at(block_m, block_n);
      }
    }
}

fn main() {}
