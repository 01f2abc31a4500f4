//! Copies: the source and destination tiles of `dma.copy` / `tma.copy` agree per dimension
//! (when both extents are known under the config; dimensions of extent 1 may be left out, so a
//! `[1, 8]` tile copies into an `[8]` register tile, and a `dma.copy.zfill` of a smaller global
//! tile into a shared one zero-fills the rest) and in element type; a copy into a shared or local
//! tile of fixed shape needs a source tile of compile-time extents.

use super::view::{VState, Views};
use super::{Cx, all_stmts, at_expr, codes};
use crate::diag::Diagnostics;
use crate::ir::{CopyDst, ExprId, MemSpace, Stmt};

pub(crate) fn check_copies(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in all_stmts(m) {
        let dma = matches!(m.stmts[s], Stmt::DmaCopy { .. });
        let (src, dst, zfill) = match &m.stmts[s] {
            Stmt::DmaCopy {
                src,
                dst: CopyDst::Expr(d),
                zfill,
                ..
            } => (*src, *d, *zfill),
            Stmt::TmaCopy {
                src,
                dst: CopyDst::Expr(d),
                ..
            } => (*src, *d, false),
            _ => continue,
        };
        let (Some(sv), Some(dv)) = (views.get(src), views.get(dst)) else {
            continue;
        };
        if sv.tiled.is_some() || dv.tiled.is_some() {
            continue;
        }
        if sv.dtype != dv.dtype {
            diags.push(super::view_state::dtype_mismatch(m, (src, sv), (dst, dv)));
        }
        if zfill && zero_filled(cx, sv, dv) {
            continue;
        }
        shape_mismatch(cx, (src, sv), (dst, dv), dma, diags);
    }
}

/// A `dma.copy.zfill` of a global tile of one or two dimensions into a shared tile larger in
/// some dimension and smaller in none: the copy fills the whole destination tile, with zeros
/// past the source tile's extent (`lower/simt.rs` bounds the copy by the source tile). A plain
/// copy of such tiles is a mismatch: the zeros are asked for, never implied.
pub(crate) fn zero_filled(cx: &Cx, sv: &VState, dv: &VState) -> bool {
    let (n, sizes) = (sv.shape.len(), |v: &VState| -> Vec<Option<i64>> {
        v.shape.iter().map(|d| cx.dim_value(d)).collect()
    });
    let (a, b) = (sizes(sv), sizes(dv));
    sv.space == MemSpace::Global
        && dv.space == MemSpace::Shared
        && (1..=2).contains(&n)
        && dv.shape.len() == n
        && !sv.transposed
        && !dv.transposed
        && a.iter()
            .zip(&b)
            .all(|p| matches!(p, (Some(x), Some(y)) if x <= y))
        && a != b
}

/// `dma`: a `dma.copy`, which `.zfill` may let copy a smaller source tile.
fn shape_mismatch(
    cx: &Cx,
    (src, sv): (ExprId, &VState),
    (dst, dv): (ExprId, &VState),
    dma: bool,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    let show = |v: &VState| -> String {
        let parts: Vec<String> = v.shape.iter().map(|d| cx.describe_dim(d)).collect();
        format!("[{}]", parts.join(", "))
    };
    if sv.shape.len() != dv.shape.len() {
        // Ranks may differ by dimensions of extent 1 (`[1, VEC]` into a `[VEC]` register tile):
        // the copy then pairs the remaining dimensions in order.
        let squeeze = |v: &VState| -> Vec<Option<i64>> {
            v.shape
                .iter()
                .map(|d| cx.dim_value(d))
                .filter(|x| *x != Some(1))
                .collect()
        };
        let (a, b) = (squeeze(sv), squeeze(dv));
        if a.len() == b.len()
            && a.iter().zip(&b).all(|(x, y)| match (x, y) {
                (Some(x), Some(y)) => x == y,
                _ => true,
            })
        {
            return;
        }
        diags.push(
            at_expr(
                m,
                codes::COPY_SHAPE,
                dst,
                format!(
                    "copy between a {}-D source {} and a {}-D destination {}",
                    sv.shape.len(),
                    show(sv),
                    dv.shape.len(),
                    show(dv)
                ),
            )
            .with_note(m.expr_span(src), "the source")
            .with_help(
                "copy between tiles of the same rank (dimensions of extent 1 may be left out)",
            ),
        );
        return;
    }
    let bad: Vec<usize> = (0..sv.shape.len())
        .filter(|&d| matches!((cx.dim_value(&sv.shape[d]), cx.dim_value(&dv.shape[d])), (Some(a), Some(b)) if a != b))
        .collect();
    // A copy into an on-chip tile of fixed shape moves a tile of that shape: a source extent
    // that depends on the problem size (`.subspan(TILE, K)`) cannot be it.
    let on_chip = matches!(dv.space, MemSpace::Shared | MemSpace::Local);
    let unknown: Vec<usize> = (0..sv.shape.len())
        .filter(|&d| {
            on_chip && cx.dim_value(&sv.shape[d]).is_none() && cx.dim_value(&dv.shape[d]).is_some()
        })
        .collect();
    if bad.is_empty() && !unknown.is_empty() {
        let dims: Vec<String> = unknown.iter().map(|d| d.to_string()).collect();
        diags.push(
            at_expr(
                m,
                codes::COPY_SHAPE,
                dst,
                format!(
                    "the source tile {} has no compile-time extent in dimension {}, but the destination {} has a fixed shape",
                    show(sv),
                    dims.join(" and "),
                    show(dv)
                ),
            )
            .with_note(m.expr_span(src), format!("source tile {}", show(sv)))
            .with_help("size the source tile with constants or tunables (the destination's shape)"),
        );
        return;
    }
    if bad.is_empty() {
        return;
    }
    let dims: Vec<String> = bad.iter().map(|d| d.to_string()).collect();
    diags.push(
        at_expr(
            m,
            codes::COPY_SHAPE,
            dst,
            format!(
                "copy shape mismatch in dimension {}: the source tile is {} but the destination is {}",
                dims.join(" and "),
                show(sv),
                show(dv)
            ),
        )
        .with_note(m.expr_span(src), format!("source tile {}", show(sv)))
        .with_help(if dma && zero_filled(cx, sv, dv) {
            "make the tile sizes agree, or write `dma.copy.zfill` to copy the smaller source tile and fill the rest of the destination with zeros"
        } else {
            "make the tile sizes agree (the `.subspan`/`.chunkat` sizes and the destination's declared shape)"
        }),
    );
}
