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
        }
    }
    pub fn size_bytes(self) -> u32 {
        match self {
            DType::F16 | DType::BF16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::F8E4M3 | DType::F8E5M2 => 1,
        }
    }
    pub fn is_f8(self) -> bool {
        matches!(self, DType::F8E4M3 | DType::F8E5M2)
    }
    pub fn is_float(self) -> bool {
        !matches!(self, DType::I32)
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
