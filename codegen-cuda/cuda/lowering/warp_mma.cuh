// tessel warp-level tensor cores (sm_80+): `mma` under a `: group` level → mma.sync.aligned.
//
// A warp tile of the DSL (`mma.row.row mc, ma, mb` with an [M, K] A tile and an [N, K] B tile)
// is (M / MB) × (N / 8) × (K / KI) instructions of one shape (SHAPE), chosen by the lowering:
//   FULL   m16n8kKF:  f16, bf16 → m16n8k16, tf32 → m16n8k8, 8-bit integers → m16n8k32
//   HALF_K m16n8kKF/2: f16, bf16 → m16n8k8, tf32 → m16n8k4, 8-bit integers → m16n8k16
//   M8     8 rows:    8-bit integers → m8n8k16; f16 → m16n8k8 whose rows 8-15 are zero (the
//                     m8n8k4 of the ISA computes four independent products per warp)
// f32 accumulate (f16 also f16 accumulate), s32 for 8-bit operands (s8 or u8, either operand).
// Its fragments are register arrays laid out as the PTX ISA's mma.sync fragment tables, with
// g = lane / 4, t = lane % 4 and E = 32 / element bits (f16/bf16: 2, tf32: 1, 8-bit: 4). An
// instruction's A holds H = MB / 8 row halves times Q K quarters of 4E elements (Q = 2 for
// FULL, else 1), B holds Q quarters:
//   A, register r = h + H q, element e: row g + 8 h, k = 4E q + tE + e
//   B, register q, element e:           k = 4E q + tE + e, column g
//   C (m16 × n8), 4 values:             value i: row g + 8 (i / 2), column 2t + i % 2 (f16: 2
//                                       registers); an 8-row shape uses values 0 and 1
// Arrays: A[(fm · FK + fk) · H Q + r], B[(fn · FK + fk) · Q + q], C[(fm · FN + fn) · 4 + i].
// The A/B registers of one 8-row block over 16 bytes of K are exactly an 8 × 8 b16 matrix of
// ldmatrix for every element type, so K-contiguous shared tiles load with ldmatrix (.trans for
// the other major order of 16-bit types); the other cases gather element by element.
// tf32 operands are f32 bit patterns: the tensor core ignores the low 13 mantissa bits.
// Needs prelude.cuh.
#pragma once

#define TSL_MMA_F16 0
#define TSL_MMA_BF16 1
#define TSL_MMA_TF32 2
#define TSL_MMA_S8 3
#define TSL_MMA_U8 4
#define TSL_MMA_S8U8 5
#define TSL_MMA_U8S8 6

#define TSL_MMA_FULL 0
#define TSL_MMA_HALF_K 1
#define TSL_MMA_M8 2

// Elements per 32-bit register (E) and the K of the type's full instruction (8E).
template <int KIND> struct tsl_mma_kind {
  static constexpr int E = KIND == TSL_MMA_TF32 ? 1 : KIND >= TSL_MMA_S8 ? 4 : 2;
  static constexpr int K = 8 * E;
};
// An instruction shape: 8-row halves of A (H), 4E-wide K quarters (Q), A and B registers.
template <int SHAPE> struct tsl_mma_shape {
  static constexpr int H = SHAPE == TSL_MMA_M8 ? 1 : 2;
  static constexpr int Q = SHAPE == TSL_MMA_FULL ? 2 : 1;
  static constexpr int RA = H * Q, RB = Q, MB = 8 * H;
};

// ---- the instructions --------------------------------------------------------------------------
// One m16n8kKI: d += a · b with an f32 accumulator (f16, bf16, tf32 operands).
template <int KIND> TSL_DEVICE void tsl_mma_m16n8(float *d, const tsl_u32 *a, const tsl_u32 *b);
template <> TSL_DEVICE void tsl_mma_m16n8<TSL_MMA_F16>(float *d, const tsl_u32 *a, const tsl_u32 *b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <> TSL_DEVICE void tsl_mma_m16n8<TSL_MMA_BF16>(float *d, const tsl_u32 *a, const tsl_u32 *b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <> TSL_DEVICE void tsl_mma_m16n8<TSL_MMA_TF32>(float *d, const tsl_u32 *a, const tsl_u32 *b) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// 8-bit × 8-bit → s32 (m16n8k32); integer products are exact, so no .satfinite. The PTX
// operand types of each kind: s8 × s8, u8 × u8, s8 × u8, u8 × s8.
#define TSL_IMMA_TYPES(KIND) \
  (KIND == TSL_MMA_S8 ? 0 : KIND == TSL_MMA_U8 ? 1 : KIND == TSL_MMA_S8U8 ? 2 : 3)
template <int KIND> TSL_DEVICE void tsl_mma_m16n8(int *d, const tsl_u32 *a, const tsl_u32 *b) {
  static_assert(KIND >= TSL_MMA_S8, "an s32 accumulator takes 8-bit integer operands");
  if constexpr (TSL_IMMA_TYPES(KIND) == 0)
    asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else if constexpr (TSL_IMMA_TYPES(KIND) == 1)
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else if constexpr (TSL_IMMA_TYPES(KIND) == 2)
    asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// f16 × f16 → f16 accumulate: the accumulator is two f16x2 registers.
template <int KIND> TSL_DEVICE void tsl_mma_m16n8(tsl_u32 *d, const tsl_u32 *a, const tsl_u32 *b) {
  static_assert(KIND == TSL_MMA_F16, "an f16 accumulator takes f16 operands");
  asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, "
      "{%0, %1};"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The half-K instructions (HALF_K): two A registers, one B register.
template <int KIND> TSL_DEVICE void tsl_mma_m16n8_half(float *d, const tsl_u32 *a, const tsl_u32 *b) {
  static_assert(KIND <= TSL_MMA_TF32, "an f32 accumulator takes f16, bf16 or tf32 operands");
  if constexpr (KIND == TSL_MMA_F16)
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  else if constexpr (KIND == TSL_MMA_BF16)
    asm("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  else
    asm("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
}
template <int KIND> TSL_DEVICE void tsl_mma_m16n8_half(tsl_u32 *d, const tsl_u32 *a, const tsl_u32 *b) {
  static_assert(KIND == TSL_MMA_F16, "an f16 accumulator takes f16 operands");
  asm("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%0, %1};"
      : "+r"(d[0]), "+r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]));
}
template <int KIND> TSL_DEVICE void tsl_mma_m16n8_half(int *d, const tsl_u32 *a, const tsl_u32 *b) {
  static_assert(KIND >= TSL_MMA_S8, "an s32 accumulator takes 8-bit integer operands");
  if constexpr (TSL_IMMA_TYPES(KIND) == 0)
    asm("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  else if constexpr (TSL_IMMA_TYPES(KIND) == 1)
    asm("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  else if constexpr (TSL_IMMA_TYPES(KIND) == 2)
    asm("mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  else
    asm("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]));
}
// m8n8k16 (8-bit integers, M8): one A and one B register, accumulator values 0 and 1.
template <int KIND> TSL_DEVICE void tsl_mma_m8n8(int *d, const tsl_u32 *a, const tsl_u32 *b) {
  static_assert(KIND >= TSL_MMA_S8, "m8n8k16 takes 8-bit integer operands");
  if constexpr (TSL_IMMA_TYPES(KIND) == 0)
    asm("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+r"(d[0]), "+r"(d[1])
        : "r"(a[0]), "r"(b[0]));
  else if constexpr (TSL_IMMA_TYPES(KIND) == 1)
    asm("mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+r"(d[0]), "+r"(d[1])
        : "r"(a[0]), "r"(b[0]));
  else if constexpr (TSL_IMMA_TYPES(KIND) == 2)
    asm("mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+r"(d[0]), "+r"(d[1])
        : "r"(a[0]), "r"(b[0]));
  else
    asm("mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+r"(d[0]), "+r"(d[1])
        : "r"(a[0]), "r"(b[0]));
}

// One instruction of SHAPE. An f16 8-row tile runs m16n8k8 with zero rows 8-15 (values 2 and 3
// of its accumulator tile then only ever receive zero products and are never stored).
template <int KIND, int SHAPE, typename Acc>
TSL_DEVICE void tsl_mma_one(Acc *d, const tsl_u32 *a, const tsl_u32 *b) {
  if constexpr (SHAPE == TSL_MMA_FULL) {
    tsl_mma_m16n8<KIND>(d, a, b);
  } else if constexpr (SHAPE == TSL_MMA_HALF_K) {
    tsl_mma_m16n8_half<KIND>(d, a, b);
  } else if constexpr (KIND >= TSL_MMA_S8) {
    tsl_mma_m8n8<KIND>(d, a, b);
  } else {
    static_assert(KIND == TSL_MMA_F16, "8-row tiles take f16 or 8-bit integer operands");
    const tsl_u32 a2[2] = {a[0], 0u};
    tsl_mma_m16n8_half<KIND>(d, a2, b);
  }
}

// Registers per m16n8 accumulator tile: 4 values, or 2 f16x2 registers.
template <typename Acc> struct tsl_mma_acc { static constexpr int R = 4; };
template <> struct tsl_mma_acc<tsl_u32> { static constexpr int R = 2; };

// The warp tile: acc[FM × FN tiles] += a[FM × FK] · b[FN × FK] in instructions of SHAPE.
template <int KIND, int FM, int FN, int FK, int SHAPE = TSL_MMA_FULL, typename Acc>
TSL_DEVICE void tsl_warp_mma(Acc *acc, const tsl_u32 *a, const tsl_u32 *b) {
  constexpr int R = tsl_mma_acc<Acc>::R, RA = tsl_mma_shape<SHAPE>::RA, RB = tsl_mma_shape<SHAPE>::RB;
#pragma unroll
  for (int k = 0; k < FK; ++k)
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        // Serpentine over N: consecutive instructions share an A or a B fragment.
        const int jj = (i % 2) ? FN - 1 - j : j;
        tsl_mma_one<KIND, SHAPE>(acc + (i * FN + jj) * R, a + (i * FK + k) * RA, b + (jj * FK + k) * RB);
      }
}

// `mc = mma.fill v;`: every accumulator value (N of them, or N f16x2 registers) set to v.
template <int N> TSL_DEVICE void tsl_mma_fill(float *acc, float v) {
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = v;
}
template <int N> TSL_DEVICE void tsl_mma_fill(int *acc, float v) {
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = (int)v;
}
template <int N> TSL_DEVICE void tsl_mma_fill(tsl_u32 *acc, float v) {
  const tsl_u32 p = tsl_pack_f16x2(v, v);
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = p;
}

// ---- operands from shared memory: ldmatrix -----------------------------------------------------
TSL_DEVICE void tsl_ldsm_x4(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 &r2, tsl_u32 &r3, tsl_u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
TSL_DEVICE void tsl_ldsm_x4_t(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 &r2, tsl_u32 &r3, tsl_u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
TSL_DEVICE void tsl_ldsm_x2(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(r0), "=r"(r1)
               : "r"(addr));
}
TSL_DEVICE void tsl_ldsm_x2_t(tsl_u32 &r0, tsl_u32 &r1, tsl_u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(r0), "=r"(r1)
               : "r"(addr));
}
TSL_DEVICE void tsl_ldsm_x1(tsl_u32 &r0, tsl_u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr));
}
TSL_DEVICE void tsl_ldsm_x1_t(tsl_u32 &r0, tsl_u32 addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(addr));
}

// The 32-bit pattern of one element, for packing E of them into a register.
TSL_DEVICE tsl_u32 tsl_mma_bits(tsl_f16 x) { return x.bits; }
TSL_DEVICE tsl_u32 tsl_mma_bits(tsl_bf16 x) { return x.bits; }
TSL_DEVICE tsl_u32 tsl_mma_bits(float x) { return __float_as_uint(x); }
TSL_DEVICE tsl_u32 tsl_mma_bits(signed char x) { return (tsl_u32)(unsigned char)x; }
TSL_DEVICE tsl_u32 tsl_mma_bits(unsigned char x) { return (tsl_u32)x; }

// One operand fragment gathered element by element: FB blocks of B8 · 8 rows (A: m; B: n) by
// FK instructions of SHAPE along K. Element (m, k) is tensor row r0 + m, column c0 + k (TRANS:
// row r0 + k, column c0 + m) of a tensor of rows × cols elements with row pitch ld; elements
// outside it, or at k ≥ KT when KT > 0 (a tile narrower than its instructions), read as zero.
template <int KIND, int FB, int FK, bool TRANS, int SHAPE, int B8, int KT, typename T>
TSL_DEVICE void tsl_mma_gather(tsl_u32 *x, const T *src, int r0, int c0, int rows, int cols,
                               long long ld) {
  constexpr int E = tsl_mma_kind<KIND>::E, BITS = 32 / E, Q = tsl_mma_shape<SHAPE>::Q;
  constexpr int R = B8 * Q, KI = 4 * E * Q;
  constexpr tsl_u32 MASK = BITS == 32 ? 0xffffffffu : (1u << (BITS % 32)) - 1u;
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < FB; ++i)
#pragma unroll
    for (int k = 0; k < FK; ++k)
#pragma unroll
      for (int r = 0; r < R; ++r) {
        tsl_u32 v = 0;
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int m = i * 8 * B8 + g + 8 * (r % B8), kk = k * KI + t * E + e + 4 * E * (r / B8);
          const int row = r0 + (TRANS ? kk : m), col = c0 + (TRANS ? m : kk);
          if (row < rows && col < cols && (KT == 0 || kk < KT)) {
            const tsl_u32 x = tsl_mma_bits(src[(long long)row * ld + col]);
            v |= (x & MASK) << (e * BITS % 32);
          }
        }
        x[(i * FK + k) * R + r] = v;
      }
}

// The A fragment of an [FM·MB, FK·KI] tile, gathered (see tsl_mma_gather).
template <int KIND, int FM, int FK, bool TRANS, int SHAPE = TSL_MMA_FULL, int KT = 0, typename T>
TSL_DEVICE void tsl_mma_gather_a(tsl_u32 *a, const T *src, int r0, int c0, int rows, int cols,
                                 long long ld) {
  tsl_mma_gather<KIND, FM, FK, TRANS, SHAPE, tsl_mma_shape<SHAPE>::H, KT>(a, src, r0, c0, rows, cols, ld);
}

// The B fragment of an [FN·8, FK·KI] (N × K) tile, gathered: element (n, k) is tensor row
// r0 + n, column c0 + k (TRANS: row r0 + k, column c0 + n); zero outside the tensor.
template <int KIND, int FN, int FK, bool TRANS, int SHAPE = TSL_MMA_FULL, int KT = 0, typename T>
TSL_DEVICE void tsl_mma_gather_b(tsl_u32 *b, const T *src, int r0, int c0, int rows, int cols,
                                 long long ld) {
  tsl_mma_gather<KIND, FN, FK, TRANS, SHAPE, 1, KT>(b, src, r0, c0, rows, cols, ld);
}

// Fragments of one 8 × 8 b16 matrix per (block, instruction): a B operand of a one-quarter
// shape (HALF_K, M8) or an A operand of M8 (which then has the B layout). ldmatrix.x4 loads
// four consecutive entries of x[(j · FK + k)], x2/x1 the rest; stored [rows, K] (TRANS: [K,
// rows], 16-bit types only) with row pitch LD elements, rows 16-byte aligned.
template <int FB, int FK, bool TRANS, int LD, int KI, typename T>
TSL_DEVICE void tsl_mma_ldsm_rows8(tsl_u32 *x, const T *tile) {
  constexpr int N = FB * FK;
  const int lane = threadIdx.x % 32;
  // The entry a lane addresses: entry f + lane / 8 of the group starting at f.
  auto addr = [&](int f) {
    const int j = f / FK, k = f % FK;
    const T *p = TRANS ? tile + (k * KI + lane % 8) * LD + j * 8 : tile + (j * 8 + lane % 8) * LD + k * KI;
    return tsl_smem_addr(p);
  };
  constexpr int F4 = N / 4 * 4;
#pragma unroll
  for (int f = 0; f < F4; f += 4) {
    const tsl_u32 at = addr(f + lane / 8);
    if constexpr (TRANS)
      tsl_ldsm_x4_t(x[f], x[f + 1], x[f + 2], x[f + 3], at);
    else
      tsl_ldsm_x4(x[f], x[f + 1], x[f + 2], x[f + 3], at);
  }
  if constexpr (N % 4 >= 2) {
    const tsl_u32 at = addr(F4 + (lane / 8) % 2);
    if constexpr (TRANS)
      tsl_ldsm_x2_t(x[F4], x[F4 + 1], at);
    else
      tsl_ldsm_x2(x[F4], x[F4 + 1], at);
  }
  if constexpr (N % 2 == 1) {
    const tsl_u32 at = addr(N - 1);
    if constexpr (TRANS)
      tsl_ldsm_x1_t(x[N - 1], at);
    else
      tsl_ldsm_x1(x[N - 1], at);
  }
}

// The A fragment from a shared tile whose first element is `tile` (row pitch LD elements).
// LDSM: every row of 16 bytes the warp reads is 16-byte aligned (the lowering proves it), the
// tile fills its instructions (KT = 0) and is K-contiguous or 16-bit: ldmatrix, one x4 per
// m16 × 32-byte block (FULL), one x2 per m16 × 16-byte block (HALF_K); else a gather.
template <int KIND, int FM, int FK, bool TRANS, int LD, bool LDSM, int SHAPE = TSL_MMA_FULL,
          int KT = 0, typename T>
TSL_DEVICE void tsl_mma_load_a(tsl_u32 *a, const T *tile) {
  constexpr int KI = tsl_mma_kind<KIND>::K / (SHAPE == TSL_MMA_FULL ? 1 : 2);
  if constexpr (LDSM && KT == 0 && (!TRANS || sizeof(T) == 2) && SHAPE == TSL_MMA_M8) {
    tsl_mma_ldsm_rows8<FM, FK, TRANS, LD, KI>(a, tile);
  } else if constexpr (LDSM && KT == 0 && (!TRANS || sizeof(T) == 2) && SHAPE == TSL_MMA_HALF_K) {
    const int lane = threadIdx.x % 32;
    // Lanes 0-15 address rows 0-15 (TRANS: lanes 0-7 rows k 0-7 at m 0, lanes 8-15 at m 8).
    const T *p = TRANS ? tile + (lane % 8) * LD + ((lane / 8) % 2) * 8 : tile + (lane % 16) * LD;
    const tsl_u32 base = tsl_smem_addr(p);
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int k = 0; k < FK; ++k) {
        tsl_u32 *r = a + (i * FK + k) * 2;
        const int off = TRANS ? (k * KI * LD + i * 16) : (i * 16 * LD + k * KI);
        if constexpr (TRANS)
          tsl_ldsm_x2_t(r[0], r[1], base + off * (int)sizeof(T));
        else
          tsl_ldsm_x2(r[0], r[1], base + off * (int)sizeof(T));
      }
  } else if constexpr (LDSM && KT == 0 && (!TRANS || sizeof(T) == 2) && SHAPE == TSL_MMA_FULL) {
    const int lane = threadIdx.x % 32;
    if constexpr (!TRANS) {
      // Lanes 0-15 address rows 0-15 of the first 16 bytes of K, lanes 16-31 of the second.
      const tsl_u32 base = tsl_smem_addr(tile + (lane % 16) * LD + (lane / 16) * (KI / 2));
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int k = 0; k < FK; ++k) {
          tsl_u32 *r = a + (i * FK + k) * 4;
          tsl_ldsm_x4(r[0], r[1], r[2], r[3], base + (i * 16 * LD + k * KI) * (int)sizeof(T));
        }
    } else {
      // Stored [K, M]: matrix q of lane group q = lane / 8 is rows k (q / 2) · 8 …, columns
      // m (q % 2) · 8 …, transposed on the way in.
      const int q = lane / 8;
      const tsl_u32 base = tsl_smem_addr(tile + ((q / 2) * 8 + lane % 8) * LD + (q % 2) * 8);
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int k = 0; k < FK; ++k) {
          tsl_u32 *r = a + (i * FK + k) * 4;
          tsl_ldsm_x4_t(r[0], r[1], r[2], r[3], base + (k * 16 * LD + i * 16) * (int)sizeof(T));
        }
    }
  } else {
    tsl_mma_gather_a<KIND, FM, FK, TRANS, SHAPE, KT>(a, tile, 0, 0, 1 << 30, 1 << 30, LD);
  }
}

// The B fragment from a shared [N, K] tile (TRANS: stored [K, N]); as tsl_mma_load_a. FULL:
// one ldmatrix.x4 covers two n8 blocks (x2 for an odd last one); the one-quarter shapes go
// through tsl_mma_ldsm_rows8.
template <int KIND, int FN, int FK, bool TRANS, int LD, bool LDSM, int SHAPE = TSL_MMA_FULL,
          int KT = 0, typename T>
TSL_DEVICE void tsl_mma_load_b(tsl_u32 *b, const T *tile) {
  constexpr int KI = tsl_mma_kind<KIND>::K / (SHAPE == TSL_MMA_FULL ? 1 : 2);
  if constexpr (LDSM && KT == 0 && (!TRANS || sizeof(T) == 2) && SHAPE != TSL_MMA_FULL) {
    tsl_mma_ldsm_rows8<FN, FK, TRANS, LD, KI>(b, tile);
  } else if constexpr (LDSM && KT == 0 && (!TRANS || sizeof(T) == 2)) {
    const int lane = threadIdx.x % 32, q = lane / 8;
    // Matrix q: n8 block j + q / 2, 16-byte half q % 2 of K.
    const T *p = TRANS ? tile + ((q % 2) * 8 + lane % 8) * LD + (q / 2) * 8
                       : tile + ((q / 2) * 8 + lane % 8) * LD + (q % 2) * (KI / 2);
    const tsl_u32 base = tsl_smem_addr(p);
#pragma unroll
    for (int j = 0; j < FN; j += 2)
#pragma unroll
      for (int k = 0; k < FK; ++k) {
        const int off = TRANS ? (k * 16 * LD + j * 8) : (j * 8 * LD + k * KI);
        tsl_u32 *r0 = b + (j * FK + k) * 2;
        if (j + 1 < FN) {
          tsl_u32 *r1 = b + ((j + 1) * FK + k) * 2;
          if constexpr (TRANS)
            tsl_ldsm_x4_t(r0[0], r0[1], r1[0], r1[1], base + off * (int)sizeof(T));
          else
            tsl_ldsm_x4(r0[0], r0[1], r1[0], r1[1], base + off * (int)sizeof(T));
        } else {
          if constexpr (TRANS)
            tsl_ldsm_x2_t(r0[0], r0[1], base + off * (int)sizeof(T));
          else
            tsl_ldsm_x2(r0[0], r0[1], base + off * (int)sizeof(T));
        }
      }
  } else {
    tsl_mma_gather_b<KIND, FN, FK, TRANS, SHAPE, KT>(b, tile, 0, 0, 1 << 30, 1 << 30, LD);
  }
}

// ---- the accumulator out ------------------------------------------------------------------------
// Values 2h and 2h + 1 of m16n8 tile `i` (columns 2t, 2t + 1 of row g + 8h) as floats / ints.
TSL_DEVICE void tsl_mma_pair(const float *acc, int i, int h, float &v0, float &v1) {
  v0 = acc[i * 4 + 2 * h];
  v1 = acc[i * 4 + 2 * h + 1];
}
TSL_DEVICE void tsl_mma_pair(const int *acc, int i, int h, int &v0, int &v1) {
  v0 = acc[i * 4 + 2 * h];
  v1 = acc[i * 4 + 2 * h + 1];
}
TSL_DEVICE void tsl_mma_pair(const tsl_u32 *acc, int i, int h, float &v0, float &v1) {
  tsl_f16x2 p;
  p.bits = acc[i * 2 + h];
  v0 = tsl_f16_to_f32(tsl_f16x2_lo(p));
  v1 = tsl_f16_to_f32(tsl_f16x2_hi(p));
}
template <typename Acc> struct tsl_mma_val { using T = float; };
template <> struct tsl_mma_val<int> { using T = int; };
TSL_DEVICE void tsl_mma_put(float *p, float v) { *p = v; }
TSL_DEVICE void tsl_mma_put(tsl_f16 *p, float v) { *p = tsl_f16_from_f32(v); }
TSL_DEVICE void tsl_mma_put(tsl_bf16 *p, float v) { *p = tsl_bf16_from_f32(v); }
TSL_DEVICE void tsl_mma_put(int *p, int v) { *p = v; }
// Two neighbours at once (p 2-element aligned).
TSL_DEVICE void tsl_mma_put2(float *p, float v0, float v1) { *reinterpret_cast<float2 *>(p) = make_float2(v0, v1); }
TSL_DEVICE void tsl_mma_put2(tsl_f16 *p, float v0, float v1) { *reinterpret_cast<tsl_u32 *>(p) = tsl_pack_f16x2(v0, v1); }
TSL_DEVICE void tsl_mma_put2(tsl_bf16 *p, float v0, float v1) { *reinterpret_cast<tsl_u32 *>(p) = tsl_pack_bf16x2(v0, v1); }
TSL_DEVICE void tsl_mma_put2(int *p, int v0, int v1) { *reinterpret_cast<int2 *>(p) = make_int2(v0, v1); }

// `mma.store acc, t`: the [FM·MB, FN·8] accumulator (MB = 16, or 8 for an 8-row shape) into
// the tile at row r0, column c0 of a tensor of rows × cols elements (row pitch ld). Each thread
// stores its pairs of neighbours, two at once where both are inside and the pair is aligned,
// one by one at a ragged edge. TRANS (`mma.store.transp`): element (i, j) goes to tensor row
// r0 + j, column c0 + i, one element at a time.
template <int FM, int FN, int MB = 16, bool TRANS = false, typename Acc, typename T>
TSL_DEVICE void tsl_mma_store(const Acc *acc, T *dst, int r0, int c0, int rows, int cols,
                              long long ld) {
  using V = typename tsl_mma_val<Acc>::T;
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int h = 0; h < MB / 8; ++h) {
        V v0, v1;
        tsl_mma_pair(acc, i * FN + j, h, v0, v1);
        if constexpr (TRANS) {
          const int row = r0 + j * 8 + 2 * t, col = c0 + i * MB + g + 8 * h;
          if (col >= cols) continue;
          if (row < rows) tsl_mma_put(dst + (long long)row * ld + col, v0);
          if (row + 1 < rows) tsl_mma_put(dst + (long long)(row + 1) * ld + col, v1);
          continue;
        }
        const int row = r0 + i * MB + g + 8 * h, col = c0 + j * 8 + 2 * t;
        if (row >= rows) continue;
        T *p = dst + (long long)row * ld + col;
        if (col + 1 < cols && ((long long)row * ld + col) % 2 == 0) {
          tsl_mma_put2(p, v0, v1);
        } else {
          if (col < cols) tsl_mma_put(p, v0);
          if (col + 1 < cols) tsl_mma_put(p + 1, v1);
        }
      }
}

// `mc = mma.load c` of an accumulator: the [FM·MB, FN·8] tile at row r0, column c0 of a tensor
// of rows × cols elements (row pitch ld) in the accumulator layout, as f32 (float tensors) or
// s32 values; zero outside the tensor.
TSL_DEVICE float tsl_mma_value(float x) { return x; }
TSL_DEVICE float tsl_mma_value(tsl_f16 x) { return tsl_f16_to_f32(x); }
TSL_DEVICE float tsl_mma_value(tsl_bf16 x) { return tsl_bf16_to_f32(x); }
TSL_DEVICE int tsl_mma_value(int x) { return x; }
template <int FM, int FN, int MB = 16, typename Acc, typename T>
TSL_DEVICE void tsl_mma_load_c(Acc *acc, const T *src, int r0, int c0, int rows, int cols,
                               long long ld) {
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        const int row = r0 + i * MB + g + 8 * (v / 2), col = c0 + j * 8 + 2 * t + v % 2;
        const bool in = v / 2 < MB / 8 && row < rows && col < cols;
        acc[(i * FN + j) * 4 + v] = in ? (Acc)tsl_mma_value(src[(long long)row * ld + col]) : (Acc)0;
      }
}
