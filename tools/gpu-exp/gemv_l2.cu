// Experiment: GEMV (gemv_staged as tessel emits it) with and without an L2 prefetch hint on
// its cp.async copies. Built three times: -DHINT=0/128/256 (the .cu is patched by sed).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include KFILE

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

template <int R, int S, int KT>
float run(const __half* w, const __half* x, __half* y, int N, int K, int reps) {
  auto k = tsl_gemv_staged<R, S, KT>;
  int smem = S * R * KT * 2 + 128;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  dim3 g((N + R - 1) / R), b(R * 32);
  for (int i = 0; i < 3; ++i) k<<<g, b, smem>>>((const tsl_f16*)w, (const tsl_f16*)x, (tsl_f16*)y, N, K);
  CK(cudaDeviceSynchronize());
  std::vector<float> ts;
  cudaEvent_t a, c; cudaEventCreate(&a); cudaEventCreate(&c);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    k<<<g, b, smem>>>((const tsl_f16*)w, (const tsl_f16*)x, (tsl_f16*)y, N, K);
    cudaEventRecord(c); cudaEventSynchronize(c);
    float ms; cudaEventElapsedTime(&ms, a, c); ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

__global__ void init(__half* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995; h ^= h >> 15;
    p[i] = __float2half(((h & 0xffff) / 65535.0f) - 0.5f);
  }
}
__global__ void ref(const __half* w, const __half* x, float* y, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x; if (n >= N) return;
  float s = 0; for (int k = 0; k < K; ++k) s += __half2float(w[(size_t)n * K + k]) * __half2float(x[k]); y[n] = s;
}

int main() {
  // copy bandwidth: 1 GiB device to device, median of 20
  size_t cb = 1ull << 30; void *s, *d; CK(cudaMalloc(&s, cb)); CK(cudaMalloc(&d, cb));
  CK(cudaMemset(s, 1, cb));
  std::vector<float> ct; cudaEvent_t a, c; cudaEventCreate(&a); cudaEventCreate(&c);
  for (int i = 0; i < 20; ++i) { cudaEventRecord(a); cudaMemcpy(d, s, cb, cudaMemcpyDeviceToDevice); cudaEventRecord(c); cudaEventSynchronize(c); float ms; cudaEventElapsedTime(&ms, a, c); ct.push_back(ms); }
  std::sort(ct.begin(), ct.end()); double copy = 2.0 * cb / (ct[10] * 1e-3) / 1e12;
  cudaFree(s); cudaFree(d);
  printf("variant HINT=%d copy %.3f TB/s\n", HINT, copy);
  int shapes[4][2] = {{7168, 16384}, {18432, 7168}, {28672, 8192}, {57344, 7168}};
  for (auto& sh : shapes) {
    int N = sh[0], K = sh[1];
    __half *w, *x, *y; float* yr;
    CK(cudaMalloc(&w, (size_t)N * K * 2)); CK(cudaMalloc(&x, K * 2)); CK(cudaMalloc(&y, N * 2)); CK(cudaMalloc(&yr, N * 4));
    init<<<1024, 256>>>(w, (size_t)N * K, 1); init<<<64, 256>>>(x, K, 7);
    ref<<<(N + 127) / 128, 128>>>(w, x, yr, N, K);
    double bytes = (double)N * K * 2 + K * 2 + N * 2;
    float best = 1e9; const char* bc = "";
    #define TRY(R, S, KT) { if (S * R * KT * 2 <= 96 * 1024) { float ms = run<R, S, KT>(w, x, y, N, K, 50); \
      std::vector<__half> h(N); std::vector<float> hr(N); cudaMemcpy(h.data(), y, N * 2, cudaMemcpyDeviceToHost); cudaMemcpy(hr.data(), yr, N * 4, cudaMemcpyDeviceToHost); \
      double err = 0; for (int i = 0; i < N; ++i) err = std::max(err, (double)fabsf(__half2float(h[i]) - hr[i]) / (1.0 + fabsf(hr[i]))); \
      double tb = bytes / (ms * 1e-3) / 1e12; \
      printf("  %5dx%-5d R=%d S=%d KT=%4d  %7.2f us  %.3f TB/s  %5.1f%% of copy  err %.1e\n", N, K, R, S, KT, ms * 1e3, tb, 100 * tb / copy, err); \
      if (ms < best) { best = ms; bc = #R "/" #S "/" #KT; } } }
    TRY(1,2,256) TRY(1,3,256) TRY(1,4,256) TRY(2,2,256) TRY(2,3,256) TRY(2,4,256) TRY(4,2,256) TRY(4,3,256) TRY(4,4,256)
    TRY(8,2,256) TRY(8,3,256) TRY(8,4,256) TRY(1,3,512) TRY(2,3,512) TRY(4,3,512) TRY(2,2,512) TRY(4,2,512) TRY(1,4,512) TRY(2,4,512)
    TRY(1,3,1024) TRY(2,3,1024) TRY(1,4,1024)
    double tb = bytes / (best * 1e-3) / 1e12;
    printf("best HINT=%d %dx%d %s %.2f us %.3f TB/s %.1f%% of copy\n", HINT, N, K, bc, best * 1e3, tb, 100 * tb / copy);
    cudaFree(w); cudaFree(x); cudaFree(y); cudaFree(yr);
  }
}
