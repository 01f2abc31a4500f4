// expect: E1341 — a multicast load bound to a future that is waited (no event publishes it) is not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable WARP_N in 128..=256 step 8 = 192;   // cols per consumer warpgroup's tile
    tunable STAGES in [1, 2, 3, 4, 5] = 2;      // ring-buffer depth
    tunable CONSUMERS in [1, 2] = 2;            // consumer warpgroups per block
    tunable TILE_K in [32, 64] = 64;            // K-tile loaded per TMA transfer
    tunable GROUP_M in [1, 8, 16, 32] = 16;     // block rows per rasterization group (L2 reuse)
    tunable PERSISTENT in [0, 1] = 1;           // 1: one block per SM walks the tiles
    tunable MULTICAST in [0, 1, 2, 3] = 2;      // multicast operand: 0 none, 1 lhs, 2 rhs, 3 both
    tunable EPI_SPLIT in [1, 2] = 1;            // epilogue column slices; 2: half the output_s smem
    const WARP_M = 64;                          // rows per consumer warpgroup (WGMMA M)
    const WARP_K = 16;                          // WGMMA K step
    const TILE_M = WARP_M * CONSUMERS;          // rows per block
    const SWIZ = TILE_K * 2;                    // one f16 K-row of the tile, in bytes
    const EPI_N = WARP_N / EPI_SPLIT;           // cols per epilogue slice (one TMA store)
    const CLUSTER_M = 1 + MULTICAST / 2;        // blocks per cluster along block_m: they share rhs
    const CLUSTER_N = 1 + MULTICAST % 2;        // blocks per cluster along block_n: they share lhs
    raster GROUP_M;                             // launch clusters in groups of GROUP_M tile rows
    persistent PERSISTENT;                      // overlap a tile's epilogue with the next tile's loads
    require WARP_N % (8 * CLUSTER_M) == 0;      // rhs slices: whole 8-row swizzle atoms
    require EPI_SPLIT == 1 || WARP_N % (8 * EPI_SPLIT) == 0;  // epilogue slices: whole 8-column groups

    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {cm, cn} by [CLUSTER_M, CLUSTER_N] : cluster {
        parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, WARP_N)] : block {
          shared event full[STAGES], empty[STAGES];
          shared f16 [TILE_M, TILE_K] lhs_s[STAGES];
          shared f16 [WARP_N, TILE_K] rhs_s[STAGES];
          shared f16 [WARP_M, EPI_N] output_s[CONSUMERS];

          // 1 producer + CONSUMERS consumer warpgroups × 128 threads
          parallel wg by CONSUMERS + 1 : group-4, t by 128 : thread {
            // ── Producer (wg=0): one thread drives TMA; a stage is free once every block
            //    that receives its multicast has released it ──
            inthreads.async (wg == 0 && t == 0) {
              foreach {iv_k} in [cdiv(K, TILE_K)] {
                stage = iv_k % STAGES;
                wait empty[stage];
                tma.copy.async<full[stage]>.multicast.swiz<SWIZ>
                  lhs.subspan(TILE_M, TILE_K)
                    .at(block_m, iv_k) => lhs_s[stage];
                rf = tma.copy.async.multicast.swiz<SWIZ>
                  rhs.subspan(WARP_N, TILE_K)
                    .at(block_n, iv_k) => rhs_s[stage];
                wait rf;
                trigger full[stage];
              }
            }

            // ── Consumers (wg>=1): WGMMA ──
            inthreads.async (wg >= 1) {
              cidx = wg - 1;
              foreach {s} in [STAGES]
                trigger empty[s];

              mc = mma.fill.f16 0.0f;
              foreach {iv_k} in [cdiv(K, TILE_K)] {
                stage = iv_k % STAGES;
                wait full[stage];

                foreach {iv_wk} in [cdiv(TILE_K, WARP_K)] {
                  ma = mma.load.swiz<SWIZ>
                    lhs_s[stage].subspan(WARP_M, WARP_K)
                      .at(cidx, iv_wk);
                  mb = mma.load.swiz<SWIZ>
                    rhs_s[stage].chunkat(_, iv_wk);
                  mma.row.row mc, ma, mb;
                }
                mma.commit;
                trigger empty[stage];
              }
              foreach {h} in [EPI_SPLIT] : unroll {
                mma.store mc.subspan(WARP_M, EPI_N).at(0, h), output_s[cidx];
                tma.copy output_s[cidx] =>
                  output.subspan(WARP_M, EPI_N)
                    .at(block_m * CONSUMERS + cidx, block_n * EPI_SPLIT + h);
              }
            }
          }
        }
      }
    }
}

fn main() {}
