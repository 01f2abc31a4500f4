// tessel lowering glue, SIMT path: the cooperative store that `dma.copy shared => global`
// becomes. Needs lowering/simt.cuh (tsl_st_guarded).
#pragma once

// Stores the [ROWS, COLS] shared tile with row pitch LD into the tile at (r0, c0) of a
// row-major [rows, cols] global tensor, all THREADS threads of the block taking a strided share
// of the elements; elements outside the tensor are not written. The caller synchronizes.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_copy_s2g(T *dst, int r0, int c0, int rows, int cols, const T *src) {
  for (int i = threadIdx.x; i < ROWS * COLS; i += THREADS) {
    const int r = i / COLS, c = i % COLS;
    tsl_st_guarded(dst, r0 + r, c0 + c, rows, cols, src[r * LD + c]);
  }
}
