// expect: E1009 — eight warpgroups (1,024 threads) leave each thread 64 registers, fewer than
// its share of the [64, 256] f32 accumulator (128).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f32 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 256)] : block,
          by 8 : group-4 {
        shared f16 [64, 64] lhs_s;
        shared f16 [256, 64] rhs_s;
        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, iv_k) => lhs_s;
          tma.copy.swiz<128> rhs.chunkat(block_n, iv_k) => rhs_s;
          mma.row.row mc, lhs_s, rhs_s;
        }
        mma.store mc, output.chunkat(block_m, block_n);
      }
    }
}

fn main() {}
