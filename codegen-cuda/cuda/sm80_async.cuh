// tessel sm_80+ async copy helpers: `cp.async` global -> shared, 16 bytes per thread.
//
// Used by the SIMT path's tile copies (sm_80 and later): each thread copies
// 16-byte chunks into shared memory, commits them as a group, and waits for all but N groups.
// Addresses of shared memory are 32-bit `.shared` window addresses (tsl_smem_addr, prelude.cuh).
// Needs prelude.cuh.
#pragma once

// cp.async.cg.shared.global [dst], [src], 16, src_bytes: copy src_bytes (0..16) and zero-fill the
// rest of the 16-byte chunk; src_bytes = 0 zero-fills an out-of-bounds chunk without reading
// (src must still be a valid address: pass the tensor base). .cg = cache in L2 only (streaming tiles).
TSL_DEVICE void tsl_cp_async_16(tsl_u32 dst, const void *src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
}

// cp.async.commit_group: close the batch of this thread's cp.async issued so far into one group.
TSL_DEVICE void tsl_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// cp.async.wait_group N: wait until at most N of this thread's groups are pending (N = 0: all).
// Other threads' copies need a __syncthreads() after this before they are read.
template <int N> TSL_DEVICE void tsl_cp_async_wait() {
  static_assert(N >= 0 && N < 8, "cp.async.wait_group takes a small immediate");
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// cp.async.wait_all: same as commit_group followed by wait_group 0.
TSL_DEVICE void tsl_cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
