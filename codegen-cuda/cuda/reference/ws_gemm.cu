// tessel reference kernel: the warp-specialized TMA + WGMMA GEMM that the v3/v4 kernels
// (kernels/v3_warpspec.co, kernels/v4_tuned.co) lower to, written by hand with the prelude
// helpers exactly as the code generator emits them. It is the target the generator's output is
// compared against.
//
//   out[M, N] = lhs[M, K] . rhs[N, K]^T      lhs, rhs K-major (row-major [M,K] and [N,K])
//
// Block = 1 producer warpgroup + CONSUMERS consumer warpgroups (128 * (CONSUMERS + 1) threads).
// Block tile = (64 * CONSUMERS) x WARP_N; consumer c owns rows [64c, 64c + 64) of it.
// Pipeline: STAGES shared stages, each holding the lhs tile [64*CONSUMERS, TILE_K] and the rhs tile
// [WARP_N, TILE_K] as TILE_K / (SWIZ/2) K-blocks of SWIZ-byte rows (one TMA box each, SWIZ-byte
// swizzle). full[s]: producer expect_tx + TMA bytes -> consumers; empty[s]: one arrival per
// consumer warp after its wgmma wait covered the stage -> producer.
// Epilogue per consumer: accumulators -> (pack to 16-bit) -> stmatrix into its own [64, WARP_N]
// staging tile -> fence.proxy.async -> named barrier -> one thread TMA-stores (clipped at M, N).
//
// Host contract (see ws_gemm_host.cu): tm_lhs box {SWIZ/2, 64*CONSUMERS}, tm_rhs box
// {SWIZ/2, WARP_N}, both with swizzle SWIZ; tm_out box {64, 64} with 128B swizzle when
// WARP_N % 64 == 0, else box {WARP_N, 64} without swizzle (tsl_ref_out_layout). Dynamic shared
// memory = tsl_ref_ws_gemm_smem_bytes<...>(). Grid: 1-D of cdiv(M, 64*CONSUMERS) *
// cdiv(N, WARP_N) blocks (grouped rasterization, TSL_REF_GROUP_M M-tiles per group), or 2-D
// (m tiles, n tiles) for plain order. K must be a multiple of 8 (16-byte row pitch); the K tail
// of the last tile is zero-filled by TMA.
#pragma once

#include "prelude.cuh"
#include "sm90_hopper.cuh"
#include "sm90_wgmma.cuh"

#ifndef TSL_REF_GROUP_M
#define TSL_REF_GROUP_M 16
#endif

__host__ __device__ constexpr int tsl_ref_cdiv(int a, int b) { return (a + b - 1) / b; }

// Output staging layout for a WARP_N-wide consumer tile.
template <int WARP_N> __host__ __device__ constexpr int tsl_ref_out_layout() {
  return WARP_N % 64 == 0 ? TSL_OUT_SWZ128 : TSL_OUT_ROWMAJOR;
}

// Register split for setmaxnreg: producer warpgroup shrinks, consumers grow, within 64K regs.
template <int CONSUMERS> __host__ __device__ constexpr int tsl_ref_producer_regs() {
  return CONSUMERS <= 2 ? 40 : 24;
}
template <int CONSUMERS> __host__ __device__ constexpr int tsl_ref_consumer_regs() {
  return CONSUMERS == 1 ? 240 : (CONSUMERS == 2 ? 232 : 160);
}

// Bytes of one pipeline stage (lhs + rhs tiles of 16-bit elements).
template <int WARP_N, int CONSUMERS, int TILE_K> __host__ __device__ constexpr int
tsl_ref_stage_bytes() {
  return (64 * CONSUMERS + WARP_N) * TILE_K * 2;
}

// Offset of the output staging tiles: after the stages, rounded up to 1024 B (128B swizzle).
template <int WARP_N, int STAGES, int CONSUMERS, int TILE_K> __host__ __device__ constexpr int
tsl_ref_out_offset() {
  return (STAGES * tsl_ref_stage_bytes<WARP_N, CONSUMERS, TILE_K>() + 1023) / 1024 * 1024;
}

// Dynamic shared memory: 1 KB alignment slack + stages + output staging + 2*STAGES mbarriers.
template <int WARP_N, int STAGES, int CONSUMERS, int TILE_K> __host__ __device__ constexpr int
tsl_ref_ws_gemm_smem_bytes() {
  return 1024 + tsl_ref_out_offset<WARP_N, STAGES, CONSUMERS, TILE_K>() +
         CONSUMERS * 64 * WARP_N * 2 + 2 * STAGES * 8;
}

template <int WARP_N, int STAGES, int CONSUMERS, int TILE_K, int SWIZ, typename TIn, typename TAcc>
__global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1)
    tsl_ref_ws_gemm(const __grid_constant__ tsl_tensor_map tm_lhs,
                    const __grid_constant__ tsl_tensor_map tm_rhs,
                    const __grid_constant__ tsl_tensor_map tm_out, int M, int N, int K) {
  typedef tsl_wgmma<TIn, TAcc, WARP_N> Mma;
  constexpr int TILE_M = 64 * CONSUMERS;
  constexpr int KB = SWIZ / 2;         // K elements per TMA box row (one swizzle span)
  constexpr int NKB = TILE_K / KB;     // TMA boxes per operand per stage
  constexpr int KSTEPS_PER_KB = KB / 16;
  constexpr int LHS_KB_BYTES = TILE_M * SWIZ;
  constexpr int RHS_KB_BYTES = WARP_N * SWIZ;
  constexpr int LHS_BYTES = NKB * LHS_KB_BYTES;
  constexpr int STAGE_BYTES = tsl_ref_stage_bytes<WARP_N, CONSUMERS, TILE_K>();
  constexpr int OUT_BYTES = 64 * WARP_N * 2;
  constexpr int OUT_LAYOUT = tsl_ref_out_layout<WARP_N>();
  static_assert(sizeof(TIn) == 2, "16-bit inputs only");
  static_assert(SWIZ == 128 || SWIZ == 64 || SWIZ == 32, "SWIZ: 32, 64 or 128");
  static_assert(TILE_K % KB == 0 && TILE_K >= 16, "TILE_K must be a multiple of SWIZ/2");
  static_assert(WARP_N % 8 == 0 && WARP_N >= 8 && WARP_N <= 256, "WARP_N: 8..=256 step 8");
  static_assert(TILE_M <= 256, "TMA box rows <= 256");
  static_assert(STAGES >= 1 && CONSUMERS >= 1 && CONSUMERS <= 3, "pipeline shape");

  // Shared memory: [stages][lhs KBs | rhs KBs] | out[CONSUMERS] | full[STAGES] | empty[STAGES].
  extern __shared__ __align__(1024) tsl_u8 tsl_smem_raw[];
  const tsl_u32 smem = (tsl_smem_addr(tsl_smem_raw) + 1023u) & ~1023u;
  const tsl_u32 out_base = smem + tsl_ref_out_offset<WARP_N, STAGES, CONSUMERS, TILE_K>();
  const tsl_u32 full_bar = out_base + CONSUMERS * OUT_BYTES;
  const tsl_u32 empty_bar = full_bar + STAGES * 8;

  const int grid_m = tsl_ref_cdiv(M, TILE_M);
  const int grid_n = tsl_ref_cdiv(N, WARP_N);
  int bm, bn;
  if (gridDim.y > 1) {
    bm = blockIdx.x;
    bn = blockIdx.y;
  } else {
    tsl_raster_grouped(blockIdx.x, grid_m, grid_n, TSL_REF_GROUP_M, bm, bn);
  }
  const int m0 = bm * TILE_M;
  const int n0 = bn * WARP_N;
  const int num_kt = tsl_ref_cdiv(K, TILE_K);

  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      tsl_mbar_init(full_bar + 8 * s, 1);                // the producer's expect_tx arrival
      tsl_mbar_init(empty_bar + 8 * s, 4 * CONSUMERS);   // one arrival per consumer warp
    }
    tsl_mbar_init_fence();
  }
  __syncthreads();

  const int wg = tsl_warpgroup_idx();
  const int t = threadIdx.x & 127;
  if (wg == 0) {
    // ---- producer warpgroup: one thread drives TMA ----
    tsl_setmaxnreg_dec<tsl_ref_producer_regs<CONSUMERS>()>();
    if (t == 0) {
      tsl_prefetch_tensormap(&tm_lhs);
      tsl_prefetch_tensormap(&tm_rhs);
      int s = 0;
      tsl_u32 phase = 0;
      for (int kt = 0; kt < num_kt; ++kt) {
        tsl_mbar_wait(empty_bar + 8 * s, phase ^ 1u);  // first round falls through
        const tsl_u32 full = full_bar + 8 * s;
        tsl_mbar_arrive_expect_tx(full, STAGE_BYTES);
        const tsl_u32 stage = smem + s * STAGE_BYTES;
#pragma unroll
        for (int kb = 0; kb < NKB; ++kb) {
          const int k0 = kt * TILE_K + kb * KB;
          tsl_tma_load_2d(stage + kb * LHS_KB_BYTES, &tm_lhs, k0, m0, full);
          tsl_tma_load_2d(stage + LHS_BYTES + kb * RHS_KB_BYTES, &tm_rhs, k0, n0, full);
        }
        if (++s == STAGES) {
          s = 0;
          phase ^= 1u;
        }
      }
    }
  } else {
    // ---- consumer warpgroups: WGMMA over the ring, then the epilogue ----
    tsl_setmaxnreg_inc<tsl_ref_consumer_regs<CONSUMERS>()>();
    const int c = wg - 1;
    const bool warp_leader = (t & 31) == 0;
    typename Mma::reg_t acc[Mma::NREG];
    tsl_zero(acc);
    tsl_pin(acc);

    int s = 0;
    tsl_u32 phase = 0;
    int prev_s = 0;
    for (int kt = 0; kt < num_kt; ++kt) {
      tsl_mbar_wait(full_bar + 8 * s, phase);
      const tsl_u32 stage = smem + s * STAGE_BYTES;
      const tsl_u64 da0 = tsl_wgmma_desc_kmajor<SWIZ>(stage + c * 64 * SWIZ);
      const tsl_u64 db0 = tsl_wgmma_desc_kmajor<SWIZ>(stage + LHS_BYTES);
      tsl_wgmma_fence();
#pragma unroll
      for (int kb = 0; kb < NKB; ++kb) {
#pragma unroll
        for (int ks = 0; ks < KSTEPS_PER_KB; ++ks) {
          // K-block kb starts (kb * KB_BYTES) >> 4 further in the descriptor's address field.
          const tsl_u64 da = tsl_wgmma_desc_advance_k16(da0 + (tsl_u64)((kb * LHS_KB_BYTES) >> 4), ks);
          const tsl_u64 db = tsl_wgmma_desc_advance_k16(db0 + (tsl_u64)((kb * RHS_KB_BYTES) >> 4), ks);
          Mma::mma(acc, da, db, 1);
        }
      }
      tsl_wgmma_commit();
      if constexpr (STAGES == 1) {
        // One stage: it must be free before the next k-tile can even be loaded.
        tsl_wgmma_wait<0>();
        if (warp_leader) tsl_mbar_arrive(empty_bar + 8 * s);
      } else {
        // Keep this k-tile's MMAs in flight; the previous k-tile's are done: free its stage.
        tsl_wgmma_wait<1>();
        if (kt > 0 && warp_leader) tsl_mbar_arrive(empty_bar + 8 * prev_s);
      }
      prev_s = s;
      if (++s == STAGES) {
        s = 0;
        phase ^= 1u;
      }
    }
    tsl_wgmma_wait<0>();
    tsl_pin(acc);
    if (STAGES > 1 && num_kt > 0 && warp_leader) tsl_mbar_arrive(empty_bar + 8 * prev_s);

    // ---- epilogue ----
    const int row0 = m0 + 64 * c;
    const tsl_u32 out_tile = out_base + c * OUT_BYTES;
    if (t == 0) tsl_prefetch_tensormap(&tm_out);
    tsl_u32 packed[WARP_N / 4];
    if constexpr (Mma::NREG == WARP_N / 4) {
#pragma unroll
      for (int i = 0; i < WARP_N / 4; ++i) packed[i] = acc[i];  // f16 accumulators: already pairs
    } else {
      tsl_acc_pack<TIn, WARP_N>(acc, packed);
    }
    tsl_acc_store_smem<WARP_N, OUT_LAYOUT>(packed, out_tile);
    tsl_fence_proxy_async();
    tsl_named_barrier_sync(1 + c, 128);
    if (t == 0 && row0 < M) {
      if constexpr (OUT_LAYOUT == TSL_OUT_SWZ128) {
#pragma unroll
        for (int sub = 0; sub < WARP_N / 64; ++sub)
          if (n0 + 64 * sub < N) tsl_tma_store_2d(&tm_out, n0 + 64 * sub, row0, out_tile + sub * 8192);
      } else {
        tsl_tma_store_2d(&tm_out, n0, row0, out_tile);
      }
      tsl_tma_store_commit();
      tsl_tma_store_wait_read<0>();
    }
  }
}
