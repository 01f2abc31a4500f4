// The v4 cooperative GEMM (`kernels/v4_tuned.co`, persistent, as `tessel emit` writes it) with
// a stream-K tail: the same producer, the same pipelined WGMMA main loop and the same TMA-store
// epilogue, walking a different list of work.
//
// Include this inside a namespace right after the emitted kernel's .cu: it uses that file's
// helpers (mbarrier, TMA, WGMMA, the epilogue, tsl_raster_cluster) and no CUDA header, so the
// same text compiles under NVRTC and nvcc.
//
// Work list ("data-parallel waves + one stream-K wave"): the tile grid is walked in units of one
// cluster (CLUSTER blocks that multicast the shared rhs tile run the same k-iterations on their
// own row tiles). With U units and T cluster tiles, the first T - sk_tiles tiles are whole tiles,
// unit u taking u, u + U, ... (the persistent walk); the k-iterations of the last sk_tiles tiles
// (KT each) are one range of sk_tiles * KT iterations split evenly (the first total % U units
// take one more). A unit's range covers the end of one tile, whole tiles
// and the start of another, so each unit has at most one segment that does not start at k = 0:
// its first. That segment's partial sum (f32, this block's rows of the tile) goes to the block's
// own workspace slot, then a flag (release). The segment that starts at k = 0 is its unit's last
// in time; its unit waits for the flags of the units after it that cover the rest of the tile
// (acquire), adds their slots into its registers, clears the flags for the next launch and runs
// the normal epilogue. Every unit is resident (grid <= SMs) and publishes before it waits, and
// waits only on later units, so the waits cannot deadlock.
//
// sk_tiles = 0 is the plain persistent walk (the emitted kernel's schedule); the host picks
// T % U (one partial wave spread) or T % U + U. sk_split = S > 0 is split-K of the same tail
// instead: each stream-K tile in S equal k-chunks on S units (sk_tiles * S <= U), the same
// fix-up.

// ld.global.acquire.gpu: read a flag another block released (PTX memory model, acquire pattern).
TSL_DEVICE int sk_load_acquire(const int *p) {
  int v;
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// st.global.release.gpu: publish a flag after this thread's (and, through the barrier before it,
// the other consumers') partial-sum stores.
TSL_DEVICE void sk_store_release(int *p, int v) {
  asm volatile("st.global.release.gpu.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// st.global.cg.v4.f32 / ld.global.cg.v4.f32: the partial sums go through L2 only (another SM
// reads them; L1 is not coherent).
TSL_DEVICE void sk_store4(float *p, float a, float b, float c, float d) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(a), "f"(b), "f"(c),
               "f"(d)
               : "memory");
}
TSL_DEVICE void sk_load4(const float *p, float &a, float &b, float &c, float &d) {
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
               : "l"(p)
               : "memory");
}

// One unit's work list: whole tiles first, then its stream-K range. Producer and consumers walk
// the same list (they must issue and consume the same k-iterations in the same order). Each
// segment (its tile and k-range) is a pure function of its index and the launch: no state
// carried from segment to segment, so the compiler keeps the walk in uniform registers, as it
// does the persistent walk's `tile += gridDim.x`. (A first version carried the walk's position
// from one segment to the next; its main loop then ran on per-thread registers with a
// WARPSYNC per k-tile, and the sk_tiles = 0 control was 3-5% slower than the emitted kernel.)
struct sk_plan {
  // units, cluster tiles, stream-K tiles, k-tiles per tile, split-K chunks (0: stream-K);
  // the stream-K k-tiles sk_tiles * kt = q * units + r.
  int units, tiles, sk_tiles, kt, split, q, r;
  TSL_DEVICE sk_plan(int units_, int tiles_, int sk_tiles_, int kt_, int split_) {
    units = units_;
    tiles = tiles_;
    sk_tiles = sk_tiles_;
    kt = kt_;
    split = split_;
    const long long total = (long long)sk_tiles_ * kt_;
    q = (int)(total / units_);
    r = (int)(total % units_);
  }
  TSL_DEVICE int dp_tiles() const { return tiles - sk_tiles; }
  // First stream-K iteration of unit u (u = units gives the end). split = 0: the iterations
  // spread evenly (the first r units take one more); split = S > 0 (split-K, needs
  // sk_tiles * S <= units): unit u takes chunk u % S of stream-K tile u / S, and units past
  // sk_tiles * S have none.
  TSL_DEVICE int start(int u) const {
    if (split == 0) return u * q + tsl_min(u, r);
    if (u < sk_tiles * split) return u / split * kt + u % split * kt / split;
    return sk_tiles * kt;
  }
  TSL_DEVICE int whole(int u) const { return u < dp_tiles() ? (dp_tiles() - 1 - u) / units + 1 : 0; }
  TSL_DEVICE int segments(int u) const {
    const int g0 = start(u), g1 = start(u + 1);
    return whole(u) + (g1 > g0 ? (g1 - 1) / kt - g0 / kt + 1 : 0);
  }
  // Segment s of unit u: its cluster tile and k-tiles [kb, ke).
  TSL_DEVICE int tile(int u, int s) const {
    return s < whole(u) ? u + s * units : dp_tiles() + start(u) / kt + (s - whole(u));
  }
  TSL_DEVICE int kb(int u, int s) const { return s == whole(u) ? start(u) % kt : 0; }
  TSL_DEVICE int ke(int u, int s) const {
    if (s < whole(u)) return kt;
    return tsl_min(kt, start(u + 1) - (start(u) / kt + (s - whole(u))) * kt);
  }
};

template <typename TIN, int WARP_N, int STAGES, int CONSUMERS, int TILE_K, int GROUP_M,
          int CLUSTER, int EPI_SPLIT>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__((CONSUMERS + 1) * 128, 1)
    sk_matmul(const __grid_constant__ tsl_tensor_map tsl_tm_lhs,
              const __grid_constant__ tsl_tensor_map tsl_tm_rhs,
              const __grid_constant__ tsl_tensor_map tsl_tm_output, const int M, const int K,
              const int N, float *sk_ws, int *sk_flags, const int sk_tiles,
              const int sk_split) {
  static_assert(CONSUMERS == 2, "one block per SM: two consumer warpgroups");
  constexpr int WARP_M = 64;
  constexpr int WARP_K = 16;
  constexpr int TILE_M = WARP_M * CONSUMERS;
  constexpr int SWIZ = TILE_K * 2;
  constexpr int EPI_N = WARP_N / EPI_SPLIT;
  constexpr int NREG = WARP_N / 2;  // f32 accumulators per consumer thread
  constexpr int CTHREADS = CONSUMERS * 128;
  constexpr int SLOT = TILE_M * WARP_N;  // floats per workspace slot (one block's tile)
  constexpr int tsl_smem_lhs_s = 0;
  constexpr int tsl_smem_rhs_s = tsl_align_up(tsl_smem_lhs_s + (STAGES * (TILE_M * TILE_K) * 2), 1024);
  constexpr int tsl_smem_output_s = tsl_align_up(tsl_smem_rhs_s + (STAGES * (WARP_N * TILE_K) * 2), 1024);
  constexpr int tsl_regs_producer = 40;
  constexpr int tsl_regs_consumer = tsl_min(240, (65536 - 128 * tsl_regs_producer) / (128 * CONSUMERS) / 8 * 8);
  constexpr int SK_BAR = 8;  // named barrier of all consumer threads (1..3 are the epilogue's)
  unsigned char *tsl_smem = tsl_smem_base<1024>();
  const int grid_m = tsl_cdiv(M, TILE_M);
  const int grid_n = tsl_cdiv(N, WARP_N);
  const int kt = tsl_cdiv(K, TILE_K);
  // cluster tiles, stream-K tiles among them
  const sk_plan plan((int)gridDim.x / CLUSTER, tsl_cdiv(grid_m, CLUSTER) * grid_n, sk_tiles, kt,
                     sk_split);
  const int rank = blockIdx.x % CLUSTER;
  const int unit = blockIdx.x / CLUSTER;

  __shared__ alignas(8) unsigned long long full[STAGES];
  __shared__ alignas(8) unsigned long long empty[STAGES];
  if (threadIdx.x == 0) {
    for (int i = 0; i < STAGES; ++i) tsl_mbar_init(&full[i], 1);  // the producer thread
    // one arrival per consumer warp of every block of the cluster
    for (int i = 0; i < STAGES; ++i) tsl_mbar_init(&empty[i], CTHREADS / 32 * CLUSTER);
    tsl_mbar_init_fence();
  }
  unsigned tsl_phase_full = 0;
  unsigned tsl_phase_empty = 0;
  tsl_cluster_sync();
  TIN *lhs_s = reinterpret_cast<TIN *>(tsl_smem + tsl_smem_lhs_s);
  TIN *rhs_s = reinterpret_cast<TIN *>(tsl_smem + tsl_smem_rhs_s);
  TIN *output_s = reinterpret_cast<TIN *>(tsl_smem + tsl_smem_output_s);
  const int wg = threadIdx.x / 128;
  const int t = threadIdx.x % 128;
  if (wg == 0) {
    tsl_setmaxnreg_dec<tsl_regs_producer>();
    if (t == 0) {
      for (int seg = 0; seg < plan.segments(unit); ++seg) {
        const int tile = plan.tile(unit, seg), kb = plan.kb(unit, seg), ke = plan.ke(unit, seg);
        int block_m, block_n;
        tsl_raster_cluster(tile * CLUSTER + rank, grid_m, grid_n, GROUP_M, CLUSTER, block_m, block_n);
        for (int iv_k = kb; iv_k < ke; ++iv_k) {
          const int stage = iv_k % STAGES;
          tsl_mbar_wait_ring(empty, stage, tsl_phase_empty);
          tsl_mbar_expect_tx(&full[stage], TILE_M * TILE_K * 2);
          tsl_tma_load_2d((lhs_s + stage * (TILE_M * TILE_K)), &tsl_tm_lhs, iv_k * TILE_K, block_m * TILE_M, &full[stage]);
          tsl_mbar_expect_tx(&full[stage], WARP_N * TILE_K * 2);
          tsl_tma_load_2d_mc<CLUSTER>((rhs_s + stage * (WARP_N * TILE_K)) + tsl_cta_rank<CLUSTER>() * (WARP_N / CLUSTER * TILE_K), &tsl_tm_rhs, iv_k * TILE_K, block_n * WARP_N + tsl_cta_rank<CLUSTER>() * (WARP_N / CLUSTER), &full[stage]);
          tsl_mbar_arrive_from<false>(&full[stage]);
        }
      }
    }
  }
  if (wg >= 1) {
    tsl_setmaxnreg_inc<tsl_regs_consumer>();
    const int cidx = wg - 1;
    const int ctid = threadIdx.x - 128;
#pragma unroll
    for (int s = 0; s < STAGES; ++s) tsl_mbar_arrive_cluster<CLUSTER, true>(&empty[s]);
    for (int seg = 0; seg < plan.segments(unit); ++seg) {
      const int tile = plan.tile(unit, seg), kb = plan.kb(unit, seg), ke = plan.ke(unit, seg);
      int block_m, block_n;
      tsl_raster_cluster(tile * CLUSTER + rank, grid_m, grid_n, GROUP_M, CLUSTER, block_m, block_n);
      float mc[NREG];
      tsl_acc_fill(mc, 0.0f);
      for (int iv_k = kb; iv_k < ke; ++iv_k) {
        const int stage = iv_k % STAGES;
        tsl_mbar_wait_ring(full, stage, tsl_phase_full);
        tsl_wgmma_fence();
#pragma unroll
        for (int iv_wk = 0; iv_wk < TILE_K / WARP_K; ++iv_wk) {
          const tsl_u64 ma = tsl_wgmma_desc<SWIZ>(lhs_s, stage * (TILE_M * TILE_K) + (cidx * WARP_M) * TILE_K + iv_wk * WARP_K);
          const tsl_u64 mb = tsl_wgmma_desc<SWIZ>(rhs_s, stage * (WARP_N * TILE_K) + iv_wk * WARP_K);
          tsl_wgmma<TIN, float, WARP_N>::mma(mc, ma, mb, 1);
        }
        tsl_wgmma_commit();
        if constexpr (STAGES > 2) {
          tsl_wgmma_wait<1>();
          if (iv_k > kb) tsl_mbar_arrive_cluster<CLUSTER, true>(&empty[(iv_k - 1) % STAGES]);
        } else {
          tsl_wgmma_wait<0>();
          tsl_mbar_arrive_cluster<CLUSTER, true>(&empty[stage]);
        }
      }
      if constexpr (STAGES > 2) {
        tsl_wgmma_wait<0>();
        tsl_mbar_arrive_cluster<CLUSTER, true>(&empty[(ke - 1) % STAGES]);
      }
      tsl_pin(mc);
      if (kb != 0) {
        // Not the tile's k = 0 segment: the partial sum to this block's slot, then its flag.
        float *slot = sk_ws + (long long)blockIdx.x * SLOT;
#pragma unroll
        for (int i = 0; i < NREG / 4; ++i)
          sk_store4(slot + 4 * (i * CTHREADS + ctid), mc[4 * i], mc[4 * i + 1], mc[4 * i + 2], mc[4 * i + 3]);
        __threadfence();
        tsl_named_barrier_sync(SK_BAR, CTHREADS);
        if (ctid == 0) sk_store_release(&sk_flags[blockIdx.x], 1);
        continue;
      }
      if (ke != kt) {
        // The tile's k = 0 segment, and later units hold the rest: add their slots.
        const int tile_end = (tile - plan.dp_tiles() + 1) * kt;
        for (int v = unit + 1; v < plan.units && plan.start(v) < tile_end; ++v) {
          if (plan.start(v + 1) == plan.start(v)) continue;  // a unit with no stream-K work
          const int b = v * CLUSTER + rank;
          if (ctid == 0)
            while (sk_load_acquire(&sk_flags[b]) == 0) {
            }
          tsl_named_barrier_sync(SK_BAR, CTHREADS);
          const float *slot = sk_ws + (long long)b * SLOT;
#pragma unroll
          for (int i = 0; i < NREG / 4; ++i) {
            float a0, a1, a2, a3;
            sk_load4(slot + 4 * (i * CTHREADS + ctid), a0, a1, a2, a3);
            mc[4 * i] += a0;
            mc[4 * i + 1] += a1;
            mc[4 * i + 2] += a2;
            mc[4 * i + 3] += a3;
          }
          if (ctid == 0) sk_flags[b] = 0;  // the next launch starts from zero
        }
        tsl_pin(mc);
      }
#pragma unroll
      for (int h = 0; h < EPI_SPLIT; ++h) {
        if (threadIdx.x % 128 == 0) tsl_tma_store_wait_read<0>();
        tsl_named_barrier_sync(1 + threadIdx.x / 128, 128);
        tsl_acc_store_cols<WARP_N, EPI_N>(mc, h * EPI_N, (output_s + cidx * (WARP_M * EPI_N)));
        tsl_fence_proxy_async();
        tsl_named_barrier_sync(1 + threadIdx.x / 128, 128);
        if (threadIdx.x % 128 == 0) {
          tsl_tma_store_2d(&tsl_tm_output, (output_s + cidx * (WARP_M * EPI_N)), (block_n * EPI_SPLIT + h) * EPI_N, (block_m * CONSUMERS + cidx) * WARP_M);
          tsl_tma_store_commit();
        }
      }
    }
    if (threadIdx.x % 128 == 0) tsl_tma_store_wait_read<0>();
  }
  tsl_cluster_sync();
}
