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
#include <type_traits>
#define TSL_DEVICE inline
typedef signed char tsl_i8; typedef unsigned int tsl_u32; typedef unsigned short tsl_u16; typedef unsigned long long tsl_u64;
struct tsl_f16 { tsl_u16 bits; }; struct tsl_bf16 { tsl_u16 bits; }; struct tsl_f16x2 { tsl_u32 bits; };
struct { unsigned x; } threadIdx;
struct float2 { float x, y; }; struct int2 { int x, y; };
inline float2 make_float2(float a, float b) { return {a, b}; }
inline int2 make_int2(int a, int b) { return {a, b}; }
inline tsl_u32 __float_as_uint(float x) { tsl_u32 u; memcpy(&u, &x, 4); return u; }
inline int __float2int_rn(float x) { return (int)lrintf(x); }
inline unsigned __float2uint_rn(float x) { return (unsigned)lrintf(x); }
inline float h2f(tsl_u16 b) { _Float16 h; memcpy(&h, &b, 2); return (float)h; }
inline tsl_u16 f2h(float f) { _Float16 h = (_Float16)f; tsl_u16 b; memcpy(&b, &h, 2); return b; }
inline float bf2f(tsl_u16 b) { tsl_u32 u = (tsl_u32)b << 16; float f; memcpy(&f, &u, 4); return f; }
inline tsl_u16 f2bf(float f) { tsl_u32 u; memcpy(&u, &f, 4); return (tsl_u16)(u >> 16); }
inline tsl_f16 tsl_f16_from_f32(float x) { return {f2h(x)}; }
inline float tsl_f16_to_f32(tsl_f16 x) { return h2f(x.bits); }
inline tsl_bf16 tsl_bf16_from_f32(float x) { return {f2bf(x)}; }
inline float tsl_bf16_to_f32(tsl_bf16 x) { return bf2f(x.bits); }
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
inline void tsl_ldsm_x1(tsl_u32 &a, tsl_u32 addr) { ldsm(&a, 1, false, addr); }
inline void tsl_ldsm_x1_t(tsl_u32 &a, tsl_u32 addr) { ldsm(&a, 1, true, addr); }

#define TSL_MMA_F16 0
#define TSL_MMA_BF16 1
#define TSL_MMA_TF32 2
#define TSL_MMA_S8 3
#define TSL_MMA_U8 4
#define TSL_MMA_S8U8 5
#define TSL_MMA_U8S8 6
// PTX ISA tables. Element value of A (row, col) / B (k, n) decoded from all lanes' registers.
static double elem(int kind, tsl_u32 reg, int e) {
  switch (kind) {
    case TSL_MMA_F16: return h2f((tsl_u16)(reg >> (16 * e)));
    case TSL_MMA_BF16: return bf2f((tsl_u16)(reg >> (16 * e)));
    case TSL_MMA_TF32: { float f; memcpy(&f, &reg, 4); return f; }
    default: return (double)(signed char)(reg >> (8 * e));
  }
}
// An 8-bit operand: unsigned for u8 (both), s8u8 (B) and u8s8 (A).
static double elem8(int kind, bool is_b, tsl_u32 reg, int e) {
  bool u = kind == TSL_MMA_U8 || (kind == TSL_MMA_S8U8 && is_b) || (kind == TSL_MMA_U8S8 && !is_b);
  tsl_u32 byte = (reg >> (8 * e)) & 0xff;
  return u ? (double)byte : (double)(signed char)byte;
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
        A[row * K + col] = elem8(kind, false, m.a[i / 4], i % 4);
      }
      for (int i = 0; i < 8; ++i) { int k = t * 4 + (i & 3) + (i >= 4 ? 16 : 0); B[k * 8 + g] = elem8(kind, true, m.b[i / 4], i % 4); }
    }
  }
  int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; ++i) {
    int row = i < 2 ? g : g + 8, col = t * 2 + (i & 1);
    double s = 0; for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * 8 + col];
    out[i] = s;
  }
}
// The one-quarter shapes (PTX ISA): m16n8k8 f16/bf16, m16n8k4 tf32, m16n8k16 and m8n8k16 8-bit.
// rows = 16 or 8; A regs a0 (row g), a1 (row g + 8, m16 only); B reg b0; each register holds
// K elements t·E … t·E + E - 1 of its row (A) or column g (B), E per register.
static void mma_emul_q(int kind, int rows, double *out, int l, int idx) {
  int E = kind == TSL_MMA_TF32 ? 1 : kind >= TSL_MMA_S8 ? 4 : 2, K = 4 * E;
  std::vector<double> A(16 * K, 0.0), B(K * 8, 0.0);
  for (int ln = 0; ln < 32; ++ln) {
    int g = ln / 4, t = ln % 4; const MmaRec &m = g_mma[ln][idx];
    for (int e = 0; e < E; ++e) {
      bool i8 = kind >= TSL_MMA_S8;
      A[g * K + t * E + e] = i8 ? elem8(kind, false, m.a[0], e) : elem(kind, m.a[0], e);
      if (rows == 16) A[(g + 8) * K + t * E + e] = i8 ? elem8(kind, false, m.a[1], e) : elem(kind, m.a[1], e);
      B[(t * E + e) * 8 + g] = i8 ? elem8(kind, true, m.b[0], e) : elem(kind, m.b[0], e);
    }
  }
  int g = l / 4, t = l % 4;
  for (int i = 0; i < 4; ++i) {
    int row = i < 2 ? g : g + 8, col = t * 2 + (i & 1);
    double s = 0; for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * 8 + col];
    out[i] = s;
  }
}
template <int KIND, typename Acc> inline void rec_q(Acc *d, const tsl_u32 *a, const tsl_u32 *b, int rows) {
  int l = lane(); int idx = g_mcall[l]++;
  if (g_pass == 1) { MmaRec m{}; m.a[0] = a[0]; if (rows == 16) m.a[1] = a[1]; m.b[0] = b[0]; g_mma[l].push_back(m); return; }
  if (g_pass < 2) return;
  double o[4]; mma_emul_q(KIND, rows, o, l, idx);
  int n = rows == 16 ? 4 : 2;
  if constexpr (sizeof(Acc) == 4 && std::is_same<Acc, tsl_u32>::value) {
    for (int h = 0; h < n / 2; ++h) {
      float lo = h2f((tsl_u16)d[h]) + (float)o[2 * h], hi = h2f((tsl_u16)(d[h] >> 16)) + (float)o[2 * h + 1];
      d[h] = tsl_pack_f16x2(lo, hi);
    }
  } else {
    for (int i = 0; i < n; ++i) d[i] += (Acc)o[i];
  }
}
template <int KIND> inline void tsl_mma_m16n8_half(float *d, const tsl_u32 *a, const tsl_u32 *b) { rec_q<KIND>(d, a, b, 16); }
template <int KIND> inline void tsl_mma_m16n8_half(int *d, const tsl_u32 *a, const tsl_u32 *b) { rec_q<KIND>(d, a, b, 16); }
template <int KIND> inline void tsl_mma_m16n8_half(tsl_u32 *d, const tsl_u32 *a, const tsl_u32 *b) { rec_q<KIND>(d, a, b, 16); }
template <int KIND> inline void tsl_mma_m8n8(int *d, const tsl_u32 *a, const tsl_u32 *b) { rec_q<KIND>(d, a, b, 8); }
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
template <> void put<unsigned char>(unsigned char *p, double v) { *p = (unsigned char)v; }
template <> void put<int>(int *p, double v) { *p = (int)v; }
static double get(const tsl_f16 &x) { return h2f(x.bits); }
static double get(const tsl_bf16 &x) { return bf2f(x.bits); }
static double get(const float &x) { return x; }
static double get(const signed char &x) { return x; }
static double get(const unsigned char &x) { return x; }
static double get(const int &x) { return x; }

// Operand values: small signed integers (exact in every type); unsigned bytes above 127, so
// that reading a u8 as s8 (or the reverse) shows.
template <typename T> static double val(int a, int b, int mod) {
  if (std::is_same<T, unsigned char>::value) return (double)(((a + b) % mod) * 29);
  return (double)(((a + b) % mod) - mod / 2);
}
template <int SHAPE> struct geo {
  static constexpr int MB = tsl_mma_shape<SHAPE>::MB;
};

// A warp tile M×N×K from shared: A stored [M,K] (TA: [K,M]) pitch LDA, B stored [N,K] (TB: [K,N])
// pitch LDB, in instructions of SHAPE (K ≤ the instructions' K when KT > 0: zero padded).
template <int KIND, typename TA_, typename TB_, typename Acc, typename O, int M, int N, int K, bool TA, bool TB, int LDA, int LDB, bool LDSM,
          int SHAPE = TSL_MMA_FULL, int KT = 0>
static void shared_case(const char *name) {
  constexpr int KI = tsl_mma_kind<KIND>::K / (SHAPE == TSL_MMA_FULL ? 1 : 2), MB = geo<SHAPE>::MB;
  constexpr int FM = M / MB, FN = N / 8, FK = (K + KI - 1) / KI;
  memset(SMEM, 0, sizeof SMEM);
  TA_ *As = reinterpret_cast<TA_ *>(SMEM + 1024);
  TB_ *Bs = reinterpret_cast<TB_ *>(SMEM + 1024 + 65536);
  auto va = [](int m, int k) { return val<TA_>(m * 7, k * 3, 9); };
  auto vb = [](int n, int k) { return val<TB_>(n * 5, k * 11, 7); };
  // Past the tile's K (KT): values that must not be read.
  for (int m = 0; m < M; ++m) for (int k = 0; k < FK * KI; ++k) put(&As[TA ? k * LDA + m : m * LDA + k], k < K ? va(m, k) : 3.0);
  for (int n = 0; n < N; ++n) for (int k = 0; k < FK * KI; ++k) put(&Bs[TB ? k * LDB + n : n * LDB + k], k < K ? vb(n, k) : 3.0);
  std::vector<O> C(M * N);
  run_warp([&] {
    Acc acc[FM * FN * tsl_mma_acc<Acc>::R];
    tsl_mma_fill<FM * FN * tsl_mma_acc<Acc>::R>(acc, 1.0f);
    tsl_u32 a[M / geo<SHAPE>::MB * ((K + 4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q - 1) / (4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q)) * tsl_mma_shape<SHAPE>::RA];
    tsl_u32 b[N / 8 * ((K + 4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q - 1) / (4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q)) * tsl_mma_shape<SHAPE>::RB];
    tsl_mma_load_a<KIND, FM, FK, TA, LDA, LDSM, SHAPE, KT>(a, As);
    tsl_mma_load_b<KIND, FN, FK, TB, LDB, LDSM, SHAPE, KT>(b, Bs);
    tsl_warp_mma<KIND, FM, FN, FK, SHAPE>(acc, a, b);
    tsl_mma_store<FM, FN, MB>(acc, C.data(), 0, 0, M, N, N);
  });
  int before = failures;
  for (int m = 0; m < M; ++m) for (int n = 0; n < N; ++n) {
    double r = 1; for (int k = 0; k < K; ++k) r += va(m, k) * vb(n, k);
    CHECK(get(C[m * N + n]) == r, "%s: C[%d][%d] = %g, expected %g", name, m, n, get(C[m * N + n]), r);
  }
  printf("%s: %s\n", name, failures == before ? "ok" : "FAILED");
}

// From "global": A tensor [RA, CA] (TA: element (m,k) at (r0+k, c0+m)), ragged, store ragged.
// TS: stored transposed (`mma.store.transp`) into a [cols, rows] tensor.
template <int KIND, typename TA_, typename TB_, typename Acc, typename O, int M, int N, int K, bool TA, bool TB,
          int SHAPE = TSL_MMA_FULL, int KT = 0, bool TS = false>
static void global_case(const char *name, int rows, int cols, int kdim) {
  constexpr int KI = tsl_mma_kind<KIND>::K / (SHAPE == TSL_MMA_FULL ? 1 : 2), MB = geo<SHAPE>::MB;
  constexpr int FM = M / MB, FN = N / 8, FK = (K + KI - 1) / KI;
  auto va = [](int m, int k) { return val<TA_>(m * 7, k * 3, 9); };
  auto vb = [](int n, int k) { return val<TB_>(n * 5, k * 11, 7); };
  // A: logical [rows, kdim]; B: logical [cols, kdim].
  int ar = TA ? kdim : rows, ac = TA ? rows : kdim, br = TB ? kdim : cols, bc = TB ? cols : kdim;
  std::vector<TA_> A(ar * ac);
  std::vector<TB_> B(br * bc);
  for (int m = 0; m < rows; ++m) for (int k = 0; k < kdim; ++k) put(&A[TA ? k * ac + m : m * ac + k], va(m, k));
  for (int n = 0; n < cols; ++n) for (int k = 0; k < kdim; ++k) put(&B[TB ? k * bc + n : n * bc + k], vb(n, k));
  std::vector<O> C(rows * cols + 64);
  for (auto &c : C) put(&c, -77.0);
  run_warp([&] {
    Acc acc[FM * FN * tsl_mma_acc<Acc>::R];
    tsl_mma_fill<FM * FN * tsl_mma_acc<Acc>::R>(acc, 0.0f);
    tsl_u32 a[M / geo<SHAPE>::MB * ((K + 4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q - 1) / (4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q)) * tsl_mma_shape<SHAPE>::RA];
    tsl_u32 b[N / 8 * ((K + 4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q - 1) / (4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q)) * tsl_mma_shape<SHAPE>::RB];
    tsl_mma_gather_a<KIND, FM, FK, TA, SHAPE, KT>(a, A.data(), 0, 0, ar, ac, ac);
    tsl_mma_gather_b<KIND, FN, FK, TB, SHAPE, KT>(b, B.data(), 0, 0, br, bc, bc);
    tsl_warp_mma<KIND, FM, FN, FK, SHAPE>(acc, a, b);
    if (TS)
      tsl_mma_store<FM, FN, MB, true>(acc, C.data(), 0, 0, cols, rows, rows);
    else
      tsl_mma_store<FM, FN, MB>(acc, C.data(), 0, 0, rows, cols, cols);
  });
  int before = failures;
  int klim = KT > 0 ? KT : K;
  for (int m = 0; m < rows; ++m) for (int n = 0; n < cols; ++n) {
    // Rows past the tile (an 8-row shape) are another warp's: never written.
    double r = 0; for (int k = 0; k < kdim && k < klim; ++k) r += va(m, k) * vb(n, k);
    if (m >= M) r = -77.0;
    const int at = TS ? n * rows + m : m * cols + n;
    CHECK(get(C[at]) == r, "%s: C[%d][%d] = %g, expected %g", name, m, n, get(C[at]), r);
  }
  for (int i = rows * cols; i < rows * cols + 64; ++i) CHECK(get(C[i]) == -77.0, "%s: wrote past the end at %d", name, i);
  printf("%s: %s\n", name, failures == before ? "ok" : "FAILED");
}

// An accumulator loaded from a ragged C tensor (`mc = mma.load c`), updated and stored back:
// C = C0 + A · Bᵀ inside the tile, untouched outside it.
template <int KIND, typename T, typename Acc, typename O, int M, int N, int K, int SHAPE = TSL_MMA_FULL, int KT = 0>
static void loadc_case(const char *name, int rows, int cols) {
  constexpr int KI = tsl_mma_kind<KIND>::K / (SHAPE == TSL_MMA_FULL ? 1 : 2), MB = geo<SHAPE>::MB;
  constexpr int FM = M / MB, FN = N / 8, FK = (K + KI - 1) / KI;
  auto va = [](int m, int k) { return val<T>(m * 7, k * 3, 9); };
  auto vb = [](int n, int k) { return val<T>(n * 5, k * 11, 7); };
  auto vc = [](int m, int n) { return (double)(((m * 3 + n * 5) % 11) - 5); };
  std::vector<T> A(M * K), B(N * K);
  for (int m = 0; m < M; ++m) for (int k = 0; k < K; ++k) put(&A[m * K + k], va(m, k));
  for (int n = 0; n < N; ++n) for (int k = 0; k < K; ++k) put(&B[n * K + k], vb(n, k));
  std::vector<O> C(rows * cols);
  for (int m = 0; m < rows; ++m) for (int n = 0; n < cols; ++n) put(&C[m * cols + n], vc(m, n));
  run_warp([&] {
    Acc acc[FM * FN * 4];
    tsl_mma_load_c<FM, FN, MB>(acc, C.data(), 0, 0, rows, cols, cols);
    tsl_u32 a[M / geo<SHAPE>::MB * ((K + 4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q - 1) / (4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q)) * tsl_mma_shape<SHAPE>::RA];
    tsl_u32 b[N / 8 * ((K + 4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q - 1) / (4 * tsl_mma_kind<KIND>::E * tsl_mma_shape<SHAPE>::Q)) * tsl_mma_shape<SHAPE>::RB];
    tsl_mma_gather_a<KIND, FM, FK, false, SHAPE, KT>(a, A.data(), 0, 0, M, K, K);
    tsl_mma_gather_b<KIND, FN, FK, false, SHAPE, KT>(b, B.data(), 0, 0, N, K, K);
    tsl_warp_mma<KIND, FM, FN, FK, SHAPE>(acc, a, b);
    tsl_mma_store<FM, FN, MB>(acc, C.data(), 0, 0, rows, cols, cols);
  });
  int before = failures;
  for (int m = 0; m < rows; ++m) for (int n = 0; n < cols; ++n) {
    double r = vc(m, n);
    if (m < M && n < N) for (int k = 0; k < K; ++k) r += va(m, k) * vb(n, k);
    CHECK(get(C[m * cols + n]) == r, "%s: C[%d][%d] = %g, expected %g", name, m, n, get(C[m * cols + n]), r);
  }
  printf("%s: %s\n", name, failures == before ? "ok" : "FAILED");
}

// A warp tile from swizzled shared buffers (lowering/warp_swz.cuh): A's buffer has rows of SWA
// bytes (TA: K rows of M), B's of SWB bytes (TB: K rows of N), each element at the address a TMA
// load of that swizzle writes (16-byte chunk bits XOR'd with the row bits above them, the
// buffers 1024-byte aligned); the warp tile starts at row r0, column c0 of its buffer. The rest
// of each buffer holds a value the product must not see.
template <int KIND, typename T, typename Acc, typename O, int M, int N, int K, bool TA, bool TB, int SWA, int SWB>
static void swz_case(const char *name, int ar0, int ac0, int br0, int bc0) {
  constexpr int KI = tsl_mma_kind<KIND>::K, WA = SWA / (int)sizeof(T), WB = SWB / (int)sizeof(T);
  constexpr int FM = M / 16, FN = N / 8, FK = K / KI;
  static_assert(K % KI == 0 && M % 16 == 0, "full instructions");
  memset(SMEM, 0, sizeof SMEM);
  unsigned char *a_buf = SMEM + 1024, *b_buf = SMEM + 1024 + 65536;
  const int rows = 128;
  auto swz = [](int sw, tsl_u32 a) { return a ^ ((a >> 3) & (tsl_u32)((sw / 16 - 1) << 4)); };
  auto at = [&](unsigned char *buf, int sw, int w, int r, int c) {
    return reinterpret_cast<T *>(SMEM + swz(sw, tsl_smem_addr(buf) + (r * w + c) * (int)sizeof(T)));
  };
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < WA; ++c) put(at(a_buf, SWA, WA, r, c), 3.0);
    for (int c = 0; c < WB; ++c) put(at(b_buf, SWB, WB, r, c), 3.0);
  }
  auto va = [](int m, int k) { return val<T>(m * 7, k * 3, 9); };
  auto vb = [](int n, int k) { return val<T>(n * 5, k * 11, 7); };
  for (int m = 0; m < M; ++m) for (int k = 0; k < K; ++k)
    put(TA ? at(a_buf, SWA, WA, ar0 + k, ac0 + m) : at(a_buf, SWA, WA, ar0 + m, ac0 + k), va(m, k));
  for (int n = 0; n < N; ++n) for (int k = 0; k < K; ++k)
    put(TB ? at(b_buf, SWB, WB, br0 + k, bc0 + n) : at(b_buf, SWB, WB, br0 + n, bc0 + k), vb(n, k));
  const T *a_tile = reinterpret_cast<const T *>(a_buf) + ar0 * WA + ac0;
  const T *b_tile = reinterpret_cast<const T *>(b_buf) + br0 * WB + bc0;
  std::vector<O> C(M * N);
  run_warp([&] {
    Acc acc[FM * FN * tsl_mma_acc<Acc>::R];
    tsl_mma_fill<FM * FN * tsl_mma_acc<Acc>::R>(acc, 0.0f);
    tsl_u32 a[FM * FK * 4], b[FN * FK * 2];
    tsl_mma_load_a_swz<KIND, FM, FK, TA, WA, SWA>(a, a_tile);
    tsl_mma_load_b_swz<KIND, FN, FK, TB, WB, SWB>(b, b_tile);
    tsl_warp_mma<KIND, FM, FN, FK>(acc, a, b);
    tsl_mma_store<FM, FN>(acc, C.data(), 0, 0, M, N, N);
  });
  int before = failures;
  for (int m = 0; m < M; ++m) for (int n = 0; n < N; ++n) {
    double r = 0; for (int k = 0; k < K; ++k) r += va(m, k) * vb(n, k);
    CHECK(get(C[m * N + n]) == r, "%s: C[%d][%d] = %g, expected %g", name, m, n, get(C[m * N + n]), r);
  }
  printf("%s: %s\n", name, failures == before ? "ok" : "FAILED");
}

template <> struct tsl_from_f32_impl<float> { static float cvt(float x) { return x; } };
int main() {
  using f16 = tsl_f16; using bf16 = tsl_bf16; using s8 = signed char; using u8 = unsigned char;
  shared_case<TSL_MMA_F16, f16, f16, float, float, 64, 64, 32, false, false, 40, 40, true>("f16 row.row ldsm 64x64x32");
  shared_case<TSL_MMA_F16, f16, f16, float, float, 64, 40, 32, false, false, 40, 40, true>("f16 odd FN ldsm 64x40x32");
  shared_case<TSL_MMA_F16, f16, f16, float, float, 32, 32, 32, true, true, 72, 40, true>("f16 col.col ldsm.trans");
  shared_case<TSL_MMA_BF16, bf16, bf16, float, tsl_bf16, 32, 32, 16, false, true, 24, 40, true>("bf16 row.col ldsm, bf16 out");
  shared_case<TSL_MMA_F16, f16, f16, tsl_u32, tsl_f16, 32, 16, 32, false, false, 40, 40, true>("f16 acc f16");
  shared_case<TSL_MMA_TF32, float, float, float, float, 32, 16, 16, false, false, 20, 20, true>("tf32 ldsm");
  shared_case<TSL_MMA_TF32, float, float, float, float, 32, 16, 16, true, true, 36, 20, true>("tf32 trans (gather)");
  shared_case<TSL_MMA_S8, s8, s8, int, int, 32, 16, 64, false, false, 80, 80, true>("s8 ldsm");
  shared_case<TSL_MMA_S8, s8, s8, int, int, 32, 16, 64, true, true, 48, 32, true>("s8 trans (gather)");
  shared_case<TSL_MMA_F16, f16, f16, float, float, 32, 16, 32, false, false, 36, 36, false>("f16 unaligned (gather)");
  global_case<TSL_MMA_F16, f16, f16, float, float, 32, 32, 32, false, true>("f16 global ragged", 30, 27, 29);
  global_case<TSL_MMA_BF16, bf16, bf16, float, tsl_bf16, 16, 16, 16, true, false>("bf16 global trans ragged", 13, 11, 15);
  global_case<TSL_MMA_S8, s8, s8, int, int, 16, 8, 32, false, false>("s8 global ragged", 15, 7, 31);
  global_case<TSL_MMA_TF32, float, float, float, float, 16, 8, 16, false, true>("tf32 global ragged", 16, 5, 13);
  // The full instruction of the unsigned and mixed 8-bit kinds.
  shared_case<TSL_MMA_U8, u8, u8, int, int, 32, 16, 64, false, false, 80, 80, true>("u8 ldsm m16n8k32");
  global_case<TSL_MMA_S8U8, s8, u8, int, int, 16, 16, 32, false, true>("s8 x u8 global m16n8k32", 16, 16, 32);
  // The half-K shapes: f16/bf16 m16n8k8, tf32 m16n8k4, 8-bit m16n8k16; ldmatrix x2 / x4 / x1.
  shared_case<TSL_MMA_F16, f16, f16, float, float, 32, 24, 24, false, false, 40, 40, true, TSL_MMA_HALF_K>("f16 m16n8k8 ldsm");
  shared_case<TSL_MMA_F16, f16, f16, float, float, 32, 40, 8, true, true, 40, 48, true, TSL_MMA_HALF_K>("f16 m16n8k8 ldsm.trans, 5 n8 blocks");
  shared_case<TSL_MMA_F16, f16, f16, tsl_u32, tsl_f16, 16, 16, 16, false, false, 24, 24, true, TSL_MMA_HALF_K>("f16 m16n8k8 f16 acc");
  shared_case<TSL_MMA_BF16, bf16, bf16, float, float, 16, 24, 8, false, true, 16, 32, true, TSL_MMA_HALF_K>("bf16 m16n8k8 row.col");
  shared_case<TSL_MMA_TF32, float, float, float, float, 16, 16, 12, false, false, 20, 20, true, TSL_MMA_HALF_K>("tf32 m16n8k4 ldsm");
  shared_case<TSL_MMA_S8, s8, s8, int, int, 32, 24, 48, false, false, 64, 64, true, TSL_MMA_HALF_K>("s8 m16n8k16 ldsm");
  shared_case<TSL_MMA_U8, u8, u8, int, int, 16, 16, 16, true, true, 32, 32, true, TSL_MMA_HALF_K>("u8 m16n8k16 trans (gather)");
  global_case<TSL_MMA_U8S8, u8, s8, int, int, 16, 16, 16, false, true, TSL_MMA_HALF_K>("u8 x s8 m16n8k16 global ragged", 14, 13, 16);
  global_case<TSL_MMA_F16, f16, f16, float, float, 16, 8, 8, true, false, TSL_MMA_HALF_K>("f16 m16n8k8 global trans", 16, 8, 8);
  // Eight-row tiles: 8-bit m8n8k16; f16 m16n8k8 with zero rows 8-15, K = 4 zero padded.
  shared_case<TSL_MMA_S8, s8, s8, int, int, 24, 16, 32, false, false, 48, 48, true, TSL_MMA_M8>("s8 m8n8k16 ldsm x4/x2");
  shared_case<TSL_MMA_U8, u8, u8, int, int, 8, 8, 16, false, false, 16, 16, true, TSL_MMA_M8>("u8 m8n8k16 ldsm x1");
  global_case<TSL_MMA_S8, s8, s8, int, int, 8, 16, 16, false, true, TSL_MMA_M8>("s8 m8n8k16 global, rows past the tile", 12, 16, 16);
  shared_case<TSL_MMA_F16, f16, f16, float, float, 8, 8, 4, false, true, 24, 24, true, TSL_MMA_M8, 4>("f16 8x8x4 (m16n8k8, padded)");
  shared_case<TSL_MMA_F16, f16, f16, tsl_u32, tsl_f16, 24, 16, 16, false, false, 24, 24, true, TSL_MMA_M8>("f16 24x16x16 f16 acc (m16n8k8, 8 rows)");
  global_case<TSL_MMA_F16, f16, f16, float, float, 8, 8, 4, false, true, TSL_MMA_M8, 4>("f16 8x8x4 global", 16, 8, 12);
  // Stored transposed (`mma.store.transp`), ragged.
  global_case<TSL_MMA_F16, f16, f16, float, f16, 32, 24, 16, false, false, TSL_MMA_FULL, 0, true>("f16 store.transp ragged", 29, 21, 16);
  global_case<TSL_MMA_S8, s8, s8, int, int, 8, 16, 16, false, true, TSL_MMA_M8, 0, true>("s8 m8n8k16 store.transp", 8, 16, 16);
  // Accumulators loaded from a tensor (`mc = mma.load c`), ragged (rows/columns past the tile
  // keep their values).
  loadc_case<TSL_MMA_F16, f16, float, f16, 32, 16, 16>("f16 loaded f16 C", 32, 16);
  loadc_case<TSL_MMA_F16, f16, float, float, 8, 8, 4, TSL_MMA_M8, 4>("f16 8x8x4 loaded f32 C, ragged", 12, 10);
  loadc_case<TSL_MMA_S8, s8, int, int, 16, 8, 32>("s8 loaded s32 C", 14, 8);
  loadc_case<TSL_MMA_BF16, bf16, float, bf16, 16, 8, 16>("bf16 loaded bf16 C", 16, 8);
  // Swizzled tiles (TMA layouts): 128, 64 and 32-byte rows, tiles at row and column offsets,
  // two K steps, both major orders, an odd n8 count, every element type of the full shapes.
  swz_case<TSL_MMA_F16, f16, float, float, 64, 64, 16, false, false, 128, 128>("f16 swz128 row.row 64x64x16", 64, 16, 8, 48);
  swz_case<TSL_MMA_F16, f16, float, float, 32, 32, 32, false, false, 128, 128>("f16 swz128 two k-steps", 16, 32, 24, 0);
  swz_case<TSL_MMA_F16, f16, float, float, 32, 16, 16, false, false, 64, 64>("f16 swz64", 32, 16, 16, 16);
  swz_case<TSL_MMA_F16, f16, float, float, 16, 16, 16, false, false, 32, 32>("f16 swz32", 16, 0, 0, 0);
  swz_case<TSL_MMA_F16, f16, float, float, 32, 40, 32, true, true, 128, 128>("f16 swz128 col.col, 5 n8 tiles", 16, 32, 0, 8);
  swz_case<TSL_MMA_BF16, bf16, float, float, 32, 32, 16, false, true, 64, 128>("bf16 swz64 x swz128 row.col", 0, 16, 16, 32);
  swz_case<TSL_MMA_S8, s8, int, int, 32, 16, 64, false, false, 128, 128>("s8 swz128 m16n8k32", 16, 64, 8, 0);
  swz_case<TSL_MMA_TF32, float, float, float, 16, 16, 16, false, false, 128, 64>("tf32 swz128 x swz64", 8, 8, 8, 0);
  printf("%d failures\n", failures);
  return failures != 0;
}
