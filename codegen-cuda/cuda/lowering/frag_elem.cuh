// tessel element-wise work on accumulators (`mc *= s;`, `apply {i, j} in acc.span { … }`).
//
// A thread holds some elements of the accumulator tile; the lowering loops over them with an
// element number e and asks here for the element's (row, column) in the tile. The numbering
// is the accumulator's register order, two neighbouring columns per register pair:
//   mma.sync (m16n8 tiles, FN tiles along N, MB = 16 or 8 rows per tile), g = lane / 4,
//   t = lane % 4: tile e / 4 (row-major over the FM × FN tiles), value v = e % 4 at row
//   g + 8 (v / 2), column 2t + v % 2 of the tile (an 8-row tile holds values 0 and 1 only);
//   WGMMA m64nN, t = thread of the warpgroup: row 16 (t / 32) + (t % 32) / 4 + 8 ((e / 2) % 2),
//   column 8 (e / 4) + 2 (t % 4) + e % 2.
// f32 and s32 accumulators hold element e in register e; f16 ones pack elements 2r and 2r + 1
// into register r (low half first), read and written through tsl_frag_half.
#pragma once

template <int FN, int MB> TSL_DEVICE int tsl_frag_warp_row(int e) {
  const int g = (threadIdx.x % 32) / 4;
  return (e / 4 / FN) * MB + g + 8 * ((e % 4) / 2);
}
template <int FN> TSL_DEVICE int tsl_frag_warp_col(int e) {
  const int t = threadIdx.x % 4;
  return (e / 4 % FN) * 8 + 2 * t + e % 2;
}
TSL_DEVICE int tsl_frag_wgmma_row(int e) {
  const int t = threadIdx.x & 127;
  return 16 * (t >> 5) + ((t & 31) >> 2) + 8 * ((e >> 1) & 1);
}
TSL_DEVICE int tsl_frag_wgmma_col(int e) {
  const int t = threadIdx.x & 127;
  return 8 * (e >> 2) + 2 * (t & 3) + (e & 1);
}

// One f16 element of a packed accumulator register, as a float.
struct tsl_frag_half {
  tsl_u32 &reg;
  const int hi;
  TSL_DEVICE operator float() const {
    const tsl_f16x2 p{reg};
    return tsl_f16_to_f32(hi ? tsl_f16x2_hi(p) : tsl_f16x2_lo(p));
  }
  TSL_DEVICE tsl_frag_half &operator=(float v) {
    const tsl_f16x2 p{reg};
    const float lo = hi ? tsl_f16_to_f32(tsl_f16x2_lo(p)) : v;
    const float up = hi ? v : tsl_f16_to_f32(tsl_f16x2_hi(p));
    reg = tsl_pack_f16x2(lo, up);
    return *this;
  }
};
TSL_DEVICE tsl_frag_half tsl_frag_f16(tsl_u32 *acc, int e) { return {acc[e >> 1], e & 1}; }

// Keeps the C++ compiler from moving reads or writes of the registers across the wgmma wait and
// fence asm statements around an element loop (no PTX emitted).
template <typename A, int R> TSL_DEVICE void tsl_frag_pin(A (&acc)[R]) {
  static_assert(sizeof(A) == 4, "accumulator registers are 32-bit");
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(*reinterpret_cast<int *>(&acc[i]))::"memory");
}
