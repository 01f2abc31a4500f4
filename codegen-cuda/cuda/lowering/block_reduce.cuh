#pragma once
// `reduce.sum x : block` / `reduce.max x : block` (after lowering/simt_tiles.cuh, whose warp
// butterflies they use): each warp's butterfly, the warps' results met in shared memory, then
// a butterfly over them in every warp, so every thread gets the block's sum / max.

// Warp w's value (lane 0's) into slot w; back, each lane of every warp takes slot `lane` — past
// the warp count `fill`'s value (0 for a sum), or slot 0's for a maximum, which a repeat leaves
// unchanged. The second barrier frees the slots for the next call. Warps are numbered by the
// linear thread index, as the hardware forms them.
template <int THREADS, typename T> TSL_DEVICE T tsl_warps_meet(T v, bool repeat_first, T fill) {
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
  __shared__ T tsl_partial[THREADS / 32];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  if (tid % 32 == 0) tsl_partial[tid / 32] = v;
  __syncthreads();
  const int lane = tid % 32;
  v = lane < THREADS / 32 ? tsl_partial[lane] : repeat_first ? tsl_partial[0] : fill;
  __syncthreads();
  return v;
}
template <int THREADS, typename T> TSL_DEVICE T tsl_block_sum(T v) {
  return tsl_warp_sum(tsl_warps_meet<THREADS>(tsl_warp_sum(v), false, T(0)));
}
template <int THREADS, typename T> TSL_DEVICE T tsl_block_max(T v) {
  return tsl_warp_max(tsl_warps_meet<THREADS>(tsl_warp_max(v), true, v));
}
