// expect: E1654 — `streamk` sums partial tiles in f32.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable WARP_N in 128..=256 step 8 = 208;   // cols per consumer warpgroup's tile
    tunable STAGES in [1, 2, 3, 4, 5] = 4;      // ring-buffer depth
    tunable CONSUMERS in [1, 2] = 2;            // consumer warpgroups per block
    tunable TILE_K in [32, 64] = 64;            // K-tile loaded per TMA transfer
    tunable GROUP_M in [1, 8, 16, 32] = 16;     // block rows per rasterization group (L2 reuse)
    tunable CLUSTER in [1, 2] = 2;              // blocks per cluster; 2: rhs tiles multicast
    tunable EPI_SPLIT in [1, 2] = 1;            // epilogue column slices; 2: half the output_s smem
    const WARP_M = 64;                          // rows per consumer warpgroup (WGMMA M)
    const WARP_K = 16;                          // WGMMA K step
    const TILE_M = WARP_M * CONSUMERS;          // rows per block
    const SWIZ = TILE_K * 2;                    // one f16 K-row of the tile, in bytes
    const EPI_N = WARP_N / EPI_SPLIT;           // cols per epilogue slice (one TMA store)
    raster GROUP_M;                             // launch blocks in groups of GROUP_M rows of tiles
    persistent;                                 // one block per SM walks the tiles
    streamk;                                    // ... and the last partial wave by k-tiles
    cluster CLUSTER;                            // clusters of CLUSTER blocks along block_m
    require CLUSTER == 1 || WARP_N % (8 * CLUSTER) == 0;  // multicast slices: whole swizzle atoms
    require EPI_SPLIT == 1 || WARP_N % (8 * EPI_SPLIT) == 0;  // epilogue slices: whole 8-column groups
    
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, WARP_N)] : block {
        shared event full[STAGES], empty[STAGES];
        shared f16 [TILE_M, TILE_K] lhs_s[STAGES];
        shared f16 [WARP_N, TILE_K] rhs_s[STAGES];
        shared f16 [WARP_M, EPI_N] output_s[CONSUMERS];
    
        // 1 producer + CONSUMERS consumer warpgroups × 128 threads
        parallel wg by CONSUMERS + 1 : group-4, t by 128 : thread {
          // ── Producer (wg=0): one thread drives TMA; under streamk, over this segment's k-tiles ──
          inthreads.async (wg == 0 && t == 0) {
            foreach {iv_k} in [cdiv(K, TILE_K)] {
              stage = iv_k % STAGES;
              wait empty[stage];
              tma.copy.async<full[stage]>.swiz<SWIZ>
                lhs.subspan(TILE_M, TILE_K)
                  .at(block_m, iv_k) => lhs_s[stage];
              tma.copy.async<full[stage]>.swiz<SWIZ>
                rhs.subspan(WARP_N, TILE_K)
                  .at(block_n, iv_k) => rhs_s[stage];
              trigger full[stage];
            }
          }
    
          // ── Consumers (wg>=1): WGMMA over the segment, then the tile's epilogue ──
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

fn main() {}
