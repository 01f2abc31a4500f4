#pragma once
// `reduce.sum x : block` / `reduce.max x : block` (after lowering/simt_tiles.cuh, whose warp
// butterflies they use).

// All-reduce over the THREADS threads of a block (whole warps): each warp's butterfly, the
// warps' results through shared memory, then a butterfly over them in every warp, so every
// thread gets the block's sum / max. The second barrier frees the slots for the next call.
// Warps are numbered by the linear thread index, as the hardware forms them.
template <int THREADS, typename T> TSL_DEVICE T tsl_block_sum(T v) {
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
  __shared__ T tsl_partial[THREADS / 32];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  v = tsl_warp_sum(v);
  if (tid % 32 == 0) tsl_partial[tid / 32] = v;
  __syncthreads();
  v = tid % 32 < THREADS / 32 ? tsl_partial[tid % 32] : T(0);
  v = tsl_warp_sum(v);
  __syncthreads();
  return v;
}
template <int THREADS, typename T> TSL_DEVICE T tsl_block_max(T v) {
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
  __shared__ T tsl_partial[THREADS / 32];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  v = tsl_warp_max(v);
  if (tid % 32 == 0) tsl_partial[tid / 32] = v;
  __syncthreads();
  // Lanes past the warp count take warp 0's value: a repeat leaves a maximum unchanged.
  v = tsl_partial[tid % 32 < THREADS / 32 ? tid % 32 : 0];
  v = tsl_warp_max(v);
  __syncthreads();
  return v;
}
