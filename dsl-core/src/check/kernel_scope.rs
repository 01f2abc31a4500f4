//! Kernel-scope values: scalars a `__co__` function computes outside every `parallel`
//! (`float scale = 0.125f;`, `int past = KV - Q;`, `mutable int n = 0; n += M;`). In Croqtile
//! they run once on the host; every thread computing them gives the same value as long as the
//! statements only read — parameters, problem sizes, constants, other kernel-scope scalars,
//! tensor elements — and write nothing but kernel-scope scalars. The launch form
//! (`lower::launch_form`) then copies them, in order, to the start of each later top-level
//! `parallel`, where each thread computes them before any other work.
//!
//! What stays outside: a statement with an effect other threads or the host could observe
//! (a tensor write, a copy, a print, an `mma`, a barrier, an event operation: `E1610`, a
//! restriction of the lowering since Croqtile runs it once on the host), a scalar the launch
//! geometry itself needs (named by a `parallel`'s extents), statements after the last
//! `parallel`, and control flow (`E0905`, as before).

use crate::ir::{Expr, ExprId, ExtStmt, Module, Stmt, StmtId};

/// The top-level statements the launch form copies into each later top-level `parallel`, in
/// body order (see the module documentation).
pub fn hoistable(m: &Module) -> Vec<StmtId> {
    let body = &m.kernel.body;
    let Some(last_par) = body
        .iter()
        .rposition(|&s| matches!(m.stmts[s], Stmt::Parallel { .. }))
    else {
        return Vec::new();
    };
    let extents: Vec<ExprId> = body
        .iter()
        .filter(|&&s| matches!(m.stmts[s], Stmt::Parallel { .. }))
        .flat_map(|&p| level_extents(m, p))
        .collect();
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for &s in &body[..last_par] {
        let (name, exprs) = match &m.stmts[s] {
            Stmt::ScalarDecl {
                dtype, name, init, ..
            } if scalar_type(*dtype) => {
                (name.name.clone(), init.iter().copied().collect::<Vec<_>>())
            }
            Stmt::Let { name, value } if !super::is_view_let(m, *value) => {
                (name.name.clone(), vec![*value])
            }
            // `n += M;` of a kernel-scope scalar declared above.
            Stmt::Assign { target, value, .. } if matches!(&m.exprs[*target], Expr::Name(n) if names.contains(n)) =>
            {
                let Expr::Name(n) = &m.exprs[*target] else {
                    unreachable!()
                };
                (n.clone(), vec![*value])
            }
            _ => continue,
        };
        if !exprs.iter().all(|&e| pure(m, e)) {
            continue;
        }
        // The launch geometry is computed on the host from the extents: a value they name
        // stays (E0905).
        if extents.iter().any(|&e| mentions(m, e, &name)) {
            continue;
        }
        if !names.contains(&name) {
            names.push(name);
        }
        out.push(s);
    }
    out
}

/// The scalar types a kernel-scope value may have: those a thread holds in a register.
fn scalar_type(d: crate::ir::DType) -> bool {
    use crate::ir::DType;
    matches!(
        d,
        DType::I32 | DType::F32 | DType::F16 | DType::BF16 | DType::Bool
    )
}

/// Whether evaluating `e` has no effect: no atomic built-in.
pub fn pure(m: &Module, e: ExprId) -> bool {
    let mut ok = true;
    super::walk_expr(m, e, &mut |x| {
        if let Expr::Call { func, .. } = &m.exprs[x]
            && func.name.contains("atomic")
        {
            ok = false;
        }
    });
    ok
}

/// The effect a top-level statement has that every thread repeating it would multiply or
/// race on (`None` for one without: a value, control flow): what `E1610` names.
pub fn effect(m: &Module, s: StmtId) -> Option<&'static str> {
    Some(match &m.stmts[s] {
        Stmt::Assign { target, value, .. } => {
            if !matches!(m.exprs[*target], Expr::Name(_)) {
                "a write to a tensor element"
            } else if !pure(m, *value) {
                "an atomic operation"
            } else {
                return None;
            }
        }
        Stmt::ScalarDecl { init: Some(e), .. } | Stmt::Let { value: e, .. } if !pure(m, *e) => {
            "an atomic operation"
        }
        Stmt::DmaCopy { .. } | Stmt::TmaCopy { .. } | Stmt::DmaWait { .. } => "a copy",
        Stmt::MmaFill { .. }
        | Stmt::MmaLoad { .. }
        | Stmt::Mma { .. }
        | Stmt::MmaStore { .. }
        | Stmt::MmaCommit
        | Stmt::Reduce { .. } => "an `mma` operation",
        Stmt::Wait { .. } | Stmt::Trigger { .. } | Stmt::SyncShared => {
            "a synchronization (a barrier or an event)"
        }
        Stmt::Ext(x) => match x {
            ExtStmt::DmaFuture { .. } | ExtStmt::AnyFuture { .. } | ExtStmt::Swap { .. } => {
                "a copy"
            }
            ExtStmt::Println { .. } => "a print (the host prints it once; every thread would)",
            ExtStmt::Return { .. } => return None,
            _ => "a statement with an effect",
        },
        _ => return None,
    })
}

fn level_extents(m: &Module, p: StmtId) -> Vec<ExprId> {
    let mut out = Vec::new();
    let mut stack = vec![p];
    while let Some(s) = stack.pop() {
        if let Stmt::Parallel { levels, body } = &m.stmts[s] {
            for l in levels {
                out.extend(l.extents.iter().copied());
            }
            // Nested `parallel`s directly in the body are launch geometry too.
            stack.extend(
                body.iter()
                    .copied()
                    .filter(|&b| matches!(m.stmts[b], Stmt::Parallel { .. })),
            );
        }
    }
    out
}

/// Whether `e` names `name`.
pub fn mentions(m: &Module, e: ExprId, name: &str) -> bool {
    let mut found = false;
    super::walk_expr(m, e, &mut |x| {
        if matches!(&m.exprs[x], Expr::Name(n) if n == name) {
            found = true;
        }
    });
    found
}
