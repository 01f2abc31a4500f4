// Host emulation of whole thread blocks running an emitted warp-level `mma` kernel
// (tests/warp_pipe_host.rs includes the kernel's `.cu`, minus the functions that hold inline
// PTX and its explicit instantiation, as TSL_BLOCK_KERNEL, and appends TSL_RUN, TSL_THREADS,
// TSL_BM, TSL_BN). Every CUDA thread of a block is a fiber (ucontext) on one OS thread, switched
// at the points where threads meet: __syncthreads, and the warp-wide ldmatrix and mma.sync,
// which run once all 32 lanes have arrived (modelled from the PTX ISA's fragment tables).
// cp.async lands at one of the two extremes the GPU allows: only when its thread waits for its
// group (cp.async.wait_group N lands all but the newest N groups), so that a read before the
// right wait sees the poison every block's shared memory starts with (0xFF bytes: f16 NaN) or
// an older tile; or, with TSL_LAND_EARLY, as it is issued, so that a copy that refills a stage
// some warp still reads overwrites what that warp reads next. Either way the output goes wrong. The blocks run one after another over the grid.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ucontext.h>
#include <vector>

#define __global__
#define __device__ inline
#define __host__
#define __forceinline__
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__
#define __syncthreads() tsl_host_barrier()

typedef unsigned short tsl_u16;
typedef unsigned int tsl_u32;
struct tsl_f16;
struct tsl_bf16;
struct tsl_f16x2;
struct tsl_host_dim3 {
  unsigned x, y, z;
};
static tsl_host_dim3 threadIdx, blockIdx;
struct float2 {
  float x, y;
};
struct int2 {
  int x, y;
};
inline float2 make_float2(float a, float b) { return {a, b}; }
inline int2 make_int2(int a, int b) { return {a, b}; }
inline tsl_u32 __float_as_uint(float x) {
  tsl_u32 u;
  memcpy(&u, &x, 4);
  return u;
}
inline int __float2int_rn(float x) { return (int)lrintf(x); }
inline unsigned __float2uint_rn(float x) { return (unsigned)lrintf(x); }
template <typename T>
T __shfl_xor_sync(unsigned, T, int);

void tsl_host_barrier();
// The helpers whose bodies are inline PTX, defined after the kernel.
float tsl_f16_to_f32(tsl_f16 x);
tsl_f16 tsl_f16_from_f32(float x);
float tsl_bf16_to_f32(tsl_bf16 x);
tsl_bf16 tsl_bf16_from_f32(float x);
tsl_f16 tsl_fma(tsl_f16 a, tsl_f16 b, tsl_f16 c);
tsl_bf16 tsl_fma(tsl_bf16 a, tsl_bf16 b, tsl_bf16 c);
tsl_f16x2 tsl_fma(tsl_f16x2 a, tsl_f16x2 b, tsl_f16x2 c);
tsl_u32 tsl_pack_f16x2(float lo, float hi);
tsl_u32 tsl_pack_bf16x2(float lo, float hi);
tsl_u32 tsl_smem_addr(const void *p);
void tsl_cp_async_16(tsl_u32 dst, const void *src, int src_bytes);
void tsl_cp_async_commit();
void tsl_cp_async_wait_all();
void tsl_host_cp_async_wait(int n);
template <int N>
void tsl_cp_async_wait() {
  tsl_host_cp_async_wait(N);
}
void tsl_ldsm_x1(tsl_u32 &r0, tsl_u32 addr);
void tsl_ldsm_x1_t(tsl_u32 &r0, tsl_u32 addr);
void tsl_ldsm_x2(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 addr);
void tsl_ldsm_x2_t(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 addr);
void tsl_ldsm_x4(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 &r2, tsl_u32 &r3, tsl_u32 addr);
void tsl_ldsm_x4_t(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 &r2, tsl_u32 &r3, tsl_u32 addr);
template <int KIND>
void tsl_mma_m16n8(int *d, const tsl_u32 *a, const tsl_u32 *b);
template <int KIND>
void tsl_mma_m16n8(tsl_u32 *d, const tsl_u32 *a, const tsl_u32 *b);
template <int KIND>
void tsl_mma_m16n8_half(float *d, const tsl_u32 *a, const tsl_u32 *b);
template <int KIND>
void tsl_mma_m16n8_half(int *d, const tsl_u32 *a, const tsl_u32 *b);
template <int KIND>
void tsl_mma_m16n8_half(tsl_u32 *d, const tsl_u32 *a, const tsl_u32 *b);
template <int KIND>
void tsl_mma_m8n8(int *d, const tsl_u32 *a, const tsl_u32 *b);

#include TSL_BLOCK_KERNEL

// ---- the fibers ----------------------------------------------------------------------------
struct Fiber {
  ucontext_t ctx;
  std::vector<char> stack;
  bool done;
};
static std::vector<Fiber> g_fibers;
static ucontext_t g_sched;
static int g_cur;
static void yield_to_scheduler() { swapcontext(&g_fibers[g_cur].ctx, &g_sched); }

static int g_bar_count, g_bar_gen;
void tsl_host_barrier() {
  const int gen = g_bar_gen;
  if (++g_bar_count == (int)g_fibers.size()) {
    g_bar_count = 0;
    ++g_bar_gen;
    return;
  }
  while (g_bar_gen == gen) yield_to_scheduler();
}

// ---- shared memory and cp.async --------------------------------------------------------------
alignas(1024) unsigned char tsl_smem_raw[232 * 1024];
tsl_u32 tsl_smem_addr(const void *p) { return (tsl_u32)((const unsigned char *)p - tsl_smem_raw); }
struct Copy {
  tsl_u32 dst;
  const unsigned char *src;
  int bytes;
};
static std::vector<std::vector<std::vector<Copy>>> g_groups;  // [thread][group][copy]
static std::vector<std::vector<Copy>> g_open;                // [thread]
static void land(const std::vector<Copy> &g);
void tsl_cp_async_16(tsl_u32 dst, const void *src, int src_bytes) {
#ifdef TSL_LAND_EARLY
  // The other extreme: the copy lands as it is issued, over whatever the stage held.
  land({{dst, (const unsigned char *)src, src_bytes}});
#else
  g_open[threadIdx.x].push_back({dst, (const unsigned char *)src, src_bytes});
#endif
}
void tsl_cp_async_commit() {
  g_groups[threadIdx.x].push_back(g_open[threadIdx.x]);
  g_open[threadIdx.x].clear();
}
static void land(const std::vector<Copy> &g) {
  for (const Copy &c : g) {
    memset(tsl_smem_raw + c.dst, 0, 16);
    if (c.bytes > 0) memcpy(tsl_smem_raw + c.dst, c.src, c.bytes);
  }
}
void tsl_host_cp_async_wait(int n) {
  auto &gs = g_groups[threadIdx.x];
  while ((int)gs.size() > n) {
    land(gs.front());
    gs.erase(gs.begin());
  }
}
void tsl_cp_async_wait_all() {
  tsl_cp_async_commit();
  tsl_host_cp_async_wait(0);
}

// ---- f16 -----------------------------------------------------------------------------------
static float h2f(tsl_u16 b) {
  _Float16 h;
  memcpy(&h, &b, 2);
  return (float)h;
}
static tsl_u16 f2h(float f) {
  _Float16 h = (_Float16)f;
  tsl_u16 b;
  memcpy(&b, &h, 2);
  return b;
}
float tsl_f16_to_f32(tsl_f16 x) { return h2f(x.bits); }
tsl_f16 tsl_f16_from_f32(float x) { return {f2h(x)}; }
float tsl_bf16_to_f32(tsl_bf16 x) {
  tsl_u32 u = (tsl_u32)x.bits << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
tsl_bf16 tsl_bf16_from_f32(float x) {
  tsl_u32 u;
  memcpy(&u, &x, 4);
  return {(tsl_u16)(u >> 16)};
}
tsl_u32 tsl_pack_f16x2(float lo, float hi) { return f2h(lo) | ((tsl_u32)f2h(hi) << 16); }
tsl_u32 tsl_pack_bf16x2(float lo, float hi) {
  return tsl_bf16_from_f32(lo).bits | ((tsl_u32)tsl_bf16_from_f32(hi).bits << 16);
}
tsl_f16 tsl_fma(tsl_f16 a, tsl_f16 b, tsl_f16 c) {
  return tsl_f16_from_f32(h2f(a.bits) * h2f(b.bits) + h2f(c.bits));
}

// ---- warp-wide instructions ----------------------------------------------------------------
struct Warp {
  int count, gen;
  tsl_u32 addr[32];
  tsl_u32 a[32][4], b[32][2];
  float c[32][4];
  tsl_u32 ldsm_out[32][4];
};
static Warp g_warps[32];

// Every lane posts, the last computes for all, the others wait for it.
template <typename Post, typename Compute>
static void warp_wide(Post post, Compute compute) {
  Warp &w = g_warps[threadIdx.x / 32];
  const int gen = w.gen;
  post(w, threadIdx.x % 32);
  if (++w.count == 32) {
    compute(w);
    w.count = 0;
    ++w.gen;
    return;
  }
  while (w.gen == gen) yield_to_scheduler();
}

// ldmatrix .x{n}: lanes 8q … 8q + 7 give the rows of matrix q; lane l gets, of each matrix,
// row l / 4, elements 2 (l % 4) and + 1 (.trans: column l / 4, rows 2 (l % 4) and + 1).
static void ldsm(tsl_u32 *r, int n, bool trans, tsl_u32 addr) {
  const int l = threadIdx.x % 32;
  warp_wide([&](Warp &w, int lane) { w.addr[lane] = addr; },
            [&](Warp &w) {
              for (int lane = 0; lane < 32; ++lane)
                for (int q = 0; q < n; ++q) {
                  if (!trans) {
                    memcpy(&w.ldsm_out[lane][q], tsl_smem_raw + w.addr[q * 8 + lane / 4] + (lane % 4) * 4, 4);
                  } else {
                    tsl_u16 e0, e1;
                    memcpy(&e0, tsl_smem_raw + w.addr[q * 8 + 2 * (lane % 4)] + (lane / 4) * 2, 2);
                    memcpy(&e1, tsl_smem_raw + w.addr[q * 8 + 2 * (lane % 4) + 1] + (lane / 4) * 2, 2);
                    w.ldsm_out[lane][q] = e0 | ((tsl_u32)e1 << 16);
                  }
                }
            });
  for (int q = 0; q < n; ++q) r[q] = g_warps[threadIdx.x / 32].ldsm_out[l][q];
}
void tsl_ldsm_x1(tsl_u32 &r0, tsl_u32 a) { ldsm(&r0, 1, false, a); }
void tsl_ldsm_x1_t(tsl_u32 &r0, tsl_u32 a) { ldsm(&r0, 1, true, a); }
void tsl_ldsm_x2(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 a) {
  tsl_u32 r[2];
  ldsm(r, 2, false, a);
  r0 = r[0], r1 = r[1];
}
void tsl_ldsm_x2_t(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 a) {
  tsl_u32 r[2];
  ldsm(r, 2, true, a);
  r0 = r[0], r1 = r[1];
}
void tsl_ldsm_x4(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 &r2, tsl_u32 &r3, tsl_u32 a) {
  tsl_u32 r[4];
  ldsm(r, 4, false, a);
  r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3];
}
void tsl_ldsm_x4_t(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 &r2, tsl_u32 &r3, tsl_u32 a) {
  tsl_u32 r[4];
  ldsm(r, 4, true, a);
  r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3];
}

// mma.sync.m16n8k16 f16 × f16 + f32 (PTX ISA): g = lane / 4, t = lane % 4. A: register j holds
// row g + 8 (j % 2), columns 2t + 8 (j / 2) and + 1; B: register j holds rows (K) 2t + 8j and
// + 1 of column g; C/D: values 2h + e are row g + 8h, column 2t + e.
static float elem16(bool bf16, tsl_u16 bits) { return bf16 ? tsl_bf16_to_f32(tsl_bf16{bits}) : h2f(bits); }
static void mma16816(bool bf16, float *d, const tsl_u32 *a, const tsl_u32 *b) {
  const int l = threadIdx.x % 32;
  warp_wide(
      [&](Warp &w, int lane) {
        for (int j = 0; j < 4; ++j) w.a[lane][j] = a[j], w.c[lane][j] = d[j];
        w.b[lane][0] = b[0], w.b[lane][1] = b[1];
      },
      [&](Warp &w) {
        float A[16][16], B[16][8], C[16][8];
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane / 4, t = lane % 4;
          for (int j = 0; j < 4; ++j)
            for (int e = 0; e < 2; ++e)
              A[g + 8 * (j % 2)][2 * t + 8 * (j / 2) + e] = elem16(bf16, (tsl_u16)(w.a[lane][j] >> (16 * e)));
          for (int j = 0; j < 2; ++j)
            for (int e = 0; e < 2; ++e) B[2 * t + 8 * j + e][g] = elem16(bf16, (tsl_u16)(w.b[lane][j] >> (16 * e)));
          for (int h = 0; h < 2; ++h)
            for (int e = 0; e < 2; ++e) C[g + 8 * h][2 * t + e] = w.c[lane][2 * h + e];
        }
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane / 4, t = lane % 4;
          for (int h = 0; h < 2; ++h)
            for (int e = 0; e < 2; ++e) {
              const int r = g + 8 * h, n = 2 * t + e;
              double s = C[r][n];
              for (int k = 0; k < 16; ++k) s += (double)A[r][k] * B[k][n];
              w.c[lane][2 * h + e] = (float)s;
            }
        }
      });
  for (int j = 0; j < 4; ++j) d[j] = g_warps[threadIdx.x / 32].c[l][j];
}

template <>
void tsl_mma_m16n8<TSL_MMA_F16>(float *d, const tsl_u32 *a, const tsl_u32 *b) {
  mma16816(false, d, a, b);
}
template <>
void tsl_mma_m16n8<TSL_MMA_BF16>(float *d, const tsl_u32 *a, const tsl_u32 *b) {
  mma16816(true, d, a, b);
}

// ---- the grid ------------------------------------------------------------------------------
// The kernel's operands: f16 (or TSL_IN_BF16) [M, K] and [N, K] (or TSL_RHS_KN: [K, N]), the
// output f16 (or TSL_OUT_F32) [M, N].
#ifdef TSL_IN_BF16
typedef tsl_bf16 In;
static float in_f(tsl_u16 b) { return tsl_bf16_to_f32(tsl_bf16{b}); }
static tsl_u16 in_bits(float f) { return tsl_bf16_from_f32(f).bits; }
#else
typedef tsl_f16 In;
static float in_f(tsl_u16 b) { return h2f(b); }
static tsl_u16 in_bits(float f) { return f2h(f); }
#endif
#ifdef TSL_OUT_F32
typedef float Out;
static double out_f(Out x) { return x; }
static const Out OUT_POISON = NAN;
#else
typedef tsl_f16 Out;
static double out_f(Out x) { return h2f(x.bits); }
static const Out OUT_POISON = {0x7e00};
#endif
static const In *g_lhs, *g_rhs;
static Out *g_out;
static int g_M, g_N, g_K;
static void thread_main() {
  TSL_RUN(g_lhs, g_rhs, g_out, g_M, g_K, g_N);
  g_fibers[g_cur].done = true;
  swapcontext(&g_fibers[g_cur].ctx, &g_sched);
}

static bool run_block(tsl_host_dim3 block) {
  memset(tsl_smem_raw, 0xff, sizeof tsl_smem_raw);
  g_fibers.assign(TSL_THREADS, Fiber{});
  g_groups.assign(TSL_THREADS, {});
  g_open.assign(TSL_THREADS, {});
  g_bar_count = 0;
  for (auto &w : g_warps) w.count = 0;
  blockIdx = block;
  for (int i = 0; i < TSL_THREADS; ++i) {
    Fiber &f = g_fibers[i];
    f.stack.resize(256 * 1024);
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack.data();
    f.ctx.uc_stack.ss_size = f.stack.size();
    f.ctx.uc_link = &g_sched;
    makecontext(&f.ctx, thread_main, 0);
  }
  for (;;) {
    bool all_done = true;
    for (int i = 0; i < TSL_THREADS; ++i) {
      if (g_fibers[i].done) continue;
      all_done = false;
      g_cur = i;
      threadIdx = {(unsigned)i, 0, 0};
      swapcontext(&g_sched, &g_fibers[i].ctx);
    }
    if (all_done) return true;
  }
}

// out = lhs · rhsᵀ at (M, N, K), against a double reference: the number of outputs off.
static long check(int M, int N, int K, unsigned seed) {
  std::vector<tsl_u16> a((size_t)M * K), b((size_t)N * K);
  std::vector<Out> o((size_t)M * N, OUT_POISON);
  unsigned s = seed;
  auto rnd = [&] {
    s = s * 1664525u + 1013904223u;
    return ((s >> 8) % 2001) / 1000.0f - 1.0f;
  };
  for (auto &x : a) x = in_bits(rnd());
  for (auto &x : b) x = in_bits(rnd());
  g_lhs = (const In *)a.data();
  g_rhs = (const In *)b.data();
  g_out = o.data();
  g_M = M, g_N = N, g_K = K;
  const unsigned gm = (M + TSL_BM - 1) / TSL_BM, gn = (N + TSL_BN - 1) / TSL_BN;
#ifdef TSL_GRID_2D
  // blockIdx.x over the block rows, blockIdx.y over the block columns.
  for (unsigned x = 0; x < gm; ++x)
    for (unsigned y = 0; y < gn; ++y) run_block({x, y, 0});
#else
  // One dimension (a rasterized grid).
  for (unsigned blk = 0; blk < gm * gn; ++blk) run_block({blk, 0, 0});
#endif
  long bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double r = 0;
      for (int k = 0; k < K; ++k) {
#ifdef TSL_RHS_KN
        const tsl_u16 bk = b[(size_t)k * N + j];
#else
        const tsl_u16 bk = b[(size_t)j * K + k];
#endif
        r += (double)in_f(a[(size_t)i * K + k]) * in_f(bk);
      }
      const double got = out_f(o[(size_t)i * N + j]);
      if (!(fabs(got - r) <= 0.02 + 0.01 * fabs(r))) {
        if (bad < 5) printf("  (%d, %d): got %g, want %g\n", i, j, got, r);
        ++bad;
      }
    }
  printf("%dx%dx%d: %ld of %d outputs off\n", M, N, K, bad, M * N);
  return bad;
}

int main() {
  long bad = 0;
  bad += check(TSL_BM * 2, TSL_BN, 256, 1);        // tiles that divide: the even loop
  bad += check(TSL_BM + 13, TSL_BN - 5, 200, 2);   // ragged M, N and K
  bad += check(TSL_BM - 3, TSL_BN + 9, 24, 3);     // one K tile, narrower than BK
  printf("%ld failures\n", bad);
  return bad == 0 ? 0 : 1;
}
