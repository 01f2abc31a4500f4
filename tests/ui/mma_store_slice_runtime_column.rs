// expect: E0906 — the slice's column must be known once the loop is unrolled; here it depends
// on the block.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable WARP_N in [64, 128, 192, 256] = 128;
    tunable TILE_K in [64] = 64;
    const WARP_M = 64;
    const WARP_K = 16;
    const SWIZ = 128;

    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, WARP_M), cdiv(N, WARP_N)] : block,
          by 1 : group-4 {
        shared f16 [WARP_M, TILE_K] lhs_s;
        shared f16 [WARP_N, TILE_K] rhs_s;
        shared f16 [WARP_M, WARP_N / 2] output_s;

        mc = mma.fill.f16 0.0f;
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          tma.copy.swiz<SWIZ> lhs.chunkat(block_m, iv_k) => lhs_s;
          tma.copy.swiz<SWIZ> rhs.chunkat(block_n, iv_k) => rhs_s;

          foreach {iv_wk} in [cdiv(TILE_K, WARP_K)] {
            ma = mma.load.swiz<SWIZ> lhs_s.chunkat(_, iv_wk);
            mb = mma.load.swiz<SWIZ> rhs_s.chunkat(_, iv_wk);
            mma.row.row mc, ma, mb;
          }
        }
        foreach {h} in [2] {
          mma.store mc.subspan(WARP_M, WARP_N / 2).at(0, (h + block_n) % 2), output_s;
          tma.copy output_s =>
            output.subspan(WARP_M, WARP_N / 2)
              .at(block_m, block_n * 2 + h);
        }
      }
    }
}

fn main() {}
