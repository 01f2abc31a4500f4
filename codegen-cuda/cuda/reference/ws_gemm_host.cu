// Standalone nvcc test program for reference/ws_gemm.cu: correctness against cuBLAS and timing.
//
// For each input/accumulator type (f16 -> f32 acc -> f16 out, f16 -> f16 acc -> f16 out,
// bf16 -> f32 acc -> bf16 out), each problem size (4000x3000x4096; 2000x1000x1000, whose K
// tail is zero-filled by TMA; 8192^3) and each kernel configuration it: fills lhs/rhs with fresh
// random values in [-1, 1), computes the reference with cuBLAS in f32 (f32 output), poisons our
// output with 0xFF bytes (NaN), runs the kernel once, compares the FULL output (relative
// Frobenius error, count of non-finite elements), then times it (3 warm-ups, median of 20
// launches, CUDA events) next to cuBLAS with the same input/output/compute types. Prints one
// table row per run. `--quick` checks everything and skips the timing.
//
// Build (sharded so the 60+ template instantiations compile in parallel; see run_ref.sh):
//   nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -I<cuda dir> \
//        -DTSL_SHARD=k -DTSL_NSHARDS=S -c ws_gemm_host.cu     (k = 0..S-1: kernels)
//   nvcc ... -c ws_gemm_host.cu                                 (no TSL_SHARD: main)
//   nvcc ... *.o -lcuda -lcublas -o ws_gemm_bench
// With TSL_NSHARDS undefined a single TU holds everything.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ws_gemm.cu"

#ifndef TSL_NSHARDS
#define TSL_NSHARDS 1
#define TSL_SHARD 0
#define TSL_ONE_TU 1
#endif

// One compiled kernel configuration, registered by the shard TU that instantiated it.
struct TslRefEntry {
  int dtype;  // 0: f16 in, f32 acc; 1: f16 in, f16 acc; 2: bf16 in, f32 acc
  int warp_n, stages, consumers, tile_k, swiz, smem;
  cudaError_t (*prepare)(int *regs);
  cudaError_t (*launch)(const tsl_tensor_map *maps, int M, int N, int K, dim3 grid,
                        cudaStream_t stream);
};

std::vector<TslRefEntry> &tsl_ref_registry();

#ifdef TSL_SHARD
// ---------------------------------------------------------------- kernel shard(s)
// H100/H200 opt-in dynamic shared memory per block (227 KB): larger configurations are not built.
constexpr int kMaxSmem = 232448;

template <int D> struct DTypes;
template <> struct DTypes<0> { typedef tsl_f16 in; typedef float acc; };
template <> struct DTypes<1> { typedef tsl_f16 in; typedef tsl_f16 acc; };
template <> struct DTypes<2> { typedef tsl_bf16 in; typedef float acc; };

template <int D, int WN, int ST, int C, int TK, int SW> struct Cfg {
  typedef typename DTypes<D>::in TIn;
  typedef typename DTypes<D>::acc TAcc;
  static constexpr int smem = tsl_ref_ws_gemm_smem_bytes<WN, ST, C, TK>();
  static cudaError_t prepare(int *regs) {
    auto k = tsl_ref_ws_gemm<WN, ST, C, TK, SW, TIn, TAcc>;
    cudaError_t e = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) return e;
    cudaFuncAttributes a;
    e = cudaFuncGetAttributes(&a, k);
    *regs = a.numRegs;
    return e;
  }
  static cudaError_t launch(const tsl_tensor_map *maps, int M, int N, int K, dim3 grid,
                            cudaStream_t stream) {
    tsl_ref_ws_gemm<WN, ST, C, TK, SW, TIn, TAcc>
        <<<grid, 128 * (C + 1), smem, stream>>>(maps[0], maps[1], maps[2], M, N, K);
    return cudaGetLastError();
  }
};

template <int I, int D, int WN, int ST, int C, int TK, int SW> void tsl_ref_add(
    std::vector<TslRefEntry> &v) {
  if constexpr (I % TSL_NSHARDS == TSL_SHARD &&
                tsl_ref_ws_gemm_smem_bytes<WN, ST, C, TK>() <= kMaxSmem) {
    typedef Cfg<D, WN, ST, C, TK, SW> X;
    v.push_back(TslRefEntry{D, WN, ST, C, TK, SW, X::smem, &X::prepare, &X::launch});
  }
}

// The configuration list: (WARP_N, STAGES, CONSUMERS, TILE_K, SWIZ) per dtype. Entries over the
// shared-memory limit are dropped at compile time (and reported as such by main).
#define TSL_REF_CONFIGS_FOR(X, D)                                                              \
  X(D, 128, 2, 1, 64, 128) X(D, 128, 3, 1, 64, 128) X(D, 128, 4, 1, 64, 128)                    \
  X(D, 192, 2, 1, 64, 128) X(D, 192, 3, 1, 64, 128) X(D, 192, 4, 1, 64, 128)                    \
  X(D, 256, 2, 1, 64, 128) X(D, 256, 3, 1, 64, 128) X(D, 256, 4, 1, 64, 128)                    \
  X(D, 128, 2, 2, 64, 128) X(D, 128, 3, 2, 64, 128) X(D, 128, 4, 2, 64, 128)                    \
  X(D, 192, 2, 2, 64, 128) X(D, 192, 3, 2, 64, 128) X(D, 192, 4, 2, 64, 128)                    \
  X(D, 256, 2, 2, 64, 128) X(D, 256, 3, 2, 64, 128) X(D, 256, 4, 2, 64, 128)                    \
  X(D, 128, 4, 2, 32, 64) X(D, 192, 4, 2, 32, 64) X(D, 256, 4, 2, 32, 64)                       \
  X(D, 176, 3, 2, 64, 128)

static const int kCounterBase = __COUNTER__;
#define TSL_REF_X(D, WN, ST, C, TK, SW) \
  tsl_ref_add<__COUNTER__ - kCounterBase - 1, D, WN, ST, C, TK, SW>(v);

static int tsl_ref_register_shard() {
  std::vector<TslRefEntry> &v = tsl_ref_registry();
  TSL_REF_CONFIGS_FOR(TSL_REF_X, 0)
  TSL_REF_CONFIGS_FOR(TSL_REF_X, 1)
  TSL_REF_CONFIGS_FOR(TSL_REF_X, 2)
  return 0;
}
static int tsl_ref_registered = tsl_ref_register_shard();
#endif

#if !defined(TSL_SHARD) || defined(TSL_ONE_TU)
// ---------------------------------------------------------------- main program
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

std::vector<TslRefEntry> &tsl_ref_registry() {
  static std::vector<TslRefEntry> v;
  return v;
}

#define CK(x)                                                                               \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, \
                  #x);                                                                      \
      std::fflush(stdout);                                                                  \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)
#define CKB(x)                                                                              \
  do {                                                                                      \
    cublasStatus_t s_ = (x);                                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                      \
      std::printf("cuBLAS error %d at %s:%d: %s\n", (int)s_, __FILE__, __LINE__, #x);       \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

static const char *kDtypeName[3] = {"f16>f32acc>f16", "f16>f16acc>f16", "bf16>f32acc>bf16"};

__device__ __forceinline__ unsigned tsl_hash(unsigned x) {
  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
  return x;
}
template <typename T> __global__ void fill_random(T *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const unsigned h = tsl_hash((unsigned)i * 0x9E3779B9U ^ tsl_hash(seed + (unsigned)(i >> 32)));
    p[i] = tsl_from_f32<T>((float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f);
  }
}
// sums[0] += (out - ref)^2, sums[1] += ref^2, bad += non-finite outputs.
template <typename T> __global__ void rel_err(const T *out, const float *ref, size_t n,
                                              double *sums, unsigned long long *bad) {
  __shared__ double s0[256], s1[256];
  __shared__ unsigned long long sb[256];
  double a = 0, b = 0;
  unsigned long long nb = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const float o = tsl_to_f32(out[i]);
    const float r = ref[i];
    if (!isfinite(o)) { ++nb; continue; }
    a += (double)(o - r) * (double)(o - r);
    b += (double)r * (double)r;
  }
  s0[threadIdx.x] = a; s1[threadIdx.x] = b; sb[threadIdx.x] = nb;
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if ((int)threadIdx.x < k) {
      s0[threadIdx.x] += s0[threadIdx.x + k];
      s1[threadIdx.x] += s1[threadIdx.x + k];
      sb[threadIdx.x] += sb[threadIdx.x + k];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&sums[0], s0[0]);
    atomicAdd(&sums[1], s1[0]);
    atomicAdd(bad, sb[0]);
  }
}

struct ErrResult { double rel; unsigned long long bad; };

static ErrResult compare(int dtype, const void *out, const float *ref, size_t n, double *d_sums,
                         unsigned long long *d_bad) {
  CK(cudaMemset(d_sums, 0, 2 * sizeof(double)));
  CK(cudaMemset(d_bad, 0, sizeof(unsigned long long)));
  if (dtype == 2)
    rel_err<<<1024, 256>>>((const tsl_bf16 *)out, ref, n, d_sums, d_bad);
  else
    rel_err<<<1024, 256>>>((const tsl_f16 *)out, ref, n, d_sums, d_bad);
  CK(cudaGetLastError());
  double h[2];
  unsigned long long b;
  CK(cudaMemcpy(h, d_sums, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&b, d_bad, sizeof b, cudaMemcpyDeviceToHost));
  return ErrResult{std::sqrt(h[0] / (h[1] > 0 ? h[1] : 1.0)), b};
}

static bool encode_2d(tsl_tensor_map *out, CUtensorMapDataType dt, void *base, unsigned long long inner,
                      unsigned long long outer, unsigned box_inner, unsigned box_outer,
                      CUtensorMapSwizzle sw) {
  CUtensorMap m;
  cuuint64_t dims[2] = {inner, outer};
  cuuint64_t strides[1] = {inner * 2};
  cuuint32_t box[2] = {box_inner, box_outer};
  cuuint32_t es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&m, dt, 2, base, dims, strides, box, es,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled failed (%d): dims {%llu, %llu} box {%u, %u} swizzle %d\n",
                (int)r, inner, outer, box_inner, box_outer, (int)sw);
    return false;
  }
  static_assert(sizeof(CUtensorMap) == sizeof(tsl_tensor_map), "tensor map size");
  std::memcpy(out, &m, sizeof m);
  return true;
}

static CUtensorMapSwizzle swizzle_enum(int bytes) {
  return bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                      : (bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_32B);
}

// Builds lhs, rhs, out tensor maps for one configuration (host side of ws_gemm.cu's contract).
static bool build_maps(const TslRefEntry &e, void *lhs, void *rhs, void *out, int M, int N, int K,
                       tsl_tensor_map maps[3]) {
  const CUtensorMapDataType dt =
      e.dtype == 2 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const unsigned kb = e.swiz / 2;
  const bool swz_out = e.warp_n % 64 == 0;
  return encode_2d(&maps[0], dt, lhs, K, M, kb, 64 * e.consumers, swizzle_enum(e.swiz)) &&
         encode_2d(&maps[1], dt, rhs, K, N, kb, e.warp_n, swizzle_enum(e.swiz)) &&
         encode_2d(&maps[2], dt, out, N, M, swz_out ? 64 : e.warp_n, 64,
                   swz_out ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE);
}

// Median milliseconds of `reps` launches of f after `warm` warm-ups, each timed with events.
template <typename F> static float time_median(F f, int warm = 3, int reps = 20) {
  for (int i = 0; i < warm; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto &x : ev) CK(cudaEventCreate(&x));
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(ev[2 * i]));
    f();
    CK(cudaEventRecord(ev[2 * i + 1]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<float> ms(reps);
  for (int i = 0; i < reps; ++i) CK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
  for (auto &x : ev) CK(cudaEventDestroy(x));
  std::sort(ms.begin(), ms.end());
  return 0.5f * (ms[reps / 2 - 1] + ms[reps / 2]);
}

// out (row-major [M,N], type of C) = lhs[M,K] . rhs[N,K]^T through cuBLAS (column-major view:
// out^T[N,M] = rhs^T^T ... i.e. C = op(A) B with A = rhs (K x N, transposed), B = lhs (K x M)).
static void cublas_gemm(cublasHandle_t h, int dtype, bool ref_f32, const void *lhs,
                        const void *rhs, void *out, int M, int N, int K) {
  const cudaDataType ab = dtype == 2 ? CUDA_R_16BF : CUDA_R_16F;
  const cudaDataType c = ref_f32 ? CUDA_R_32F : ab;
  if (!ref_f32 && dtype == 1) {
    const __half one = __float2half(1.0f), zero = __float2half(0.0f);
    CKB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, rhs, ab, K, lhs, ab, K, &zero,
                     out, c, N, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT));
  } else {
    const float one = 1.0f, zero = 0.0f;
    CKB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, rhs, ab, K, lhs, ab, K, &zero,
                     out, c, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

static void fill(int dtype, void *p, size_t n, unsigned seed) {
  if (dtype == 2)
    fill_random<<<2048, 256>>>((tsl_bf16 *)p, n, seed);
  else
    fill_random<<<2048, 256>>>((tsl_f16 *)p, n, seed);
  CK(cudaGetLastError());
}

int main(int argc, char **argv) {
  // --quick: check only, no timing; --big: only 8192^3; --filter S: only configs whose
  // "WN/ST/C/TK/SW" text contains S.
  bool quick = false, big_only = false;
  const char *filter = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--big") == 0) big_only = true;
    else if (std::strcmp(argv[i], "--filter") == 0 && i + 1 < argc) filter = argv[++i];
    else { std::printf("unknown argument %s\n", argv[i]); return 2; }
  }
  std::printf("raster: grouped, TSL_REF_GROUP_M = %d m-tiles per group\n", TSL_REF_GROUP_M);
  CK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int optin = 0;
  CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  std::printf("device: %s, %d SMs, smem opt-in %d B, L2 %d MB\n", prop.name,
              prop.multiProcessorCount, optin, prop.l2CacheSize >> 20);
  std::vector<TslRefEntry> entries = tsl_ref_registry();
  std::sort(entries.begin(), entries.end(), [](const TslRefEntry &a, const TslRefEntry &b) {
    if (a.dtype != b.dtype) return a.dtype < b.dtype;
    if (a.tile_k != b.tile_k) return a.tile_k > b.tile_k;
    if (a.consumers != b.consumers) return a.consumers < b.consumers;
    if (a.warp_n != b.warp_n) return a.warp_n < b.warp_n;
    return a.stages < b.stages;
  });
  std::printf("%zu kernel configurations registered\n", entries.size());

  cublasHandle_t cb;
  CKB(cublasCreate(&cb));
  struct Size { int M, N, K; };
  // Irregular size first (clipped stores, skipped row blocks), then a K-tail size (1000 = 15
  // tiles of 64 + 40: zero-filled TMA boxes), then the big one.
  const Size sizes[3] = {{4000, 3000, 4096}, {2000, 1000, 1000}, {8192, 8192, 8192}};
  const size_t max_mk = 8192ull * 8192, max_mn = 8192ull * 8192;
  void *lhs, *rhs, *out, *cbout;
  float *ref;
  double *d_sums;
  unsigned long long *d_bad;
  CK(cudaMalloc(&lhs, max_mk * 2));
  CK(cudaMalloc(&rhs, max_mk * 2));
  CK(cudaMalloc(&out, max_mn * 2));
  CK(cudaMalloc(&cbout, max_mn * 2));
  CK(cudaMalloc(&ref, max_mn * 4));
  CK(cudaMalloc(&d_sums, 2 * sizeof(double)));
  CK(cudaMalloc(&d_bad, sizeof(unsigned long long)));

  int failures = 0;
  std::vector<std::string> table;
  char line[512];
  std::snprintf(line, sizeof line, "%-17s %-15s %-16s %4s %4s %9s %6s %8s %7s %6s %s", "types",
                "M x N x K", "WN/ST/C/TK/SW", "regs", "smKB", "rel.err", "bad", "ms", "TFLOP/s",
                "xcuBLAS", "status");
  const std::string header = line;
  std::printf("%s\n", header.c_str());
  unsigned seed = 1234;
  for (int dtype = 0; dtype < 3; ++dtype) {
    for (const Size &sz : sizes) {
      const int M = sz.M, N = sz.N, K = sz.K;
      if (big_only && M != 8192) continue;
      const double flops = 2.0 * M * N * K;
      const size_t mn = (size_t)M * N;
      fill(dtype, lhs, (size_t)M * K, seed++);
      fill(dtype, rhs, (size_t)N * K, seed++);
      cublas_gemm(cb, dtype, true, lhs, rhs, ref, M, N, K);
      CK(cudaDeviceSynchronize());
      // cuBLAS with our types: its own error vs the f32 reference, and its time.
      CK(cudaMemset(cbout, 0xFF, mn * 2));
      cublas_gemm(cb, dtype, false, lhs, rhs, cbout, M, N, K);
      CK(cudaDeviceSynchronize());
      const ErrResult cbe = compare(dtype, cbout, ref, mn, d_sums, d_bad);
      const float cb_ms = quick ? 1.0f : time_median([&] { cublas_gemm(cb, dtype, false, lhs, rhs, cbout, M, N, K); });
      std::snprintf(line, sizeof line, "%-17s %5dx%4dx%4d %-16s %4s %4s %9.2e %6llu %8.3f %7.1f %6.3f %s",
                    kDtypeName[dtype], M, N, K, "cuBLAS", "-", "-", cbe.rel, cbe.bad, cb_ms,
                    flops / cb_ms * 1e-9, 1.0, "ref");
      std::printf("%s\n", line);
      std::fflush(stdout);
      table.push_back(line);
      // Pass threshold: f32 accumulation -> output rounding only; f16 accumulation -> within
      // 2x of cuBLAS's own f16-accumulate error.
      const double tol = dtype == 0 ? 2e-3 : (dtype == 2 ? 1e-2 : std::max(1e-2, 2.0 * cbe.rel));
      float best_ms = 1e30f;
      int best = -1;
      for (size_t ei = 0; ei < entries.size(); ++ei) {
        const TslRefEntry &e = entries[ei];
        if (e.dtype != dtype) continue;
        char cfg[64];
        std::snprintf(cfg, sizeof cfg, "%d/%d/%d/%d/%d", e.warp_n, e.stages, e.consumers,
                      e.tile_k, e.swiz);
        if (filter && !std::strstr(cfg, filter)) continue;
        int regs = 0;
        if (e.smem > optin) {
          std::printf("%-17s %-15s %-16s skipped: %d B shared memory > %d\n", kDtypeName[dtype], "", cfg, e.smem, optin);
          continue;
        }
        CK(e.prepare(&regs));
        tsl_tensor_map maps[3];
        if (!build_maps(e, lhs, rhs, out, M, N, K, maps)) { ++failures; continue; }
        const int tile_m = 64 * e.consumers;
        const dim3 grid((unsigned)(((M + tile_m - 1) / tile_m) * ((N + e.warp_n - 1) / e.warp_n)));
        CK(cudaMemset(out, 0xFF, mn * 2));
        CK(e.launch(maps, M, N, K, grid, 0));
        CK(cudaDeviceSynchronize());
        const ErrResult er = compare(dtype, out, ref, mn, d_sums, d_bad);
        const bool ok = er.bad == 0 && er.rel <= tol;
        if (!ok) ++failures;
        const float ms = quick ? 1.0f : time_median([&] { CK(e.launch(maps, M, N, K, grid, 0)); });
        if (ok && ms < best_ms) { best_ms = ms; best = (int)ei; }
        std::snprintf(line, sizeof line, "%-17s %5dx%4dx%4d %-16s %4d %4d %9.2e %6llu %8.3f %7.1f %6.3f %s",
                      kDtypeName[dtype], M, N, K, cfg, regs, e.smem >> 10, er.rel, er.bad, ms,
                      flops / ms * 1e-9, cb_ms / ms, ok ? "ok" : "FAIL");
        std::printf("%s\n", line);
        std::fflush(stdout);
        table.push_back(line);
      }
      // Best configuration once more with a 2-D grid (plain M-fastest block order, no grouping).
      if (best >= 0 && !quick) {
        const TslRefEntry &e = entries[best];
        tsl_tensor_map maps[3];
        build_maps(e, lhs, rhs, out, M, N, K, maps);
        const int tile_m = 64 * e.consumers;
        const dim3 grid((M + tile_m - 1) / tile_m, (N + e.warp_n - 1) / e.warp_n);
        CK(cudaMemset(out, 0xFF, mn * 2));
        CK(e.launch(maps, M, N, K, grid, 0));
        CK(cudaDeviceSynchronize());
        const ErrResult er = compare(dtype, out, ref, mn, d_sums, d_bad);
        const bool ok = er.bad == 0 && er.rel <= tol;
        if (!ok) ++failures;
        const float ms = time_median([&] { CK(e.launch(maps, M, N, K, grid, 0)); });
        char cfg[64];
        std::snprintf(cfg, sizeof cfg, "%d/%d/%d/%d/%d 2D", e.warp_n, e.stages, e.consumers,
                      e.tile_k, e.swiz);
        std::snprintf(line, sizeof line, "%-17s %5dx%4dx%4d %-16s %4s %4d %9.2e %6llu %8.3f %7.1f %6.3f %s",
                      kDtypeName[dtype], M, N, K, cfg, "", e.smem >> 10, er.rel, er.bad, ms,
                      flops / ms * 1e-9, cb_ms / ms, ok ? "ok" : "FAIL");
        std::printf("%s\n", line);
        std::fflush(stdout);
        table.push_back(line);
      }
    }
  }
  std::printf("\n==== summary (%s) ====\n%s\n", prop.name, header.c_str());
  for (auto &l : table) std::printf("%s\n", l.c_str());
  std::printf("%s: %d failing run(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
#endif
