// tessel lowering glue, SIMT path: the cooperative copies of tiles whose extents are known only
// at launch (a shared buffer sized by problem sizes, `shared f32 [1, N] row;`). The same copies
// as tsl_copy_g2s and tsl_copy_s2g, with the tile's rows, columns and row pitch as arguments in
// place of template parameters. Needs lowering/simt.cuh and sm80_async.cuh.
#pragma once

// Copies the [tile_rows, tile_cols] tile at (r0, c0) of a row-major [rows, cols] global tensor
// into a shared tile with row pitch ld, all THREADS threads of the block taking a strided share:
// 16-byte cp.async per chunk where the rows and the pitch are whole chunks and the chunk is
// inside the tensor, element loads with zero fill otherwise. Issues and commits the copies; the
// caller waits (tsl_cp_async_wait_all) and synchronizes.
template <int THREADS, typename T>
TSL_DEVICE void tsl_copy_g2s_n(int tile_rows, int tile_cols, int ld, T *dst, const T *src, int r0,
                               int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);  // elements per 16-byte chunk
  if (tile_cols % V != 0 || ld % V != 0 || cols % V != 0 || c0 % V != 0) {
    for (int i = threadIdx.x; i < tile_rows * tile_cols; i += THREADS)
      dst[(i / tile_cols) * ld + i % tile_cols] =
          tsl_ld_or_zero(src, r0 + i / tile_cols, c0 + i % tile_cols, rows, cols);
  } else {
    const int chunks_per_row = tile_cols / V;
    for (int i = threadIdx.x; i < tile_rows * chunks_per_row; i += THREADS) {
      const int r = i / chunks_per_row;
      const int c = (i % chunks_per_row) * V;
      const int gr = r0 + r, gc = c0 + c;
      T *d = dst + r * ld + c;
      if ((unsigned)gr < (unsigned)rows && gc + V <= cols) {
        tsl_cp_async_16(tsl_smem_addr(d), src + (long long)gr * cols + gc, 16);
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) d[v] = tsl_ld_or_zero(src, gr, gc + v, rows, cols);
      }
    }
  }
  tsl_cp_async_commit();
}

// Stores the [tile_rows, tile_cols] shared tile with row pitch ld into the tile at (r0, c0) of a
// row-major [rows, cols] global tensor, all THREADS threads of the block taking a strided share
// of the elements; elements outside the tensor are not written. The caller synchronizes.
template <int THREADS, typename T>
TSL_DEVICE void tsl_copy_s2g_n(int tile_rows, int tile_cols, int ld, T *dst, int r0, int c0,
                               int rows, int cols, const T *src) {
  for (int i = threadIdx.x; i < tile_rows * tile_cols; i += THREADS) {
    const int r = i / tile_cols, c = i % tile_cols;
    tsl_st_guarded(dst, r0 + r, c0 + c, rows, cols, src[r * ld + c]);
  }
}
