// tessel lowering glue, Hopper path: the pointer-taking forms of the sm90_hopper.cuh helpers
// that generated code calls (events are `unsigned long long` arrays in shared memory, tiles are
// typed shared pointers), plus accumulator fill/store. Needs prelude.cuh, sm90_hopper.cuh and
// sm90_wgmma.cuh.
#pragma once

TSL_DEVICE void tsl_mbar_init(unsigned long long *bar, int count) { tsl_mbar_init(tsl_smem_addr(bar), (tsl_u32)count); }
TSL_DEVICE void tsl_mbar_arrive(unsigned long long *bar) { tsl_mbar_arrive(tsl_smem_addr(bar)); }
// mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], bytes: add `bytes` of TMA traffic to the
// current phase without arriving (the DSL's `trigger` is the arrival).
TSL_DEVICE void tsl_mbar_expect_tx(unsigned long long *bar, int bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(tsl_smem_addr(bar)), "r"(bytes) : "memory");
}
// Waits for the next phase of barrier `idx` of an event array; `phases` holds this thread's
// parity bit per barrier (bit idx), flipped after every completed wait.
TSL_DEVICE void tsl_mbar_wait_ring(unsigned long long *bars, int idx, unsigned &phases) {
  tsl_mbar_wait(tsl_smem_addr(&bars[idx]), (phases >> idx) & 1u);
  phases ^= 1u << idx;
}
TSL_DEVICE void tsl_mbar_wait_ring(unsigned long long &bar, int idx, unsigned &phases) { tsl_mbar_wait_ring(&bar, idx, phases); }

template <typename T>
TSL_DEVICE void tsl_tma_load_2d(T *dst, const tsl_tensor_map *tm, int c0, int c1, unsigned long long *bar) {
  tsl_tma_load_2d(tsl_smem_addr(dst), tm, c0, c1, tsl_smem_addr(bar));
}
template <typename T> TSL_DEVICE void tsl_tma_store_2d(const tsl_tensor_map *tm, const T *src, int c0, int c1) {
  tsl_tma_store_2d(tm, c0, c1, tsl_smem_addr(src));
}
// Commits the issued TMA stores and waits until their source tile has been read.
TSL_DEVICE void tsl_tma_store_flush() {
  tsl_tma_store_commit();
  tsl_tma_store_wait_read<0>();
}

// WGMMA descriptor of a K-major tile `elems` elements past the shared buffer `base`: rows of
// SWIZ bytes, SWIZ-byte swizzle, 8-row groups SBO = 8 * SWIZ bytes apart (see
// tsl_wgmma_desc_kmajor). The buffer's descriptor depends on `base` only, so it is built once
// (outside the k-loop); the offset, a multiple of 16 bytes, is added to the start-address field
// in the low word, as CUTLASS's descriptor iterator does (shared addresses stay below 2^18, so the
// field cannot carry into the high word). Per WGMMA this is an add and a shift, not a rebuild.
template <int SWIZ, typename T> TSL_DEVICE tsl_u64 tsl_wgmma_desc(const T *base, int elems) {
  const tsl_u64 d0 = tsl_wgmma_desc_kmajor<SWIZ>(tsl_smem_addr(base));
  const tsl_u32 lo = (tsl_u32)d0 + (tsl_u32)(elems * (int)sizeof(T)) / 16u;
  return (d0 & 0xFFFFFFFF00000000ull) | lo;
}

// `mma.fill`: every accumulator register set to v (f16 pairs packed), then pinned.
template <int R> TSL_DEVICE void tsl_acc_fill(float (&acc)[R], float v) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = v;
  tsl_pin(acc);
}
template <int R> TSL_DEVICE void tsl_acc_fill(tsl_u32 (&acc)[R], float v) {
  const tsl_u32 p = tsl_pack_f16x2(v, v);
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = p;
  tsl_pin(acc);
}

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
// `mma.store acc, dst`: the whole fragment into the dense row-major [64, N] tile `dst`.
template <int N, typename T> TSL_DEVICE void tsl_acc_store(float (&acc)[N / 2], T *dst) {
  tsl_acc_store_cols<N, N>(acc, 0, dst);
}
template <int N, typename T> TSL_DEVICE void tsl_acc_store(tsl_u32 (&acc)[N / 4], T *dst) {
  tsl_acc_store_cols<N, N>(acc, 0, dst);
}

// `trigger e` from the threads executing it: one arrival per warp when whole warps reach it
// (PER_WARP, decided at compile time by tsl_warp_uniform), else one per thread.
template <bool PER_WARP> TSL_DEVICE void tsl_mbar_arrive_from(unsigned long long *bar) {
  if constexpr (PER_WARP) {
    __syncwarp();
    if ((threadIdx.x & 31) == 0) tsl_mbar_arrive(bar);
  } else {
    tsl_mbar_arrive(bar);
  }
}
