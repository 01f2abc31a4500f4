// tessel sm_90a helpers for thread-block clusters (`cluster C;`): TMA multicast, arrivals on a
// peer CTA's mbarrier, and the cluster barrier. Needs prelude.cuh and sm90_hopper.cuh; the kernel
// carries __cluster_dims__(C, 1, 1), so every launch is a cluster launch.
#pragma once

// The same load multicast to every CTA of the cluster whose bit is set in `mask` (bit r = rank r):
// the tile lands at offset `dst` of each one's shared memory and completes `bar`'s transaction
// bytes at that offset in each (PTX ISA, cp.async.bulk.tensor, .multicast::cluster; sm_90a).
TSL_DEVICE void tsl_tma_load_2d_multicast(tsl_u32 dst, const tsl_tensor_map *tm, int c0, int c1,
                                          tsl_u32 bar, tsl_u16 mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
      "l"(reinterpret_cast<tsl_u64>(tm)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}
// mapa + mbarrier.arrive.shared::cluster.b64: one arrival on the barrier at the same shared
// offset as `bar` in the cluster's CTA `rank` (this CTA's own included). Default semantics
// (.release.cta), as CUTLASS's ClusterBarrier::arrive(cta_id): the arrival only says "this
// stage's WGMMAs are done reading". Spelling out `.release.cluster` costs a MEMBAR.ALL.GPU per
// arrival in SASS (measured: the multicast kernel ran at half speed).
TSL_DEVICE void tsl_mbar_arrive_remote(tsl_u32 bar, tsl_u32 rank) {
  asm volatile(
      "{ .reg .b32 r; mapa.shared::cluster.u32 r, %0, %1;"
      " mbarrier.arrive.shared::cluster.b64 _, [r]; }" ::"r"(bar), "r"(rank)
      : "memory");
}
// barrier.cluster.arrive (release) + barrier.cluster.wait (acquire): every thread of every CTA
// of the cluster; the non-.aligned forms, so diverged warps may reach it.
TSL_DEVICE void tsl_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}
