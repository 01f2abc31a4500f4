// tessel warp-level tensor cores: `mma.load` of a swizzled shared tile (the layout a TMA load
// of swizzle SW bytes writes — 32, 64 or 128 — whose rows are exactly SW bytes).
//
// Swizzle SW permutes the 16-byte chunks of each SW-byte row: bits 4 … 4 + log2(SW / 16) of a
// shared address are XOR'd with the bits three places above them (the row within a repeat of
// 8 · SW bytes / its chunk count), so that eight consecutive rows read at one column fall in
// eight different bank groups. ldmatrix reads one 16-byte chunk per lane and row, so each lane's
// address is the unswizzled one with that XOR applied: the fragments are those of
// lowering/warp_mma.cuh's tsl_mma_load_a / tsl_mma_load_b (full instruction shape, ldmatrix.x4;
// .trans for tiles stored K-major the other way, 16-bit types). Every block of rows a warp
// steps over (16 rows of A or K, 8 or 16 of B) is a multiple of 8 rows, i.e. of the swizzle's
// repeat, so the XOR is applied once per column offset and the row steps are added after it.
// The tile's buffer starts at a multiple of 8 · SW bytes (the lowering aligns TMA buffers to
// 1024). Needs lowering/warp_mma.cuh.
#pragma once

// The swizzled shared address of unswizzled address `a`.
template <int SW> TSL_DEVICE tsl_u32 tsl_swz(tsl_u32 a) {
  static_assert(SW == 32 || SW == 64 || SW == 128, "swizzle 32, 64 or 128 bytes");
  return a ^ ((a >> 3) & (tsl_u32)((SW / 16 - 1) << 4));
}

// The A fragment (FM m16 tiles by FK full K steps) from the swizzled tile at `tile` (TRANS:
// stored [K, M]); LD = SW / sizeof(T) elements per row.
template <int KIND, int FM, int FK, bool TRANS, int LD, int SW, typename T>
TSL_DEVICE void tsl_mma_load_a_swz(tsl_u32 *a, const T *tile) {
  static_assert(LD * (int)sizeof(T) == SW, "a swizzled tile's rows are one swizzle span");
  static_assert(!TRANS || sizeof(T) == 2, "ldmatrix.trans moves 16-bit elements");
  constexpr int KI = tsl_mma_kind<KIND>::K, ROW = SW;
  const int lane = threadIdx.x % 32;
  if constexpr (!TRANS) {
    // Lanes 0-15 address rows 0-15 of the first 16 bytes of K, lanes 16-31 of the second.
    const tsl_u32 base = tsl_smem_addr(tile + (lane % 16) * LD + (lane / 16) * (KI / 2));
#pragma unroll
    for (int k = 0; k < FK; ++k) {
      const tsl_u32 at = tsl_swz<SW>(base + k * KI * (int)sizeof(T));
#pragma unroll
      for (int i = 0; i < FM; ++i) {
        tsl_u32 *r = a + (i * FK + k) * 4;
        tsl_ldsm_x4(r[0], r[1], r[2], r[3], at + i * 16 * ROW);
      }
    }
  } else {
    // Matrix q = lane / 8: rows k (q / 2) · 8 …, columns m (q % 2) · 8 …, transposed.
    const int q = lane / 8;
    const tsl_u32 base = tsl_smem_addr(tile + ((q / 2) * 8 + lane % 8) * LD + (q % 2) * 8);
#pragma unroll
    for (int i = 0; i < FM; ++i) {
      const tsl_u32 at = tsl_swz<SW>(base + i * 16 * (int)sizeof(T));
#pragma unroll
      for (int k = 0; k < FK; ++k) {
        tsl_u32 *r = a + (i * FK + k) * 4;
        tsl_ldsm_x4_t(r[0], r[1], r[2], r[3], at + k * 16 * ROW);
      }
    }
  }
}

// The B fragment (FN n8 tiles by FK full K steps) from the swizzled [N, K] tile at `tile`
// (TRANS: stored [K, N]); one ldmatrix.x4 covers two n8 tiles (x2 for an odd last one).
template <int KIND, int FN, int FK, bool TRANS, int LD, int SW, typename T>
TSL_DEVICE void tsl_mma_load_b_swz(tsl_u32 *b, const T *tile) {
  static_assert(LD * (int)sizeof(T) == SW, "a swizzled tile's rows are one swizzle span");
  static_assert(!TRANS || sizeof(T) == 2, "ldmatrix.trans moves 16-bit elements");
  constexpr int KI = tsl_mma_kind<KIND>::K, ROW = SW;
  const int lane = threadIdx.x % 32, q = lane / 8;
  // Matrix q: n8 tile j + q / 2, 16-byte half q % 2 of K (TRANS: K rows (q % 2) · 8 …, N
  // columns (q / 2) · 8 …).
  const T *p = TRANS ? tile + ((q % 2) * 8 + lane % 8) * LD + (q / 2) * 8
                     : tile + ((q / 2) * 8 + lane % 8) * LD + (q % 2) * (KI / 2);
  const tsl_u32 base = tsl_smem_addr(p);
#pragma unroll
  for (int j = 0; j < FN; j += 2)
#pragma unroll
    for (int k = 0; k < FK; ++k) {
      // The column part of the offset is swizzled; the row part (multiples of 8 rows) added.
      const tsl_u32 at = TRANS ? tsl_swz<SW>(base + j * 8 * (int)sizeof(T)) + k * 16 * ROW
                               : tsl_swz<SW>(base + k * KI * (int)sizeof(T)) + j * 8 * ROW;
      tsl_u32 *r0 = b + (j * FK + k) * 2;
      if (j + 1 < FN) {
        tsl_u32 *r1 = b + ((j + 1) * FK + k) * 2;
        if constexpr (TRANS)
          tsl_ldsm_x4_t(r0[0], r0[1], r1[0], r1[1], at);
        else
          tsl_ldsm_x4(r0[0], r0[1], r1[0], r1[1], at);
      } else {
        // The last, odd n8 tile: lanes 0-15 address its two matrices.
        if constexpr (TRANS)
          tsl_ldsm_x2_t(r0[0], r0[1], at);
        else
          tsl_ldsm_x2(r0[0], r0[1], at);
      }
    }
}
