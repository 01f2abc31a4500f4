// tessel lowering glue, Hopper path, for kernels whose `mma` reads operand tiles wider than one
// instruction's K or 8-bit operands: the K-steps of one `mma`, s32 accumulators (s8 WGMMA), and
// the stores of 32-bit accumulators into 32-bit tiles. Needs hopper.cuh.
#pragma once

// K-step ks of an operand tile wider than one wgmma's K: every wgmma reads 32 bytes of K (16
// 16-bit or 32 8-bit elements), so step ks starts 32*ks bytes into each swizzled row, +2*ks in
// the >>4 start-address field. The hardware applies the swizzle to the resulting addresses, so
// the advance is the same for every swizzle mode as long as the steps stay inside one row (the
// checker makes the tile's K one swizzled row or less).
TSL_DEVICE tsl_u64 tsl_wgmma_desc_k_step(tsl_u64 desc, int ks) { return desc + (tsl_u64)(2 * ks); }

// One `mma` over operand tiles STEPS instruction-Ks wide: STEPS wgmmas of the variant OP
// (a tsl_wgmma_* struct), each with both descriptors advanced by one K-step.
template <typename OP, int STEPS, typename R, int NR> TSL_DEVICE void tsl_wgmma_k_steps(R (&acc)[NR], tsl_u64 da, tsl_u64 db) {
#pragma unroll
  for (int ks = 0; ks < STEPS; ++ks) OP::mma(acc, tsl_wgmma_desc_k_step(da, ks), tsl_wgmma_desc_k_step(db, ks), 1);
}

// `promote P;`: acc += part in f32, then part = 0 (all of part's WGMMAs have completed; the
// next batch's tsl_wgmma_fence orders these register writes before it).
template <int R> TSL_DEVICE void tsl_acc_promote(float (&acc)[R], float (&part)[R]) {
  tsl_pin(part);
#pragma unroll
  for (int i = 0; i < R; ++i) {
    acc[i] += part[i];
    part[i] = 0.0f;
  }
  tsl_pin(acc);
  tsl_pin(part);
}

// s32 accumulators (s8 WGMMA): every register set to v, then pinned.
template <int R> TSL_DEVICE void tsl_acc_fill(int (&acc)[R], int v) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = v;
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(acc[i])::"memory");
}

// `mma.store acc.<slice>, dst` into a 32-bit tile (f32 accumulators into f32, s32 into s32):
// no packing; each thread writes its column pairs (8j + 2(lane % 4), +1) of rows
// 16w + lane/4 and +8 as one 8-byte store. Register indices are constants once unrolled.
template <int N, int W, typename A> TSL_DEVICE void tsl_acc_store_cols32(A (&acc)[N / 2], int c0, A *dst) {
  static_assert(W % 8 == 0 && N % W == 0, "a fragment slice is whole 8-column groups dividing N");
  const int t = threadIdx.x & 127;
  const int row = 16 * (t >> 5) + ((t & 31) >> 2);
  const int col = 2 * (t & 3);
#pragma unroll
  for (int j = 0; j < W / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      A *p = dst + (row + 8 * h) * W + 8 * j + col;
      const int r = c0 / 2 + 4 * j + 2 * h;
      asm volatile("" : "+r"(*reinterpret_cast<int *>(&acc[r])), "+r"(*reinterpret_cast<int *>(&acc[r + 1]))::"memory");
      p[0] = acc[r];
      p[1] = acc[r + 1];
    }
  }
}
template <int N, int W> TSL_DEVICE void tsl_acc_store_cols(float (&acc)[N / 2], int c0, float *dst) {
  tsl_acc_store_cols32<N, W>(acc, c0, dst);
}
template <int N, int W> TSL_DEVICE void tsl_acc_store_cols(int (&acc)[N / 2], int c0, int *dst) {
  tsl_acc_store_cols32<N, W>(acc, c0, dst);
}
template <int N> TSL_DEVICE void tsl_acc_store(float (&acc)[N / 2], float *dst) { tsl_acc_store_cols<N, N>(acc, 0, dst); }
template <int N> TSL_DEVICE void tsl_acc_store(int (&acc)[N / 2], int *dst) { tsl_acc_store_cols<N, N>(acc, 0, dst); }
