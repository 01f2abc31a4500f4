// tessel lowering glue, Hopper path: `mma.store` written element by element from the WGMMA
// accumulator layout at the destination's own row pitch: straight into a global tile
// (bounds-checked at ragged edges), transposed (`mma.store.transp`) or masked
// (`mma.store.mask`), and what a shared -> global `dma.copy` (lowering/simt_store.cuh) needs on
// this path. Needs hopper.cuh (and hopper_wide.cuh for s32 accumulators).
#pragma once

// The element (r, c) of a row-major [rows, cols] tensor, or 0 outside it; and the store of v
// there when (r, c) is inside it, a negative index being outside (the Hopper path's copies of
// lowering/simt.cuh's, whose other helpers need cp.async).
template <typename T> TSL_DEVICE T tsl_ld_or_zero(const T *p, int r, int c, int rows, int cols) {
  return ((unsigned)r < (unsigned)rows && (unsigned)c < (unsigned)cols) ? p[(long long)r * cols + c]
                                                                        : tsl_from_f32<T>(0.0f);
}
template <typename T> TSL_DEVICE void tsl_st_guarded(T *p, int r, int c, int rows, int cols, T v) {
  if ((unsigned)r < (unsigned)rows && (unsigned)c < (unsigned)cols) p[(long long)r * cols + c] = v;
}

// Element i of a fragment in the f32 numbering d[4j + 2h + e] (row 16w + lane/4 + 8h, column
// 8j + 2(lane % 4) + e of the 64xN tile). An f16 fragment packs elements 2i and 2i + 1 into
// register i, the lower column in the low half.
TSL_DEVICE float tsl_acc_at(const float *acc, int i) { return acc[i]; }
TSL_DEVICE int tsl_acc_at(const int *acc, int i) { return acc[i]; }
TSL_DEVICE tsl_f16 tsl_acc_at(const tsl_u32 *acc, int i) {
  const tsl_f16x2 x{acc[i >> 1]};
  return (i & 1) ? tsl_f16x2_hi(x) : tsl_f16x2_lo(x);
}
// An accumulator element as the destination's type (the checker pairs f32 with f32/f16/bf16,
// f16 with f16 and s32 with s32).
template <typename T> struct tsl_acc_cvt {
  static TSL_DEVICE T to(float v) { return tsl_from_f32<T>(v); }
  static TSL_DEVICE T to(int v) { return v; }
  static TSL_DEVICE T to(tsl_f16 v) { return v; }
};

// `mma.store` of fragment columns [c0, c0 + W) (W = N for the whole accumulator): element (r, c)
// of the 64xW slice goes to dst[r * ld + c], or with TRANS to dst[c * ld + r], and is written
// only when r < rows and c < cols. The caller passes the destination's extent from the tile
// origin (in the slice's orientation) clipped by `.mask`'s guards, so a ragged edge of a global
// tensor is never written past. c0 is a multiple of 8 and constant once the loops around the
// store are unrolled, so the register indices below stay register names.
template <int W, bool TRANS, typename T, typename A, int R>
TSL_DEVICE void tsl_acc_store_pitched(A (&acc)[R], int c0, T *dst, long long ld, int rows, int cols) {
  static_assert(W % 8 == 0, "a fragment slice is whole 8-column groups");
  static_assert(sizeof(A) == 4, "accumulator registers are 32-bit");
  // Pin the registers after the wgmma wait (see tsl_pin).
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(*reinterpret_cast<int *>(&acc[i]))::"memory");
  const int t = threadIdx.x & 127;
  const int row = 16 * (t >> 5) + ((t & 31) >> 2);
  const int col = 2 * (t & 3);
#pragma unroll
  for (int j = 0; j < W / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int r = row + 8 * h;
        const int c = 8 * j + col + e;
        if (r < rows && c < cols) {
          const T v = tsl_acc_cvt<T>::to(tsl_acc_at(acc, c0 / 2 + 4 * j + 2 * h + e));
          if constexpr (TRANS) {
            dst[(long long)c * ld + r] = v;
          } else {
            dst[(long long)r * ld + c] = v;
          }
        }
      }
    }
  }
}
// `.mask`: the destination's extent from the tile origin on one side, clipped by the guard.
TSL_DEVICE int tsl_store_bound(int extent, int guard) { return extent < guard ? extent : guard; }
