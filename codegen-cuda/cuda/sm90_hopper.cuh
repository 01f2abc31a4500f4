// tessel sm_90a helpers: mbarrier, TMA (cp.async.bulk.tensor), proxy fences, WGMMA descriptors
// and ordering, setmaxnreg, and the accumulator -> shared-memory epilogue.
//
// Every helper is a `__device__ __forceinline__` wrapper around one PTX idiom; the comment above
// each says which PTX it issues and why, with the PTX ISA section it follows.
// Shared-memory operands are 32-bit `.shared` window addresses (tsl_smem_addr); tensor maps are
// `const tsl_tensor_map *` pointing at a `const __grid_constant__` kernel parameter.
// The N-specific `wgmma.mma_async` wrappers live in the generated sm90_wgmma.cuh.
// Needs prelude.cuh; compile for sm_90a (wgmma and setmaxnreg are rejected on plain sm_90).
//
// Debug mode: define TSL_MBAR_SPIN_LIMIT (e.g. -DTSL_MBAR_SPIN_LIMIT=100000000) and every
// mbarrier wait that spins longer records {1, blockIdx.x, threadIdx.x, bar | parity << 31} in
// the device global `tsl_mbar_timeout_info` and traps, so a wrong parity or expect_tx byte count
// becomes a launch error plus a readable record instead of a hung GPU.
#pragma once

// ---- thread roles ----------------------------------------------------------------------------------
// Warpgroup index made warp-uniform with shfl.sync so role branches compile as uniform branches.
TSL_DEVICE int tsl_warpgroup_idx() {
  return __shfl_sync(0xffffffffu, (int)(threadIdx.x / 128), 0);
}

// bar.sync id, nthreads: named barrier for a subset of warps (id 1..15; 0 is __syncthreads).
TSL_DEVICE void tsl_named_barrier_sync(int id, int nthreads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

// setmaxnreg.inc.sync.aligned.u32 R: grow this warpgroup's register budget (consumers; blocks until
// the CTA pool can fund it). Needs __launch_bounds__(threads, 1) or ptxas ignores it (C7508).
template <int R> TSL_DEVICE void tsl_setmaxnreg_inc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: 24..256, multiple of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
}
// setmaxnreg.dec.sync.aligned.u32 R: return registers to the CTA pool (the TMA producer needs few).
template <int R> TSL_DEVICE void tsl_setmaxnreg_dec() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: 24..256, multiple of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
}

// ---- mbarrier ------------------------------------------------------------------------------------------
// mbarrier.init.shared::cta.b64 [bar], count: one thread; phase 0, `count` arrivals per phase.
TSL_DEVICE void tsl_mbar_init(tsl_u32 bar, tsl_u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// fence.mbarrier_init.release.cluster: makes the inits visible to other threads and to TMA
// (the only legal spelling); follow it with __syncthreads() before anyone uses the barriers.
TSL_DEVICE void tsl_mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// mbarrier.arrive.shared::cta.b64 _, [bar]: one arrival (release), state token discarded.
TSL_DEVICE void tsl_mbar_arrive(tsl_u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes: announce `bytes` of TMA traffic for
// this phase and arrive; the phase completes when all arrivals AND all bytes have landed.
TSL_DEVICE void tsl_mbar_arrive_expect_tx(tsl_u32 bar, tsl_u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
// mbarrier.try_wait.parity.shared::cta.b64: true iff the phase with this parity has completed
// (acquire, CTA scope); may suspend the thread for a while before returning false.
TSL_DEVICE bool tsl_mbar_try_wait(tsl_u32 bar, tsl_u32 parity) {
  tsl_u32 ok;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      " selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(ok)
      : "r"(bar), "r"(parity)
      : "memory");
  return ok != 0;
}

#ifdef TSL_MBAR_SPIN_LIMIT
// {flag, blockIdx.x, threadIdx.x, bar | parity << 31} of the first wait that exceeded the limit.
__device__ tsl_u32 tsl_mbar_timeout_info[4];
#endif

// Spin on try_wait.parity until the phase with `parity` completes. Waiting for the i-th completion
// of a barrier uses parity i & 1; a fresh barrier reports parity 1 as already complete.
TSL_DEVICE void tsl_mbar_wait(tsl_u32 bar, tsl_u32 parity) {
#ifdef TSL_MBAR_SPIN_LIMIT
  long long spins = 0;
  while (!tsl_mbar_try_wait(bar, parity)) {
    if (++spins > (long long)(TSL_MBAR_SPIN_LIMIT)) {
      if (atomicCAS(&tsl_mbar_timeout_info[0], 0u, 1u) == 0u) {
        tsl_mbar_timeout_info[1] = blockIdx.x;
        tsl_mbar_timeout_info[2] = threadIdx.x;
        tsl_mbar_timeout_info[3] = bar | (parity << 31);
        __threadfence_system();
      }
      asm volatile("trap;");
    }
  }
#else
  while (!tsl_mbar_try_wait(bar, parity)) {
  }
#endif
}

// ---- TMA and the async proxy ------------------------------------------------------------------------
// prefetch.tensormap [addr]: warm the descriptor cache before the first TMA that uses the map.
TSL_DEVICE void tsl_prefetch_tensormap(const tsl_tensor_map *tm) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<tsl_u64>(tm)) : "memory");
}
// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes: TMA 2-D tile load
// of the box at {c0 (inner), c1} into smem `dst`, completing `box bytes` on mbarrier `bar`.
// Out-of-bounds box elements are zero-filled and still counted in the byte total.
TSL_DEVICE void tsl_tma_load_2d(tsl_u32 dst, const tsl_tensor_map *tm, int c0, int c1,
                                tsl_u32 bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"(reinterpret_cast<tsl_u64>(tm)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}
// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group: TMA 2-D tile store of smem `src` to the
// box at {c0 (inner), c1}; elements outside the tensor are clipped. c0, c1 must be >= 0.
TSL_DEVICE void tsl_tma_store_2d(const tsl_tensor_map *tm, int c0, int c1, tsl_u32 src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<tsl_u64>(tm)),
               "r"(c0), "r"(c1), "r"(src)
               : "memory");
}
// cp.async.bulk.commit_group: close this thread's TMA stores issued so far into one bulk group.
TSL_DEVICE void tsl_tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// cp.async.bulk.wait_group.read N: wait until the source smem of all but N groups has been read
// (safe to overwrite the staging tile or exit); the global writes may still be in flight.
template <int N> TSL_DEVICE void tsl_tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
// cp.async.bulk.wait_group N: wait until all but N groups have fully completed (global writes done).
template <int N> TSL_DEVICE void tsl_tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}
// fence.proxy.async.shared::cta: order this thread's generic-proxy smem writes (st.shared,
// stmatrix) before later async-proxy reads (TMA store, wgmma) and vice versa. Every writing thread
// fences, then a barrier, then one thread issues the TMA store.
TSL_DEVICE void tsl_fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- swizzle ------------------------------------------------------------------------------------------
// Byte offset of `off` (from a tile base aligned to 8*SWIZ bytes) under the TMA/wgmma swizzle of
// SWIZ = 128, 64 or 32 bytes: 16-byte chunk bits 4.. are XORed with line bits 7.. (plain C, no PTX).
template <int SWIZ> TSL_DEVICE __host__ constexpr tsl_u32 tsl_swizzle(tsl_u32 off) {
  static_assert(SWIZ == 128 || SWIZ == 64 || SWIZ == 32, "swizzle span must be 32, 64 or 128 B");
  return off ^ (((off >> 7) & (tsl_u32)(SWIZ / 16 - 1)) << 4);
}

// ---- WGMMA descriptors and ordering --------------------------------------------------------------
// Shared-memory matrix descriptor for a K-major tile of 16-bit elements whose rows are SWIZ bytes
// (one TMA box row) with the matching swizzle: start = addr >> 4 (bits 0-13), LBO = 1 (unused for
// swizzled K-major, bits 16-29), SBO = 8 rows * SWIZ bytes >> 4 (bits 32-45: 1024/512/256 B),
// base offset 0 (tile must be 8*SWIZ-byte aligned), mode bits 62-63 = 1 (128B), 2 (64B), 3 (32B).
template <int SWIZ> TSL_DEVICE tsl_u64 tsl_wgmma_desc_kmajor(tsl_u32 smem_addr) {
  static_assert(SWIZ == 128 || SWIZ == 64 || SWIZ == 32, "swizzle span must be 32, 64 or 128 B");
  constexpr tsl_u64 mode = SWIZ == 128 ? 1 : (SWIZ == 64 ? 2 : 3);
  constexpr tsl_u64 sbo = (8 * SWIZ) >> 4;
  return (tsl_u64)((smem_addr & 0x3FFFFu) >> 4) | (1ull << 16) | (sbo << 32) | (mode << 62);
}
// K-advance inside a swizzled K-major tile: k-step ks (16 elements = 32 bytes of 16-bit data)
// starts 32*ks bytes further, i.e. +2*ks in the >>4 start-address field; stay inside one row.
TSL_DEVICE tsl_u64 tsl_wgmma_desc_advance_k16(tsl_u64 desc, int ks) {
  return desc + (tsl_u64)(2 * ks);
}
// wgmma.fence.sync.aligned: order earlier register accesses (zero-init, epilogue reads) before
// the next wgmma.mma_async; needed before the first MMA and after touching the accumulators.
TSL_DEVICE void tsl_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
// wgmma.commit_group.sync.aligned: close this warpgroup's uncommitted MMAs into one wgmma-group.
TSL_DEVICE void tsl_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// wgmma.wait_group.sync.aligned N: wait until at most N wgmma-groups are pending; only then may
// their accumulators be read or the smem stage they read be released.
template <int N> TSL_DEVICE void tsl_wgmma_wait() {
  static_assert(N >= 0 && N < 8, "wgmma.wait_group takes a small immediate");
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Empty volatile asm with "+f"/"+r" (no PTX emitted): pins each accumulator register so the C++
// compiler cannot move reads/writes of it across wgmma fence/wait asm statements.
template <int R> TSL_DEVICE void tsl_pin(float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}
template <int R> TSL_DEVICE void tsl_pin(tsl_u32 (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(acc[i])::"memory");
}
// Zero the accumulators with ordinary moves (follow with tsl_wgmma_fence before the first MMA).
template <int R> TSL_DEVICE void tsl_zero(float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = 0.0f;
}
template <int R> TSL_DEVICE void tsl_zero(tsl_u32 (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = 0u;
}

// ---- epilogue: accumulator fragment -> shared tile ----------------------------------------------
// m64nNk16 fragment (PTX ISA, "Matrix Fragments for wgmma.mma_async.m64nNk16"): thread t of the warpgroup, w = t/32, l = t%32, holds
// f32 d[4j + 2h + e] = D[16w + l/4 + 8h][8j + 2(l%4) + e]; an f16 accumulator packs the e = 0/1
// pair into one register d[2j + h]. Packing f32 pairs gives exactly that f16x2 layout.

// Packs N/2 f32 accumulators into N/4 16-bit pairs of type T (tsl_f16 or tsl_bf16) with
// cvt.rn.{f16,bf16}x2.f32 (lower column in bits 15..0).
template <typename T, int N> TSL_DEVICE void tsl_acc_pack(const float (&d)[N / 2],
                                                          tsl_u32 (&p)[N / 4]) {
#pragma unroll
  for (int i = 0; i < N / 4; ++i) p[i] = tsl_pack2<T>(d[2 * i], d[2 * i + 1]);
}

// stmatrix.sync.aligned.m8n8.x4.shared.b16: four 8x8 16-bit matrices; matrix q takes row
// addresses from lanes 8q..8q+7 and lane l's register q holds row l/4, columns 2(l%4)+{0,1}.
TSL_DEVICE void tsl_stmatrix_x4(tsl_u32 addr, tsl_u32 r0, tsl_u32 r1, tsl_u32 r2, tsl_u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
// stmatrix.sync.aligned.m8n8.x2.shared.b16: two 8x8 matrices, row addresses from lanes 0..15.
TSL_DEVICE void tsl_stmatrix_x2(tsl_u32 addr, tsl_u32 r0, tsl_u32 r1) {
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r0),
               "r"(r1)
               : "memory");
}

// Shared layouts of a [64, N] 16-bit output tile, as the TMA store expects them.
// TSL_OUT_ROWMAJOR: dense row-major, row pitch 2N bytes (one TMA box {N, 64}, no swizzle).
// TSL_OUT_SWZ128: N/64 column blocks of [64 rows x 128 B], 8 KB apart, each 128B-swizzled
// (TMA boxes {64, 64}, swizzle 128B); needs N % 64 == 0 and a 1024-B aligned base.
enum { TSL_OUT_ROWMAJOR = 0, TSL_OUT_SWZ128 = 1 };
// Byte offset of element (row, col) in such a tile (plain C, no PTX).
template <int N, int LAYOUT> TSL_DEVICE __host__ constexpr tsl_u32 tsl_out_offset(int row,
                                                                                  int col) {
  return LAYOUT == TSL_OUT_ROWMAJOR
             ? (tsl_u32)(row * 2 * N + 2 * col)
             : (tsl_u32)((col >> 6) * 8192 + tsl_swizzle<128>((tsl_u32)(row * 128 + 2 * (col & 63))));
}

// Writes this warpgroup's packed fragment (N/4 regs of 16-bit pairs) into the [64, N] tile at
// smem `base` with stmatrix: x4 covers column blocks j, j+1 (both row halves), x2 the odd tail.
// Each lane addresses one 16-byte row piece, which stays contiguous under the 128B swizzle.
template <int N, int LAYOUT> TSL_DEVICE void tsl_acc_store_smem(const tsl_u32 (&p)[N / 4],
                                                                tsl_u32 base) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma N: multiple of 8 in 8..=256");
  static_assert(LAYOUT == TSL_OUT_ROWMAJOR || N % 64 == 0, "TSL_OUT_SWZ128 needs N % 64 == 0");
  const int t = threadIdx.x & 127;
  const int l = t & 31;
  const int q = l >> 3;
  const int row = 16 * (t >> 5) + 8 * (q & 1) + (l & 7);
#pragma unroll
  for (int j = 0; j + 1 < N / 8; j += 2) {
    const int col = 8 * (j + (q >> 1));
    tsl_stmatrix_x4(base + tsl_out_offset<N, LAYOUT>(row, col), p[2 * j], p[2 * j + 1],
                    p[2 * j + 2], p[2 * j + 3]);
  }
  if constexpr ((N / 8) % 2 == 1) {
    constexpr int j = N / 8 - 1;
    tsl_stmatrix_x2(base + tsl_out_offset<N, LAYOUT>(row, 8 * j), p[2 * j], p[2 * j + 1]);
  }
}
