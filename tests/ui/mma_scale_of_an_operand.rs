// expect: E0307 — `mma.scale` scales an accumulator, not a loaded operand.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f8_e4m3 [M, K] lhs,
        global f32 [M, KB] scale_lhs,
        global f8_e4m3 [N, K] rhs,
        global f32 [NB, KB] scale_rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block, by 1 : group-4 {
        shared f8_e4m3 [64, 128] lhs_s;
        shared f8_e4m3 [128, 128] rhs_s;
        shared f16 [64, 128] out_s;
        acc = mma.fill.f32 0.0f;
        foreach {kb} in [cdiv(K, 128)] {
          tma.copy.swiz<128> lhs.subspan(64, 128).at(block_m, kb) => lhs_s;
          tma.copy.swiz<128> rhs.subspan(128, 128).at(block_n, kb) => rhs_s;
          ma = mma.load lhs_s;
          mma.row.row acc, ma, rhs_s;
          mma.scale ma, scale_lhs.subspan(64, 1).at(block_m, kb), scale_rhs.at(block_n, kb);
        }
        mma.store acc, out_s;
        tma.copy out_s => output.subspan(64, 128).at(block_m, block_n);
      }
    }
}

fn main() {}
