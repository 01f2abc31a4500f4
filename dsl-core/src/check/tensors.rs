//! The kernel's tensors as the lowering declares them: each parameter and each declarator of a
//! tensor declaration, keyed by its binding, with its shape and array count in symbolic form
//! and the dimensions whose value no tunable changes (a `frag` tile's layout is fixed in the
//! emitted template for every configuration).

use super::Binding;
use crate::ir::{DType, ExprId, MemSpace, Module, Stmt};
use crate::sym::{Sym, SymEnv};
use std::collections::HashMap;

/// A parameter or one declarator of a tensor declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredTensor {
    pub name: String,
    pub space: MemSpace,
    pub dtype: DType,
    /// Each dimension over tunables, constants and problem sizes, or the first dimension that
    /// is not integer arithmetic.
    pub shape: Result<Vec<Sym>, ExprId>,
    /// Each dimension's value where no tunable changes it (literals, and constants over them).
    pub fixed: Vec<Option<i64>>,
    /// The array count (`lhs_s[STAGES]`), or the count that is not integer arithmetic.
    pub count: Option<Result<Sym, ExprId>>,
}

/// Every parameter (`Binding::Param`) and declared tensor (`Binding::Tensor`) of `m`.
pub(crate) fn declared_tensors(m: &Module) -> HashMap<Binding, DeclaredTensor> {
    let fixed_env = fixed_constants(m);
    let sym = |e: ExprId| Sym::from_expr(m, e).ok_or(e);
    let shape = |dims: &[ExprId]| dims.iter().map(|&d| sym(d)).collect();
    let fixed = |dims: &[ExprId]| {
        dims.iter()
            .map(|&d| Sym::from_expr(m, d).and_then(|s| s.eval(&fixed_env).ok()))
            .collect()
    };
    let mut out = HashMap::new();
    for (i, p) in m.kernel.params.iter().enumerate() {
        out.insert(
            Binding::Param(i),
            DeclaredTensor {
                name: p.name.name.clone(),
                space: p.space,
                dtype: p.dtype,
                shape: shape(&p.shape),
                fixed: fixed(&p.shape),
                count: None,
            },
        );
    }
    for (s, st) in m.stmts.iter() {
        let Stmt::TensorDecl {
            space,
            dtype,
            shape: dims,
            names,
            ..
        } = st
        else {
            continue;
        };
        for (i, d) in names.iter().enumerate() {
            out.insert(
                Binding::Tensor(s, i),
                DeclaredTensor {
                    name: d.name.name.clone(),
                    space: *space,
                    dtype: *dtype,
                    shape: shape(dims),
                    fixed: fixed(dims),
                    count: d.count.map(sym),
                },
            );
        }
    }
    out
}

/// The module's constants whose values no tunable changes, in order.
fn fixed_constants(m: &Module) -> SymEnv {
    let mut env = SymEnv::new();
    for c in &m.constants {
        if let Some(v) = Sym::from_expr(m, c.value).and_then(|v| v.eval(&env).ok()) {
            env.insert(c.name.name.clone(), v);
        }
    }
    env
}
