// tessel lowering glue, Hopper path: `mma.store` of a column slice of an accumulator (see
// dsl-core/src/lower/hopper.rs). Included only in kernels that store one. Needs prelude.cuh and
// sm90_hopper.cuh.
#pragma once

// `mma.store acc.<slice>, dst`: columns [c0, c0 + W) of this warpgroup's 64xN fragment into the
// dense row-major [64, W] shared tile `dst`. An f32 fragment holds column 8j + 2(lane % 4) + e in
// d[4j + 2h + e] (an f16 one in d[2j + h]), so with c0 and W multiples of 8 the slice is registers
// [c0/2, (c0 + W)/2) (f16: [c0/4, (c0 + W)/4)) in the order of a 64xW fragment. c0 is a constant
// once the loop around the store is unrolled (the checker's register-tile rule, E0906), so the
// indices below stay register names, not local memory.
template <int N, int W, typename T> TSL_DEVICE void tsl_acc_store_cols(float (&acc)[N / 2], int c0, T *dst) {
  static_assert(W % 8 == 0 && N % W == 0, "a fragment slice is whole 8-column groups dividing N");
  tsl_pin(acc);
  tsl_u32 p[W / 4];
#pragma unroll
  for (int i = 0; i < W / 4; ++i) p[i] = tsl_pack2<T>(acc[c0 / 2 + 2 * i], acc[c0 / 2 + 2 * i + 1]);
  tsl_acc_store_smem<W, TSL_OUT_ROWMAJOR>(p, tsl_smem_addr(dst));
}
template <int N, int W, typename T> TSL_DEVICE void tsl_acc_store_cols(tsl_u32 (&acc)[N / 4], int c0, T *dst) {
  static_assert(W % 8 == 0 && N % W == 0, "a fragment slice is whole 8-column groups dividing N");
  tsl_pin(acc);
  tsl_u32 p[W / 4];
#pragma unroll
  for (int i = 0; i < W / 4; ++i) p[i] = acc[c0 / 4 + i];
  tsl_acc_store_smem<W, TSL_OUT_ROWMAJOR>(p, tsl_smem_addr(dst));
}
