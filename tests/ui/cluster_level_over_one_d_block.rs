// expect: E1445 — the cluster level places blocks in a 2-D `: block` grid.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable WARP_N in [128, 256] = 128;
    const STAGES = 2;
    const TILE_M = 64;
    const TILE_K = 64;

    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {cm, cn} by [2, 1] : cluster {
        parallel {block_m} by [cdiv(M, TILE_M)] : block {
          block_n = 0;
          shared event full[STAGES], empty[STAGES];
          shared f16 [TILE_M, TILE_K] lhs_s[STAGES];
          shared f16 [WARP_N, TILE_K] rhs_s[STAGES];
          shared f16 [TILE_M, WARP_N] output_s;
          parallel wg by 2 : group-4, t by 128 : thread {
            inthreads.async (wg == 0 && t == 0) {
              foreach {iv_k} in [cdiv(K, TILE_K)] {
                stage = iv_k % STAGES;
                wait empty[stage];
                tma.copy.async<full[stage]>.swiz<128>
                  lhs.subspan(TILE_M, TILE_K).at(block_m, iv_k) => lhs_s[stage];
                tma.copy.async<full[stage]>.multicast.swiz<128>
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
                foreach {iv_wk} in [cdiv(TILE_K, 16)] {
                  ma = mma.load.swiz<128> lhs_s[stage].chunkat(_, iv_wk);
                  mb = mma.load.swiz<128> rhs_s[stage].chunkat(_, iv_wk);
                  mma.row.row mc, ma, mb;
                }
                mma.commit;
                trigger empty[stage];
              }
              mma.store mc, output_s;
              tma.copy output_s => output.subspan(TILE_M, WARP_N).at(block_m, block_n);
            }
          }
        }
      }
    }
}

fn main() {}
