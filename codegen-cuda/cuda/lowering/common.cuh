// tessel lowering glue, all paths: the integer helpers that generated index arithmetic and
// constants use, and the compile-time thread counter behind mbarrier arrival counts.
#pragma once

__host__ __device__ constexpr int tsl_cdiv(int a, int b) { return (a + b - 1) / b; }
__host__ __device__ constexpr int tsl_min(int a, int b) { return a < b ? a : b; }
__host__ __device__ constexpr int tsl_max(int a, int b) { return a > b ? a : b; }
__host__ __device__ constexpr int tsl_align_up(int x, int a) { return (x + a - 1) / a * a; }

// Number of thread indices in [0, T) for which `pred(tid)` holds, evaluated by the C++ compiler:
// an event's arrival count is the number of threads that reach its `trigger`.
template <int T, typename F> __host__ __device__ constexpr int tsl_count_threads(F pred) {
  int n = 0;
  for (int tid = 0; tid < T; ++tid) n += pred(tid) ? 1 : 0;
  return n;
}

// Dynamic shared memory, rounded up to `A` bytes (the launch adds A bytes of slack).
extern __shared__ unsigned char tsl_smem_raw[];
template <int A> TSL_DEVICE unsigned char *tsl_smem_base() {
  const tsl_u32 off = tsl_smem_addr(tsl_smem_raw);
  return tsl_smem_raw + ((A - (off % A)) % A);
}

// Whether `pred` is uniform within every warp of a T-thread block (then an event's arrivals
// can be one per warp instead of one per thread). Never for a block with a partial warp: its
// arrivals per warp would not be T / 32, and __syncwarp() needs every lane.
template <int T, typename F> __host__ __device__ constexpr bool tsl_warp_uniform(F pred) {
  if (T % 32 != 0) return false;
  for (int w = 0; w < T; w += 32)
    for (int l = 1; l < 32 && w + l < T; ++l)
      if (pred(w + l) != pred(w)) return false;
  return true;
}
