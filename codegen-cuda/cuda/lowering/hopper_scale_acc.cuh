// tessel lowering glue, Hopper path: the `mma`s into an accumulator that a standalone
// `mma.scale acc, sl, sr;` scales, when one `mma` spans several K-steps. Needs hopper.cuh.
#pragma once

// The K-steps of one mma into the partial that a standalone `mma.scale` adds: the first with
// scale-d `d` (0: the partial holds no products yet, so its old values are ignored), the rest
// accumulating.
template <typename OP, int STEPS, int NR> TSL_DEVICE void tsl_wgmma_k_steps_d(float (&part)[NR], tsl_u64 da, tsl_u64 db, int d) {
#pragma unroll
  for (int ks = 0; ks < STEPS; ++ks) OP::mma(part, da + (tsl_u64)(2 * ks), db + (tsl_u64)(2 * ks), ks > 0 ? 1 : d);
}
