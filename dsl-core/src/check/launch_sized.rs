//! Shared buffers sized at launch: a `shared` declaration whose dimensions name problem sizes
//! or integer scalar parameters (`shared f32 [1, N] row;`), and the fresh buffer of a future
//! whose source tile does (`t = dma.copy x.subspan(M, K).at(0, 0) => shared;`). The `memory`
//! pass places them at offsets the kernel computes at launch and the runtime sizes (and
//! checks) the dynamic shared memory of each launch. What the lowering does with them: element
//! access, and copies between them and global memory that the block's threads make together
//! (`tsl_copy_g2s_n`, `tsl_copy_s2g_n`, which take the tile's extents as arguments), in a SIMT
//! kernel without `mma`. Anything else needs their extents at compile time: `E1686` here.

use super::view_state::{VState, Views};
use super::{Cx, all_stmts, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{CopyDst, ExprId, ExtStmt, MemSpace, Stmt, StmtId};
use crate::span::Span;

/// Whether view `v` is of a shared buffer sized at launch.
fn launch_sized(v: &VState) -> bool {
    v.space == MemSpace::Shared && v.decl_shape.iter().any(|d| d.value.is_none())
}

fn gated(span: Span, what: &str, help: &str) -> Diagnostic {
    Diagnostic::new(
        codes::NOT_LOWERED_LAUNCH_SIZED,
        span,
        format!("not supported yet: {what}"),
    )
    .with_help(help.to_string())
}

const SIZE_HELP: &str =
    "size the buffer by tunables and constants, and walk the problem in tiles of that size";

pub(crate) fn gate(cx: &Cx, views: &Views, per_thread: &[StmtId], diags: &mut Diagnostics) {
    let m = cx.m;
    let buffers: Vec<_> = super::smem::shared_buffers(m, &cx.res.bindings)
        .into_iter()
        .filter(|b| b.sized_at_launch(m))
        .collect();
    let Some(first) = buffers.first() else {
        return;
    };
    if cx.lowering_path() != super::LoweringPath::Simt || cx.warp_kernel() {
        diags.push(gated(
            m.stmt_span(first.stmt),
            &format!(
                "the shared buffer `{}` sized at launch in a kernel with `mma`, TMA copies or events",
                first.name
            ),
            SIZE_HELP,
        ));
        return;
    }
    let fresh_at_launch = |s: StmtId| buffers.iter().any(|b| b.fresh && b.stmt == s);
    for s in all_stmts(m) {
        let (src, dst, fresh, modifiers) = match &m.stmts[s] {
            Stmt::DmaCopy { src, dst, .. } => (*src, dst, false, false),
            Stmt::TmaCopy { src, dst, .. } => (*src, dst, true, true),
            Stmt::Ext(ExtStmt::DmaFuture {
                src,
                dst,
                modifiers,
                tma,
                ..
            }) => (*src, dst, fresh_at_launch(s), *tma || !modifiers.is_empty()),
            _ => continue,
        };
        let side = |e: ExprId| views.get(e).filter(|v| launch_sized(v));
        let dst_view = match dst {
            CopyDst::Expr(d) => views.get(*d).map(|v| (*d, v)),
            CopyDst::Fresh(_) => None,
        };
        let sized_side = side(src).map(|v| (src, v)).or_else(|| {
            dst_view
                .filter(|(_, v)| launch_sized(v))
                .map(|(d, v)| (d, v))
        });
        let (at, other) = match (sized_side, fresh) {
            (Some((e, _)), _) => {
                let other = if e == src {
                    dst_view.map(|(_, v)| v)
                } else {
                    views.get(src)
                };
                (m.expr_span(e), other)
            }
            (None, true) => (m.expr_span(src), views.get(src)),
            (None, false) => continue,
        };
        let what = if modifiers {
            Some("a `tma.copy`, or a `dma.copy` with modifiers, of a shared buffer sized at launch")
        } else if per_thread.contains(&s) {
            Some("a copy each thread makes alone of a shared buffer sized at launch")
        } else if other.is_some_and(|o| o.space != MemSpace::Global) {
            Some("a copy between a shared buffer sized at launch and registers or shared memory")
        } else if [Some(src), dst_view.map(|(d, _)| d)]
            .into_iter()
            .flatten()
            .any(|e| views.get(e).is_some_and(|v| v.transposed))
        {
            Some("a transposed copy of a shared buffer sized at launch")
        } else {
            None
        };
        if let Some(what) = what {
            diags.push(gated(
                at,
                what,
                "the block's threads copy a buffer sized at launch together, between it and global memory, with `dma.copy` or `dma.copy.async`; size the buffer by tunables and constants for the rest",
            ));
        }
    }
}
