// tessel lowering glue, SIMT path: guarded element access and the cooperative tile copy that
// `dma.copy global => shared` becomes. Needs prelude.cuh and sm80_async.cuh.
#pragma once

// Element (r, c) of a row-major [rows, cols] tensor, or zero outside it (a negative index is
// outside too: the comparisons are unsigned).
template <typename T> TSL_DEVICE T tsl_ld_or_zero(const T *p, int r, int c, int rows, int cols) {
  return ((unsigned)r < (unsigned)rows && (unsigned)c < (unsigned)cols) ? p[(long long)r * cols + c]
                                                                        : tsl_from_f32<T>(0.0f);
}
// Stores v at (r, c) of a row-major [rows, cols] tensor when (r, c) is inside it.
template <typename T> TSL_DEVICE void tsl_st_guarded(T *p, int r, int c, int rows, int cols, T v) {
  if ((unsigned)r < (unsigned)rows && (unsigned)c < (unsigned)cols) p[(long long)r * cols + c] = v;
}

// Tile rows that are not whole 16-byte chunks (or a row pitch that is not a multiple of one):
// element loads with zero fill, all THREADS threads taking a strided share.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_copy_g2s_elems(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  for (int i = threadIdx.x; i < ROWS * COLS; i += THREADS)
    dst[(i / COLS) * LD + i % COLS] = tsl_ld_or_zero(src, r0 + i / COLS, c0 + i % COLS, rows, cols);
}

// Copies the [ROWS, COLS] tile at (r0, c0) of a row-major [rows, cols] global tensor into a
// shared tile with row pitch LD, all THREADS threads of the block taking a strided share.
// Fast path: 16-byte cp.async (LDGSTS) per chunk when the chunk is inside the tensor and the
// leading dimension keeps chunks 16-byte aligned; otherwise element loads with zero fill (also
// for tiles whose rows or pitch are not whole chunks: tsl_copy_g2s_elems).
// Issues and commits the copies; the caller waits (tsl_cp_async_wait_all) and synchronizes.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_copy_g2s(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);  // elements per 16-byte chunk
  if constexpr (COLS % V != 0 || LD % V != 0) {
    tsl_copy_g2s_elems<ROWS, COLS, LD, THREADS>(dst, src, r0, c0, rows, cols);
    tsl_cp_async_commit();  // an empty group: the caller's wait counts it like the others
  } else {
    constexpr int CHUNKS = ROWS * COLS / V;
    const bool aligned = (cols % V == 0) && (c0 % V == 0);
    for (int i = threadIdx.x; i < CHUNKS; i += THREADS) {
      const int r = i / (COLS / V);
      const int c = (i % (COLS / V)) * V;
      const int gr = r0 + r, gc = c0 + c;
      T *d = dst + r * LD + c;
      if (aligned && gr < rows && gc + V <= cols) {
        tsl_cp_async_16(tsl_smem_addr(d), src + (long long)gr * cols + gc, 16);
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) d[v] = tsl_ld_or_zero(src, gr, gc + v, rows, cols);
      }
    }
    tsl_cp_async_commit();
  }
}
