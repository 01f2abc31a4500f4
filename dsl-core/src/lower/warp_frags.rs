//! What the warp-level `mma` lowering (`super::warp`) knows about the fragments in scope: kept
//! apart from it so that the emitter can hold it without importing the lowering.

use super::cxx::CExpr;
use crate::check::Binding;
use crate::ir::DType;
use crate::sym::Sym;
use std::collections::HashMap;

/// One `mma.sync` instruction family, chosen by the operand types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    F16,
    BF16,
    TF32,
    S8,
    U8,
    /// s8 A × u8 B.
    S8U8,
    /// u8 A × s8 B.
    U8S8,
}

impl Kind {
    /// The family of one operand type (8-bit: its own signedness on both sides).
    pub fn of(d: DType) -> Option<Kind> {
        Some(match d {
            DType::F16 => Kind::F16,
            DType::BF16 => Kind::BF16,
            DType::F32 | DType::TF32 => Kind::TF32,
            DType::S8 => Kind::S8,
            DType::U8 => Kind::U8,
            _ => return None,
        })
    }
    /// The family of an `mma` with A of type `a` and B of type `b`.
    pub fn of_pair(a: DType, b: DType) -> Option<Kind> {
        Some(match (a, b) {
            (DType::S8, DType::U8) => Kind::S8U8,
            (DType::U8, DType::S8) => Kind::U8S8,
            _ => Kind::of(a)?,
        })
    }
    pub fn cpp(self) -> &'static str {
        match self {
            Kind::F16 => "TSL_MMA_F16",
            Kind::BF16 => "TSL_MMA_BF16",
            Kind::TF32 => "TSL_MMA_TF32",
            Kind::S8 => "TSL_MMA_S8",
            Kind::U8 => "TSL_MMA_U8",
            Kind::S8U8 => "TSL_MMA_S8U8",
            Kind::U8S8 => "TSL_MMA_U8S8",
        }
    }
    fn int8(self) -> bool {
        matches!(self, Kind::S8 | Kind::U8 | Kind::S8U8 | Kind::U8S8)
    }
    /// The K of the family's full instruction.
    pub fn k(self) -> i64 {
        match self {
            Kind::TF32 => 8,
            k if k.int8() => 32,
            _ => 16,
        }
    }
    /// The PTX name of the instruction of `shape`.
    pub fn inst(self, shape: Shape) -> &'static str {
        match (shape, self.int8(), self) {
            (Shape::Full, true, _) => "m16n8k32",
            (Shape::Full, _, Kind::TF32) => "m16n8k8",
            (Shape::Full, ..) => "m16n8k16",
            (Shape::HalfK, true, _) => "m16n8k16",
            (Shape::HalfK, _, Kind::TF32) => "m16n8k4",
            (Shape::HalfK, ..) => "m16n8k8",
            (Shape::M8, true, _) => "m8n8k16",
            // f16: an m16n8k8 whose rows 8-15 are zero.
            (Shape::M8, ..) => "m16n8k8",
        }
    }
}

/// The instruction shape of a warp tile, relative to its family's full one (`TSL_MMA_*` of
/// `lowering/warp_mma.cuh`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// m16 × n8 × the full K.
    Full,
    /// m16 × n8 × half the full K.
    HalfK,
    /// 8 rows × n8 × half the full K (8-bit m8n8k16; f16 a half-empty m16n8k8).
    M8,
}

impl Shape {
    pub fn cpp(self) -> &'static str {
        match self {
            Shape::Full => "TSL_MMA_FULL",
            Shape::HalfK => "TSL_MMA_HALF_K",
            Shape::M8 => "TSL_MMA_M8",
        }
    }
    /// Rows of A (and of the accumulator) per instruction.
    pub fn rows(self) -> i64 {
        if self == Shape::M8 { 8 } else { 16 }
    }
}

/// How a warp tile with compile-time extents is cut into instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    pub shape: Shape,
    /// The instruction's K.
    pub ki: i64,
    /// Instructions along K.
    pub fk: i64,
    /// The tile's K when it is not a multiple of `ki` (zero padded).
    pub kt: Option<i64>,
}

/// The instructions for a tile of `k` along K and (for A) `m` rows: the full shape where the
/// tile divides into it, else the half-K one, and 8-row ones for M not a multiple of 16.
/// The register layout of a B tile does not depend on the shape (the full shape's registers
/// are two half-K instructions' in order), nor that of an A tile of 16-row blocks.
pub fn pick(kind: Kind, m: Option<i64>, k: i64) -> Pick {
    let rows16 = m.is_none_or(|m| m % 16 == 0);
    let full = rows16 && k % kind.k() == 0;
    let shape = match (rows16, full) {
        (false, _) => Shape::M8,
        (true, true) => Shape::Full,
        (true, false) => Shape::HalfK,
    };
    let ki = if full { kind.k() } else { kind.k() / 2 };
    Pick {
        shape,
        ki,
        fk: (k + ki - 1) / ki,
        kt: (k % ki != 0).then_some(k),
    }
}

/// What the lowering knows about a warp fragment.
#[derive(Clone, Debug)]
pub enum Frag {
    /// An accumulator: its type and, once an `mma` used it, its tiles (M/rows, N/8) and rows
    /// per tile (16, or 8 for the 8-row shape).
    Acc {
        dtype: DType,
        tiles: Option<(Sym, Sym)>,
        rows: i64,
        /// The declaration and the fill nodes (`mma.fill` and its re-initializations) that
        /// the first `mma` completes.
        decl: usize,
        fills: Vec<usize>,
    },
    /// A loaded operand: its type, its tiles (M/rows or N/8, K/KI) and the instructions cut
    /// from it.
    Operand {
        dtype: DType,
        tiles: (Sym, Sym),
        shape: Shape,
        /// The C++ registers that hold it: its name, or its slot of a double buffer.
        cpp: CExpr,
    },
}

/// The register double buffer of an operand loaded one k-step ahead (`super::warp_pipe`):
/// the array `name[2][regs]`, declared by the node `decl` (sized by the first load), and the
/// slot a load writes and the step's `mma`s read (`kk % 2`, C++ of the step variable).
#[derive(Clone, Debug)]
pub struct Buffer {
    pub name: String,
    pub decl: usize,
    pub slot: CExpr,
}

/// A `frag` register tile laid out like an accumulator (`super::frag_elem`): `[m]` (one
/// value per row, `n` none) or `[m, n]`, on the warp (`mma.sync`) or WGMMA layout.
#[derive(Clone, Debug)]
pub struct TileFrag {
    pub dtype: DType,
    pub m: i64,
    pub n: Option<i64>,
}

/// The warp fragments lowered so far, by the checker's binding of each declaration
/// (`Binding::Frag` of its `mma.fill` or `mma.load`): a name declared twice in different
/// scopes is two fragments, and each `mma`, `mma.store` and re-fill finds its own through
/// `KernelInfo::idents`.
#[derive(Debug, Default)]
pub struct WarpState {
    frags: HashMap<Binding, Frag>,
    /// The `frag` register tiles (either path), by the checker's binding of each declarator,
    /// with the declarator's name.
    pub tiles: HashMap<Binding, (String, TileFrag)>,
    /// The operands loaded into double buffers, by their `mma.load`'s binding.
    pub buffers: HashMap<Binding, Buffer>,
}

impl WarpState {
    /// Records the fragment the declaration `b` lowered to.
    pub fn declare(&mut self, b: Binding, f: Frag) {
        self.frags.insert(b, f);
    }
    pub fn get(&self, b: &Binding) -> Option<&Frag> {
        self.frags.get(b)
    }
    pub fn get_mut(&mut self, b: &Binding) -> Option<&mut Frag> {
        self.frags.get_mut(b)
    }
    /// Every fragment lowered, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&Binding, &Frag)> {
        self.frags.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_largest_instruction_that_tiles_the_warp_tile() {
        let p = |kind, m, k| {
            let p = pick(kind, m, k);
            (p.shape, kind.inst(p.shape), p.fk, p.kt)
        };
        assert_eq!(
            p(Kind::F16, Some(64), 32),
            (Shape::Full, "m16n8k16", 2, None)
        );
        assert_eq!(
            p(Kind::F16, Some(16), 8),
            (Shape::HalfK, "m16n8k8", 1, None)
        );
        assert_eq!(
            p(Kind::F16, Some(16), 24),
            (Shape::HalfK, "m16n8k8", 3, None)
        );
        assert_eq!(p(Kind::F16, Some(8), 4), (Shape::M8, "m16n8k8", 1, Some(4)));
        assert_eq!(p(Kind::F16, Some(24), 16), (Shape::M8, "m16n8k8", 2, None));
        assert_eq!(
            p(Kind::BF16, Some(16), 8),
            (Shape::HalfK, "m16n8k8", 1, None)
        );
        assert_eq!(
            p(Kind::TF32, Some(16), 4),
            (Shape::HalfK, "m16n8k4", 1, None)
        );
        assert_eq!(
            p(Kind::TF32, Some(32), 16),
            (Shape::Full, "m16n8k8", 2, None)
        );
        assert_eq!(
            p(Kind::S8, Some(16), 16),
            (Shape::HalfK, "m16n8k16", 1, None)
        );
        assert_eq!(p(Kind::U8, Some(8), 64), (Shape::M8, "m8n8k16", 4, None));
        assert_eq!(
            p(Kind::S8U8, Some(32), 64),
            (Shape::Full, "m16n8k32", 2, None)
        );
        // B knows no M: its layout is the same either way.
        assert_eq!(p(Kind::S8, None, 32), (Shape::Full, "m16n8k32", 1, None));
        assert_eq!(p(Kind::F16, None, 4), (Shape::HalfK, "m16n8k8", 1, Some(4)));
    }
}
