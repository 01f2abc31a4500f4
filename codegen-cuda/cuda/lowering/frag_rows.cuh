// tessel `frag` tiles in an accumulator layout: row fragments, `copy`, `{v}` fills and row
// reductions (with lowering/frag_elem.cuh, whose element numbering they share).
#pragma once

// Row fragments (`frag f32 [M] v;`): one value per accumulator row, held by the threads that
// own that row (the four threads of a quad). A thread holds S rows, slot s:
//   mma.sync: row (s / (MB / 8)) MB + g + 8 (s % (MB / 8)), S = (M / MB) (MB / 8);
//   WGMMA:    row 16 (t / 32) + (t % 32) / 4 + 8 s, S = 2.
// Element e of an accumulator (or of an [M, N] fragment in its layout) lies in slot
//   mma.sync: (e / 4 / FN) (MB / 8) + (e % 4) / 2;  WGMMA: (e / 2) % 2.
template <int FN, int MB> TSL_DEVICE int tsl_frag_warp_slot(int e) {
  return (e / 4 / FN) * (MB / 8) + (e % 4) / 2;
}
template <int MB> TSL_DEVICE int tsl_frag_warp_slot_row(int s) {
  const int g = (threadIdx.x % 32) / 4;
  return (s / (MB / 8)) * MB + g + 8 * (s % (MB / 8));
}
TSL_DEVICE int tsl_frag_wgmma_slot(int e) { return (e >> 1) & 1; }
TSL_DEVICE int tsl_frag_wgmma_slot_row(int s) {
  const int t = threadIdx.x & 127;
  return 16 * (t >> 5) + ((t & 31) >> 2) + 8 * s;
}

// Element e of a fragment as a float, and written from one.
TSL_DEVICE float tsl_frag_get(const float *x, int e) { return x[e]; }
TSL_DEVICE float tsl_frag_get(const int *x, int e) { return (float)x[e]; }
TSL_DEVICE float tsl_frag_get(const tsl_u32 *x, int e) {
  const tsl_f16x2 p{x[e >> 1]};
  return tsl_f16_to_f32((e & 1) ? tsl_f16x2_hi(p) : tsl_f16x2_lo(p));
}
TSL_DEVICE void tsl_frag_set(float *x, int e, float v) { x[e] = v; }
TSL_DEVICE void tsl_frag_set(tsl_u32 *x, int e, float v) { tsl_frag_f16(x, e) = v; }
// Elements per register: two in an f16 fragment's 32-bit registers.
template <typename T> struct tsl_frag_per_reg { static constexpr int value = 1; };
template <> struct tsl_frag_per_reg<tsl_u32> { static constexpr int value = 2; };

// `frag … x {v};`: every element starts at v.
template <int R> TSL_DEVICE void tsl_frag_fill(float (&x)[R], float v) {
#pragma unroll
  for (int i = 0; i < R; ++i) x[i] = v;
}
template <int R> TSL_DEVICE void tsl_frag_fill(tsl_u32 (&x)[R], float v) {
  const tsl_u32 p = tsl_pack_f16x2(v, v);
#pragma unroll
  for (int i = 0; i < R; ++i) x[i] = p;
}

// `copy(dst, src);` between fragments of one shape and layout (element by element, converted).
template <typename D, int R, typename S, int Q> TSL_DEVICE void tsl_frag_copy(D (&dst)[R], S (&src)[Q]) {
  constexpr int E = R * tsl_frag_per_reg<D>::value;
  static_assert(E == Q * tsl_frag_per_reg<S>::value, "fragments of one shape");
#pragma unroll
  for (int e = 0; e < E; ++e) tsl_frag_set(dst, e, tsl_frag_get(src, e));
}

// Row reductions (`reduce_max(v, acc, 1)`, `reduce_sum`, `reduce_min`): v[s] becomes OP over
// the elements of slot s's row, first the thread's own, then across the quad that holds the
// row (lanes differing in bits 0 and 1). OP: 0 sum, 1 max, 2 min.
template <int OP> TSL_DEVICE float tsl_frag_op(float a, float b) {
  return OP == 0 ? a + b : (OP == 1 ? fmaxf(a, b) : fminf(a, b));
}
template <int OP> TSL_DEVICE float tsl_frag_quad(float x) {
  x = tsl_frag_op<OP>(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return tsl_frag_op<OP>(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
template <int OP> TSL_DEVICE float tsl_frag_identity() {
  return OP == 0 ? 0.0f : (OP == 1 ? -__int_as_float(0x7f800000) : __int_as_float(0x7f800000));
}
template <int OP, int FM, int FN, int MB, int S, typename A>
TSL_DEVICE void tsl_frag_warp_reduce(float (&v)[S], const A *acc) {
  static_assert(S == FM * (MB / 8), "one value per row of the source");
#pragma unroll
  for (int s = 0; s < S; ++s) {
    float x = tsl_frag_identity<OP>();
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int p = 0; p < 2; ++p)
        x = tsl_frag_op<OP>(x, tsl_frag_get(acc, ((s / (MB / 8)) * FN + j) * 4 + 2 * (s % (MB / 8)) + p));
    v[s] = tsl_frag_quad<OP>(x);
  }
}
template <int OP, int N, typename A> TSL_DEVICE void tsl_frag_wgmma_reduce(float (&v)[2], const A *acc) {
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    float x = tsl_frag_identity<OP>();
#pragma unroll
    for (int j = 0; j < N / 8; ++j)
#pragma unroll
      for (int p = 0; p < 2; ++p) x = tsl_frag_op<OP>(x, tsl_frag_get(acc, 4 * j + 2 * s + p));
    v[s] = tsl_frag_quad<OP>(x);
  }
}
// `all_reduce_sum(v);` (`_max`, `_min`): each slot's value combined across the quad that holds
// the row (after `apply` summed a thread's own elements of each row into v).
template <int OP, int S> TSL_DEVICE void tsl_frag_all_reduce(float (&v)[S]) {
#pragma unroll
  for (int s = 0; s < S; ++s) v[s] = tsl_frag_quad<OP>(v[s]);
}
