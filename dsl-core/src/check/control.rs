//! Where jumps may stand: `break` and `continue` inside a loop (`foreach`, `while`) of the same
//! thread code, `yield` inside a `parallel` (it hands the thread's turn back within a launch).
//! And `return`s agree with the declared result: a function with a return type returns a
//! value somewhere; a `void` one returns none. A function returns from its own code, never
//! from inside a `parallel`, and what it returns is data — a tensor or a scalar — not a copy
//! future, a placeholder, a loop or bounded index, or an i-tuple.

use super::{Cx, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Block, ExtStmt, Returns, Stmt};

pub(crate) fn check_control(cx: &Cx, diags: &mut Diagnostics) {
    walk(cx, &cx.m.kernel.body, false, false, diags);
    check_returns(cx, diags);
    // A `with` bound is a shape of indices: each of its extents is at least 1.
    for &e in &cx.m.with_extents {
        if let Some(v) = cx.static_value(e)
            && v < 1
        {
            diags.push(
                super::at_expr(
                    cx.m,
                    codes::NON_POSITIVE_EXTENT,
                    e,
                    format!(
                        "this `with` bound is {} under this configuration: its names have no value",
                        cx.describe_value(e, v)
                    ),
                )
                .with_help("a bound must be at least 1; check the tunables and constants it uses"),
            );
        }
    }
    for u in &cx.m.unroll_factors {
        // The factor unrolls the innermost variable's loop: it cannot exceed its extent.
        let extent = match &cx.m.stmts[u.stmt] {
            Stmt::Foreach { extents, .. } => extents.last().and_then(|&e| cx.static_value(e)),
            _ => None,
        };
        match cx.static_value(u.factor) {
            Some(v) if v >= 1 && extent.is_some_and(|n| v > n) => diags.push(
                Diagnostic::new(
                    codes::UNROLL_FACTOR,
                    cx.m.expr_span(u.factor),
                    format!(
                        "unroll factor {v} exceeds the loop extent {}",
                        extent.unwrap_or_default()
                    ),
                )
                .with_help("use a factor no larger than the loop's extent"),
            ),
            Some(v) if v >= 1 => {}
            other => diags.push(
                Diagnostic::new(
                    codes::UNROLL_FACTOR,
                    cx.m.expr_span(u.factor),
                    match other {
                        Some(v) => format!("an unroll factor is at least 1, found {v}"),
                        None => "an unroll factor must be a compile-time integer".to_string(),
                    },
                )
                .with_help("write `: unroll(4)`, or `: unroll` to unroll the whole loop"),
            ),
        }
    }
}

fn check_returns(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut in_parallel = Vec::new();
    returns_in_parallel(m, &m.kernel.body, false, &mut in_parallel);
    for s in super::all_stmts(m) {
        let Stmt::Ext(ExtStmt::Return { value }) = &m.stmts[s] else {
            continue;
        };
        if in_parallel.contains(&s) {
            diags.push(
                Diagnostic::new(
                    codes::RETURN_IN_PARALLEL,
                    m.stmt_span(s),
                    "`return` inside a `parallel`",
                )
                .with_help("a function returns from its own code: write the result into a tensor inside the `parallel` and `return` it after"),
            );
            continue;
        }
        if let Some(v) = value
            && let Some(what) = not_data(cx, *v)
        {
            diags.push(
                Diagnostic::new(
                    codes::RETURN_KIND,
                    m.expr_span(*v),
                    format!("a `__co__` function returns a tensor or a scalar, not {what}"),
                )
                .with_help(
                    "return a tensor (copy a future's `.data` into one first) or a scalar value",
                ),
            );
        }
    }
    let returns: Vec<(crate::ir::StmtId, bool)> = super::all_stmts(m)
        .into_iter()
        .filter_map(|s| match &m.stmts[s] {
            Stmt::Ext(ExtStmt::Return { value }) => Some((s, value.is_some())),
            _ => None,
        })
        .collect();
    let name = &m.kernel.name;
    match &m.kernel.returns {
        Returns::Value { span, .. } if !returns.iter().any(|r| r.1) => diags.push(
            Diagnostic::new(
                codes::MISSING_RETURN,
                name.span,
                format!(
                    "`{}` declares a return type but returns no value",
                    name.name
                ),
            )
            .with_note(*span, "the return type")
            .with_help("add `return value;` at the end, or declare the function `void`"),
        ),
        Returns::Void => {
            for &(s, _) in returns.iter().filter(|r| r.1) {
                diags.push(
                    Diagnostic::new(
                        codes::VOID_RETURN,
                        m.stmt_span(s),
                        format!("`{}` is `void` but returns a value", name.name),
                    )
                    .with_help(
                        "declare it `__co__ auto` (or with its result type), or write `return;`",
                    ),
                );
            }
        }
        _ => {}
    }
}

fn walk(cx: &Cx, b: &Block, in_loop: bool, in_parallel: bool, diags: &mut Diagnostics) {
    let m = cx.m;
    for &s in b {
        let span = m.stmt_span(s);
        match &m.stmts[s] {
            Stmt::Ext(ExtStmt::Jump { kind }) => {
                let bad = match *kind {
                    "yield" => (!in_parallel).then_some("`yield` outside every `parallel`"),
                    _ => (!in_loop).then_some("outside every loop"),
                };
                if let Some(why) = bad {
                    let msg = if *kind == "yield" {
                        why.to_string()
                    } else {
                        format!("`{kind}` {why}")
                    };
                    diags.push(Diagnostic::new(codes::MISPLACED_JUMP, span, msg).with_help(
                        "jumps leave a `foreach`/`while`; `yield` belongs in a `parallel` body",
                    ));
                }
            }
            Stmt::Parallel { body, .. } => walk(cx, body, false, true, diags),
            Stmt::Foreach { body, .. } | Stmt::Ext(ExtStmt::While { body, .. }) => {
                walk(cx, body, true, in_parallel, diags)
            }
            other => {
                for inner in super::stmt_blocks(other) {
                    walk(cx, inner, in_loop, in_parallel, diags);
                }
            }
        }
    }
}

/// What a returned value is when it is not data, if so.
fn not_data(cx: &Cx, v: crate::ir::ExprId) -> Option<&'static str> {
    let m = cx.m;
    if m.bounded_values.iter().any(|b| b.value == v) {
        return Some("a bounded index");
    }
    match &m.exprs[v] {
        crate::ir::Expr::Call { func, .. } if func.name == "ituple" => Some("an i-tuple"),
        crate::ir::Expr::Name(_) => match cx.res.bindings.get(&v)? {
            super::Binding::Future(d) => Some(match &m.stmts[*d] {
                Stmt::Ext(ExtStmt::AnyFuture { .. }) => "a placeholder future",
                _ => "a copy future",
            }),
            super::Binding::LoopVar { .. } | super::Binding::ParallelVar { .. } => {
                Some("a loop index")
            }
            super::Binding::Event(..) => Some("an event"),
            super::Binding::Let(d) => match &m.stmts[*d] {
                Stmt::Let { value, .. } if *value != v => not_data(cx, *value),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The `return` statements inside a `parallel`.
fn returns_in_parallel(
    m: &crate::ir::Module,
    b: &Block,
    inside: bool,
    out: &mut Vec<crate::ir::StmtId>,
) {
    for &s in b {
        match &m.stmts[s] {
            Stmt::Ext(ExtStmt::Return { .. }) if inside => out.push(s),
            Stmt::Parallel { body, .. } => returns_in_parallel(m, body, true, out),
            other => {
                for inner in super::stmt_blocks(other) {
                    returns_in_parallel(m, inner, inside, out);
                }
            }
        }
    }
}
