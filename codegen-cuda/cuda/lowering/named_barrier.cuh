// tessel lowering glue, SIMT path: named barriers (`__bar_sync(id, n)`, `__bar_arrive(id, n)`),
// PTX `bar.sync` and `bar.arrive` over the first n threads that reach barrier `id` (1..15; 0 is
// __syncthreads). `bar.sync` waits for all n and orders their shared and global memory
// accesses; `bar.arrive` counts this thread's warp and goes on (a producer's signal). Needs
// prelude.cuh.
#pragma once

TSL_DEVICE void tsl_bar_sync(int id, int nthreads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}
TSL_DEVICE void tsl_bar_arrive(int id, int nthreads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}
