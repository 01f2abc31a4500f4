//! What the lowering knows about each DSL declaration (loop and parallel variables, tensor
//! shapes, events, MMA fragments), found through the checker's resolution of names.

use super::cxx::CExpr;
use crate::check::Binding;
use crate::ir::{DType, MemSpace};
use crate::sym::Sym;
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
    /// A `.sqz()` view's tensor: the pointer to its block of the tensor `name`
    /// (`super::squeeze`).
    pub squeezed: Option<CExpr>,
}

impl TensorLocal {
    /// The C++ pointer to the tensor's first element.
    pub fn ptr(&self) -> CExpr {
        self.squeezed
            .clone()
            .unwrap_or_else(|| CExpr::var(&self.name))
    }
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
    /// A parallel or loop variable (its extent is the checker's: `ExprCx::extent`).
    ParVar,
    LoopVar,
    Let,
    Scalar(DType),
    Tensor(TensorLocal),
    Event {
        count: Option<Sym>,
    },
    Frag(FragKind),
    /// The name of an array-entry pointer an enclosing loop computes once.
    Hoisted(String),
    /// Inside an element loop over an accumulator (`apply`, whole-fragment arithmetic): the
    /// accumulator's name stands for the element, C++ `place`, a value of `dtype`.
    FragElem {
        place: CExpr,
        dtype: DType,
    },
}

/// What the lowering knows about the DSL's declarations, by the checker's binding of each
/// (the checker resolves every name: `KernelInfo::bindings` and `idents`), and the C++ names
/// the lowering itself declared in the enclosing blocks — the pointers of futures' fresh
/// buffers and the hoisted entries of tensor arrays — which follow C++ scoping.
#[derive(Default, Debug)]
pub struct Scopes {
    decls: HashMap<Binding, Local>,
    cpp: Vec<HashMap<String, Local>>,
    /// Per C++ block, the array entries (pointer expressions) a loop computes once, and the
    /// name of each one's pointer.
    hoisted: Vec<HashMap<CExpr, String>>,
    /// Per C++ block, inside an element loop: the element each fragment (by the checker's
    /// binding of its declaration) stands for ([`Local::FragElem`]).
    elems: Vec<HashMap<Binding, Local>>,
}

impl Scopes {
    /// Enters a C++ block.
    pub fn push(&mut self) {
        self.cpp.push(HashMap::new());
        self.hoisted.push(HashMap::new());
        self.elems.push(HashMap::new());
    }
    /// Leaves a C++ block: the names declared in it go out of scope.
    pub fn pop(&mut self) {
        self.cpp.pop();
        self.hoisted.pop();
        self.elems.pop();
    }
    /// Records what the declaration `b` is.
    pub fn declare(&mut self, b: Binding, l: Local) {
        self.decls.insert(b, l);
    }
    /// What the declaration `b` is, once lowered.
    pub fn decl(&self, b: &Binding) -> Option<&Local> {
        self.decls.get(b)
    }
    /// Records a C++ name declared in the current block.
    pub fn insert_cpp(&mut self, name: &str, l: Local) {
        if self.cpp.is_empty() {
            self.push();
        }
        self.cpp.last_mut().unwrap().insert(name.to_string(), l);
    }
    /// A C++ name declared in an enclosing block.
    pub fn cpp(&self, name: &str) -> Option<&Local> {
        self.cpp.iter().rev().find_map(|s| s.get(name))
    }
    /// The tensor a C++ pointer declared in an enclosing block points to.
    pub fn cpp_tensor(&self, name: &str) -> Option<&TensorLocal> {
        match self.cpp(name) {
            Some(Local::Tensor(t)) => Some(t),
            _ => None,
        }
    }
    /// Records, in the current block, the element the fragment `b` stands for.
    pub fn insert_elem(&mut self, b: Binding, l: Local) {
        if self.elems.is_empty() {
            self.push();
        }
        self.elems.last_mut().unwrap().insert(b, l);
    }
    /// The element the fragment `b` stands for inside an enclosing element loop.
    pub fn elem(&self, b: &Binding) -> Option<&Local> {
        self.elems.iter().rev().find_map(|s| s.get(b))
    }
    /// Records that an enclosing loop computes the array entry `entry` once, as `name`.
    pub fn hoist(&mut self, entry: &CExpr, name: &str) {
        if self.hoisted.is_empty() {
            self.push();
        }
        let block = self.hoisted.last_mut().unwrap();
        block.insert(entry.clone(), name.to_string());
    }
    /// The name of the hoisted pointer to the array entry `entry`, if a loop hoisted it.
    pub fn hoisted(&self, entry: &CExpr) -> Option<String> {
        self.hoisted
            .iter()
            .rev()
            .find_map(|s| s.get(entry).cloned())
    }
}
