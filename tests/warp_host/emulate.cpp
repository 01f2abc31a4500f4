// Host emulation of one warp running the helpers of codegen-cuda/cuda/lowering/warp_mma.cuh
// (tests/warp_mma_host.rs includes the file, minus its inline-PTX functions, as
// TSL_WARP_MMA_HOST). The lanes run one after another, three times: the first pass records
// every lane's ldmatrix row addresses, the second the mma.sync operand registers, the third
// computes — so a lane can read what the other lanes supplied, as the warp-wide instructions
// do. ldmatrix and mma.sync are modelled from the PTX ISA's fragment tables, written out here
// per element type independently of the helpers' formulas.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>
#include <cmath>
#include <functional>
#define TSL_DEVICE inline
typedef signed char tsl_i8; typedef unsigned int tsl_u32; typedef unsigned short tsl_u16; typedef unsigned long long tsl_u64;
struct tsl_f16 { tsl_u16 bits; }; struct tsl_bf16 { tsl_u16 bits; }; struct tsl_f16x2 { tsl_u32 bits; };
struct { unsigned x; } threadIdx;
struct float2 { float x, y; }; struct int2 { int x, y; };
inline float2 make_float2(float a, float b) { return {a, b}; }
inline int2 make_int2(int a, int b) { return {a, b}; }
inline tsl_u32 __float_as_uint(float x) { tsl_u32 u; memcpy(&u, &x, 4); return u; }
inline int __float2int_rn(float x) { return (int)lrintf(x); }
inline float h2f(tsl_u16 b) { _Float16 h; memcpy(&h, &b, 2); return (float)h; }
inline tsl_u16 f2h(float f) { _Float16 h = (_Float16)f; tsl_u16 b; memcpy(&b, &h, 2); return b; }
inline float bf2f(tsl_u16 b) { tsl_u32 u = (tsl_u32)b << 16; float f; memcpy(&f, &u, 4); return f; }
inline tsl_u16 f2bf(float f) { tsl_u32 u; memcpy(&u, &f, 4); return (tsl_u16)(u >> 16); }
inline tsl_f16 tsl_f16_from_f32(float x) { return {f2h(x)}; }
inline float tsl_f16_to_f32(tsl_f16 x) { return h2f(x.bits); }
inline tsl_bf16 tsl_bf16_from_f32(float x) { return {f2bf(x)}; }
inline tsl_u32 tsl_pack_f16x2(float lo, float hi) { return f2h(lo) | ((tsl_u32)f2h(hi) << 16); }
inline tsl_u32 tsl_pack_bf16x2(float lo, float hi) { return f2bf(lo) | ((tsl_u32)f2bf(hi) << 16); }
inline tsl_f16 tsl_f16x2_lo(tsl_f16x2 x) { return {(tsl_u16)(x.bits & 0xffff)}; }
inline tsl_f16 tsl_f16x2_hi(tsl_f16x2 x) { return {(tsl_u16)(x.bits >> 16)}; }
template <typename T> struct tsl_from_f32_impl;
static unsigned char SMEM[1 << 20];
inline tsl_u32 tsl_smem_addr(const void *p) { return (tsl_u32)((const unsigned char *)p - SMEM); }

static int g_pass; static int g_call[32]; static int g_mcall[32];
static std::vector<tsl_u32> g_addr[32];
struct MmaRec { tsl_u32 a[4], b[2]; };
static std::vector<MmaRec> g_mma[32];
static inline int lane() { return threadIdx.x % 32; }

static void ldsm(tsl_u32 *r, int nmat, bool trans, tsl_u32 addr) {
  int l = lane(); int idx = g_call[l]++;
  if (g_pass == 0) { g_addr[l].push_back(addr); for (int q = 0; q < nmat; ++q) r[q] = 0; return; }
  for (int q = 0; q < nmat; ++q) {
    if (!trans) {
      tsl_u32 row = g_addr[q * 8 + l / 4][idx];
      memcpy(&r[q], SMEM + row + (l % 4) * 4, 4);
    } else {
      tsl_u16 e0, e1;
      memcpy(&e0, SMEM + g_addr[q * 8 + 2 * (l % 4)][idx] + (l / 4) * 2, 2);
      memcpy(&e1, SMEM + g_addr[q * 8 + 2 * (l % 4) + 1][idx] + (l / 4) * 2, 2);
      r[q] = e0 | ((tsl_u32)e1 << 16);
    }
  }
}
inline void tsl_ldsm_x4(tsl_u32 &a, tsl_u32 &b, tsl_u32 &c, tsl_u32 &d, tsl_u32 addr) { tsl_u32 r[4]; ldsm(r, 4, false, addr); a = r[0]; b = r[1]; c = r[2]; d = r[3]; }
inline void tsl_ldsm_x4_t(tsl_u32 &a, tsl_u32 &b, tsl_u32 &c, tsl_u32 &d, tsl_u32 addr) { tsl_u32 r[4]; ldsm(r, 4, true, addr); a = r[0]; b = r[1]; c = r[2]; d = r[3]; }
inline void tsl_ldsm_x2(tsl_u32 &a, tsl_u32 &b, tsl_u32 addr) { tsl_u32 r[2]; ldsm(r, 2, false, addr); a = r[0]; b = r[1]; }
inline void tsl_ldsm_x2_t(tsl_u32 &a, tsl_u32 &b, tsl_u32 addr) { tsl_u32 r[2]; ldsm(r, 2, true, addr); a = r[0]; b = r[1]; }

#define TSL_MMA_F16 0
#define TSL_MMA_BF16 1
#define TSL_MMA_TF32 2
#define TSL_MMA_S8 3
// PTX ISA tables. Element value of A (row, col) / B (k, n) decoded from all lanes' registers.
static double elem(int kind, tsl_u32 reg, int e) {
  switch (kind) {
    case TSL_MMA_F16: return h2f((tsl_u16)(reg >> (16 * e)));
    case TSL_MMA_BF16: return bf2f((tsl_u16)(reg >> (16 * e)));
    case TSL_MMA_TF32: { float f; memcpy(&f, &reg, 4); return f; }
    default: return (double)(signed char)(reg >> (8 * e));
  }
}
static void mma_emul(int kind, int K, double *out /*4 values: c0..c3*/, int l, int idx) {
  // Dense A[16][K], B[K][8] from every lane.
  std::vector<double> A(16 * K), B(K * 8);
  for (int ln = 0; ln < 32; ++ln) {
    int g = ln / 4, t = ln % 4; const MmaRec &m = g_mma[ln][idx];
    if (kind == TSL_MMA_F16 || kind == TSL_MMA_BF16) {
      for (int i = 0; i < 8; ++i) {
        int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
        int col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
        A[row * K + col] = elem(kind, m.a[i / 2], i % 2);
      }
      for (int i = 0; i < 4; ++i) { int k = t * 2 + (i & 1) + (i >= 2 ? 8 : 0); B[k * 8 + g] = elem(kind, m.b[i / 2], i % 2); }
    } else if (kind == TSL_MMA_TF32) {
      for (int i = 0; i < 4; ++i) { int row = (i == 0 || i == 2) ? g : g + 8; int col = t + (i >= 2 ? 4 : 0); A[row * K + col] = elem(kind, m.a[i], 0); }
      for (int i = 0; i < 2; ++i) B[(t + 4 * i) * 8 + g] = elem(kind, m.b[i], 0);
    } else {
      for (int i = 0; i < 16; ++i) {
        int row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
        int col = t * 4 + (i & 3) + (i >= 8 ? 16 : 0);
        A[row * K + col] = elem(kind, m.a[i / 4], i % 4);
      }
      for (int i = 0; i < 8; ++i) { int k = t * 4 + (i & 3) + (i >= 4 ? 16 : 0); B[k * 8 + g] = elem(kind, m.b[i / 4], i % 4); }
    }
  }
  int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; ++i) {
    int row = i < 2 ? g : g + 8, col = t * 2 + (i & 1);
    double s = 0; for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * 8 + col];
    out[i] = s;
  }
}
template <int KIND> inline void tsl_mma_m16n8(float *d, const tsl_u32 *a, const tsl_u32 *b) {
  int l = lane(); int idx = g_mcall[l]++;
  if (g_pass == 1) { MmaRec m; memcpy(m.a, a, 16); memcpy(m.b, b, 8); g_mma[l].push_back(m); return; }
  if (g_pass < 2) return;
  double o[4]; mma_emul(KIND, KIND == TSL_MMA_TF32 ? 8 : 16, o, l, idx);
  for (int i = 0; i < 4; ++i) d[i] += (float)o[i];
}
template <int KIND> inline void tsl_mma_m16n8(int *d, const tsl_u32 *a, const tsl_u32 *b) {
  int l = lane(); int idx = g_mcall[l]++;
  if (g_pass == 1) { MmaRec m; memcpy(m.a, a, 16); memcpy(m.b, b, 8); g_mma[l].push_back(m); return; }
  if (g_pass < 2) return;
  double o[4]; mma_emul(KIND, 32, o, l, idx);
  for (int i = 0; i < 4; ++i) d[i] += (int)o[i];
}
template <int KIND> inline void tsl_mma_m16n8(tsl_u32 *d, const tsl_u32 *a, const tsl_u32 *b) {
  int l = lane(); int idx = g_mcall[l]++;
  if (g_pass == 1) { MmaRec m; memcpy(m.a, a, 16); memcpy(m.b, b, 8); g_mma[l].push_back(m); return; }
  if (g_pass < 2) return;
  double o[4]; mma_emul(KIND, 16, o, l, idx);
  for (int h = 0; h < 2; ++h) {
    float lo = h2f((tsl_u16)d[h]) + (float)o[2 * h], hi = h2f((tsl_u16)(d[h] >> 16)) + (float)o[2 * h + 1];
    d[h] = tsl_pack_f16x2(lo, hi);
  }
}
#include TSL_WARP_MMA_HOST

static void run_warp(const std::function<void()> &f) {
  for (int l = 0; l < 32; ++l) { g_addr[l].clear(); g_mma[l].clear(); }
  for (g_pass = 0; g_pass < 3; ++g_pass) {
    for (int l = 0; l < 32; ++l) { threadIdx.x = l; g_call[l] = 0; g_mcall[l] = 0; f(); }
  }
}
static int failures = 0;
#define CHECK(c, ...) do { if (!(c)) { if (failures++ < 10) { printf(__VA_ARGS__); printf("\n"); } } } while (0)

// Reference: C[m][n] = sum_k A(m,k) B(n,k), with accessor lambdas.
template <typename T> static void put(T *p, double v);
template <> void put<tsl_f16>(tsl_f16 *p, double v) { p->bits = f2h((float)v); }
template <> void put<tsl_bf16>(tsl_bf16 *p, double v) { p->bits = f2bf((float)v); }
template <> void put<float>(float *p, double v) { *p = (float)v; }
template <> void put<signed char>(signed char *p, double v) { *p = (signed char)v; }
template <> void put<int>(int *p, double v) { *p = (int)v; }
static double get(const tsl_f16 &x) { return h2f(x.bits); }
static double get(const tsl_bf16 &x) { return bf2f(x.bits); }
static double get(const float &x) { return x; }
static double get(const signed char &x) { return x; }
static double get(const int &x) { return x; }

// A warp tile M×N×K from shared: A stored [M,K] (TA: [K,M]) pitch LDA, B stored [N,K] (TB: [K,N]) pitch LDB.
template <int KIND, typename T, typename Acc, typename O, int M, int N, int K, bool TA, bool TB, int LDA, int LDB, bool LDSM>
static void shared_case(const char *name) {
  constexpr int KI = tsl_mma_kind<KIND>::K, FM = M / 16, FN = N / 8, FK = K / KI;
  T *As = reinterpret_cast<T *>(SMEM + 1024);
  T *Bs = reinterpret_cast<T *>(SMEM + 1024 + 65536);
  auto va = [](int m, int k) { return (double)(((m * 7 + k * 3) % 9) - 4); };
  auto vb = [](int n, int k) { return (double)(((n * 5 + k * 11) % 7) - 3); };
  for (int m = 0; m < M; ++m) for (int k = 0; k < K; ++k) put(&As[TA ? k * LDA + m : m * LDA + k], va(m, k));
  for (int n = 0; n < N; ++n) for (int k = 0; k < K; ++k) put(&Bs[TB ? k * LDB + n : n * LDB + k], vb(n, k));
  std::vector<O> C(M * N);
  run_warp([&] {
    Acc acc[FM * FN * tsl_mma_acc<Acc>::R];
    tsl_mma_fill<FM * FN * tsl_mma_acc<Acc>::R>(acc, 1.0f);
    tsl_u32 a[FM * FK * 4], b[FN * FK * 2];
    tsl_mma_load_a<KIND, FM, FK, TA, LDA, LDSM>(a, As);
    tsl_mma_load_b<KIND, FN, FK, TB, LDB, LDSM>(b, Bs);
    tsl_warp_mma<KIND, FM, FN, FK>(acc, a, b);
    tsl_mma_store<FM, FN>(acc, C.data(), 0, 0, M, N, N);
  });
  int before = failures;
  for (int m = 0; m < M; ++m) for (int n = 0; n < N; ++n) {
    double r = 1; for (int k = 0; k < K; ++k) r += va(m, k) * vb(n, k);
    CHECK(get(C[m * N + n]) == r, "%s: C[%d][%d] = %g, expected %g", name, m, n, get(C[m * N + n]), r);
  }
  printf("%s: %s\n", name, failures == before ? "ok" : "FAILED");
}

// From "global": A tensor [RA, CA] (TA: element (m,k) at (r0+k, c0+m)), ragged, store ragged.
template <int KIND, typename T, typename Acc, typename O, int M, int N, int K, bool TA, bool TB>
static void global_case(const char *name, int rows, int cols, int kdim) {
  constexpr int KI = tsl_mma_kind<KIND>::K, FM = M / 16, FN = N / 8, FK = K / KI;
  auto va = [](int m, int k) { return (double)(((m * 7 + k * 3) % 9) - 4); };
  auto vb = [](int n, int k) { return (double)(((n * 5 + k * 11) % 7) - 3); };
  // A: logical [rows, kdim]; B: logical [cols, kdim].
  int ar = TA ? kdim : rows, ac = TA ? rows : kdim, br = TB ? kdim : cols, bc = TB ? cols : kdim;
  std::vector<T> A(ar * ac), B(br * bc);
  for (int m = 0; m < rows; ++m) for (int k = 0; k < kdim; ++k) put(&A[TA ? k * ac + m : m * ac + k], va(m, k));
  for (int n = 0; n < cols; ++n) for (int k = 0; k < kdim; ++k) put(&B[TB ? k * bc + n : n * bc + k], vb(n, k));
  std::vector<O> C(rows * cols + 64);
  for (auto &c : C) put(&c, -77.0);
  run_warp([&] {
    Acc acc[FM * FN * tsl_mma_acc<Acc>::R];
    tsl_mma_fill<FM * FN * tsl_mma_acc<Acc>::R>(acc, 0.0f);
    tsl_u32 a[FM * FK * 4], b[FN * FK * 2];
    tsl_mma_gather_a<KIND, FM, FK, TA>(a, A.data(), 0, 0, ar, ac, ac);
    tsl_mma_gather_b<KIND, FN, FK, TB>(b, B.data(), 0, 0, br, bc, bc);
    tsl_warp_mma<KIND, FM, FN, FK>(acc, a, b);
    tsl_mma_store<FM, FN>(acc, C.data(), 0, 0, rows, cols, cols);
  });
  int before = failures;
  for (int m = 0; m < rows; ++m) for (int n = 0; n < cols; ++n) {
    double r = 0; for (int k = 0; k < kdim && k < K; ++k) r += va(m, k) * vb(n, k);
    CHECK(get(C[m * cols + n]) == r, "%s: C[%d][%d] = %g, expected %g", name, m, n, get(C[m * cols + n]), r);
  }
  for (int i = rows * cols; i < rows * cols + 64; ++i) CHECK(get(C[i]) == -77.0, "%s: wrote past the end at %d", name, i);
  printf("%s: %s\n", name, failures == before ? "ok" : "FAILED");
}

template <> struct tsl_from_f32_impl<float> { static float cvt(float x) { return x; } };
int main() {
  shared_case<TSL_MMA_F16, tsl_f16, float, float, 64, 64, 32, false, false, 40, 40, true>("f16 row.row ldsm 64x64x32");
  shared_case<TSL_MMA_F16, tsl_f16, float, float, 64, 40, 32, false, false, 40, 40, true>("f16 odd FN ldsm 64x40x32");
  shared_case<TSL_MMA_F16, tsl_f16, float, float, 32, 32, 32, true, true, 72, 40, true>("f16 col.col ldsm.trans");
  shared_case<TSL_MMA_BF16, tsl_bf16, float, tsl_bf16, 32, 32, 16, false, true, 24, 40, true>("bf16 row.col ldsm, bf16 out");
  shared_case<TSL_MMA_F16, tsl_f16, tsl_u32, tsl_f16, 32, 16, 32, false, false, 40, 40, true>("f16 acc f16");
  shared_case<TSL_MMA_TF32, float, float, float, 32, 16, 16, false, false, 20, 20, true>("tf32 ldsm");
  shared_case<TSL_MMA_TF32, float, float, float, 32, 16, 16, true, true, 36, 20, true>("tf32 trans (gather)");
  shared_case<TSL_MMA_S8, signed char, int, int, 32, 16, 64, false, false, 80, 80, true>("s8 ldsm");
  shared_case<TSL_MMA_S8, signed char, int, int, 32, 16, 64, true, true, 48, 32, true>("s8 trans (gather)");
  shared_case<TSL_MMA_F16, tsl_f16, float, float, 32, 16, 32, false, false, 36, 36, false>("f16 unaligned (gather)");
  global_case<TSL_MMA_F16, tsl_f16, float, float, 32, 32, 32, false, true>("f16 global ragged", 30, 27, 29);
  global_case<TSL_MMA_BF16, tsl_bf16, float, tsl_bf16, 16, 16, 16, true, false>("bf16 global trans ragged", 13, 11, 15);
  global_case<TSL_MMA_S8, signed char, int, int, 16, 8, 32, false, false>("s8 global ragged", 15, 7, 31);
  global_case<TSL_MMA_TF32, float, float, float, 16, 8, 16, false, true>("tf32 global ragged", 16, 5, 13);
  printf("%d failures\n", failures);
  return failures != 0;
}
