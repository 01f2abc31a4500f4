// expect: E1692 — a TMA load on no event in a branch (its barriers are the whole block's).
use tessel::gemm_kernel;

gemm_kernel! {
    const WARP_N = 128;
    const STAGES = 4;
    const WARP_M = 64;
    const WARP_K = 16;
    const TILE_K = 64;
    const SWIZ = 128;
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, WARP_M), cdiv(N, WARP_N)] : block {
        shared event full[STAGES], empty[STAGES];
        shared f16 [WARP_M, TILE_K] lhs_s[STAGES];
        shared f16 [WARP_N, TILE_K] rhs_s[STAGES];
        shared f16 [WARP_M, WARP_N] output_s;
        parallel wg by 2 : group-4, t by 128 : thread {
          inthreads.async (wg == 0 && t == 0) {
            foreach {iv_k} in [cdiv(K, TILE_K)] {
              stage = iv_k % STAGES;
              wait empty[stage];
              tma.copy.async<full[stage]>.swiz<SWIZ>
                lhs.subspan(WARP_M, TILE_K).at(block_m, iv_k) => lhs_s[stage];
              tma.copy.swiz<SWIZ>
                rhs.subspan(WARP_N, TILE_K).at(block_n, iv_k) => rhs_s[stage];
              trigger full[stage];
            }
          }
          inthreads.async (wg == 1) {
            foreach {s} in [STAGES]
              trigger empty[s];
            mc = mma.fill.f16 0.0f;
            foreach {iv_k} in [cdiv(K, TILE_K)] {
              stage = iv_k % STAGES;
              wait full[stage];
              foreach {iv_wk} in [cdiv(TILE_K, WARP_K)] {
                ma = mma.load.swiz<SWIZ> lhs_s[stage].chunkat(_, iv_wk);
                mb = mma.load.swiz<SWIZ> rhs_s[stage].chunkat(_, iv_wk);
                mma.row.row mc, ma, mb;
              }
              mma.commit;
              trigger empty[stage];
            }
            mma.store mc, output_s;
            tma.copy output_s => output.subspan(WARP_M, WARP_N).at(block_m, block_n);
          }
        }
      }
    }
}

fn main() {}
