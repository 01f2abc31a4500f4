// expect: E1562 — `mma.load.frag` loads the A operand of a warpgroup `mma`.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable WARP_N in [64, 128] = 128;
    const TILE_K = 64;

    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, WARP_N)] : block,
          by 1 : group-4 {
        shared f16 [64, TILE_K] lhs_s;
        shared f16 [WARP_N, TILE_K] rhs_s;
        shared f16 [64, WARP_N] output_s;

        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, iv_k) => lhs_s;
          tma.copy.swiz<128> rhs.chunkat(block_n, iv_k) => rhs_s;
          ma = mma.load.frag lhs_s;
          mma.row.row mc, lhs_s, rhs_s;
        }
        mma.store mc, output_s;
        tma.copy output_s => output.subspan(64, WARP_N).at(block_m, block_n);
      }
    }
}

fn main() {}
