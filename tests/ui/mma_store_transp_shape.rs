// expect: E0903 — `mma.store.transp` into a tile of the accumulator's own shape, not its transpose.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block,
          by 1 : group-4 {
        shared f16 [64, 64] lhs_s;
        shared f16 [128, 64] rhs_s;
        shared f16 [64, 128] output_s;

        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, iv_k) => lhs_s;
          tma.copy.swiz<128> rhs.chunkat(block_n, iv_k) => rhs_s;
          mma.row.row mc, lhs_s, rhs_s;
        }
        mma.store.transp mc, output_s;
        tma.copy output_s => output.subspan(64, 128).at(block_m, block_n);
      }
    }
}

fn main() {}
