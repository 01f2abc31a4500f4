//! `break`, `continue` and `yield` (a thread leaving the kernel early) on the SIMT path: each
//! lowers to its C++ statement (`return;` for `yield`) where no thread that jumps skips work
//! its block does together — a barrier, a copy through shared memory, an `mma`, a reduction,
//! an event. So the loop a `break` or `continue` leaves has a body of per-thread work, and
//! everything a thread would still run after a `yield` is per-thread work: the rest of each
//! block around it, and the whole body of each loop around it (the next iterations). A
//! `break` leaves a `foreach` of one variable (the lowering's loop nest has one C++ loop per
//! variable) or a `while`. Misplaced jumps are `control.rs`'s (E0043).

use super::support::per_thread;
use super::{Cx, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Block, ExtStmt, Stmt, StmtId};

/// The innermost loop around a statement: its body, and whether a `break` leaves it whole.
type Loop<'a> = Option<(&'a Block, bool)>;

pub(crate) fn gate(cx: &Cx, diags: &mut Diagnostics) {
    let simt = cx.lowering_path() == super::LoweringPath::Simt;
    walk(cx, &cx.m.kernel.body, None, simt, diags);
}

fn gated(span: crate::span::Span, what: &str) -> Diagnostic {
    Diagnostic::new(
        codes::NOT_LOWERED_STMT,
        span,
        format!("not supported yet: {what}"),
    )
    .with_help("a thread that jumps must skip only its own work: keep barriers, copies through shared memory, `mma`s, reductions and events out of the loop it leaves, or out of the rest of the kernel after a `yield`")
}

/// Gates the jumps in `b` (inside loop `lp`); returns the first `yield` that may run in `b`, whose
/// thread then skips what follows.
fn walk(cx: &Cx, b: &Block, lp: Loop, simt: bool, diags: &mut Diagnostics) -> Option<StmtId> {
    let m = cx.m;
    let mut yielded: Option<StmtId> = None;
    for &s in b {
        if let Some(y) = yielded.take_if(|_| !per_thread(cx, &[s])) {
            diags.push(gated(
                m.stmt_span(y),
                "a `yield` before work the block's threads do together",
            ));
        }
        let inner = match &m.stmts[s] {
            Stmt::Ext(ExtStmt::Jump { kind: "yield" }) => {
                if !simt {
                    diags.push(gated(
                        m.stmt_span(s),
                        "`yield` in a kernel on the TMA/WGMMA or warp-`mma` path",
                    ));
                }
                Some(s)
            }
            Stmt::Ext(ExtStmt::Jump { kind }) => {
                let span = m.stmt_span(s);
                match lp {
                    _ if !simt => diags.push(gated(
                        span,
                        &format!("`{kind}` in a kernel on the TMA/WGMMA or warp-`mma` path"),
                    )),
                    Some((body, _)) if !per_thread(cx, body) => diags.push(gated(
                        span,
                        &format!("`{kind}` out of a loop whose threads also work together"),
                    )),
                    Some((_, false)) if *kind == "break" => diags.push(gated(
                        span,
                        "`break` out of a `foreach` over several variables",
                    )),
                    _ => {}
                }
                None
            }
            Stmt::Foreach { vars, body, .. } => loop_body(cx, body, vars.len() == 1, simt, diags),
            Stmt::Ext(ExtStmt::While { body, .. }) => loop_body(cx, body, true, simt, diags),
            Stmt::Parallel { body, .. } => walk(cx, body, None, simt, diags),
            other => super::stmt_blocks(other)
                .into_iter()
                .filter_map(|inner| walk(cx, inner, lp, simt, diags))
                .reduce(|a, _| a),
        };
        if yielded.is_none() {
            yielded = inner;
        }
    }
    yielded
}

/// A loop's body: its jumps, and a `yield` in it skips the later iterations too.
fn loop_body(
    cx: &Cx,
    body: &Block,
    whole: bool,
    simt: bool,
    diags: &mut Diagnostics,
) -> Option<StmtId> {
    let y = walk(cx, body, Some((body, whole)), simt, diags)?;
    if !per_thread(cx, body) {
        diags.push(gated(
            cx.m.stmt_span(y),
            "a `yield` in a loop whose threads also work together",
        ));
    }
    Some(y)
}
