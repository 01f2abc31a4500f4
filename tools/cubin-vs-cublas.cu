// Exploration harness for SIMT SGEMM variants (BENCHMARKS.md): loads NVRTC cubins of
// `tsl_sgemm_k8` instances (any edit of the emitted .cu, compiled here with NVRTC) and times
// each against cuBLAS SGEMM (CUBLAS_COMPUTE_32F_PEDANTIC: no TF32) in the same process,
// interleaved, on random inputs, after verifying it against cuBLAS over the full output.
// Not tessel's bench (examples/bench.rs): a way to try many hand-made variants in one GPU call.
//
//   nvcc -O2 -arch=sm_90a -o harness tools/cubin-vs-cublas.cu -lcublas -lcuda
//   ./harness M N K ROUNDS file.cubin:BM:BN:BK:THREADS [more.cubin:…]
//
// The kernel takes (a, b, c, M, K, N), its grid is (cdiv(M, BM), cdiv(N, BN)) and its dynamic
// shared memory the k8 formula (two stages of a padded [BK, BM + 4] and a [BK, BN] tile).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#define CK(x)                                                                       \
  do {                                                                              \
    auto e = (x);                                                                   \
    if (e) {                                                                        \
      printf("error %d at %s:%d\n", (int)e, __FILE__, __LINE__);                    \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)
static float med(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main(int argc, char **argv) {
  if (argc < 6) {
    printf("usage: %s M N K ROUNDS file.cubin:BM:BN:BK:THREADS ...\n", argv[0]);
    return 2;
  }
  int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]), rounds = atoi(argv[4]);
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  float *a, *b, *c, *cref;
  CK(cudaMalloc(&a, 4ull * M * K));
  CK(cudaMalloc(&b, 4ull * K * N));
  CK(cudaMalloc(&c, 4ull * M * N));
  CK(cudaMalloc(&cref, 4ull * M * N));
  {
    std::vector<float> h(std::max((size_t)M * K, (size_t)K * N));
    srand(1);
    for (auto &x : h) x = (rand() / (float)RAND_MAX) * 2 - 1;
    CK(cudaMemcpy(a, h.data(), 4ull * M * K, cudaMemcpyHostToDevice));
    for (auto &x : h) x = (rand() / (float)RAND_MAX) * 2 - 1;
    CK(cudaMemcpy(b, h.data(), 4ull * K * N, cudaMemcpyHostToDevice));
  }
  cublasHandle_t hd;
  CK(cublasCreate(&hd));
  float one = 1, zero = 0;
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ.
  auto ref = [&]() {
    CK(cublasGemmEx(hd, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, b, CUDA_R_32F, N, a, CUDA_R_32F,
                    K, &zero, cref, CUDA_R_32F, N, CUBLAS_COMPUTE_32F_PEDANTIC,
                    CUBLAS_GEMM_DEFAULT));
  };
  ref();
  CK(cudaDeviceSynchronize());
  std::vector<float> hr((size_t)M * N), hc((size_t)M * N);
  CK(cudaMemcpy(hr.data(), cref, 4ull * M * N, cudaMemcpyDeviceToHost));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  double flop = 2.0 * M * N * K;
  printf("%-40s %8s %8s %8s %7s %s\n", "variant", "ms", "TF/s", "cublasTF", "ratio", "maxrel");
  for (int v = 5; v < argc; ++v) {
    std::string spec = argv[v];
    char file[512];
    int BM, BN, BK, T;
    if (sscanf(spec.c_str(), "%511[^:]:%d:%d:%d:%d", file, &BM, &BN, &BK, &T) != 5) {
      printf("bad spec %s\n", spec.c_str());
      return 2;
    }
    CUmodule mod;
    CK(cuModuleLoad(&mod, file));
    unsigned int nf = 1;
    CUfunction f;
    CK(cuModuleEnumerateFunctions(&f, nf, mod));
    int smem = ((2 * (BK * (BM + 4)) * 4 + 127) / 128) * 128 + 2 * (BK * BN) * 4 + 128;
    CK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
    void *args[] = {&a, &b, &c, &M, &K, &N};
    auto run = [&]() {
      CK(cuLaunchKernel(f, (M + BM - 1) / BM, (N + BN - 1) / BN, 1, T, 1, 1, smem, 0, args,
                        nullptr));
    };
    CK(cudaMemset(c, 0xff, 4ull * M * N));  // NaN poison: an element not written fails
    run();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hc.data(), c, 4ull * M * N, cudaMemcpyDeviceToHost));
    double maxrel = 0;
    for (size_t i = 0; i < hc.size(); ++i) {
      double d = fabs(hc[i] - hr[i]) / (fabs(hr[i]) + 1e-2);
      if (!(d <= maxrel)) maxrel = d;
    }
    std::vector<float> tk, tr;
    for (int w = 0; w < 3; ++w) {
      run();
      ref();
    }
    for (int r = 0; r < rounds; ++r) {
      float ms;
      cudaEventRecord(e0);
      run();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&ms, e0, e1);
      tk.push_back(ms);
      cudaEventRecord(e0);
      ref();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&ms, e0, e1);
      tr.push_back(ms);
    }
    float mk = med(tk), mr = med(tr);
    std::string name = spec.substr(spec.rfind('/') + 1);
    printf("%-40s %8.3f %8.2f %8.2f %7.3f %.1e\n", name.c_str(), mk, flop / mk / 1e9,
           flop / mr / 1e9, mr / mk, maxrel);
    cuModuleUnload(mod);
  }
  return 0;
}
