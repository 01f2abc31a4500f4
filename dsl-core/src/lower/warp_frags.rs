//! What the warp-level `mma` lowering (`super::warp`) knows about the fragments in scope: kept
//! apart from it so that the emitter can hold it without importing the lowering.

use super::sym::Sym;
use crate::ir::DType;
use std::collections::HashMap;

/// One `mma.sync` instruction family, chosen by the operand type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    F16,
    BF16,
    TF32,
    S8,
}

impl Kind {
    pub fn of(d: DType) -> Option<Kind> {
        Some(match d {
            DType::F16 => Kind::F16,
            DType::BF16 => Kind::BF16,
            DType::F32 | DType::TF32 => Kind::TF32,
            DType::S8 => Kind::S8,
            _ => return None,
        })
    }
    pub fn cpp(self) -> &'static str {
        match self {
            Kind::F16 => "TSL_MMA_F16",
            Kind::BF16 => "TSL_MMA_BF16",
            Kind::TF32 => "TSL_MMA_TF32",
            Kind::S8 => "TSL_MMA_S8",
        }
    }
    /// The instruction's K.
    pub fn k(self) -> i64 {
        match self {
            Kind::TF32 => 8,
            Kind::S8 => 32,
            _ => 16,
        }
    }
    pub fn shape(self) -> &'static str {
        match self {
            Kind::TF32 => "m16n8k8",
            Kind::S8 => "m16n8k32",
            _ => "m16n8k16",
        }
    }
}

/// What the lowering knows about a warp fragment.
#[derive(Clone, Debug)]
pub enum Frag {
    /// An accumulator: its type and, once an `mma` used it, its tiles (M/16, N/8).
    Acc {
        dtype: DType,
        tiles: Option<(Sym, Sym)>,
        /// The declaration and fill nodes that the first `mma` completes.
        decl: usize,
        fill: usize,
    },
    /// A loaded operand: its instruction family and its tiles (M/16 or N/8, K/KI).
    Operand { kind: Kind, tiles: (Sym, Sym) },
}

/// The warp fragments in scope while lowering.
#[derive(Debug, Default)]
pub struct WarpState {
    pub frags: HashMap<String, Frag>,
}
