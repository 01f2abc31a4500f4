//! `f32 [M, N] output{0.0f};` in a `__co__ auto` function: an output whose every element starts
//! at the value. The launch form makes the output a parameter that the caller allocates
//! (`lower/launch.rs`), so the value is not materialized anywhere; the lowering accepts the
//! initializer only where it cannot be observed: the kernel never reads the output, and every
//! element of it is written — each write is a tile store (`mma.store`, a copy) into
//! `output.chunkat(…)` whose indices are `parallel` variables (or `a # b` compositions of them,
//! or `_`), under nothing but `parallel`s. The tiles of a `.chunkat` partition the
//! tensor, and such a store runs for every value of its index variables, so it reaches every
//! element.

use super::{Binding, all_stmts, stmt_blocks, stmt_exprs, walk_expr};
use crate::ir::{CopyDst, DeclExt, Expr, ExprId, Module, Stmt, StmtId, ViewOp};
use std::collections::HashMap;

/// Whether the initializer `x` is unobservable (see the module comment).
pub(crate) fn unobservable(m: &Module, bindings: &HashMap<ExprId, Binding>, x: &DeclExt) -> bool {
    let DeclExt::Init { decl, .. } = x else {
        return false;
    };
    // The launch form moved the declaration out of the body: it names an output parameter.
    let Stmt::TensorDecl { names, .. } = &m.stmts[*decl] else {
        return false;
    };
    if all_stmts(m).contains(decl) {
        return false;
    }
    names.iter().all(|d| {
        m.kernel
            .params
            .iter()
            .position(|p| p.name.name == d.name.name)
            .is_some_and(|i| write_only_covered(m, bindings, i))
    })
}

fn write_only_covered(m: &Module, bindings: &HashMap<ExprId, Binding>, param: usize) -> bool {
    let names_param =
        |e: ExprId| matches!(bindings.get(&e), Some(Binding::Param(i)) if *i == param);
    let mut writes = 0;
    let mut ok = true;
    walk(m, &m.kernel.body, &mut Vec::new(), &mut |s, conditional| {
        let dst = match &m.stmts[s] {
            Stmt::MmaStore { dst, .. } => Some(*dst),
            Stmt::DmaCopy {
                dst: CopyDst::Expr(d),
                ..
            }
            | Stmt::TmaCopy {
                dst: CopyDst::Expr(d),
                ..
            } => Some(*d),
            _ => None,
        };
        for e in stmt_exprs(&m.stmts[s]) {
            let mut uses = Vec::new();
            walk_expr(m, e, &mut |x| {
                if names_param(x) {
                    uses.push(x);
                }
            });
            if uses.is_empty() {
                continue;
            }
            let covering = Some(e) == dst && !conditional && covering_tile(m, bindings, e);
            if covering && uses.len() == 1 {
                writes += 1;
            } else {
                ok = false;
            }
        }
    });
    ok && writes > 0
}

/// `t.chunkat(i, j)` with each index a `parallel` variable, a composition of them, or `_`.
fn covering_tile(m: &Module, bindings: &HashMap<ExprId, Binding>, e: ExprId) -> bool {
    let Expr::View {
        base,
        op: ViewOp::Chunkat,
        args,
    } = &m.exprs[e]
    else {
        return false;
    };
    fn var(m: &Module, bindings: &HashMap<ExprId, Binding>, a: ExprId) -> bool {
        match &m.exprs[a] {
            Expr::Wildcard => true,
            Expr::Name(_) => matches!(bindings.get(&a), Some(Binding::ParallelVar { .. })),
            Expr::Compose { outer, inner } => var(m, bindings, *outer) && var(m, bindings, *inner),
            _ => false,
        }
    }
    matches!(m.exprs[*base], Expr::Name(_)) && args.iter().all(|&a| var(m, bindings, a))
}

/// Every statement, with whether it may not run for every value of the `parallel` variables
/// above it: under anything but a `parallel` (a condition, or a loop that may run no
/// iteration).
fn walk(m: &Module, b: &[StmtId], stack: &mut Vec<bool>, f: &mut impl FnMut(StmtId, bool)) {
    for &s in b {
        f(s, stack.iter().any(|&c| c));
        let conditional = !matches!(m.stmts[s], Stmt::Parallel { .. });
        for inner in stmt_blocks(&m.stmts[s]) {
            stack.push(conditional);
            walk(m, inner, stack, f);
            stack.pop();
        }
    }
}
