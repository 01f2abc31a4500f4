// tessel lowering glue, Hopper path: a plain `dma.copy src => dst;` global → shared (a tile no
// WGMMA reads, e.g. a row of per-element factors). The SIMT path's cooperative copy
// (lowering/simt.cuh, which Hopper kernels do not include: its guarded element accessors would
// clash with hopper_store.cuh's), with the bounds test inline. Needs prelude.cuh and
// sm80_async.cuh.
#pragma once

// The [ROWS, COLS] tile at (r0, c0) of the row-major rows × cols tensor `src` into `dst` (rows
// LD elements apart): 16-byte cp.async chunks where a chunk lies inside the tensor and is
// aligned, element copies (zeros outside the tensor) elsewhere; commits one cp.async group.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_copy_g2s(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);
  static_assert(COLS % V == 0 && LD % V == 0, "tile rows must be whole 16-byte chunks");
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
      for (int v = 0; v < V; ++v)
        d[v] = (gr < rows && gc + v < cols) ? src[(long long)gr * cols + gc + v] : tsl_from_f32<T>(0.0f);
    }
  }
  tsl_cp_async_commit();
}
