//! Lexical scopes during lowering: what each DSL name is, and what the lowering knows about
//! it (extents of loop and parallel variables, tensor shapes, events, MMA fragments).

use super::sym::Sym;
use crate::ir::{DType, MemSpace};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
pub struct TensorLocal {
    pub name: String,
    pub space: MemSpace,
    pub dtype: DType,
    pub shape: Vec<Sym>,
    /// Array count (`lhs_s[STAGES]`).
    pub count: Option<Sym>,
    /// Index of the kernel parameter, for global tensors.
    pub param: Option<usize>,
}

impl TensorLocal {
    /// Elements of one array entry.
    pub fn elems(&self) -> Sym {
        self.shape.iter().cloned().fold(Sym::Int(1), Sym::mul)
    }
    /// Leading dimension (row pitch, in elements) of a row-major 2-D tensor.
    pub fn ld(&self) -> Sym {
        self.shape.last().cloned().unwrap_or(Sym::Int(1))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FragKind {
    /// Accumulator: `[64, n]` of `dtype`.
    Acc { n: Sym, dtype: DType },
    /// Shared-memory descriptor of an A or B operand whose tile is `k` elements wide along K.
    Desc { dtype: DType, k: Sym },
    /// A `[64, k]` A operand held in registers (register-A WGMMA): the C++ array `regs` of k/4
    /// f16x2 words per thread in the A-fragment layout.
    ARegs { dtype: DType, k: Sym, regs: String },
    /// Byte pointer to the u8 sparsity-metadata tile of a sparse `mma`, rows `ld` bytes apart.
    Meta { ld: Sym },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Local {
    ParVar(Sym),
    LoopVar(Sym),
    Let,
    Scalar(DType),
    Tensor(TensorLocal),
    Event {
        count: Option<Sym>,
    },
    Frag(FragKind),
    /// Tunables, constants and symbolic dims.
    Value,
    /// The name of an array-entry pointer an enclosing loop computes once.
    Hoisted(String),
}

/// The scope key under which the pointer `entry` (C++ of an array entry) is hoisted: not a
/// DSL name, so it cannot shadow one.
fn hoist_key(entry: &str) -> String {
    format!("tsl hoisted {entry}")
}

#[derive(Default, Debug)]
pub struct Scopes {
    stack: Vec<HashMap<String, Local>>,
}

impl Scopes {
    pub fn push(&mut self) {
        self.stack.push(HashMap::new());
    }
    pub fn pop(&mut self) {
        self.stack.pop();
    }
    pub fn insert(&mut self, name: &str, l: Local) {
        if self.stack.is_empty() {
            self.push();
        }
        self.stack.last_mut().unwrap().insert(name.to_string(), l);
    }
    pub fn get(&self, name: &str) -> Option<&Local> {
        self.stack.iter().rev().find_map(|s| s.get(name))
    }
    pub fn tensor(&self, name: &str) -> Option<&TensorLocal> {
        match self.get(name) {
            Some(Local::Tensor(t)) => Some(t),
            _ => None,
        }
    }
    /// Records that an enclosing loop computes the array entry `entry` once, as `name`.
    pub fn hoist(&mut self, entry: &str, name: &str) {
        self.insert(&hoist_key(entry), Local::Hoisted(name.to_string()));
    }
    /// The name of the hoisted pointer to the array entry `entry`, if a loop hoisted it.
    pub fn hoisted(&self, entry: &str) -> Option<String> {
        match self.get(&hoist_key(entry)) {
            Some(Local::Hoisted(n)) => Some(n.clone()),
            _ => None,
        }
    }
    /// Extent of a loop or parallel variable.
    pub fn extent(&self, name: &str) -> Option<&Sym> {
        match self.get(name) {
            Some(Local::ParVar(e)) | Some(Local::LoopVar(e)) => Some(e),
            _ => None,
        }
    }
}
