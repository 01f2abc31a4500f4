// expect: E1420 — 8-bit WGMMA reads both operands K-major; `mma.row.col` asks for an MN-major B.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f8_e4m3 [M, K] lhs,
        global f8_e4m3 [K, N] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block,
          by 1 : group-4 {
        shared f8_e4m3 [64, 128] lhs_s;
        shared f8_e4m3 [128, 128] rhs_s;
        shared f16 [64, 128] output_s;

        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 128)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, iv_k) => lhs_s;
          tma.copy.swiz<128> rhs.chunkat(iv_k, block_n) => rhs_s;
          mma.row.col mc, lhs_s, rhs_s;
        }
        mma.store mc, output_s;
        tma.copy output_s => output.subspan(64, 128).at(block_m, block_n);
      }
    }
}

fn main() {}
