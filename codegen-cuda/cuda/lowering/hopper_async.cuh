// tessel lowering glue, Hopper path: `wait f` for `f = mma.<a>.<b>.async …`. Needs hopper.cuh.
#pragma once

// Pins 32-bit accumulator registers in their own register class (no bit-casting moves, which
// ptxas would see as non-WGMMA writes of WGMMA registers).
template <int R> TSL_DEVICE void tsl_pin32(float (&acc)[R]) { tsl_pin(acc); }
template <int R> TSL_DEVICE void tsl_pin32(tsl_u32 (&acc)[R]) { tsl_pin(acc); }
template <int R> TSL_DEVICE void tsl_pin32(int (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(acc[i])::"memory");
}

// wgmma.wait_group N (at most N newer groups still pending, so f's group is complete), then the
// accumulator's registers pinned: the wait does not name them, so without the pin the compiler
// could move reads of them above it.
template <int N, typename A, int R> TSL_DEVICE void tsl_wgmma_wait_for(A (&acc)[R]) {
  tsl_wgmma_wait<N>();
  tsl_pin32(acc);
}
