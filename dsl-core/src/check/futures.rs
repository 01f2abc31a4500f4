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
