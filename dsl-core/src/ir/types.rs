//! Scalar types, memory spaces and parallel levels.

use std::fmt;

/// Element types. The f8 variants parse (so the error can say so) but are rejected by
/// the checker: no lowering supports them yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F16,
    BF16,
    F32,
    F8E4M3,
    F8E5M2,
    /// Plain integer scalars (`int`), for index arithmetic.
    I32,
    /// Further integer types: element types of the SIMT path (C++'s integer arithmetic; a store
    /// keeps the low bits); s8/u8 also `mma` operands.
    S8,
    U8,
    S16,
    U16,
    U32,
    /// Further integer and floating types of today's Croqtile: parsed and checked, not lowered
    /// yet (the checker's lowering gate says so).
    S64,
    U64,
    F64,
    TF32,
    Bool,
    /// Sub-byte floats (fp6, fp4).
    F6E2M3,
    F6E3M2,
    F4E2M1,
    /// Sub-byte integers (1, 2, 4, 6 bits, unsigned `u` / signed `s`) and `bin1` (one bit, a
    /// binary value): packed storage, never lowered yet.
    U1,
    U2,
    S2,
    U4,
    S4,
    U6,
    S6,
    Bin1,
}

impl DType {
    pub fn from_name(s: &str) -> Option<DType> {
        Some(match s {
            "f16" | "half" => DType::F16,
            "bf16" => DType::BF16,
            "f32" | "float" => DType::F32,
            "f8" | "f8_e4m3" | "e4m3" => DType::F8E4M3,
            "f8_e5m2" | "e5m2" => DType::F8E5M2,
            "int" | "i32" | "s32" => DType::I32,
            "s8" | "i8" => DType::S8,
            "u8" => DType::U8,
            "s16" | "i16" => DType::S16,
            "u16" => DType::U16,
            "u32" => DType::U32,
            "s64" | "i64" => DType::S64,
            "u64" => DType::U64,
            "f64" | "double" => DType::F64,
            "tf32" => DType::TF32,
            "bool" => DType::Bool,
            "f6_e2m3" => DType::F6E2M3,
            "f6_e3m2" => DType::F6E3M2,
            "f4_e2m1" => DType::F4E2M1,
            "u1" => DType::U1,
            "u2" => DType::U2,
            "s2" => DType::S2,
            "u4" => DType::U4,
            "s4" => DType::S4,
            "u6" => DType::U6,
            "s6" => DType::S6,
            "bin1" => DType::Bin1,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F8E4M3 => "f8_e4m3",
            DType::F8E5M2 => "f8_e5m2",
            DType::I32 => "int",
            DType::S8 => "s8",
            DType::U8 => "u8",
            DType::S16 => "s16",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::S64 => "s64",
            DType::U64 => "u64",
            DType::F64 => "f64",
            DType::TF32 => "tf32",
            DType::Bool => "bool",
            DType::F6E2M3 => "f6_e2m3",
            DType::F6E3M2 => "f6_e3m2",
            DType::F4E2M1 => "f4_e2m1",
            DType::U1 => "u1",
            DType::U2 => "u2",
            DType::S2 => "s2",
            DType::U4 => "u4",
            DType::S4 => "s4",
            DType::U6 => "u6",
            DType::S6 => "s6",
            DType::Bin1 => "bin1",
        }
    }
    pub fn size_bytes(self) -> u32 {
        match self {
            DType::F16 | DType::BF16 => 2,
            DType::F32 | DType::I32 => 4,
            // Sub-byte types are counted a byte each (their packed layouts are a lowering's
            // concern).
            DType::F8E4M3
            | DType::F8E5M2
            | DType::S8
            | DType::U8
            | DType::Bool
            | DType::F6E2M3
            | DType::F6E3M2
            | DType::F4E2M1
            | DType::U1
            | DType::U2
            | DType::S2
            | DType::U4
            | DType::S4
            | DType::U6
            | DType::S6
            | DType::Bin1 => 1,
            DType::S16 | DType::U16 => 2,
            DType::U32 | DType::TF32 => 4,
            DType::S64 | DType::U64 | DType::F64 => 8,
        }
    }
    pub fn is_f8(self) -> bool {
        matches!(self, DType::F8E4M3 | DType::F8E5M2)
    }
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16
                | DType::BF16
                | DType::F32
                | DType::F8E4M3
                | DType::F8E5M2
                | DType::F64
                | DType::TF32
                | DType::F6E2M3
                | DType::F6E3M2
                | DType::F4E2M1
        )
    }
    /// Whether a lowering supports the type (the rest is checked but not lowered yet).
    pub fn is_lowered(self) -> bool {
        matches!(
            self,
            DType::F16
                | DType::BF16
                | DType::F32
                | DType::I32
                | DType::F8E4M3
                | DType::F8E5M2
                | DType::S8
                | DType::U8
                | DType::S16
                | DType::U16
                | DType::U32
        )
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a tensor lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSpace {
    Global,
    Shared,
    Local,
}

impl MemSpace {
    pub fn from_name(s: &str) -> Option<MemSpace> {
        Some(match s {
            "global" => MemSpace::Global,
            "shared" => MemSpace::Shared,
            "local" => MemSpace::Local,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Global => "global",
            MemSpace::Shared => "shared",
            MemSpace::Local => "local",
        }
    }
}

impl fmt::Display for MemSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The execution level a `parallel` clause maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Thread blocks (the grid).
    Block,
    /// Warpgroups of 4 warps (128 threads): `group-4`.
    Group4,
    /// Warps (32 threads): `group`.
    Group,
    /// Threads.
    Thread,
}

impl Level {
    /// Threads one unit of this level spans (Block: unknown, `None`).
    pub fn threads(self) -> Option<u32> {
        match self {
            Level::Block => None,
            Level::Group4 => Some(128),
            Level::Group => Some(32),
            Level::Thread => Some(1),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Level::Block => "block",
            Level::Group4 => "group-4",
            Level::Group => "group",
            Level::Thread => "thread",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Operand layouts of `mma.<a>.<b>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    Row,
    Col,
}

impl Major {
    pub fn name(self) -> &'static str {
        match self {
            Major::Row => "row",
            Major::Col => "col",
        }
    }
}
