// tessel lowering glue for `cluster C;` (see dsl-core/src/lower/cluster.rs): a block's rank, the
// multicast load of the shared operand, cluster-wide `trigger`s and the clustered rasterization.
// Needs lowering/common.cuh, lowering/hopper.cuh and sm90_cluster.cuh.
#pragma once

// This block's rank in its cluster (clusters of C consecutive blocks; __cluster_dims__(C, 1, 1)).
template <int C> TSL_DEVICE int tsl_cta_rank() { return (int)(blockIdx.x % C); }

// A TMA load of the operand a cluster shares: with C > 1 this block's slice is multicast to all
// C blocks (mask: every rank), completing `bar` at the same offset in each; C == 1 is a plain load.
template <int C, typename T>
TSL_DEVICE void tsl_tma_load_2d_mc(T *dst, const tsl_tensor_map *tm, int c0, int c1,
                                   unsigned long long *bar) {
  if constexpr (C == 1) {
    tsl_tma_load_2d(dst, tm, c0, c1, bar);
  } else {
    tsl_tma_load_2d_multicast(tsl_smem_addr(dst), tm, c0, c1, tsl_smem_addr(bar),
                              (tsl_u16)((1u << C) - 1));
  }
}

// `trigger e` for a cluster-scope event: the arrival (one per warp when PER_WARP) goes to the
// barrier at the same offset in every block of the cluster, this one included.
template <int C, bool PER_WARP> TSL_DEVICE void tsl_mbar_arrive_cluster(unsigned long long *bar) {
  if constexpr (C == 1) {
    tsl_mbar_arrive_from<PER_WARP>(bar);
  } else {
    if constexpr (PER_WARP) {
      __syncwarp();
      if ((threadIdx.x & 31) != 0) return;
    }
#pragma unroll
    for (int r = 0; r < C; ++r) tsl_mbar_arrive_remote(tsl_smem_addr(bar), (tsl_u32)r);
  }
}

// Grouped rasterization in clusters of c blocks along M: tile t is rank t % c of cluster-tile
// t / c; cluster-tiles walk a cdiv(grid_m, c) x grid_n grid in groups of cdiv(group_m, c)
// cluster rows (tsl_raster_grouped), and block row = cluster row * c + rank.
TSL_DEVICE void tsl_raster_cluster(int t, int grid_m, int grid_n, int group_m, int c, int &bm,
                                   int &bn) {
  int cm;
  tsl_raster_grouped(t / c, tsl_cdiv(grid_m, c), grid_n, tsl_cdiv(group_m, c), cm, bn);
  bm = cm * c + t % c;
}
