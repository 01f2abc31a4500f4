//! Shapes of the view methods of today's Croqtile that no lowering handles yet (`.view(…)
//! .from(…)`, `.span_as`, `.sqz`, `.step`, `.span(d)`): enough for the other checks to follow a
//! view through them. The lowering gate (`support`) rejects them before any lowering.

use super::view_state::{VState, Views, var_extent};
use super::{Cx, Dim, DimExpr};
use crate::ir::{ExprId, ViewOp};

/// The view after `op(args)`, or `None` when its shape cannot be followed (the view is then
/// unknown to the later checks, which skip it).
pub(crate) fn apply(
    cx: &Cx,
    e: ExprId,
    mut v: VState,
    op: ViewOp,
    args: &[ExprId],
) -> Result<Option<VState>, String> {
    // Whether the chain below `e` tiles or reshapes (what `.sqz()` needs).
    let reshaped = {
        let mut cur = e;
        let mut found = false;
        while let crate::ir::Expr::View { base, .. } = &cx.m.exprs[cur] {
            cur = *base;
            if let crate::ir::Expr::View { op, .. } = &cx.m.exprs[cur]
                && matches!(op, ViewOp::Subspan | ViewOp::SpanAs | ViewOp::Window)
            {
                found = true;
            }
        }
        found
    };
    Ok(match op {
        ViewOp::Window => {
            // `.view(A, B)` waits for `.from(i, j)`, like `.subspan` for `.at`.
            if args.len() != v.shape.len() {
                return Ok(None);
            }
            v.tiled = Some(
                args.iter()
                    .zip(&v.shape)
                    .map(|(&a, full)| cx.size_or_whole(a, full))
                    .collect(),
            );
            Some(v)
        }
        // The strides of a window change where its elements are, not its shape.
        ViewOp::Strides => (v.tiled.as_ref().is_some_and(|t| t.len() == args.len())).then_some(v),
        ViewOp::From => {
            let Some(tile) = v.tiled.take() else {
                return Ok(None);
            };
            if args.len() != tile.len() {
                return Ok(None);
            }
            v.bounds = vec![None; tile.len()];
            v.shape = tile;
            // Element offsets, not tile coordinates: no coordinate the tiling checks could use.
            v.coords = vec![None; args.len()];
            Some(v)
        }
        ViewOp::SpanAs => {
            // `span_as(A, B)` or `span_as([A, B])` (the bracket parses as an index list).
            let dims: Vec<Dim> = args.iter().map(|&a| cx.dim(a)).collect();
            let before: Option<i64> = v.shape.iter().map(|d| cx.dim_value(d)).product();
            let after: Option<i64> = dims.iter().map(|d| cx.dim_value(d)).product();
            if let (Some(b), Some(a)) = (before, after)
                && a != b
            {
                return Err(format!(
                    "`.span_as` keeps the element count: the view has {b} elements, the new shape {a}"
                ));
            }
            v.bounds = vec![None; dims.len()];
            v.coords = vec![None; dims.len()];
            v.shape = dims;
            v.tiled = None;
            Some(v)
        }
        ViewOp::Sqz => {
            if !reshaped {
                return Err(
                    "`.sqz()` needs a `.subspan`, `.span_as` or `.view` before it in the chain"
                        .to_string(),
                );
            }
            let keep: Vec<usize> = (0..v.shape.len())
                .filter(|&d| cx.dim_value(&v.shape[d]) != Some(1))
                .collect();
            let shape: Vec<Dim> = keep.iter().map(|&d| v.shape[d]).collect();
            v.bounds = keep
                .iter()
                .map(|&d| v.bounds.get(d).copied().flatten())
                .collect();
            v.coords = keep
                .iter()
                .map(|&d| v.coords.get(d).copied().flatten())
                .collect();
            v.shape = if shape.is_empty() {
                vec![Dim {
                    expr: DimExpr::Const(1),
                    value: Some(1),
                }]
            } else {
                shape
            };
            Some(v)
        }
        // `.step` changes where tiles start, not their shape.
        ViewOp::Step => v.tiled.is_some().then_some(v),
        // A value (an extent), not a view.
        ViewOp::SpanOf => None,
        ViewOp::At | ViewOp::Subspan | ViewOp::Chunkat | ViewOp::Transpose => None,
    })
}

/// The chunk size for a composed index `outer # inner` in `.chunkat`: the dimension split into
/// `extent(outer) × extent(inner)` chunks. `None` when `a` is not a composition of loop or
/// parallel variables, or the sizes are not known.
pub(crate) fn compose_chunk(cx: &Cx, a: ExprId, full: &Dim) -> Option<Dim> {
    let crate::ir::Expr::Compose { outer, inner } = &cx.m.exprs[a] else {
        return None;
    };
    let count = |x: ExprId| -> Option<i64> {
        if let crate::ir::Expr::Compose { .. } = &cx.m.exprs[x] {
            // Nested compositions multiply out.
            let crate::ir::Expr::Compose { outer, inner } = &cx.m.exprs[x] else {
                return None;
            };
            let o = var_extent(cx, *outer).and_then(|e| cx.static_value(e))?;
            let i = var_extent(cx, *inner).and_then(|e| cx.static_value(e))?;
            return o.checked_mul(i);
        }
        var_extent(cx, x).and_then(|e| cx.static_value(e))
    };
    let n = count(*outer)?.checked_mul(count(*inner)?)?;
    let f = cx.dim_value(full)?;
    // `then`, not `then_some`: the quotient is only computed for a positive count.
    (n > 0 && f % n == 0).then(|| Dim {
        expr: DimExpr::Const(f / n),
        value: Some(f / n),
    })
}

/// A TMA copy's box (the tile of its global side) is encoded in a descriptor built on the host:
/// its extents may use constants and problem dims, never values known only in the kernel
/// (parallel or loop variables, lets, scalars) — which `.view(…)` windows make possible.
pub(crate) fn check_tma_boxes(cx: &Cx, views: &Views, diags: &mut crate::diag::Diagnostics) {
    use super::Binding;
    use crate::ir::{CopyDst, Stmt};
    let m = cx.m;
    for s in super::all_stmts(m) {
        let Stmt::TmaCopy { src, dst, .. } = &m.stmts[s] else {
            continue;
        };
        let sides = std::iter::once(*src).chain(match dst {
            CopyDst::Expr(e) => Some(*e),
            CopyDst::Fresh(_) => None,
        });
        let mut boxed = false;
        for side in sides {
            let Some(v) = views.get(side) else { continue };
            // A tensor map's box holds at most 256 elements per dimension; a load the blocks of
            // a cluster share is loaded in slices of its rows, one per block.
            if !boxed && let Some(over) = box_over_limit(cx, &v.shape) {
                boxed = true;
                diags.push(
                    super::at_expr(
                        m,
                        super::codes::TMA_BOX_TOO_LARGE,
                        side,
                        format!(
                            "this TMA copy's box is {over} elements along one dimension; a tensor map's box holds at most 256 (per block of a cluster that shares the load)"
                        ),
                    )
                    .with_help("copy the tile in parts of at most 256 rows (`.subspan(256, …)` at two coordinates), or use a smaller tile"),
                );
            }
            for d in &v.shape {
                let DimExpr::Expr(e) = d.expr else { continue };
                let mut kernel_value = None;
                super::walk_expr(m, e, &mut |x| {
                    if let Some(
                        Binding::Let(_)
                        | Binding::Scalar(_)
                        | Binding::LoopVar { .. }
                        | Binding::ParallelVar { .. },
                    ) = cx.res.bindings.get(&x)
                    {
                        kernel_value.get_or_insert(x);
                    }
                });
                if let Some(x) = kernel_value {
                    diags.push(
                        super::at_expr(
                            m,
                            super::codes::TMA_BOX_RUNTIME,
                            e,
                            format!(
                                "a TMA box extent must be known on the host, but `{}` depends on `{}`, a value of the kernel",
                                m.expr_to_string(e),
                                m.expr_to_string(x)
                            ),
                        )
                        .with_help("use constants or problem dims for the box; pick the tile with coordinates"),
                    );
                }
            }
        }
    }
}

/// The largest known dimension of a TMA box over the limit, if any: 256 elements, and for the
/// rows (the first dimension) 256 per block of the kernel's cluster (a shared load is sliced
/// by rows; which loads are shared the lowering decides, so every load gets that allowance and
/// the launch rejects a non-shared one beyond 256 with a typed error).
fn box_over_limit(cx: &Cx, shape: &[Dim]) -> Option<i64> {
    let m = cx.m;
    let cluster = match (&m.cluster, &m.cluster_level) {
        (Some(c), _) => cx.static_value(*c).unwrap_or(1),
        (None, Some(l)) => l
            .extents
            .iter()
            .map(|&e| cx.static_value(e).unwrap_or(1).max(1))
            .fold(1i64, i64::saturating_mul),
        _ => 1,
    }
    .max(1);
    shape.iter().enumerate().find_map(|(i, d)| {
        let limit = if i == 0 {
            cluster.saturating_mul(256)
        } else {
            256
        };
        d.value.filter(|&v| v > limit)
    })
}

/// Shapes of the copies the core `dma.copy` check does not see: `dma.copy` with a future or
/// modifiers must match its destination, `dma.transp<p…>` after permuting the source's
/// dimensions by `p`, `dma.pad<low, high, …>` after padding each (`Transform::shape`); and
/// the element types agree. Only dimensions with known values are compared.
pub(crate) fn check_ext_copies(cx: &Cx, views: &Views, diags: &mut crate::diag::Diagnostics) {
    use crate::ir::{CopyDst, ExtStmt, Stmt};
    let m = cx.m;
    for s in super::all_stmts(m) {
        let Stmt::Ext(ExtStmt::DmaFuture {
            src,
            dst: CopyDst::Expr(dst),
            modifiers,
            ..
        }) = &m.stmts[s]
        else {
            continue;
        };
        let (Some(sv), Some(dv)) = (views.get(*src), views.get(*dst)) else {
            continue;
        };
        if sv.dtype != dv.dtype {
            diags.push(super::view_state::dtype_mismatch(m, (*src, sv), (*dst, dv)));
            continue;
        }
        let mut from: Vec<Option<i64>> = sv.shape.iter().map(|d| cx.dim_value(d)).collect();
        let to: Vec<Option<i64>> = dv.shape.iter().map(|d| cx.dim_value(d)).collect();
        if modifiers.iter().any(|(n, _)| n.name == "pad") {
            // Malformed padding is `check/pad.rs`'s to report.
            let Some(pad) = super::Transform::of(m, modifiers, from.len()) else {
                continue;
            };
            from = pad.extents(&from, |s| cx.sym_value(s));
        }
        if let Some((_, perm)) = modifiers.iter().find(|(n, _)| n.name == "transp") {
            let p: Option<Vec<usize>> = perm
                .iter()
                .map(|&e| cx.static_value(e).and_then(|v| usize::try_from(v).ok()))
                .collect();
            let Some(p) = p.filter(|p| p.len() == from.len() && p.iter().all(|&i| i < from.len()))
            else {
                diags.push(
                    super::at_expr(
                        m,
                        super::codes::COPY_SHAPE,
                        *src,
                        format!(
                            "`dma.transp` needs a permutation of the source's {} dimensions",
                            from.len()
                        ),
                    )
                    .with_help("write `dma.transp<1, 0> src => dst;` for a 2-D source"),
                );
                continue;
            };
            from = p.iter().map(|&i| from[i]).collect();
        }
        if from.len() != to.len() {
            continue;
        }
        if let Some(d) =
            (0..from.len()).find(|&d| matches!((from[d], to[d]), (Some(a), Some(b)) if a != b))
        {
            let show = |v: &[Option<i64>]| {
                v.iter()
                    .map(|x| x.map_or("?".to_string(), |x| x.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            diags.push(
                super::at_expr(
                    m,
                    super::codes::COPY_SHAPE,
                    *dst,
                    format!(
                        "the copy moves a [{}] tile into [{}] (dimension {d} differs)",
                        show(&from),
                        show(&to)
                    ),
                )
                .with_help("make the destination the source's shape (after any `transp` or `pad`)"),
            );
        }
    }
}

/// Whether a `let` value is a view (`t.span_as(…)`, `t.subspan(…)`, …) rather than an
/// integer: the parser expands the name's uses into the view, the `let` stays to be checked.
pub(crate) fn is_view_let(m: &crate::ir::Module, value: ExprId) -> bool {
    m.buffer_aliases.contains(&value)
        || tile_pick(&m.exprs, value)
        || matches!(
            &m.exprs[value],
            crate::ir::Expr::View {
                op: ViewOp::SpanAs
                    | ViewOp::Subspan
                    | ViewOp::Chunkat
                    | ViewOp::Sqz
                    | ViewOp::Step
                    | ViewOp::Transpose
                    | ViewOp::Window
                    | ViewOp::Strides
                    | ViewOp::From,
                ..
            }
        )
}

/// `t.subspan(R, C).at(i, j)` (also after `.step`): one tile of a tiling, a view like the
/// others (an `.at` on anything else picks one element, a value).
pub(crate) fn tile_pick(exprs: &crate::ir::Arena<crate::ir::Expr>, value: ExprId) -> bool {
    use crate::ir::Expr;
    matches!(&exprs[value], Expr::View { op: ViewOp::At, base, .. }
        if matches!(exprs[*base], Expr::View { op: ViewOp::Subspan | ViewOp::Step, .. }))
}
