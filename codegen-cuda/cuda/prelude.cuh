// tessel CUDA prelude: the types and scalar helpers every generated kernel uses.
//
// Self-contained on purpose: no CUDA headers (no <cuda.h>, <cuda_fp16.h>, <stdint.h>), so the
// same text compiles under NVRTC 13.0 (`-arch=sm_90a`, no include path) and under nvcc next to
// host code that does include those headers. Every name starts with `tsl_` so it can collide
// neither with user names nor with the CUDA headers (that is why the integer types are
// `tsl_u64` etc. and not `uint64_t`: a second `typedef ... uint64_t` next to <stdint.h> would be
// a redefinition error under nvcc).
//
// Conversions and 16-bit arithmetic are inline PTX (`cvt`, `fma.rn.f16[x2]`, `fma.rn.bf16[x2]`).
// Packing order everywhere: the LOWER column / first element sits in bits 15..0.
#pragma once

#define TSL_DEVICE __device__ __forceinline__

// ---- integer types -------------------------------------------------------------------------
typedef signed char tsl_i8;
typedef unsigned char tsl_u8;
typedef short tsl_i16;
typedef unsigned short tsl_u16;
typedef int tsl_i32;
typedef unsigned int tsl_u32;
typedef long long tsl_i64;
typedef unsigned long long tsl_u64;
static_assert(sizeof(tsl_u16) == 2 && sizeof(tsl_u32) == 4 && sizeof(tsl_u64) == 8,
              "tessel prelude: unexpected integer sizes");

// ---- 16-bit float storage types --------------------------------------------------------------
// Plain bit containers: no constructors, so they are trivial and can live in shared memory,
// kernel parameters and `cudaMemset`-poisoned buffers alike.
struct alignas(2) tsl_f16 { tsl_u16 bits; };
struct alignas(2) tsl_bf16 { tsl_u16 bits; };
// Two f16 (or bf16) values in one 32-bit register; element 0 in bits 15..0.
struct alignas(4) tsl_f16x2 { tsl_u32 bits; };
struct alignas(4) tsl_bf16x2 { tsl_u32 bits; };
static_assert(sizeof(tsl_f16) == 2 && sizeof(tsl_bf16) == 2 && sizeof(tsl_f16x2) == 4,
              "tessel prelude: unexpected 16-bit float sizes");

// ---- CUtensorMap stand-in -----------------------------------------------------------------------
// 128 opaque bytes, 64-byte aligned, exactly like the driver's CUtensorMap; pass it by value as a
// `const __grid_constant__ tsl_tensor_map` kernel parameter and give TMA its generic address.
struct alignas(64) tsl_tensor_map { tsl_u64 opaque[16]; };
static_assert(sizeof(tsl_tensor_map) == 128 && alignof(tsl_tensor_map) == 64,
              "tessel prelude: tsl_tensor_map must match CUtensorMap (128 B, 64-B aligned)");

// ---- conversions ------------------------------------------------------------------------------
// cvt.rn.f16.f32: round-to-nearest-even float -> f16.
TSL_DEVICE tsl_f16 tsl_f16_from_f32(float x) {
  tsl_f16 r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.bits) : "f"(x));
  return r;
}
// cvt.f32.f16: exact f16 -> float.
TSL_DEVICE float tsl_f16_to_f32(tsl_f16 x) {
  float r;
  asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(x.bits));
  return r;
}
// cvt.rn.bf16.f32: round-to-nearest-even float -> bf16 (sm_80+).
TSL_DEVICE tsl_bf16 tsl_bf16_from_f32(float x) {
  tsl_bf16 r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.bits) : "f"(x));
  return r;
}
// bf16 -> float is exact: the bf16 bits are the top half of the f32 bits (mov.b32 {lo, hi}).
TSL_DEVICE float tsl_bf16_to_f32(tsl_bf16 x) {
  float r;
  asm("mov.b32 %0, {%2, %1};" : "=f"(r) : "h"(x.bits), "h"((tsl_u16)0));
  return r;
}
// cvt.rn.f16x2.f32 d, a, b puts a in the HIGH half: pass (hi, lo) so `lo` lands in bits 15..0.
TSL_DEVICE tsl_u32 tsl_pack_f16x2(float lo, float hi) {
  tsl_u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
// cvt.rn.bf16x2.f32, same operand order as the f16x2 form (first source -> high half).
TSL_DEVICE tsl_u32 tsl_pack_bf16x2(float lo, float hi) {
  tsl_u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
// Two floats -> one f16x2 (lo in bits 15..0), through tsl_pack_f16x2.
TSL_DEVICE tsl_f16x2 tsl_f16x2_from_f32(float lo, float hi) {
  tsl_f16x2 r;
  r.bits = tsl_pack_f16x2(lo, hi);
  return r;
}
// Element 0 (bits 15..0) of an f16x2; plain integer ops, no PTX.
TSL_DEVICE tsl_f16 tsl_f16x2_lo(tsl_f16x2 x) {
  tsl_f16 r;
  r.bits = (tsl_u16)(x.bits & 0xffffu);
  return r;
}
// Element 1 (bits 31..16) of an f16x2.
TSL_DEVICE tsl_f16 tsl_f16x2_hi(tsl_f16x2 x) {
  tsl_f16 r;
  r.bits = (tsl_u16)(x.bits >> 16);
  return r;
}

// Overloads so templated generated code can say `tsl_to_f32(x)` / `tsl_from_f32<T>(x)`.
TSL_DEVICE float tsl_to_f32(float x) { return x; }
TSL_DEVICE float tsl_to_f32(tsl_f16 x) { return tsl_f16_to_f32(x); }
TSL_DEVICE float tsl_to_f32(tsl_bf16 x) { return tsl_bf16_to_f32(x); }
template <typename T> struct tsl_from_f32_impl;
template <> struct tsl_from_f32_impl<float> {
  static TSL_DEVICE float cvt(float x) { return x; }
};
template <> struct tsl_from_f32_impl<tsl_f16> {
  static TSL_DEVICE tsl_f16 cvt(float x) { return tsl_f16_from_f32(x); }
};
template <> struct tsl_from_f32_impl<tsl_bf16> {
  static TSL_DEVICE tsl_bf16 cvt(float x) { return tsl_bf16_from_f32(x); }
};
template <> struct tsl_from_f32_impl<int> {
  static TSL_DEVICE int cvt(float x) { return __float2int_rn(x); }
};
// 8-, 16- and 32-bit integer tiles (and the bytes of 8-bit float tiles, whose zero is the byte
// 0): the copies' zero fill is `tsl_from_f32<T>(0.0f)`.
template <> struct tsl_from_f32_impl<signed char> {
  static TSL_DEVICE signed char cvt(float x) { return (signed char)__float2int_rn(x); }
};
template <> struct tsl_from_f32_impl<unsigned char> {
  static TSL_DEVICE unsigned char cvt(float x) { return (unsigned char)__float2uint_rn(x); }
};
template <> struct tsl_from_f32_impl<short> {
  static TSL_DEVICE short cvt(float x) { return (short)__float2int_rn(x); }
};
template <> struct tsl_from_f32_impl<unsigned short> {
  static TSL_DEVICE unsigned short cvt(float x) { return (unsigned short)__float2uint_rn(x); }
};
template <> struct tsl_from_f32_impl<unsigned> {
  static TSL_DEVICE unsigned cvt(float x) { return __float2uint_rn(x); }
};
// float -> T (float, tsl_f16, tsl_bf16 or an integer type) with round-to-nearest-even (cvt.rn
// for 16-bit T).
template <typename T> TSL_DEVICE T tsl_from_f32(float x) { return tsl_from_f32_impl<T>::cvt(x); }
// Packs two floats into the 16-bit pair type T (tsl_f16 or tsl_bf16), lo in bits 15..0.
template <typename T> TSL_DEVICE tsl_u32 tsl_pack2(float lo, float hi);
template <> TSL_DEVICE tsl_u32 tsl_pack2<tsl_f16>(float lo, float hi) { return tsl_pack_f16x2(lo, hi); }
template <> TSL_DEVICE tsl_u32 tsl_pack2<tsl_bf16>(float lo, float hi) { return tsl_pack_bf16x2(lo, hi); }

// ---- scalar FMA path ----------------------------------------------------------------------------
// fma.rn.f16: a*b+c with one f16 rounding (the v0/v1 kernels' `acc += a * b` with an f16 acc).
TSL_DEVICE tsl_f16 tsl_fma(tsl_f16 a, tsl_f16 b, tsl_f16 c) {
  tsl_f16 r;
  asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits), "h"(c.bits));
  return r;
}
// fma.rn.f16x2: two independent f16 FMAs in one instruction.
TSL_DEVICE tsl_f16x2 tsl_fma(tsl_f16x2 a, tsl_f16x2 b, tsl_f16x2 c) {
  tsl_f16x2 r;
  asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r.bits) : "r"(a.bits), "r"(b.bits), "r"(c.bits));
  return r;
}
// fma.rn.bf16 (sm_90): a*b+c with one bf16 rounding.
TSL_DEVICE tsl_bf16 tsl_fma(tsl_bf16 a, tsl_bf16 b, tsl_bf16 c) {
  tsl_bf16 r;
  asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits), "h"(c.bits));
  return r;
}
// f32 FMA (fma.rn.f32 through the fmaf builtin).
TSL_DEVICE float tsl_fma(float a, float b, float c) { return fmaf(a, b, c); }
// Mixed path: 16-bit operands, f32 accumulator (`f32 acc += f16 * f16`).
TSL_DEVICE float tsl_fma(tsl_f16 a, tsl_f16 b, float c) {
  return fmaf(tsl_f16_to_f32(a), tsl_f16_to_f32(b), c);
}
TSL_DEVICE float tsl_fma(tsl_bf16 a, tsl_bf16 b, float c) {
  return fmaf(tsl_bf16_to_f32(a), tsl_bf16_to_f32(b), c);
}

// cvta.to.shared: generic pointer -> 32-bit shared-window address (what every smem PTX operand wants).
TSL_DEVICE tsl_u32 tsl_smem_addr(const void *p) {
  tsl_u32 r;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
  return r;
}

// ---- block rasterization ------------------------------------------------------------------------
// (Integer helpers such as tsl_cdiv live in lowering/common.cuh, owned by the lowering pass.)
// Grouped rasterization of a 1-D grid over a grid_m x grid_n tile grid: blocks walk `group_m`
// M-tiles fastest, then N, so blocks resident at the same time share lhs rows and rhs rows in
// L2. group_m >= grid_m gives plain M-fastest order.
TSL_DEVICE void tsl_raster_grouped(int bid, int grid_m, int grid_n, int group_m, int &bm,
                                   int &bn) {
  const int group_size = group_m * grid_n;
  const int first_m = (bid / group_size) * group_m;
  const int gm = grid_m - first_m < group_m ? grid_m - first_m : group_m;
  const int in_group = bid % group_size;
  bm = first_m + in_group % gm;
  bn = in_group / gm;
}
