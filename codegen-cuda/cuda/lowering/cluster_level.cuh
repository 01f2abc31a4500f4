// tessel lowering glue for a `: cluster` level (see dsl-core/src/lower/cluster.rs): clusters of
// CM x CN blocks launched as __cluster_dims__(CM * CN, 1, 1) over a 1-D grid. A block of rank r
// (%cluster_ctarank) sits r % CM rows down and r / CM columns across its cluster. A load shared
// along M (AM) is the same for the blocks of a cluster column, one shared along N (AN) for those
// of a cluster row; each of them loads one slice and multicasts it to all. Needs
// lowering/cluster.cuh.
#pragma once

// This block's rank in its cluster (PTX %cluster_ctarank; constant for the block's lifetime, so
// not volatile: the compiler may read it once).
TSL_DEVICE int tsl_cluster_ctarank() {
  tsl_u32 r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return (int)r;
}

// The slice of a tile shared along M (AM) and/or N (AN) this block loads: its place among the
// blocks that share the tile (row index first).
template <int CM, int CN, bool AM, bool AN> TSL_DEVICE int tsl_cluster_slice() {
  const int r = tsl_cluster_ctarank();
  return (AM ? r % CM : 0) + (AN ? (r / CM) * (AM ? CM : 1) : 0);
}

// The blocks that share the tile (bit r = rank r): this block's cluster column (AM), row (AN),
// or the whole cluster (both).
template <int CM, int CN, bool AM, bool AN> TSL_DEVICE tsl_u16 tsl_cluster_mask() {
  const int r = tsl_cluster_ctarank();
  unsigned mask = 0;
#pragma unroll
  for (int n = 0; n < CN; ++n)
#pragma unroll
    for (int m = 0; m < CM; ++m)
      if ((AM || m == r % CM) && (AN || n == r / CM)) mask |= 1u << (m + n * CM);
  return (tsl_u16)mask;
}

// A TMA load of a tile shared along M and/or N: with more than one sharer this block's slice is
// multicast to all of them, completing `bar` at the same offset in each; otherwise a plain load.
template <int CM, int CN, bool AM, bool AN, typename T>
TSL_DEVICE void tsl_tma_load_2d_cluster(T *dst, const tsl_tensor_map *tm, int c0, int c1,
                                        unsigned long long *bar) {
  if constexpr ((AM ? CM : 1) * (AN ? CN : 1) == 1) {
    tsl_tma_load_2d(dst, tm, c0, c1, bar);
  } else {
    tsl_tma_load_2d_multicast(tsl_smem_addr(dst), tm, c0, c1, tsl_smem_addr(bar),
                              tsl_cluster_mask<CM, CN, AM, AN>());
  }
}

// Grouped rasterization of CM x CN clusters: tile t is rank t % (CM * CN) of cluster-tile
// t / (CM * CN); cluster-tiles walk a cdiv(grid_m, CM) x cdiv(grid_n, CN) grid in groups of
// cdiv(group_m, CM) cluster rows (tsl_raster_grouped), and the rank places the block inside.
TSL_DEVICE void tsl_raster_cluster_2d(int t, int grid_m, int grid_n, int group_m, int cm, int cn,
                                      int &bm, int &bn) {
  const int c = cm * cn, r = t % c;
  int tm, tn;
  tsl_raster_grouped(t / c, tsl_cdiv(grid_m, cm), tsl_cdiv(grid_n, cn), tsl_cdiv(group_m, cm), tm,
                     tn);
  bm = tm * cm + r % cm;
  bn = tn * cn + r / cm;
}
