//! The launch form of a `__co__` function: the module every consumer that launches a kernel
//! (the command line, the runtime, the macro) checks and lowers, so each sees one list of
//! parameters — the arguments of the launch — whatever the function looked like:
//!
//! - a global tensor declared in the body outside every `parallel` (`f16 [M, N] output;`
//!   in a `__co__ auto` function) becomes an output parameter after the declared ones, in
//!   declaration order: the caller allocates it and passes it like any other tensor — when its
//!   shape names only what a parameter's may (`check::header_outputs`);
//! - `return output;` at the top level (naming such a tensor or a parameter) is dropped and
//!   the function becomes `void`: the result is in the parameter;
//! - a scalar computed outside every `parallel` from parameters, problem sizes, constants and
//!   other such scalars (`int tiles = cdiv(M, 64);`, `float scale = 0.125f;`, a `mutable`
//!   one updated there) is computed by every thread at the start of each later top-level
//!   `parallel` instead (integers with a compile-time value are already module constants);
//!   which statements qualify is `check::kernel_scope`'s rule. One that a `parallel`'s own
//!   extents name stays where it is (the checker's E0905 still reports it).
//!
//! Anything else is left untouched, so a module that needs none of this is returned as is.

use crate::ir::{Block, Expr, ExtStmt, MemSpace, Module, Param, Returns, Stmt, StmtId};

/// The launch form of `m` (see the module documentation).
pub fn launch_form(mut m: Module) -> Module {
    outputs_as_params(&mut m);
    drop_top_returns(&mut m);
    hoist_scalars(&mut m);
    m
}

fn outputs_as_params(m: &mut Module) {
    let movable = crate::check::header_outputs(m);
    let mut kept = Vec::new();
    for &s in &m.kernel.body {
        match &m.stmts[s] {
            Stmt::TensorDecl {
                space: MemSpace::Global,
                dtype,
                dtype_span,
                shape,
                names,
            } if names.iter().all(|d| d.count.is_none()) && movable.contains(&s) => {
                for d in names {
                    m.kernel.params.push(Param {
                        name: d.name.clone(),
                        space: MemSpace::Global,
                        dtype: *dtype,
                        dtype_span: *dtype_span,
                        shape: shape.clone(),
                    });
                }
            }
            _ => kept.push(s),
        }
    }
    m.kernel.body = kept;
}

/// `return x;` / `return;` at the top level, where `x` names a parameter (after
/// [`outputs_as_params`], the function's output is one).
fn drop_top_returns(m: &mut Module) {
    let is_param_return = |m: &Module, s: StmtId| match &m.stmts[s] {
        Stmt::Ext(ExtStmt::Return { value: None }) => true,
        Stmt::Ext(ExtStmt::Return { value: Some(v) }) => {
            // A tensor parameter: a scalar one's value would be lost with the return.
            matches!(&m.exprs[*v], Expr::Name(n) if m.kernel.params.iter().any(|p| &p.name.name == n && !p.shape.is_empty()))
        }
        _ => false,
    };
    let returns: Vec<StmtId> = m
        .kernel
        .body
        .iter()
        .copied()
        .filter(|&s| matches!(m.stmts[s], Stmt::Ext(ExtStmt::Return { .. })))
        .collect();
    if returns.is_empty() || !returns.iter().all(|&s| is_param_return(m, s)) {
        return;
    }
    // Only tensor results: a scalar `__co__ int` has no parameter to hold its value.
    if let Returns::Value { shape, .. } = &m.kernel.returns
        && shape.is_empty()
    {
        return;
    }
    m.kernel.body.retain(|s| !returns.contains(s));
    m.kernel.returns = Returns::Void;
}

/// Kernel-scope scalars (`check::kernel_scope::hoistable`) are copied, in order, to the start
/// of each later top-level `parallel`'s body (see the module documentation).
fn hoist_scalars(m: &mut Module) {
    let moved = crate::check::kernel_scope::hoistable(m);
    if moved.is_empty() {
        return;
    }
    // A statement that stays at the top level and names a moved value keeps them all where
    // they are (the checker reports that statement), so no name is used before its definition.
    let names: Vec<String> = moved
        .iter()
        .filter_map(|&s| match &m.stmts[s] {
            Stmt::ScalarDecl { name, .. } | Stmt::Let { name, .. } => Some(name.name.clone()),
            _ => None,
        })
        .collect();
    let stays_and_uses = m.kernel.body.iter().any(|&s| {
        !moved.contains(&s)
            && !matches!(m.stmts[s], Stmt::Parallel { .. })
            && crate::check::stmt_exprs(&m.stmts[s]).into_iter().any(|e| {
                names
                    .iter()
                    .any(|n| crate::check::kernel_scope::mentions(m, e, n))
            })
    });
    if stays_and_uses {
        return;
    }
    let body = m.kernel.body.clone();
    for (pos, &p) in body.iter().enumerate() {
        if !matches!(m.stmts[p], Stmt::Parallel { .. }) {
            continue;
        }
        let before: Vec<StmtId> = body[..pos]
            .iter()
            .copied()
            .filter(|s| moved.contains(s))
            .collect();
        if let Stmt::Parallel { body, .. } = &mut m.stmts[p] {
            let mut b: Block = before;
            b.append(body);
            *body = b;
        }
    }
    m.kernel.body.retain(|s| !moved.contains(s));
}
