//! Which `.sqz()` and `.span_as(…)` views lower (`lower/squeeze.rs` states the rules and builds
//! them): the chain `t.subspan(e…).at(i…).sqz()` on a tensor `t`, whose dimensions of extent `1`
//! come before the kept ones, at most two kept, each whole (subspan extent the tensor's own,
//! index `0`); and `t.span_as(…)` of a whole tensor `t` (a tile of one could reach past the
//! tensor's end, which the reshaped tensor's bounds would not see).

use super::Binding;
use crate::ir::{Expr, ExprId, Module, Stmt, ViewOp};
use std::collections::HashMap;

/// The declared shape of tensor `root` (a parameter or a tensor that is not an array).
fn tensor_shape(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    root: ExprId,
) -> Option<Vec<ExprId>> {
    match bindings.get(&root) {
        Some(Binding::Param(i)) => m.kernel.params.get(*i).map(|p| p.shape.clone()),
        Some(Binding::Tensor(s, _)) => match &m.stmts[*s] {
            Stmt::TensorDecl { shape, names, .. } if names.iter().all(|d| d.count.is_none()) => {
                Some(shape.clone())
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether the `.span_as(…)` view `e` lowers (see the module documentation).
pub(crate) fn reshape_lowers(m: &Module, bindings: &HashMap<ExprId, Binding>, e: ExprId) -> bool {
    match &m.exprs[e] {
        Expr::View {
            base,
            op: ViewOp::SpanAs,
            ..
        } => matches!(m.exprs[*base], Expr::Name(_)) && tensor_shape(m, bindings, *base).is_some(),
        _ => false,
    }
}

/// Whether the `.sqz()` view `e` lowers (see the module documentation).
pub(crate) fn lowers(m: &Module, bindings: &HashMap<ExprId, Binding>, e: ExprId) -> bool {
    let Expr::View {
        base,
        op: ViewOp::Sqz,
        ..
    } = &m.exprs[e]
    else {
        return false;
    };
    let Expr::View {
        base: tiled,
        op: ViewOp::At,
        args: at,
    } = &m.exprs[*base]
    else {
        return false;
    };
    let Expr::View {
        base: root,
        op: ViewOp::Subspan,
        args: sizes,
    } = &m.exprs[*tiled]
    else {
        return false;
    };
    let Some(shape) = tensor_shape(m, bindings, *root) else {
        return false;
    };
    let n = shape.len();
    if sizes.len() != n || at.len() != n {
        return false;
    }
    // A size of 1, or `_` over a dimension of 1: the dimension `.sqz()` drops.
    let one = |d: usize| match m.exprs[sizes[d]] {
        Expr::Int(1) => true,
        Expr::Wildcard => matches!(m.exprs[shape[d]], Expr::Int(1)),
        _ => false,
    };
    let first_kept = (0..n).find(|&d| !one(d)).unwrap_or(n);
    let kept_ok = (first_kept..n).all(|d| {
        (matches!(m.exprs[sizes[d]], Expr::Wildcard)
            || super::view::same_expr(m, sizes[d], shape[d]))
            && matches!(m.exprs[at[d]], Expr::Int(0))
    });
    let dropped_ok = (0..first_kept).all(one);
    n - first_kept <= 2 && kept_ok && dropped_ok
}
