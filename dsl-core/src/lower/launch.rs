//! The launch form of a `__co__` function: the module every consumer that launches a kernel
//! (the command line, the runtime, the macro) checks and lowers, so each sees one list of
//! parameters — the arguments of the launch — whatever the function looked like:
//!
//! - a global tensor declared in the body outside every `parallel` (`f16 [M, N] output;`
//!   in a `__co__ auto` function) becomes an output parameter after the declared ones, in
//!   declaration order: the caller allocates it and passes it like any other tensor;
//! - `return output;` at the top level (naming such a tensor or a parameter) is dropped and
//!   the function becomes `void`: the result is in the parameter;
//! - an integer computed from the problem's dims outside every `parallel`
//!   (`int tiles = cdiv(M, 64) * cdiv(N, 128);`) is computed by every thread at the start of
//!   each top-level `parallel` instead (integers with a compile-time value are already module
//!   constants). One that a `parallel`'s own extents name stays where it is (the checker's
//!   E0905 still reports it).
//!
//! Anything else is left untouched, so a module that needs none of this is returned as is.

use crate::ir::{Block, Expr, ExprId, ExtStmt, MemSpace, Module, Param, Returns, Stmt, StmtId};

/// The launch form of `m` (see the module documentation).
pub fn launch_form(mut m: Module) -> Module {
    outputs_as_params(&mut m);
    drop_top_returns(&mut m);
    hoist_integers(&mut m);
    m
}

fn outputs_as_params(m: &mut Module) {
    let mut kept = Vec::new();
    for &s in &m.kernel.body {
        match &m.stmts[s] {
            Stmt::TensorDecl {
                space: MemSpace::Global,
                dtype,
                dtype_span,
                shape,
                names,
            } if names.iter().all(|d| d.count.is_none()) => {
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
            matches!(&m.exprs[*v], Expr::Name(n) if m.kernel.params.iter().any(|p| &p.name.name == n))
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

/// Integer scalars computed before every `parallel` move to the start of each top-level
/// `parallel`'s body (see the module documentation).
fn hoist_integers(m: &mut Module) {
    let parallels: Vec<StmtId> = m
        .kernel
        .body
        .iter()
        .copied()
        .filter(|&s| matches!(m.stmts[s], Stmt::Parallel { .. }))
        .collect();
    if parallels.is_empty() {
        return;
    }
    let mut moved: Vec<StmtId> = Vec::new();
    let mut moved_names: Vec<String> = Vec::new();
    for &s in &m.kernel.body {
        let name = match &m.stmts[s] {
            Stmt::ScalarDecl {
                dtype: crate::ir::DType::I32,
                name,
                init: Some(_),
            } => name.name.clone(),
            Stmt::Let { name, .. } => name.name.clone(),
            _ => continue,
        };
        // Only before the first `parallel`, and not named by any `parallel`'s own extents.
        let pos = m.kernel.body.iter().position(|&x| x == s).unwrap_or(0);
        let first_par = m
            .kernel
            .body
            .iter()
            .position(|x| parallels.contains(x))
            .unwrap_or(0);
        let named_by_extents = parallels
            .iter()
            .any(|&p| level_extents(m, p).iter().any(|&e| mentions(m, e, &name)));
        if pos < first_par && !named_by_extents {
            moved.push(s);
            moved_names.push(name);
        }
    }
    if moved.is_empty() {
        return;
    }
    // A later statement that stays at the top level and names a moved integer keeps them all
    // where they are (the checker reports them), so no name is used before its definition.
    let stays_and_uses = m.kernel.body.iter().any(|&s| {
        !moved.contains(&s)
            && !parallels.contains(&s)
            && crate::check::stmt_exprs(&m.stmts[s])
                .into_iter()
                .any(|e| moved_names.iter().any(|n| mentions(m, e, n)))
    });
    if stays_and_uses {
        return;
    }
    m.kernel.body.retain(|s| !moved.contains(s));
    for p in parallels {
        if let Stmt::Parallel { body, .. } = &mut m.stmts[p] {
            let mut b: Block = moved.clone();
            b.append(body);
            *body = b;
        }
    }
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

fn mentions(m: &Module, e: ExprId, name: &str) -> bool {
    let mut found = false;
    crate::check::walk_expr(m, e, &mut |x| {
        if matches!(&m.exprs[x], Expr::Name(n) if n == name) {
            found = true;
        }
    });
    found
}
