// The warp-level (mma.sync) GEMM sweep: the mma.sync ceiling of this GPU, then every variant of
// `kernels/v2_warp_mma.co` and `kernels/v2_warp_pipe.co` (as `tessel emit` writes them, each in
// a namespace of its own) at 8192³ f16 → f16 with f32 accumulation, timed against cuBLAS
// (cublasGemmEx, f16 in, f32 compute, the same row-major NT layout) in this one process and
// verified over EVERY output against cuBLAS's, then once more at two ragged shapes (verified
// only). One table; `warp_sweep.sh` builds and runs it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cublas_v2.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace v2w {
#include "v2w.cu"
}
namespace v2p {
#include "v2p.cu"
}
namespace v2t {
#include "v2t.cu"
}
#include "warp_tma.cu"

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__);    \
      exit(2);                                                                   \
    }                                                                            \
  } while (0)

// Each warp: ACC independent m16n8k16 accumulators, `iters` rounds: the instruction's ceiling.
template <int ACC>
__global__ void __launch_bounds__(256) mma_peak(float* out, int iters) {
  unsigned a0 = threadIdx.x, a1 = a0 * 3, a2 = a0 * 5, a3 = a0 * 7, b0 = a0 * 11, b1 = a0 * 13;
  float c[ACC][4] = {};
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < ACC; ++j)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%0,%1,%2,%3};"
          : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  float s = 0;
  for (int j = 0; j < ACC; ++j) s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
  if (s == 1.2345f) out[0] = s;
}

__global__ void fill(__half* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;
    p[i] = __float2half(((h & 0xffff) / 65535.0f) - 0.5f);
  }
}

// Every output against the reference: |got - ref| <= atol + rtol |ref| (f16 outputs of f32
// sums of K products in [-0.25, 0.25]: both round to f16, the sums differ in order only).
__global__ void compare(const __half* got, const __half* ref, size_t n, float atol, float rtol,
                        unsigned long long* bad, float* maxerr) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    float g = __half2float(got[i]), r = __half2float(ref[i]);
    float e = fabsf(g - r);
    if (!(e <= atol + rtol * fabsf(r))) atomicAdd(bad, 1ull);
    // Non-negative floats order as their bits.
    atomicMax((int*)maxerr, __float_as_int(isnan(e) ? INFINITY : e));
  }
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename F>
static float time_ms(F f, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ts;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    ts.push_back(ms);
  }
  return median(ts);
}

struct Problem {
  int M, N, K;
  __half *A, *B, *C, *R;
};

static cublasHandle_t g_blas;

static void cublas_gemm(const Problem& p) {
  const float one = 1, zero = 0;
  // Row-major C[M, N] = A[M, K] · B[N, K]ᵀ is column-major Cᵀ[N, M] = Bᵀ… : op(B) = T.
  cublasGemmEx(g_blas, CUBLAS_OP_T, CUBLAS_OP_N, p.N, p.M, p.K, &one, p.B, CUDA_R_16F, p.K, p.A,
               CUDA_R_16F, p.K, &zero, p.R, CUDA_R_16F, p.N, CUBLAS_COMPUTE_32F,
               CUBLAS_GEMM_DEFAULT);
}

static Problem make(int M, int N, int K, unsigned seed) {
  Problem p{M, N, K};
  CK(cudaMalloc(&p.A, (size_t)M * K * 2));
  CK(cudaMalloc(&p.B, (size_t)N * K * 2));
  CK(cudaMalloc(&p.C, (size_t)M * N * 2));
  CK(cudaMalloc(&p.R, (size_t)M * N * 2));
  fill<<<1024, 256>>>(p.A, (size_t)M * K, seed);
  fill<<<1024, 256>>>(p.B, (size_t)N * K, seed * 7 + 1);
  CK(cudaMemset(p.R, 0, (size_t)M * N * 2));
  cublas_gemm(p);
  CK(cudaDeviceSynchronize());
  return p;
}

static void release(Problem& p) {
  cudaFree(p.A);
  cudaFree(p.B);
  cudaFree(p.C);
  cudaFree(p.R);
}

// The verdict of C against R: (outputs out of tolerance, max |error|).
static std::pair<unsigned long long, float> verify(const Problem& p) {
  unsigned long long* bad;
  float* maxerr;
  CK(cudaMalloc(&bad, 8));
  CK(cudaMalloc(&maxerr, 4));
  CK(cudaMemset(bad, 0, 8));
  CK(cudaMemset(maxerr, 0, 4));
  compare<<<1024, 256>>>(p.C, p.R, (size_t)p.M * p.N, 0.02f, 0.01f, bad, maxerr);
  unsigned long long b;
  float e;
  CK(cudaMemcpy(&b, bad, 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&e, maxerr, 4, cudaMemcpyDeviceToHost));
  cudaFree(bad);
  cudaFree(maxerr);
  return {b, e};
}

struct Row {
  const char* kernel;
  char cfg[96];
  int regs, spill;
  float ms, tflops, vs;
  unsigned long long bad, bad_ragged;
  float err, err_ragged;
};

static std::vector<Row> g_rows;
// `warp_sweep PREFIX`: only the variants whose "kernel cfg" starts with PREFIX (one kind, or
// one variant for ncu).
static const char* g_filter = nullptr;
static bool selected(const char* kernel, const char* cfg) {
  if (!g_filter) return true;
  std::string name = std::string(kernel) + " " + cfg;
  return name.rfind(g_filter, 0) == 0;
}
static Problem g_big, g_ragged[2];
static float g_ref_ms;

// The element type of a kernel's pointers (each emitted file has its own `tsl_f16`).
template <typename K>
struct KernArg;
template <typename T_>
struct KernArg<void (*)(const T_*, const T_*, T_*, int, int, int)> {
  typedef T_ T;
};

// One variant: launch(kernel launcher) at 8192³ (timed + verified) and the ragged shapes.
template <typename Kern>
static void run(const char* name, const char* cfg, Kern k, int BM, int BN, int BK, int WM, int WN,
                int ST) {
  if (!selected(name, cfg)) return;
  Row r{};
  r.kernel = name;
  snprintf(r.cfg, sizeof r.cfg, "%s", cfg);
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, k));
  r.regs = fa.numRegs;
  r.spill = (int)fa.localSizeBytes;
  int smem = ((ST * (BM * (BK + 8)) * 2 + 127) / 128) * 128 + ST * (BN * (BK + 8)) * 2 + 128;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int threads = BM / WM * (BN / WN) * 32;
  int blocks_per_sm = -1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, k, threads, smem) !=
      cudaSuccess) {
    blocks_per_sm = -1;
    cudaGetLastError();
  }
  auto launch = [&](const Problem& p) {
    int grid = ((p.M + BM - 1) / BM) * ((p.N + BN - 1) / BN);
    k<<<grid, threads, smem>>>((const typename KernArg<Kern>::T*)p.A,
                               (const typename KernArg<Kern>::T*)p.B,
                               (typename KernArg<Kern>::T*)p.C, p.M, p.K, p.N);
  };
  CK(cudaMemset(g_big.C, 0xff, (size_t)g_big.M * g_big.N * 2));
  r.ms = time_ms([&] { launch(g_big); }, 20);
  CK(cudaGetLastError());
  r.tflops = 2.0 * g_big.M * g_big.N * g_big.K / (r.ms * 1e-3) / 1e12;
  r.vs = g_ref_ms / r.ms;
  auto v = verify(g_big);
  r.bad = v.first;
  r.err = v.second;
  r.bad_ragged = 0;
  r.err_ragged = 0;
  for (auto& p : g_ragged) {
    CK(cudaMemset(p.C, 0xff, (size_t)p.M * p.N * 2));
    launch(p);
    CK(cudaDeviceSynchronize());
    auto w = verify(p);
    r.bad_ragged += w.first;
    r.err_ragged = std::max(r.err_ragged, w.second);
  }
  printf("  %-12s %-34s %4d regs %d/SM %6.3f ms %6.1f TF/s %.3fx  bad %llu (max err %.3g)  ragged bad %llu (max err %.3g)\n",
         r.kernel, r.cfg, r.regs, blocks_per_sm, r.ms, r.tflops, r.vs, r.bad, r.err, r.bad_ragged, r.err_ragged);
  fflush(stdout);
  g_rows.push_back(r);
}

#define W(BM, BN, BK, WM, WN, ST)                                                        \
  run("v2_warp_mma", #BM "/" #BN "/" #BK " " #WM "x" #WN " S" #ST,                      \
      &v2w::tsl_matmul<BM, BN, BK, WM, WN, ST, 8>, BM, BN, BK, WM, WN, ST)
#define P(BM, BN, BK, WM, WN, ST, MINB)                                                  \
  run("v2_warp_pipe", #BM "/" #BN "/" #BK " " #WM "x" #WN " S" #ST " MINB" #MINB,       \
      &v2p::tsl_matmul<BM, BN, BK, WM, WN, ST, 8, MINB>, BM, BN, BK, WM, WN, ST)

// A K-major [rows, cols] f16 tensor as TMA sees it: boxes of 64 columns (128 bytes) by
// box_rows rows, swizzled 128B, zeros past the edges.
// cuTensorMapEncodeTiled through the runtime's driver entry point (no -lcuda at link time).
static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static PFN_cuTensorMapEncodeTiled_v12000 f = nullptr;
  if (!f) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                        &q));
    if (!p || q != cudaDriverEntryPointSuccess) {
      printf("cuTensorMapEncodeTiled not found in the driver\n");
      exit(2);
    }
    f = (PFN_cuTensorMapEncodeTiled_v12000)p;
  }
  return f;
}

static CUtensorMap tma_map(const __half* p, int rows, int cols, int box_rows) {
  CUtensorMap m;
  cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
  cuuint32_t box[2] = {64, (cuuint32_t)box_rows};
  cuuint32_t es[2] = {1, 1};
  CUresult r = encode_tiled()(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, (void*)p, dims,
                                      strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                      CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    printf("cuTensorMapEncodeTiled failed (%d): %d x %d, box rows %d\n", (int)r, rows, cols,
           box_rows);
    exit(2);
  }
  return m;
}

// One TMA-fed variant (tools/gpu-exp/warp_tma.cu): timed and verified at 8192^3, verified at
// the ragged shapes. MATH = false: the loads alone, timed only (its output is not a GEMM).
template <int BM, int BN, int WM, int WN, int ST, int CL, bool MATH, int MINB = 1, int RA = 0,
          bool PF = false>
static void run_tma(const char* cfg, int group_m) {
  auto k = wtma::warp_tma_gemm<BM, BN, WM, WN, ST, CL, MATH, MINB, RA, PF>;
  if (!selected(MATH ? "warp_tma" : "tma_loads", cfg)) return;
  Row r{};
  r.kernel = MATH ? "warp_tma" : "tma_loads";
  snprintf(r.cfg, sizeof r.cfg, "%s", cfg);
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, k));
  r.regs = fa.numRegs;
  r.spill = (int)fa.localSizeBytes;
  const int smem = wtma::Layout<BM, BN, ST>::SMEM;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  constexpr int threads = BM / WM * (BN / WN) * 32;
  auto launch = [&](const Problem& p, const CUtensorMap& ta, const CUtensorMap& tb) {
    const int gm = (p.M + BM - 1) / BM, gn = (p.N + BN - 1) / BN;
    const int grid = (gm + CL - 1) / CL * CL * gn;
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3(grid);
    lc.blockDim = dim3(threads);
    lc.dynamicSmemBytes = smem;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = CL;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    lc.attrs = at;
    lc.numAttrs = 1;
    CK(cudaLaunchKernelEx(&lc, k, ta, tb, p.C, p.M, p.N, p.K, group_m));
  };
  const CUtensorMap ta = tma_map(g_big.A, g_big.M, g_big.K, BM);
  const CUtensorMap tb = tma_map(g_big.B, g_big.N, g_big.K, BN / CL);
  int blocks_per_sm = -1;  // -1: the occupancy query failed (not fatal)
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, k, threads, smem) !=
      cudaSuccess) {
    blocks_per_sm = -1;
    cudaGetLastError();
  }
  CK(cudaMemset(g_big.C, 0xff, (size_t)g_big.M * g_big.N * 2));
  r.ms = time_ms([&] { launch(g_big, ta, tb); }, 20);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  r.tflops = 2.0 * g_big.M * g_big.N * g_big.K / (r.ms * 1e-3) / 1e12;
  r.vs = g_ref_ms / r.ms;
  if (MATH) {
    auto v = verify(g_big);
    r.bad = v.first;
    r.err = v.second;
    for (auto& p : g_ragged) {
      CK(cudaMemset(p.C, 0xff, (size_t)p.M * p.N * 2));
      launch(p, tma_map(p.A, p.M, p.K, BM), tma_map(p.B, p.N, p.K, BN / CL));
      CK(cudaDeviceSynchronize());
      auto w = verify(p);
      r.bad_ragged += w.first;
      r.err_ragged = std::max(r.err_ragged, w.second);
    }
  }
  // Bytes the blocks read from L2 (each block's A and B tiles over K; B once per cluster).
  const double tiles = (double)((g_big.M + BM - 1) / BM) * ((g_big.N + BN - 1) / BN);
  const double bytes = tiles * ((double)BM + (double)BN / CL) * g_big.K * 2;
  printf("  %-12s %-34s %4d regs %d/SM %6.3f ms %6.1f TF/s %.3fx  L2->SM %.2f TB/s  bad %llu (max err %.3g)  ragged bad %llu (max err %.3g)\n",
         r.kernel, r.cfg, r.regs, blocks_per_sm, r.ms, r.tflops, r.vs, bytes / (r.ms * 1e-3) / 1e12,
         r.bad, r.err, r.bad_ragged, r.err_ragged);
  fflush(stdout);
  g_rows.push_back(r);
}

// kernels/v2_warp_tma.co as `tessel emit` writes it (TMA-fed mma.sync from the DSL): timed and
// verified like the others. Its tensor maps are the runtime's: boxes of BM (BN) rows by 64
// columns, swizzle 128B.
template <int BM, int BN, int WM, int WN, int ST, int G>
static void run_dsl_tma(const char* cfg) {
  auto k = v2t::tsl_matmul<BM, BN, WM, WN, ST, G>;
  if (!selected("v2_warp_tma", cfg)) return;
  Row r{};
  r.kernel = "v2_warp_tma";
  snprintf(r.cfg, sizeof r.cfg, "%s", cfg);
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, k));
  r.regs = fa.numRegs;
  r.spill = (int)fa.localSizeBytes;
  const int smem = (ST * BM * 64 * 2 + 1023) / 1024 * 1024 + ST * BN * 64 * 2 + 1024;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  constexpr int threads = BM / WM * (BN / WN) * 32;
  int blocks_per_sm = -1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, k, threads, smem) !=
      cudaSuccess) {
    blocks_per_sm = -1;
    cudaGetLastError();
  }
  auto launch = [&](const Problem& p) {
    const CUtensorMap ta = tma_map(p.A, p.M, p.K, BM), tb = tma_map(p.B, p.N, p.K, BN);
    v2t::tsl_tensor_map a, b;
    static_assert(sizeof a == sizeof ta, "tsl_tensor_map is a CUtensorMap");
    memcpy(&a, &ta, sizeof a);
    memcpy(&b, &tb, sizeof b);
    const int grid = ((p.M + BM - 1) / BM) * ((p.N + BN - 1) / BN);
    k<<<grid, threads, smem>>>(a, b, (v2t::tsl_f16*)p.C, p.M, p.K, p.N);
  };
  CK(cudaMemset(g_big.C, 0xff, (size_t)g_big.M * g_big.N * 2));
  r.ms = time_ms([&] { launch(g_big); }, 20);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  r.tflops = 2.0 * g_big.M * g_big.N * g_big.K / (r.ms * 1e-3) / 1e12;
  r.vs = g_ref_ms / r.ms;
  auto v = verify(g_big);
  r.bad = v.first;
  r.err = v.second;
  for (auto& p : g_ragged) {
    CK(cudaMemset(p.C, 0xff, (size_t)p.M * p.N * 2));
    launch(p);
    CK(cudaDeviceSynchronize());
    auto w = verify(p);
    r.bad_ragged += w.first;
    r.err_ragged = std::max(r.err_ragged, w.second);
  }
  printf("  %-12s %-34s %4d regs %d/SM %6.3f ms %6.1f TF/s %.3fx  bad %llu (max err %.3g)  ragged bad %llu (max err %.3g)\n",
         r.kernel, r.cfg, r.regs, blocks_per_sm, r.ms, r.tflops, r.vs, r.bad, r.err, r.bad_ragged,
         r.err_ragged);
  fflush(stdout);
  g_rows.push_back(r);
}
#define D(BM, BN, WM, WN, ST, G) \
  run_dsl_tma<BM, BN, WM, WN, ST, G>(#BM "/" #BN "/64 " #WM "x" #WN " S" #ST " G" #G)

#define T(BM, BN, WM, WN, ST, CL)                                                         \
  run_tma<BM, BN, WM, WN, ST, CL, true>(#BM "/" #BN "/64 " #WM "x" #WN " S" #ST " C" #CL, 8)
#define TM(BM, BN, WM, WN, ST, MINB)                                                      \
  run_tma<BM, BN, WM, WN, ST, 1, true, MINB>(#BM "/" #BN "/64 " #WM "x" #WN " S" #ST " C1 MINB" #MINB, 8)
#define TG(BM, BN, WM, WN, ST, CL, G)                                                     \
  run_tma<BM, BN, WM, WN, ST, CL, true>(#BM "/" #BN "/64 " #WM "x" #WN " S" #ST " C" #CL " G" #G, G)
#define TR(BM, BN, WM, WN, ST, RA)                                                        \
  run_tma<BM, BN, WM, WN, ST, 1, true, 1, RA>(#BM "/" #BN "/64 " #WM "x" #WN " S" #ST " C1 refill@" #RA, 8)
#define TP(BM, BN, WM, WN, ST)                                                            \
  run_tma<BM, BN, WM, WN, ST, 1, true, 1, 0, true>(#BM "/" #BN "/64 " #WM "x" #WN " S" #ST " C1 prefetch", 8)
#define TL(BM, BN, WM, WN, ST, CL)                                                        \
  run_tma<BM, BN, WM, WN, ST, CL, false>(#BM "/" #BN "/64 " #WM "x" #WN " S" #ST " C" #CL, 8)

int main(int argc, char** argv) {
  if (argc > 1) g_filter = argv[1];
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  float* o;
  CK(cudaMalloc(&o, 4));
  for (int per_sm : {1, 2, 4}) {
    if (g_filter) break;
    int iters = 4096, grid = prop.multiProcessorCount * per_sm;
    float ms = time_ms([&] { mma_peak<8><<<grid, 256>>>(o, iters); }, 10);
    double fl = 2.0 * 16 * 8 * 16 * 8 * (double)iters * grid * 8;
    printf("mma.sync m16n8k16 f16->f32 ceiling, %2d warps/SM: %.1f TF/s\n", 8 * per_sm,
           fl / (ms * 1e-3) / 1e12);
  }
  cublasCreate(&g_blas);
  g_big = make(8192, 8192, 8192, 1);
  g_ragged[0] = make(4095, 4097, 1000, 2);
  g_ragged[1] = make(1000, 777, 4104, 3);
  g_ref_ms = time_ms([&] { cublas_gemm(g_big); }, 20);
  float ref_tf = 2.0 * 8192.0 * 8192.0 * 8192.0 / (g_ref_ms * 1e-3) / 1e12;
  printf("cuBLAS 8192^3 f16 (f32 compute): %.3f ms, %.1f TF/s\n", g_ref_ms, ref_tf);
  printf("variants (8192^3 timed, median of 20; every output verified; ragged 4095x4097x1000 and "
         "1000x777x4104 verified):\n");
  // The emitted cp.async kernels. Without the prefetch: the defaults, the best of the earlier
  // sweeps (128/128/64 64x64 S3: 248 registers, spills under NVRTC, not under nvcc), and larger
  // block tiles of eight 64x64 warps (less L2 -> SM traffic per flop), 3 and 4 stages.
  W(128, 256, 32, 64, 64, 4);
  W(128, 128, 64, 64, 64, 3);
  W(128, 256, 64, 64, 64, 3);
  W(128, 256, 64, 64, 64, 4);
  W(256, 128, 64, 64, 64, 3);
  W(256, 128, 64, 64, 64, 4);
  W(128, 128, 64, 64, 32, 3);
  // `[[frag_prefetch]]` (slower than without it in every earlier configuration; two kept).
  P(128, 128, 64, 64, 32, 3, 1);
  P(128, 256, 32, 64, 64, 3, 1);
  // TMA-fed mma.sync (warp_tma.cu): 128B-swizzled stages, full/empty mbarriers, no block
  // barrier and no copy instructions in the loop; BK 64.
  T(128, 128, 64, 64, 3, 1);
  T(128, 128, 64, 64, 4, 1);
  T(128, 256, 64, 64, 3, 1);
  T(128, 256, 64, 64, 4, 1);
  T(256, 128, 64, 64, 3, 1);
  T(256, 128, 64, 64, 4, 1);
  T(128, 128, 64, 32, 3, 1);
  T(128, 128, 32, 64, 3, 1);
  // Three resident blocks (registers capped at 168, two stages of 64 KB).
  TM(128, 128, 64, 64, 2, 3);
  // Where thread 0 refills: at the top of the iteration (as the DSL kernel does), after k-step 2.
  TR(128, 128, 64, 64, 3, -1);
  TR(128, 128, 64, 64, 3, 2);
  TR(128, 256, 64, 64, 4, -1);
  // Fragments one k-step ahead (register double buffer; the TMA kernel has the registers).
  TP(128, 128, 64, 64, 3);
  TP(128, 256, 64, 64, 4);
  TP(256, 128, 64, 64, 4);
  // Rasterization groups of 16 block rows instead of 8.
  TG(128, 256, 64, 64, 4, 1, 16);
  // The same from the DSL: kernels/v2_warp_tma.co (`mma.load.swiz<128>` of TMA stages,
  // `full` / `empty` events), defaults and the larger block tiles.
  D(128, 128, 64, 64, 3, 8);
  D(128, 128, 64, 64, 4, 8);
  D(128, 256, 64, 64, 3, 8);
  D(128, 256, 64, 64, 4, 8);
  D(256, 128, 64, 64, 4, 8);
  D(128, 128, 64, 32, 3, 8);
  D(128, 256, 64, 64, 4, 16);
  // ... with B's tile multicast to a cluster of two blocks along M (B's L2 reads halved).
  T(128, 128, 64, 64, 3, 2);
  T(128, 256, 64, 64, 4, 2);
  T(256, 128, 64, 64, 4, 2);
  // The loads alone (no ldmatrix, no mma): the load side's own time and L2 -> SM rate.
  TL(128, 128, 64, 64, 3, 1);
  TL(128, 256, 64, 64, 4, 1);
  TL(256, 128, 64, 64, 4, 1);
  TL(128, 128, 64, 64, 3, 2);
  TL(128, 256, 64, 64, 4, 2);
  float ref2 = time_ms([&] { cublas_gemm(g_big); }, 20);
  printf("cuBLAS again after the sweep: %.3f ms, %.1f TF/s\n", ref2,
         2.0 * 8192.0 * 8192.0 * 8192.0 / (ref2 * 1e-3) / 1e12);
  int failures = 0;
  const Row* best = nullptr;
  printf("\n| kernel | BM/BN/BK warp stages | regs | TF/s | vs cuBLAS | verify 8192^3 | verify ragged |\n");
  printf("|---|---|---|---|---|---|---|\n");
  for (auto& r : g_rows) {
    const bool loads_only = std::string(r.kernel) == "tma_loads";
    if (loads_only) {
      printf("| %s | %s | %d | (%.1f) | (%.3f) | n/a: loads only | n/a |\n", r.kernel, r.cfg,
             r.regs, r.tflops, r.vs);
      continue;
    }
    bool ok = r.bad == 0 && r.bad_ragged == 0 && r.spill == 0;
    failures += !ok;
    if (ok && (!best || r.tflops > best->tflops)) best = &r;
    printf("| %s | %s | %d%s | %.1f | %.3f | %s (max err %.3g) | %s (max err %.3g) |\n", r.kernel,
           r.cfg, r.regs, r.spill ? " SPILLS" : "", r.tflops, r.vs, r.bad ? "FAIL" : "ok", r.err,
           r.bad_ragged ? "FAIL" : "ok", r.err_ragged);
  }
  release(g_big);
  for (auto& p : g_ragged) release(p);
  if (best)
    printf("\nbest verified: %s %s: %.1f TF/s = %.3fx cuBLAS (%.1f TF/s); target 0.6x\n",
           best->kernel, best->cfg, best->tflops, best->vs, ref_tf);
  return failures ? 1 : 0;
}
