//! Warning `W1217`: a read of a shared tile while an `.async` copy into it may still be in
//! flight — the copy into the whole tile (`dma.copy.async … => s;`, `f = dma.copy.async … =>
//! shared;`) and then, on the same path with no `dma.wait` or `wait` between them, any
//! statement that reads the tile (`… = s.at(i)`, `f.data`, a copy out of it). The copy engine writes the tile while the
//! threads read it. Only forward paths are followed: a ring that waits across a loop's back
//! edge is the race check's and the waits' business.

use super::{Binding, Cx, stmt_exprs, walk_expr};
use crate::diag::Diagnostic;
use crate::ir::{Block, CopyDst, ExtStmt, MemSpace, Stmt, StmtId};

pub(crate) fn check(cx: &Cx, warnings: &mut Vec<Diagnostic>) {
    let mut pending = Vec::new();
    walk(cx, &cx.m.kernel.body, &mut pending, warnings);
}

/// Follows `b` in order with the copies in flight (tile, copy); returns whether it waits.
fn walk(
    cx: &Cx,
    b: &Block,
    pending: &mut Vec<(Binding, StmtId)>,
    warnings: &mut Vec<Diagnostic>,
) -> bool {
    let m = cx.m;
    let mut waited = false;
    for &s in b {
        let st = &m.stmts[s];
        if matches!(st, Stmt::DmaWait { .. } | Stmt::Wait { .. }) {
            pending.clear();
            waited = true;
            continue;
        }
        if let Some(tile) = async_copy_into(cx, s) {
            pending.retain(|(t, _)| *t != tile);
            pending.push((tile, s));
            continue;
        }
        // The statement's own expressions read what they name, but a plain store's target.
        let reads: Vec<crate::ir::ExprId> = match st {
            Stmt::Assign {
                op: crate::ir::AssignOp::Set,
                value,
                ..
            } => vec![*value],
            _ => stmt_exprs(st),
        };
        for e in reads {
            let mut hit = None;
            walk_expr(m, e, &mut |x| {
                if hit.is_none()
                    && let Some(b) = cx.res.bindings.get(&x)
                    && let Some(&(tile, copy)) = pending.iter().find(|(t, _)| t == b)
                {
                    hit = Some((x, tile, copy));
                }
            });
            if let Some((x, tile, copy)) = hit {
                let name = cx.binding_name(tile);
                warnings.push(
                    Diagnostic::warning(
                        super::codes::ASYNC_IN_FLIGHT,
                        m.expr_span(x),
                        format!("`{name}` is read while the `.async` copy into it may still be in flight: no `dma.wait` or `wait` lies between them"),
                    )
                    .with_note(m.stmt_span(copy), "the copy")
                    .with_help("wait for the copy first: `dma.wait 0;` (or `wait f;` for a future) before the first read"),
                );
                pending.retain(|(_, c)| *c != copy);
            }
        }
        // Nested blocks see the copies in flight; a wait inside one ends them after it.
        let mut inner_waits = false;
        for blk in super::stmt_blocks(st) {
            let mut p = pending.clone();
            inner_waits |= walk(cx, blk, &mut p, warnings);
        }
        if inner_waits {
            pending.clear();
            waited = true;
        }
    }
    waited
}

/// The shared tile an `.async` `dma.copy` statement writes whole: its destination tensor, or
/// the future's fresh buffer.
fn async_copy_into(cx: &Cx, s: StmtId) -> Option<Binding> {
    let m = cx.m;
    let dst = match &m.stmts[s] {
        Stmt::DmaCopy {
            is_async: true,
            dst,
            ..
        } => dst,
        Stmt::Ext(ExtStmt::DmaFuture {
            tma: false,
            is_async: true,
            dst,
            bind,
            ..
        }) => match dst {
            CopyDst::Fresh(MemSpace::Shared) if bind.is_some() => return Some(Binding::Future(s)),
            d => d,
        },
        _ => return None,
    };
    // A copy into the whole tensor: a tile or an array entry of it leaves the rest to other
    // copies (a ring's stages), which only the waits and the race check follow.
    let CopyDst::Expr(d) = dst else { return None };
    match cx.res.bindings.get(d)? {
        b @ Binding::Tensor(decl, _)
            if matches!(
                &m.stmts[*decl],
                Stmt::TensorDecl {
                    space: MemSpace::Shared,
                    ..
                }
            ) =>
        {
            Some(*b)
        }
        _ => None,
    }
}
