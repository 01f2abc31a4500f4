//! Forms the lowering cannot emit, stated by the checker so that a kernel `check` accepts is
//! one `emit` can lower: `raster` over a `: block` level that is not 2-D (`E1210`), and a `#`
//! whose right side is not a parallel or loop variable or a composition of them, whose extent
//! is the stride (`E1211`).

use super::super::{Binding, Cx, at_expr, codes, stmt_exprs, walk_expr};
use crate::diag::Diagnostics;
use crate::ir::{Expr, ExprId, Level, Stmt};

pub(super) fn check(cx: &Cx, diags: &mut Diagnostics) {
    raster_rank(cx, diags);
    compose_strides(cx, diags);
}

fn raster_rank(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let Some(r) = m.raster else { return };
    let rank: usize = super::super::all_stmts(m)
        .into_iter()
        .filter_map(|s| match &m.stmts[s] {
            Stmt::Parallel { levels, .. } => Some(
                levels
                    .iter()
                    .filter(|l| l.level == Level::Block)
                    .map(|l| l.extents.len())
                    .sum::<usize>(),
            ),
            _ => None,
        })
        .sum();
    if rank != 2 {
        diags.push(
            at_expr(
                m,
                codes::RASTER_RANK,
                r,
                format!("`raster` groups the rows of a 2-D grid, but this kernel's `: block` level has {rank} dimension(s)"),
            )
            .with_help("remove `raster`, or give the block level two variables: `{bm, bn} by [cdiv(M, TM), cdiv(N, TN)] : block`"),
        );
    }
}

/// A parallel or loop variable, or a `#` of them.
fn strided(cx: &Cx, e: ExprId) -> bool {
    match &cx.m.exprs[e] {
        Expr::Name(_) => matches!(
            cx.res.bindings.get(&e),
            Some(Binding::ParallelVar { .. } | Binding::LoopVar { .. })
        ),
        Expr::Compose { outer, inner } => strided(cx, *outer) && strided(cx, *inner),
        _ => false,
    }
}

fn compose_strides(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in super::super::all_stmts(m) {
        for root in stmt_exprs(&m.stmts[s]) {
            let mut bad = Vec::new();
            walk_expr(m, root, &mut |x| {
                if let Expr::Compose { inner, .. } = &m.exprs[x]
                    && !strided(cx, *inner)
                {
                    bad.push(*inner);
                }
            });
            for inner in bad {
                diags.push(
                    at_expr(
                        m,
                        codes::COMPOSE_STRIDE,
                        inner,
                        format!(
                            "the right side of `#` must be a parallel or loop variable (or a `#` of them): its extent is the stride, and `{}` has none",
                            m.expr_to_string(inner)
                        ),
                    )
                    .with_help("write `outer * N + inner` for another stride, or compose with the variable itself"),
                );
            }
        }
    }
}
