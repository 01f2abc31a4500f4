//! Element types of device tensors (`f16`, `bf16`, `f32`) and host-side fills; the host codecs
//! of the 8-bit float formats (e4m3, e5m2) and random s8 inputs.
//!
//! Device buffers hold the raw bits (`u16` / `u32`), so cudarc needs no `half` support; the
//! typed view is [`Element`].
//!
//! * **Random fill** ([`host_random`]): SplitMix64 from a seed, uniform in `[-1, 1]`, rounded to
//!   the element type, **never zero** (a zero input hides indexing bugs: a kernel that reads the
//!   wrong element of a zero tensor still matches).
//! * **Poison** ([`Element::poison`]): a quiet NaN with a recognisable payload — f16 `0x7E5A`,
//!   bf16 `0x7FDA`, f32 `0x7FC5A5A5`. Outputs are poison-filled before a kernel runs; an element
//!   that still holds these exact bits afterwards was never written. The payloads differ from
//!   the canonical NaNs a GPU produces (`0x7FFF`, `0x7FFFFFFF`), so a computed NaN is counted as
//!   a NaN, not as "never written".

use std::fmt;

use half::{bf16, f16};

/// Runtime tag of an element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE binary32.
    F32,
    /// OCP fp8 e4m3 (bias 7, max 448, no infinities).
    F8E4M3,
    /// OCP fp8 e5m2 (bias 15, max 57344).
    F8E5M2,
    /// Signed 8-bit integer.
    S8,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 16-bit integer.
    S16,
    /// Unsigned 16-bit integer.
    U16,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 32-bit integer (the s8 GEMM's output).
    S32,
}

impl DType {
    /// Bytes per element.
    pub fn size_bytes(self) -> usize {
        match self {
            DType::F8E4M3 | DType::F8E5M2 | DType::S8 | DType::U8 => 1,
            DType::F16 | DType::BF16 | DType::S16 | DType::U16 => 2,
            DType::F32 | DType::S32 | DType::U32 => 4,
        }
    }

    /// Short name (`f16`, `bf16`, `f32`, `f8_e4m3`, `f8_e5m2`, `s8`, `u8`, `s16`, `u16`, `u32`,
    /// `s32`).
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F8E4M3 => "f8_e4m3",
            DType::F8E5M2 => "f8_e5m2",
            DType::S8 => "s8",
            DType::U8 => "u8",
            DType::S16 => "s16",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::S32 => "s32",
        }
    }

    /// The runtime element type of a DSL element type, for those the runtime has host and
    /// device types for: the one mapping between the two.
    pub fn from_ir(d: dsl_core::ir::DType) -> Option<DType> {
        match d {
            dsl_core::ir::DType::F16 => Some(DType::F16),
            dsl_core::ir::DType::BF16 => Some(DType::BF16),
            dsl_core::ir::DType::F32 => Some(DType::F32),
            dsl_core::ir::DType::F8E4M3 => Some(DType::F8E4M3),
            dsl_core::ir::DType::F8E5M2 => Some(DType::F8E5M2),
            dsl_core::ir::DType::S8 => Some(DType::S8),
            dsl_core::ir::DType::U8 => Some(DType::U8),
            dsl_core::ir::DType::S16 => Some(DType::S16),
            dsl_core::ir::DType::U16 => Some(DType::U16),
            dsl_core::ir::DType::U32 => Some(DType::U32),
            dsl_core::ir::DType::I32 => Some(DType::S32),
            _ => None,
        }
    }

    /// The DSL element type of this runtime type.
    pub fn to_ir(self) -> dsl_core::ir::DType {
        match self {
            DType::F16 => dsl_core::ir::DType::F16,
            DType::BF16 => dsl_core::ir::DType::BF16,
            DType::F32 => dsl_core::ir::DType::F32,
            DType::F8E4M3 => dsl_core::ir::DType::F8E4M3,
            DType::F8E5M2 => dsl_core::ir::DType::F8E5M2,
            DType::S8 => dsl_core::ir::DType::S8,
            DType::U8 => dsl_core::ir::DType::U8,
            DType::S16 => dsl_core::ir::DType::S16,
            DType::U16 => dsl_core::ir::DType::U16,
            DType::U32 => dsl_core::ir::DType::U32,
            DType::S32 => dsl_core::ir::DType::I32,
        }
    }

    /// Unit roundoff `u = 2^-p` (half an ulp of 1.0); 0 for the integer types (exact).
    pub fn unit_roundoff(self) -> f64 {
        match self {
            DType::F16 => 2f64.powi(-11),
            DType::BF16 => 2f64.powi(-8),
            DType::F32 => 2f64.powi(-24),
            DType::F8E4M3 => 2f64.powi(-4),
            DType::F8E5M2 => 2f64.powi(-3),
            DType::S8 | DType::U8 | DType::S16 | DType::U16 | DType::U32 | DType::S32 => 0.0,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Raw storage of an element on the device.
///
/// # Safety
/// Implementors must be plain integers whose every bit pattern is valid (cudarc `DeviceRepr`).
pub trait Bits:
    cudarc::driver::DeviceRepr + Copy + Default + PartialEq + fmt::Debug + Send + Sync + 'static
{
}
impl Bits for u8 {}
impl Bits for u16 {}
impl Bits for u32 {}

/// An element type of device tensors.
pub trait Element: Copy + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// Runtime tag.
    const DTYPE: DType;
    /// Device storage (same size and bits).
    type Bits: Bits;
    /// Raw bits.
    fn to_bits(self) -> Self::Bits;
    /// From raw bits.
    fn from_bits(bits: Self::Bits) -> Self;
    /// Widen exactly to f64.
    fn to_f64(self) -> f64;
    /// Round to nearest from f64.
    fn from_f64(v: f64) -> Self;
    /// The poison value (see the module doc).
    fn poison() -> Self;
    /// True when `self` has exactly the poison bits.
    fn is_poison(self) -> bool {
        self.to_bits() == Self::poison().to_bits()
    }
}

impl Element for f16 {
    const DTYPE: DType = DType::F16;
    type Bits = u16;
    fn to_bits(self) -> u16 {
        f16::to_bits(self)
    }
    fn from_bits(bits: u16) -> Self {
        f16::from_bits(bits)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn poison() -> Self {
        f16::from_bits(0x7E5A)
    }
}

impl Element for bf16 {
    const DTYPE: DType = DType::BF16;
    type Bits = u16;
    fn to_bits(self) -> u16 {
        bf16::to_bits(self)
    }
    fn from_bits(bits: u16) -> Self {
        bf16::from_bits(bits)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
    fn poison() -> Self {
        bf16::from_bits(0x7FDA)
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::F32;
    type Bits = u32;
    fn to_bits(self) -> u32 {
        f32::to_bits(self)
    }
    fn from_bits(bits: u32) -> Self {
        f32::from_bits(bits)
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn poison() -> Self {
        f32::from_bits(0x7FC5_A5A5)
    }
}

/// An fp8 e4m3 element: its code (see [`E4M3`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct F8E4M3(pub u8);
/// An fp8 e5m2 element: its code (see [`E5M2`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct F8E5M2(pub u8);

/// The fp8 formats have no spare NaN payload, so their poison is the canonical NaN code; an 8-bit
/// tensor is only ever an input, which is never poison-checked.
macro_rules! fp8_element {
    ($t:ident, $fmt:expr, $tag:expr) => {
        impl Element for $t {
            const DTYPE: DType = $tag;
            type Bits = u8;
            fn to_bits(self) -> u8 {
                self.0
            }
            fn from_bits(bits: u8) -> Self {
                $t(bits)
            }
            fn to_f64(self) -> f64 {
                $fmt.decode(self.0)
            }
            fn from_f64(v: f64) -> Self {
                $t($fmt.encode(v))
            }
            fn poison() -> Self {
                $t(0x7F)
            }
        }
    };
}
fp8_element!(F8E4M3, E4M3, DType::F8E4M3);
fp8_element!(F8E5M2, E5M2, DType::F8E5M2);

/// s8: stored as its two's-complement byte; `from_f64` rounds and saturates to [-127, 127].
impl Element for i8 {
    const DTYPE: DType = DType::S8;
    type Bits = u8;
    fn to_bits(self) -> u8 {
        self as u8
    }
    fn from_bits(bits: u8) -> Self {
        bits as i8
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v.round().clamp(-127.0, 127.0) as i8
    }
    fn poison() -> Self {
        i8::MIN
    }
}

/// u8: stored as its byte; `from_f64` rounds and saturates to [0, 255].
impl Element for u8 {
    const DTYPE: DType = DType::U8;
    type Bits = u8;
    fn to_bits(self) -> u8 {
        self
    }
    fn from_bits(bits: u8) -> Self {
        bits
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v.round().clamp(0.0, 255.0) as u8
    }
    fn poison() -> Self {
        u8::MAX
    }
}

/// The 16-bit and unsigned 32-bit integers: stored as their two's-complement bits; `from_f64`
/// rounds and saturates to the type's range; poison is the type's minimum or maximum.
macro_rules! int_element {
    ($t:ty, $tag:expr, $bits:ty, $poison:expr) => {
        impl Element for $t {
            const DTYPE: DType = $tag;
            type Bits = $bits;
            fn to_bits(self) -> $bits {
                self as $bits
            }
            fn from_bits(bits: $bits) -> Self {
                bits as $t
            }
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
            fn from_f64(v: f64) -> Self {
                v.round().clamp(f64::from(<$t>::MIN), f64::from(<$t>::MAX)) as $t
            }
            fn poison() -> Self {
                $poison
            }
        }
    };
}
int_element!(i16, DType::S16, u16, i16::MIN);
int_element!(u16, DType::U16, u16, u16::MAX);
int_element!(u32, DType::U32, u32, u32::MAX);

/// s32: an integer GEMM's output. Its poison is `0x80005A5A`, a value no s8 GEMM of K < 2^17
/// can produce (|sum| ≤ K·127²).
impl Element for i32 {
    const DTYPE: DType = DType::S32;
    type Bits = u32;
    fn to_bits(self) -> u32 {
        self as u32
    }
    fn from_bits(bits: u32) -> Self {
        bits as i32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(v: f64) -> Self {
        v.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
    }
    fn poison() -> Self {
        0x8000_5A5Au32 as i32
    }
}

/// SplitMix64: tiny, fast, deterministic across platforms.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// `len` values uniform in `[-1, 1]`, rounded to `T`, none of them zero.
pub fn host_random<T: Element>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = SplitMix64::new(seed);
    (0..len)
        .map(|_| {
            loop {
                let v = T::from_f64(2.0 * rng.next_unit() - 1.0);
                if v.to_f64() != 0.0 {
                    break v;
                }
            }
        })
        .collect()
}

/// `len` poison values.
pub fn host_poison<T: Element>(len: usize) -> Vec<T> {
    vec![T::poison(); len]
}

/// An 8-bit float format (OCP FP8): `E` exponent bits, `M` mantissa bits, and its finite range.
/// The host side of fp8 tensors: inputs are generated in f64, rounded to the format (nearest,
/// ties to even, saturating at the largest finite value, as cuBLASLt's and torch's `satfinite`
/// conversions do), and read back exactly. The formats differ only in these constants, so one
/// codec serves both (no crate in the workspace implements OCP FP8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fp8Format {
    /// Exponent bits.
    pub exp_bits: u32,
    /// Mantissa bits.
    pub man_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// Largest finite magnitude (e4m3: 448, e5m2: 57344).
    pub max_finite: f64,
}

/// e4m3 (`__nv_fp8_e4m3`): bias 7, no infinities, the all-ones code is NaN, max 448.
pub const E4M3: Fp8Format = Fp8Format {
    exp_bits: 4,
    man_bits: 3,
    bias: 7,
    max_finite: 448.0,
};
/// e5m2 (`__nv_fp8_e5m2`): bias 15, IEEE-like (infinities and NaNs), max 57344.
pub const E5M2: Fp8Format = Fp8Format {
    exp_bits: 5,
    man_bits: 2,
    bias: 15,
    max_finite: 57344.0,
};

impl Fp8Format {
    /// The value of code `b` (exact; NaN for the NaN codes, ±inf for e5m2's infinities).
    pub fn decode(self, b: u8) -> f64 {
        let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
        let e = ((b >> self.man_bits) & ((1 << self.exp_bits) - 1)) as i32;
        let m = (b & ((1 << self.man_bits) - 1)) as f64;
        let e_max = (1 << self.exp_bits) - 1;
        let scale = (1u32 << self.man_bits) as f64;
        if self.exp_bits == 4 && e == e_max && m == scale - 1.0 {
            return f64::NAN;
        }
        if self.exp_bits == 5 && e == e_max {
            return if m == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if e == 0 {
            sign * m / scale * 2f64.powi(1 - self.bias)
        } else {
            sign * (1.0 + m / scale) * 2f64.powi(e - self.bias)
        }
    }

    /// `v` rounded to the nearest code (ties to even), saturated to ±`max_finite`; NaN → the
    /// canonical NaN code (0x7F).
    pub fn encode(self, v: f64) -> u8 {
        if v.is_nan() {
            return 0x7F;
        }
        let sign: u8 = if v.is_sign_negative() { 0x80 } else { 0 };
        let a = v.abs().min(self.max_finite);
        // The nearest of the positive codes up to max_finite; codes are monotone in value, so
        // a binary search over them finds the neighbours.
        let max_code = (0u8..0x80)
            .rev()
            .find(|&c| self.decode(c) == self.max_finite)
            .unwrap_or(0x7E);
        let (mut lo, mut hi) = (0u8, max_code);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.decode(mid) <= a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (dl, dh) = (a - self.decode(lo), self.decode(hi) - a);
        let code = if dl < dh || (dl == dh && lo % 2 == 0) {
            lo
        } else {
            hi
        };
        sign | code
    }

    /// `len` codes of values uniform in `[-1, 1]` (SplitMix64 from `seed`), none of them zero.
    pub fn host_random(self, len: usize, seed: u64) -> Vec<u8> {
        let mut rng = SplitMix64::new(seed);
        (0..len)
            .map(|_| {
                loop {
                    let c = self.encode(2.0 * rng.next_unit() - 1.0);
                    if c & 0x7F != 0 {
                        break c;
                    }
                }
            })
            .collect()
    }
}

/// `len` s8 values uniform in `[-127, 127]`, none of them zero (the int8 GEMM's inputs).
pub fn host_random_s8(len: usize, seed: u64) -> Vec<i8> {
    host_random_int(len, seed)
}

/// `len` integers of `T` uniform over its whole range (`[-MAX, MAX]` for a signed type), none
/// of them zero.
pub fn host_random_int<T: Element>(len: usize, seed: u64) -> Vec<T> {
    let hi = T::from_f64(f64::MAX).to_f64();
    let lo = T::from_f64(f64::MIN).to_f64().max(-hi);
    let span = (hi - lo) as u64 + 1;
    let mut rng = SplitMix64::new(seed);
    (0..len)
        .map(|_| {
            loop {
                let v = lo + (rng.next_u64() % span) as f64;
                if v != 0.0 {
                    break T::from_f64(v);
                }
            }
        })
        .collect()
}

/// `len` u8 values uniform in `[1, 255]` (half of them above 127, where reading them as s8
/// would show).
pub fn host_random_u8(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    (0..len).map(|_| (rng.next_u64() % 255) as u8 + 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u8_inputs_cover_the_unsigned_range_and_convert_exactly() {
        let a = host_random_u8(10_000, 3);
        assert_eq!(a, host_random_u8(10_000, 3), "deterministic");
        assert!(a.iter().all(|&v| v >= 1), "no zeros");
        let high = a.iter().filter(|&&v| v > 127).count();
        assert!((4_000..6_000).contains(&high), "{high} of 10000 above 127");
        assert_eq!(u8::from_f64(300.0), 255);
        assert_eq!(u8::from_f64(-3.0), 0);
        assert_eq!(u8::from_bits(200).to_f64(), 200.0);
        assert_eq!(DType::from_ir(dsl_core::ir::DType::U8), Some(DType::U8));
        assert_eq!(DType::U8.to_ir(), dsl_core::ir::DType::U8);
        assert_eq!((DType::U8.size_bytes(), DType::U8.name()), (1, "u8"));
    }

    fn check_random<T: Element>() {
        let a = host_random::<T>(10_000, 7);
        assert_eq!(a, host_random::<T>(10_000, 7), "deterministic");
        assert_ne!(a, host_random::<T>(10_000, 8), "seed matters");
        let (mut lo, mut hi) = (f64::MAX, f64::MIN);
        for v in &a {
            let x = v.to_f64();
            assert!(x != 0.0 && (-1.0..=1.0).contains(&x), "{x}");
            lo = lo.min(x);
            hi = hi.max(x);
        }
        assert!(lo < -0.99 && hi > 0.99, "covers the range: {lo} {hi}");
        let mean = a.iter().map(|v| v.to_f64()).sum::<f64>() / a.len() as f64;
        assert!(mean.abs() < 0.05, "mean {mean}");
    }

    #[test]
    fn random_fill_is_deterministic_nonzero_and_uniform() {
        check_random::<f16>();
        check_random::<bf16>();
        check_random::<f32>();
    }

    /// Integers over the whole range of `T` (symmetric for a signed type), none zero, and each
    /// back through its bits unchanged.
    fn check_ints<T: Element>(lo: f64, hi: f64) {
        let a = host_random_int::<T>(20_000, 5);
        assert_eq!(a, host_random_int::<T>(20_000, 5), "deterministic");
        let xs: Vec<f64> = a.iter().map(|v| v.to_f64()).collect();
        assert!(
            xs.iter()
                .all(|&x| x != 0.0 && (lo..=hi).contains(&x) && x.fract() == 0.0)
        );
        let (min, max) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        assert!(
            min < lo + (hi - lo) * 0.01 && max > hi - (hi - lo) * 0.01,
            "{min} {max}"
        );
        assert!(a.iter().all(|v| T::from_bits(v.to_bits()) == *v));
        assert_eq!(std::mem::size_of::<T::Bits>(), T::DTYPE.size_bytes());
        assert_eq!(DType::from_ir(T::DTYPE.to_ir()), Some(T::DTYPE));
    }

    #[test]
    fn wide_integer_inputs_cover_their_range_and_round_trip() {
        check_ints::<i16>(-32767.0, 32767.0);
        check_ints::<u16>(1.0, 65535.0);
        check_ints::<u32>(1.0, 4294967295.0);
        assert_eq!(i16::from_f64(1e9), i16::MAX);
        assert_eq!(u32::from_f64(-3.0), 0);
        assert_eq!((-2i16).to_bits(), 0xFFFE);
    }

    fn check_poison<T: Element>() {
        let p = T::poison();
        assert!(p.to_f64().is_nan());
        assert!(p.is_poison());
        // A computed NaN is not poison.
        assert!(!T::from_f64(f64::NAN).is_poison());
        assert!(!T::from_f64(1.0).is_poison());
        assert!(host_poison::<T>(3).iter().all(|v| v.is_poison()));
        assert_eq!(T::from_bits(p.to_bits()).to_bits(), p.to_bits());
        assert_eq!(std::mem::size_of::<T::Bits>(), T::DTYPE.size_bytes());
    }

    #[test]
    fn poison_is_a_distinct_quiet_nan() {
        check_poison::<f16>();
        check_poison::<bf16>();
        check_poison::<f32>();
        assert_eq!(f16::poison().to_bits(), 0x7E5A);
        assert_eq!(bf16::poison().to_bits(), 0x7FDA);
        assert_eq!(f32::poison().to_bits(), 0x7FC5_A5A5);
        // Canonical GPU NaNs are not poison.
        assert!(!f16::from_bits(0x7FFF).is_poison());
        assert!(!f32::from_bits(0x7FFF_FFFF).is_poison());
    }

    #[test]
    fn fp8_codecs_decode_every_code_and_round_trip() {
        for f in [E4M3, E5M2] {
            let mut finite = 0;
            for c in 0u8..=255 {
                let v = f.decode(c);
                if v.is_finite() {
                    finite += 1;
                    // Every finite code encodes back to itself (-0 included).
                    assert_eq!(f.encode(v), c, "{f:?} code {c:#04x} = {v}");
                }
            }
            // e4m3: 2 NaN codes; e5m2: 2 infinities and 6 NaNs.
            assert_eq!(finite, if f == E4M3 { 254 } else { 248 });
        }
        assert_eq!(E4M3.decode(0x7E), 448.0);
        assert_eq!(E5M2.decode(0x7B), 57344.0);
        assert_eq!(E4M3.decode(0x01), 2f64.powi(-9), "smallest e4m3 subnormal");
        assert_eq!(E5M2.decode(0x01), 2f64.powi(-16), "smallest e5m2 subnormal");
        assert_eq!(E4M3.decode(0x38), 1.0);
        assert_eq!(E5M2.decode(0x3C), 1.0);
    }

    #[test]
    fn fp8_encode_rounds_to_nearest_even_and_saturates() {
        // Between 1.0 (0x38) and 1.125 (0x39) in e4m3: the midpoint goes to the even code.
        assert_eq!(E4M3.encode(1.0625), 0x38);
        assert_eq!(E4M3.encode(1.0626), 0x39);
        // Between 1.125 (0x39) and 1.25 (0x3A): the midpoint goes to 0x3A (even).
        assert_eq!(E4M3.encode(1.1875), 0x3A);
        assert_eq!(E4M3.encode(1e6), 0x7E);
        assert_eq!(E4M3.encode(-1e6), 0xFE);
        assert_eq!(E5M2.encode(f64::INFINITY), 0x7B);
        assert_eq!(E4M3.encode(-0.75), 0x80 | E4M3.encode(0.75));
        let a = E4M3.host_random(10_000, 3);
        assert_eq!(a, E4M3.host_random(10_000, 3));
        assert!(
            a.iter()
                .all(|&c| c & 0x7F != 0 && E4M3.decode(c).abs() <= 1.0)
        );
        let s = host_random_s8(10_000, 3);
        assert!(s.iter().all(|&v| v != 0 && v >= -127));
        assert!(s.contains(&127) && s.contains(&-127));
    }
}
