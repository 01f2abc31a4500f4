// expect: E0914 — a TMA box of 320 rows: a tensor map's box holds at most 256 elements per
// dimension (no cluster shares this load).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f32 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 320)] : block,
          by 1 : group-4 {
        shared f16 [64, 64] lhs_s;
        shared f16 [320, 64] rhs_s;
        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, iv_k) => lhs_s;
          tma.copy.swiz<128> rhs.subspan(320, 64).at(block_n, iv_k) => rhs_s;
          mma.row.row mc, lhs_s, rhs_s.subspan(160, 64).at(0, 0);
        }
        mma.store mc, output.subspan(64, 160).at(block_m, 2 * block_n);
      }
    }
}

fn main() {}
