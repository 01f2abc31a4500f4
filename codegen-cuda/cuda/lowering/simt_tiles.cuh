// tessel lowering glue, SIMT path, register tiles: 16-byte vector copies between global memory,
// shared memory and a thread's registers (`dma.copy` with a `local` side), the cooperative copy
// into a transposed shared tile (`dma.copy … => t.transpose()`), and warp reductions
// (`reduce.sum x : group`). Needs prelude.cuh and lowering/simt.cuh (tsl_ld_or_zero).
//
// Register tiles are arrays indexed by compile-time constants only (the loops around them are
// unrolled), so they live in registers: every loop here is `#pragma unroll`ed over template
// extents. Vector accesses go through tsl_vec16: 16 bytes of T, 16-byte aligned, which the
// compiler turns into one LDG.E.128 / LDS.128 / STS.128 / STG.E.128.
#pragma once

template <typename T> struct alignas(16) tsl_vec16 { T v[16 / sizeof(T)]; };

// Per-thread copy of the [ROWS, COLS] tile at (r0, c0) of a row-major [rows, cols] global tensor
// into registers (element (r, c) to dst[r * DLD + c]): one 16-byte load per row chunk when the
// chunk is inside the tensor and 16-byte aligned (cols and c0 multiples of 16 / sizeof(T)),
// zero-filled element loads otherwise (ragged edges, odd leading dimensions).
template <int ROWS, int COLS, int DLD, typename T>
TSL_DEVICE void tsl_copy_g2r(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);
  const bool aligned = (cols % V == 0) && (c0 % V == 0);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
#pragma unroll
    for (int c = 0; c < COLS; c += V) {
      if (COLS % V == 0 && aligned && r0 + r < rows && c0 + c + V <= cols) {
        const tsl_vec16<T> t =
            *reinterpret_cast<const tsl_vec16<T> *>(src + (long long)(r0 + r) * cols + c0 + c);
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (c + v < COLS) dst[r * DLD + c + v] = t.v[v];
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (c + v < COLS) dst[r * DLD + c + v] = tsl_ld_or_zero(src, r0 + r, c0 + c + v, rows, cols);
      }
    }
  }
}

// Per-thread store of registers (element (r, c) from src[r * SLD + c]) into the [ROWS, COLS]
// tile at (r0, c0) of a row-major [rows, cols] global tensor: 16-byte stores when the row chunk
// is inside and aligned, guarded element stores otherwise.
template <int ROWS, int COLS, int SLD, typename T>
TSL_DEVICE void tsl_copy_r2g(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);
  const bool aligned = (cols % V == 0) && (c0 % V == 0);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
#pragma unroll
    for (int c = 0; c < COLS; c += V) {
      if (COLS % V == 0 && aligned && r0 + r < rows && c0 + c + V <= cols) {
        tsl_vec16<T> t;
#pragma unroll
        for (int v = 0; v < V; ++v) t.v[v] = src[r * SLD + c + v];
        *reinterpret_cast<tsl_vec16<T> *>(dst + (long long)(r0 + r) * cols + c0 + c) = t;
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (c + v < COLS) tsl_st_guarded(dst, r0 + r, c0 + c + v, rows, cols, src[r * SLD + c + v]);
      }
    }
  }
}

// Per-thread copy between on-chip tiles (shared <-> registers, registers <-> registers):
// element (r, c) of a [ROWS, COLS] tile from src[r * SLD + c] to dst[r * DLD + c]. VEC (a
// compile-time fact the lowering proves from the tile's origin and the shapes) says the shared
// side's rows start 16-byte aligned; then each row moves in 16-byte accesses (LDS.128 /
// STS.128), otherwise element by element.
template <int ROWS, int COLS, int SLD, int DLD, bool VEC, typename T>
TSL_DEVICE void tsl_copy_tile(T *dst, const T *src) {
  constexpr int V = 16 / sizeof(T);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    if constexpr (VEC && COLS % V == 0) {
#pragma unroll
      for (int c = 0; c < COLS; c += V) {
        const tsl_vec16<T> t = *reinterpret_cast<const tsl_vec16<T> *>(src + r * SLD + c);
#pragma unroll
        for (int v = 0; v < V; ++v) dst[r * DLD + c + v] = t.v[v];
      }
    } else {
#pragma unroll
      for (int c = 0; c < COLS; ++c) dst[r * DLD + c] = src[r * SLD + c];
    }
  }
}

// The same for a shared destination (registers -> shared): VEC says the shared rows start
// 16-byte aligned, so each row is written with 16-byte stores (STS.128).
template <int ROWS, int COLS, int SLD, int DLD, bool VEC, typename T>
TSL_DEVICE void tsl_copy_tile_st(T *dst, const T *src) {
  constexpr int V = 16 / sizeof(T);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    if constexpr (VEC && COLS % V == 0) {
#pragma unroll
      for (int c = 0; c < COLS; c += V) {
        tsl_vec16<T> t;
#pragma unroll
        for (int v = 0; v < V; ++v) t.v[v] = src[r * SLD + c + v];
        *reinterpret_cast<tsl_vec16<T> *>(dst + r * DLD + c) = t;
      }
    } else {
#pragma unroll
      for (int c = 0; c < COLS; ++c) dst[r * DLD + c] = src[r * SLD + c];
    }
  }
}

// Copies the [ROWS, COLS] tile at (r0, c0) of a row-major [rows, cols] global tensor into a
// shared tile stored transposed (element (r, c) to dst[c * LD + r]), all THREADS threads of the
// block taking a strided share of 16-byte chunks: one 16-byte load per chunk (LDG.E.128) when it
// is inside the tensor and aligned, zero-filled element loads otherwise, then 16 / sizeof(T)
// scalar shared stores down a column. Synchronous: the caller waits and synchronizes.
template <int ROWS, int COLS, int LD, int THREADS, typename T>
TSL_DEVICE void tsl_copy_g2s_t(T *dst, const T *src, int r0, int c0, int rows, int cols) {
  constexpr int V = 16 / sizeof(T);
  static_assert(COLS % V == 0, "transposed tile rows must be whole 16-byte chunks");
  constexpr int CHUNKS = ROWS * COLS / V;
  constexpr int PER_THREAD = (CHUNKS + THREADS - 1) / THREADS;
  const bool aligned = (cols % V == 0) && (c0 % V == 0);
#pragma unroll
  for (int j = 0; j < PER_THREAD; ++j) {
    const int i = j * THREADS + threadIdx.x;
    if (CHUNKS % THREADS == 0 || i < CHUNKS) {
      const int r = i / (COLS / V);
      const int c = (i % (COLS / V)) * V;
      const int gr = r0 + r, gc = c0 + c;
      tsl_vec16<T> t;
      if (aligned && gr < rows && gc + V <= cols) {
        t = *reinterpret_cast<const tsl_vec16<T> *>(src + (long long)gr * cols + gc);
      } else {
#pragma unroll
        for (int v = 0; v < V; ++v) t.v[v] = tsl_ld_or_zero(src, gr, gc + v, rows, cols);
      }
#pragma unroll
      for (int v = 0; v < V; ++v) dst[(c + v) * LD + r] = t.v[v];
    }
  }
}

// Butterfly all-reduce over the 32 lanes of a warp (SHFL.BFLY): every lane gets the sum / max.
template <typename T> TSL_DEVICE T tsl_warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
template <typename T> TSL_DEVICE T tsl_warp_max(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const T w = __shfl_xor_sync(0xffffffffu, v, o);
    v = w > v ? w : v;
  }
  return v;
}
