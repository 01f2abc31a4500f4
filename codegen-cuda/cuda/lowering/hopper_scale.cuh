// tessel lowering glue, Hopper path: `mma.<a>.<b>.scale acc, a, b, scale_a, scale_b` — block-
// scaled GEMM (per-row scales of A, one scale per block of B, as in DeepSeek-style fp8 GEMMs).
// Each scaled mma computes its product into an f32 partial fragment and adds it, scaled, into
// the accumulator in f32. Needs hopper.cuh.
#pragma once

// The K-steps of one scaled mma into `part`: the first with scale-d 0 (part = A*B, its old
// values ignored), the rest accumulating; each K-step reads 32 bytes of K further (+2 in the
// descriptors' >>4 start-address field, see tsl_wgmma_desc_k_step).
template <typename OP, int STEPS, int NR> TSL_DEVICE void tsl_wgmma_k_steps_fresh(float (&part)[NR], tsl_u64 da, tsl_u64 db) {
#pragma unroll
  for (int ks = 0; ks < STEPS; ++ks) OP::mma(part, da + (tsl_u64)(2 * ks), db + (tsl_u64)(2 * ks), ks > 0);
}

// The scale of this thread's two accumulator rows (16w + lane/4 and +8) from an [M, 1] column
// of per-row scales with row pitch `ld`; a row at or past `rows` (outside the tensor) gets 0.
TSL_DEVICE void tsl_row_scales(const float *sl, long long ld, int rows, float sr, float &s0, float &s1) {
  const int t = threadIdx.x & 127;
  const int r = 16 * (t >> 5) + ((t & 31) >> 2);
  s0 = r < rows ? sl[(long long)r * ld] * sr : 0.0f;
  s1 = r + 8 < rows ? sl[(long long)(r + 8) * ld] * sr : 0.0f;
}

// acc += s(row) * part over the f32 numbering d[4j + 2h + e] (row 16w + lane/4 + 8h): element i
// belongs to the second row when bit 1 of i is set. An f16 accumulator adds in f32 and repacks.
template <int R> TSL_DEVICE void tsl_acc_scale_add2(float (&acc)[R], float (&part)[R], float s0, float s1) {
  tsl_pin(part);
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] += ((i >> 1) & 1 ? s1 : s0) * part[i];
  tsl_pin(acc);
}
template <int R> TSL_DEVICE void tsl_acc_scale_add2(tsl_u32 (&acc)[R], float (&part)[2 * R], float s0, float s1) {
  tsl_pin(part);
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const tsl_f16x2 x{acc[i]};
    const float s = (i & 1) ? s1 : s0;  // register i = 2j + h holds row h's pair
    const float lo = tsl_to_f32(tsl_f16x2_lo(x)) + s * part[2 * i];
    const float hi = tsl_to_f32(tsl_f16x2_hi(x)) + s * part[2 * i + 1];
    acc[i] = tsl_pack_f16x2(lo, hi);
  }
  tsl_pin(acc);
}
// Per-row scales of A read from a column, times B's scale.
template <typename A, int R, int P>
TSL_DEVICE void tsl_acc_scale_add(A (&acc)[R], float (&part)[P], const float *sl, long long ld, int rows, float sr) {
  float s0, s1;
  tsl_row_scales(sl, ld, rows, sr, s0, s1);
  tsl_acc_scale_add2(acc, part, s0, s1);
}
// One scale of A (per tensor or per block), times B's scale.
template <typename A, int R, int P> TSL_DEVICE void tsl_acc_scale_add(A (&acc)[R], float (&part)[P], float sl, float sr) {
  tsl_acc_scale_add2(acc, part, sl * sr, sl * sr);
}
