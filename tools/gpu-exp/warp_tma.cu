// A warp-level (mma.sync) GEMM fed by TMA instead of cp.async, written by hand to measure what
// the DSL would gain from lowering `mma.load` on a TMA-loaded, 128B-swizzled shared tile before
// building it. f16 in, f32 accumulate, f16 out, row-major C[M, N] = A[M, K] · B[N, K]ᵀ (the
// layout of kernels/v2_warp_mma.co).
//
// Main loop (BK = 64: one 128-byte swizzle span of f16 per row):
//   - STAGES shared stages of A [BM, 64] and B [BN, 64], each written by one TMA load
//     (`cp.async.bulk.tensor.2d`, SWIZZLE_128B: chunk c of row r lands at chunk c ^ (r % 8));
//     zeros past the tensor's edges come from the TMA unit, so ragged shapes need no tests.
//   - a `full` mbarrier per stage (the TMA's transaction count) and an `empty` one (one arrival
//     per warp once its ldmatrix reads of the stage are done): no __syncthreads in the loop, and
//     no copy instructions or copy address arithmetic in any thread but thread 0.
//   - thread 0 refills the stage of tile kt - 1 with tile kt - 1 + STAGES after its first k-step
//     of tile kt (waiting on that stage's `empty`), so STAGES - 1 tiles are in flight.
//   - each warp: WM × WN of the block's tile in registers; per 16-wide k-step (WM / 16) ldmatrix.x4
//     of A and (WN / 16) of B at XOR'd addresses, (WM / 16) × (WN / 8) mma.sync.m16n8k16.
// CLUSTER = 2: blocks (2i, 2i + 1) along M form a cluster and share B's tile: each loads half of
// its rows and multicasts it to both (L2 reads of B halved); a stage is refilled once both
// blocks' warps have released it (remote arrivals on the peer's `empty`).
// MINB: resident blocks per SM ptxas sizes the registers for (__launch_bounds__).
// REFILL_AT: thread 0 refills after k-step REFILL_AT of the tile (0 … 3), or, at -1, at the top
// of the iteration before its wait for the tile (as kernels/v2_warp_tma.co does).
// PF: each k-step's fragments are loaded one step ahead into a register double buffer; the
// last k-step of a tile releases its stage, waits for the next tile and loads its first
// fragments before its own mma.sync (the sm_80 multistage order, with 64 more registers).
// MATH = false: the same loads and barriers without ldmatrix or mma: the load side's own time,
// which bounds the kernel from below (is L2 → SM bandwidth the wall?).
#pragma once
#include <cuda.h>
#include <cuda_fp16.h>
#include <cstdint>

namespace wtma {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Arrival on the mbarrier at the same offset in cluster block `cta`'s shared memory.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
  asm volatile(
      "{ .reg .b32 r; mapa.shared::cluster.u32 r, %0, %1;\n"
      "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r]; }" ::"r"(bar),
      "r"(cta)
      : "memory");
}
// One try_wait (the hardware suspends the thread for a while before it answers false).
template <bool CLUSTER_SCOPE>
__device__ __forceinline__ bool mbar_try(uint32_t bar, uint32_t phase) {
  uint32_t ok;
  if constexpr (CLUSTER_SCOPE)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "  selp.u32 %0, 1, 0, p; }"
        : "=r"(ok)
        : "r"(bar), "r"(phase)
        : "memory");
  else
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "  selp.u32 %0, 1, 0, p; }"
        : "=r"(ok)
        : "r"(bar), "r"(phase)
        : "memory");
  return ok != 0;
}
// Waits for the phase of parity `phase` to complete; a wait that never ends (a protocol bug)
// traps after about 2^26 tries instead of hanging the GPU batch. CLUSTER_SCOPE: acquire at
// cluster scope (the peer's arrivals are cluster-scope releases).
template <bool CLUSTER_SCOPE = false>
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t phase) {
  for (long long i = 0; !mbar_try<CLUSTER_SCOPE>(bar, phase); ++i)
    if (i == (1ll << 26)) __trap();
}
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0,
                                         int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, "
      "{%3, %4}], [%2];" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}
// The same box written into every block of `mask` (same shared offsets; each block's own
// barrier at `bar`'s offset receives the bytes it got).
__device__ __forceinline__ void tma_load_mc(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::"
      "cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
      "l"(map), "r"(bar), "r"(c0), "r"(c1), "h"(mask)
      : "memory");
}
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void mma16816(float* d, const uint32_t* a, const uint32_t* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

constexpr int BK = 64;  // f16 elements per row of a stage: one 128-byte swizzle span

template <int BM, int BN, int STAGES>
struct Layout {
  static constexpr int A_BYTES = BM * BK * 2, B_BYTES = BN * BK * 2;
  static constexpr int A0 = 0, B0 = STAGES * A_BYTES, BAR = B0 + STAGES * B_BYTES;
  // + 1024 of slack for aligning the base (SWIZZLE_128B repeats every 1024 bytes).
  static constexpr int SMEM = BAR + 16 * STAGES + 1024;
};

template <int BM, int BN, int WM, int WN, int STAGES, int CLUSTER, bool MATH, int MINB = 1,
          int REFILL_AT = 0, bool PF = false>
__global__ void __launch_bounds__(BM / WM * (BN / WN) * 32, MINB)
    warp_tma_gemm(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
         __half* __restrict__ C, int M, int N, int K, int group_m) {
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0, "tiles");
  static_assert(BN % (8 * CLUSTER) == 0, "B's rows split evenly between the cluster's blocks");
  static_assert(CLUSTER == 1 || CLUSTER == 2, "cluster of 1 or 2 blocks along M");
  using L = Layout<BM, BN, STAGES>;
  constexpr int NWARPS = BM / WM * (BN / WN);
  constexpr int FM = WM / 16, FN = WN / 8;
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = smem_u32(smem_raw);
  const uint32_t base = (raw + 1023) & ~1023u;
  const uint32_t sA = base + L::A0, sB = base + L::B0, full = base + L::BAR,
                 empty = full + 8 * STAGES;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const uint32_t rank = CLUSTER == 1 ? 0 : cluster_rank();

  // Grouped rasterization over block pairs (CLUSTER 2: a cluster's blocks are consecutive
  // along M and share bn; a block past the last row still loads and releases its B half).
  const int grid_m = (M + BM - 1) / BM, grid_n = (N + BN - 1) / BN;
  const int pm_count = (grid_m + CLUSTER - 1) / CLUSTER;
  const int pid = blockIdx.x / CLUSTER;
  const int group_size = group_m * grid_n;
  const int first = (pid / group_size) * group_m;
  const int gm = pm_count - first < group_m ? pm_count - first : group_m;
  const int in_group = pid % group_size;
  const int bm = (first + in_group % gm) * CLUSTER + (int)rank, bn = in_group / gm;

  const int KT = (K + BK - 1) / BK;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full + 8 * s, 1);
      mbar_init(empty + 8 * s, NWARPS * CLUSTER);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if constexpr (CLUSTER > 1)
    cluster_sync();
  else
    __syncthreads();

  // Thread 0's issue of tile t into stage s.
  auto issue = [&](int s, int t) {
    const uint32_t bar = full + 8 * s;
    mbar_expect_tx(bar, L::A_BYTES + L::B_BYTES);
    tma_load(sA + s * L::A_BYTES, &ta, bar, t * BK, bm * BM);
    if constexpr (CLUSTER == 1) {
      tma_load(sB + s * L::B_BYTES, &tb, bar, t * BK, bn * BN);
    } else {
      constexpr int HALF = BN / CLUSTER;
      tma_load_mc(sB + s * L::B_BYTES + rank * HALF * BK * 2, &tb, bar, t * BK,
                  bn * BN + (int)rank * HALF, (uint16_t)((1u << CLUSTER) - 1));
    }
  };
  if (tid == 0)
    for (int s = 0; s < STAGES && s < KT; ++s) issue(s, s);

  float acc[FM][FN][4];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.f;

  const int wm = warp / (BN / WN), wn = warp % (BN / WN);
  // ldmatrix addresses: A's lanes address rows lane % 16 of an m16 block, 16-byte chunk
  // 2 kk + lane / 16; B's x4 covers two n8 blocks: rows (lane / 16) · 8 + lane % 8, chunk
  // 2 kk + (lane / 8) % 2. Blocks start at multiples of 8 rows, so a row's XOR key is lane % 8.
  const uint32_t a_row = (uint32_t)(wm * WM + lane % 16) * 128;
  const uint32_t b_row = (uint32_t)(wn * WN + (lane / 16) * 8 + lane % 8) * 128;
  const uint32_t key = lane % 8, a_hi = lane / 16, b_hi = (lane / 8) % 2;

  // Thread 0's refill of the stage tile kt - 1 used with tile kt - 1 + STAGES, once every warp
  // (of the cluster) released it.
  auto refill = [&](int kt) {
    if (tid == 0 && kt >= 1 && kt - 1 + STAGES < KT) {
      const int sp = (kt - 1) % STAGES;
      if constexpr (CLUSTER == 1)
        mbar_wait(empty + 8 * sp, ((kt - 1) / STAGES) & 1);
      else
        mbar_wait<true>(empty + 8 * sp, ((kt - 1) / STAGES) & 1);
      issue(sp, kt - 1 + STAGES);
    }
  };
  // This warp's release of stage s (release orders its ldmatrix reads before the arrival).
  auto release = [&](int s) {
    __syncwarp();
    if (lane == 0) {
      if constexpr (CLUSTER == 1) {
        mbar_arrive(empty + 8 * s);
      } else {
#pragma unroll
        for (int c = 0; c < CLUSTER; ++c) mbar_arrive_cluster(empty + 8 * s, c);
      }
    }
  };
  if constexpr (PF && MATH) {
    static_assert(BK / 16 % 2 == 0, "an even number of k-steps per tile");
    uint32_t fa[2][FM][4], fb[2][FN / 2][4];
    auto load = [&](int buf, int stage, int kk) {
      const uint32_t a_s = sA + stage * L::A_BYTES + a_row, b_s = sB + stage * L::B_BYTES + b_row;
      const uint32_t ca = ((2 * kk + a_hi) ^ key) << 4, cb = ((2 * kk + b_hi) ^ key) << 4;
#pragma unroll
      for (int i = 0; i < FM; ++i) ldsm_x4(fa[buf][i], a_s + i * 16 * 128 + ca);
#pragma unroll
      for (int j = 0; j < FN / 2; ++j) ldsm_x4(fb[buf][j], b_s + j * 16 * 128 + cb);
    };
    if (KT > 0) {
      mbar_wait(full, 0);
      load(0, 0, 0);
    }
    for (int kt = 0; kt < KT; ++kt) {
      const int s = kt % STAGES;
      if constexpr (REFILL_AT < 0) refill(kt);
#pragma unroll
      for (int kk = 0; kk < BK / 16; ++kk) {
        const int cur = kk % 2;
        if (kk + 1 < BK / 16) {
          load(cur ^ 1, s, kk + 1);
        } else {
          release(s);
          if (kt + 1 < KT) {
            const int sn = (kt + 1) % STAGES;
            mbar_wait(full + 8 * sn, ((kt + 1) / STAGES) & 1);
            load(cur ^ 1, sn, 0);
          }
        }
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
          for (int j = 0; j < FN; ++j) {
            const int jj = (i % 2) ? FN - 1 - j : j;
            mma16816(acc[i][jj], fa[cur][i], &fb[cur][jj / 2][(jj % 2) * 2]);
          }
        if (kk == REFILL_AT) refill(kt);
      }
    }
  }
  for (int kt = 0; kt < (PF && MATH ? 0 : KT); ++kt) {
    const int s = kt % STAGES;
    if constexpr (REFILL_AT < 0) refill(kt);
    mbar_wait(full + 8 * s, (kt / STAGES) & 1);
    const uint32_t a_s = sA + s * L::A_BYTES + a_row, b_s = sB + s * L::B_BYTES + b_row;
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
      if constexpr (MATH) {
        uint32_t a[FM][4], b[FN / 2][4];
        const uint32_t ca = ((2 * kk + a_hi) ^ key) << 4, cb = ((2 * kk + b_hi) ^ key) << 4;
#pragma unroll
        for (int i = 0; i < FM; ++i) ldsm_x4(a[i], a_s + i * 16 * 128 + ca);
#pragma unroll
        for (int j = 0; j < FN / 2; ++j) ldsm_x4(b[j], b_s + j * 16 * 128 + cb);
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
          for (int j = 0; j < FN; ++j) {
            const int jj = (i % 2) ? FN - 1 - j : j;  // serpentine: reuse a fragment
            mma16816(acc[i][jj], a[i], &b[jj / 2][(jj % 2) * 2]);
          }
      }
      if (kk == REFILL_AT) refill(kt);
    }
    release(s);
  }

  // The accumulator: rows g and g + 8, columns 2t, 2t + 1 of each m16n8 tile; pairs stored as
  // half2 where both are inside (N even keeps them 4-byte aligned), else one by one.
  const int g = lane / 4, t = lane % 4;
  const int r0 = bm * BM + wm * WM, c0 = bn * BN + wn * WN;
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = r0 + i * 16 + g + 8 * h, c = c0 + j * 8 + 2 * t;
        if (r < M) {
          const float x = acc[i][j][2 * h], y = acc[i][j][2 * h + 1];
          if (c + 1 < N && N % 2 == 0) {
            *reinterpret_cast<__half2*>(C + (size_t)r * N + c) = __floats2half2_rn(x, y);
          } else {
            if (c < N) C[(size_t)r * N + c] = __float2half_rn(x);
            if (c + 1 < N) C[(size_t)r * N + c + 1] = __float2half_rn(y);
          }
        }
      }
  // No block of the cluster leaves while its peer may still arrive on its barriers.
  if constexpr (CLUSTER > 1) cluster_sync();
}

}  // namespace wtma
