//! Shapes of the view methods of today's Croqtile that no lowering handles yet (`.view(…)
//! .from(…)`, `.span_as`, `.sqz`, `.step`, `.span(d)`): enough for the other checks to follow a
//! view through them. The lowering gate (`support`) rejects them before any lowering.

use super::view::VState;
use super::{Cx, Dim, DimExpr};
use crate::ir::{ExprId, ViewOp};

/// The view after `op(args)`, or `None` when its shape cannot be followed (the view is then
/// unknown to the later checks, which skip it).
pub(crate) fn apply(cx: &Cx, mut v: VState, op: ViewOp, args: &[ExprId]) -> Option<VState> {
    match op {
        ViewOp::Window => {
            // `.view(A, B)` waits for `.from(i, j)`, like `.subspan` for `.at`.
            if args.len() != v.shape.len() {
                return None;
            }
            v.tiled = Some(args.iter().map(|&a| cx.dim(a)).collect());
            Some(v)
        }
        ViewOp::From => {
            let tile = v.tiled.take()?;
            if args.len() != tile.len() {
                return None;
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
            if let (Some(b), Some(a)) = (before, after) {
                if a != b {
                    return None;
                }
            }
            v.bounds = vec![None; dims.len()];
            v.coords = vec![None; dims.len()];
            v.shape = dims;
            v.tiled = None;
            Some(v)
        }
        ViewOp::Sqz => {
            let keep: Vec<usize> = (0..v.shape.len())
                .filter(|&d| cx.dim_value(&v.shape[d]) != Some(1))
                .collect();
            let shape: Vec<Dim> = keep.iter().map(|&d| v.shape[d]).collect();
            v.bounds = keep.iter().map(|&d| v.bounds.get(d).copied().flatten()).collect();
            v.coords = keep.iter().map(|&d| v.coords.get(d).copied().flatten()).collect();
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
    }
}
