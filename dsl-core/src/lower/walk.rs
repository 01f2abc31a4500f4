//! Small IR queries the lowering passes share.

use crate::check::stmt_blocks;
use crate::ir::{Expr, ExprId, Module, Stmt, StmtId};

/// The tensor a view expression starts from (`t`, `t[i]`, `t[i].subspan(..).at(..)`).
pub fn root(m: &Module, e: ExprId) -> Option<&str> {
    match &m.exprs[e] {
        Expr::Name(n) => Some(n),
        Expr::Index { base, .. } | Expr::View { base, .. } | Expr::Field { base, .. } => {
            root(m, *base)
        }
        _ => None,
    }
}

/// Whether `e` mentions a name for which `is` holds.
pub fn mentions(m: &Module, e: ExprId, is: &dyn Fn(&str) -> bool) -> bool {
    let r = |x: &ExprId| mentions(m, *x, is);
    match &m.exprs[e] {
        Expr::Name(n) => is(n),
        Expr::Unary { expr, .. } => r(expr),
        Expr::Binary { lhs, rhs, .. } => r(lhs) || r(rhs),
        Expr::Compose { outer, inner } => r(outer) || r(inner),
        Expr::Call { args, .. } => args.iter().any(r),
        Expr::Index { base, index } => r(base) || r(index),
        Expr::View { base, args, .. } => r(base) || args.iter().any(r),
        Expr::Field { base, .. } => r(base),
        Expr::Int(_) | Expr::Float { .. } | Expr::Bool(_) | Expr::Wildcard => false,
    }
}

/// The kernel's parameter names (the global tensors).
pub fn param_names(m: &Module) -> Vec<&str> {
    m.kernel
        .params
        .iter()
        .map(|p| p.name.name.as_str())
        .collect()
}

/// Whether any statement in `b` (recursively) satisfies `f`.
pub fn contains(m: &Module, b: &[StmtId], f: &dyn Fn(&Stmt) -> bool) -> bool {
    b.iter().any(|&s| {
        let st = &m.stmts[s];
        f(st)
            || stmt_blocks(st)
                .into_iter()
                .any(|inner| contains(m, inner, f))
    })
}
