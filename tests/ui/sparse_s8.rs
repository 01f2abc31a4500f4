// expect: E1361 — sparse s8 WGMMA is not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(s8 [M, KP] lhs, u8 [M, KM] meta, s8 [N, K] rhs, s32 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block,
          by 1 : group-4 {
        shared s8 [64, 32] lhs_s;
        shared u8 [64, 8] meta_s;
        shared s8 [128, 64] rhs_s;
        shared s32 [64, 128] output_s;
        mc = mma.fill.s32 0;
        foreach {iv_k} in [cdiv(K, 64)] {
          tma.copy.swiz<32> lhs.subspan(64, 32).at(block_m, iv_k) => lhs_s;
          dma.copy meta.subspan(64, 8).at(block_m, iv_k) => meta_s;
          tma.copy.swiz<64> rhs.chunkat(block_n, iv_k) => rhs_s;
          me = mma.load meta_s;
          mma.row.row.sp mc, lhs_s, rhs_s, me;
        }
        mma.store mc, output_s;
        tma.copy output_s => output.subspan(64, 128).at(block_m, block_n);
      }
    }
}

fn main() {}
