//! Futures of asynchronous copies (`f = tma.copy.async …`, `f = dma.copy.async …`) used by
//! `trigger e after f`: the future must be a TMA copy's (only those complete on an event
//! without a thread waiting), and it must not have been waited on before — a waited future has
//! already completed and handed its completion to the waiting thread, so nothing would fire
//! the event. Checked in program order (pre-order of the statement tree).

use super::resolve::Role;
use super::{Binding, Cx, all_stmts, at_expr, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Expr, ExprId, ExtStmt, Stmt, StmtId};
use std::collections::HashMap;

pub(crate) fn check_futures(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    placeholders(cx, diags);
    // Future definition → the `wait` that consumed it.
    let mut waited: HashMap<StmtId, StmtId> = HashMap::new();
    let future_of = |e: ExprId| match cx.res.bindings.get(&e) {
        Some(Binding::Future(def)) => Some(*def),
        _ => None,
    };
    for s in all_stmts(m) {
        let mut afters: Vec<(Option<StmtId>, crate::span::Span)> = Vec::new();
        match &m.stmts[s] {
            Stmt::Wait { event } => {
                if let Some(def) = future_of(*event) {
                    waited.entry(def).or_insert(s);
                }
            }
            Stmt::Trigger { after: Some(a), .. } => {
                let def = match cx.res.idents.get(&(s, Role::After)) {
                    Some(Binding::Future(d)) => Some(*d),
                    _ => None,
                };
                afters.push((def, a.span));
            }
            Stmt::Ext(ExtStmt::TriggerAfter { after, .. }) => {
                for &a in after {
                    if matches!(m.exprs[a], Expr::Name(_)) {
                        afters.push((future_of(a), m.expr_span(a)));
                    } else {
                        diags.push(
                            at_expr(m, codes::TRIGGER_AFTER_DMA, a, "`trigger … after` names futures")
                                .with_help("bind the copy: `f = tma.copy.async src => dst;`, then `trigger e after f;`"),
                        );
                    }
                }
            }
            _ => {}
        }
        for (def, span) in afters {
            let Some(def) = def else { continue };
            if matches!(
                m.stmts[def],
                Stmt::Ext(ExtStmt::DmaFuture { tma: false, .. })
            ) {
                diags.push(
                    Diagnostic::new(
                        codes::TRIGGER_AFTER_DMA,
                        span,
                        "only a TMA copy's future can fire an event: this one is a `dma.copy`",
                    )
                    .with_note(m.stmt_span(def), "the `dma.copy` defined here")
                    .with_help("use `tma.copy.async` for the copy, or `wait` the future and then `trigger` the event"),
                );
            }
            if matches!(m.stmts[def], Stmt::Mma { .. }) {
                diags.push(
                    Diagnostic::new(
                        codes::TRIGGER_AFTER_DMA,
                        span,
                        "only a TMA copy's future can fire an event: this one is an `mma` (WGMMA has no completion event)",
                    )
                    .with_note(m.stmt_span(def), "the `mma` defined here")
                    .with_help("`wait` the mma's future, then `trigger` the event"),
                );
            }
            // A synchronous copy's future has completed when the copy statement ends.
            let sync_copy = matches!(
                m.stmts[def],
                Stmt::Ext(ExtStmt::DmaFuture {
                    tma: true,
                    is_async: false,
                    ..
                })
            );
            if let Some(&w) = waited.get(&def).or(sync_copy.then_some(&def)) {
                diags.push(
                    Diagnostic::new(
                        codes::TRIGGER_AFTER_WAITED,
                        span,
                        "`trigger … after` a future that was already waited on: it has completed, so nothing would fire the event",
                    )
                    .with_note(m.stmt_span(w), "waited on here")
                    .with_help("trigger the event right after the `wait` (`trigger e;`), or drop the `wait`"),
                );
            }
        }
    }
}

/// `swap(a, b)` names two futures; a placeholder `f = dma.any;` is given a buffer later (by a
/// copy bound to `f` or a `swap` of `f`), or it names nothing.
fn placeholders(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let stmts = all_stmts(m);
    for &s in &stmts {
        match &m.stmts[s] {
            Stmt::Ext(ExtStmt::Swap { a, b }) => {
                for (id, role) in [(a, Role::A), (b, Role::B)] {
                    let is_future =
                        matches!(cx.res.idents.get(&(s, role)), Some(Binding::Future(_)));
                    if !is_future && cx.res.idents.contains_key(&(s, role)) {
                        diags.push(
                            Diagnostic::new(
                                codes::BAD_SWAP,
                                id.span,
                                format!("`swap` exchanges two futures; `{}` is not one", id.name),
                            )
                            .with_help("bind it first: `f = dma.copy.async src => shared;` or `f = dma.any;`"),
                        );
                    }
                }
                if a.name == b.name {
                    diags.push(
                        Diagnostic::new(
                            codes::BAD_SWAP,
                            b.span,
                            format!("`swap` of `{}` with itself", a.name),
                        )
                        .with_help("swap two different futures"),
                    );
                }
            }
            Stmt::Ext(ExtStmt::AnyFuture { bind, .. }) => {
                let used = stmts.iter().any(|&t| match &m.stmts[t] {
                    Stmt::Ext(ExtStmt::Swap { a, b }) => a.name == bind.name || b.name == bind.name,
                    Stmt::Ext(ExtStmt::DmaFuture { bind: Some(f), .. }) => {
                        t != s && f.name == bind.name
                    }
                    Stmt::TmaCopy { bind: Some(f), .. } => f.name == bind.name,
                    _ => false,
                });
                if !used {
                    diags.push(
                        Diagnostic::new(
                            codes::ANY_FUTURE_UNUSED,
                            bind.span,
                            format!(
                                "the placeholder future `{}` is never given a copy or swapped",
                                bind.name
                            ),
                        )
                        .with_help("bind a copy to it (`f = dma.copy.async src => shared;`) or `swap` it, or remove it"),
                    );
                }
            }
            _ => {}
        }
    }
}
