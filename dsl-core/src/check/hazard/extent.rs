//! Extents: a `foreach` or grid extent that is zero or negative runs nothing (the tile is
//! never computed, and the kernel still "succeeds"); an extent `A / B` whose division leaves a
//! remainder drops the last `A % B` rows of the tile (`BM / TM` threads of `TM` rows each
//! cover fewer than `BM` rows).

use super::super::{Cx, at_expr, codes, walk_expr};
use crate::diag::Diagnostics;
use crate::ir::{BinaryOp, Expr, ExprId, Level, Stmt};

pub(super) fn check(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in super::super::all_stmts(m) {
        let (extents, what): (Vec<ExprId>, &str) = match &m.stmts[s] {
            Stmt::Foreach { extents, .. } => (extents.clone(), "loop"),
            // Thread-level extents must be positive constants (checked with the geometry);
            // here the grid's.
            Stmt::Parallel { levels, .. } => (
                levels
                    .iter()
                    .filter(|l| l.level == Level::Block)
                    .flat_map(|l| l.extents.iter().copied())
                    .collect(),
                "grid",
            ),
            _ => continue,
        };
        for e in extents {
            non_positive(cx, e, what, diags);
        }
        let all: Vec<ExprId> = match &m.stmts[s] {
            Stmt::Foreach { extents, .. } => extents.clone(),
            Stmt::Parallel { levels, .. } => levels
                .iter()
                .flat_map(|l| l.extents.iter().copied())
                .collect(),
            _ => Vec::new(),
        };
        for e in all {
            truncating(cx, e, diags);
        }
    }
}

/// A static extent of 0 or below (or a negative one with problem sizes).
fn non_positive(cx: &Cx, e: ExprId, what: &str, diags: &mut Diagnostics) {
    let (v, fixed) = match cx.static_value(e) {
        Some(v) => (v, true),
        None => match cx.value(e) {
            Some(v) => (v, false),
            None => return,
        },
    };
    // With problem sizes, an empty problem (M = 0) legitimately gives an empty grid.
    if v > 0 || (!fixed && v == 0) {
        return;
    }
    diags.push(
        at_expr(
            cx.m,
            codes::NON_POSITIVE_EXTENT,
            e,
            format!(
                "this {what} extent is {} under this configuration: the {what} runs {}",
                cx.describe_value(e, v),
                if v == 0 {
                    "no iteration"
                } else {
                    "a negative number of times, i.e. never"
                }
            ),
        )
        .with_help("an extent must be at least 1; check the tunables and constants it uses"),
    );
}

/// `A / B` inside an extent with `A % B != 0`.
fn truncating(cx: &Cx, root: ExprId, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut found = Vec::new();
    walk_expr(m, root, &mut |x| {
        if let Expr::Binary {
            op: BinaryOp::Div,
            lhs,
            rhs,
        } = &m.exprs[x]
            && let (Some(a), Some(b)) = (cx.value(*lhs), cx.value(*rhs))
            && b != 0
            && a.checked_rem(b).is_some_and(|r| r != 0)
        {
            found.push((x, *lhs, *rhs, a, b));
        }
    });
    for (x, lhs, rhs, a, b) in found {
        diags.push(
            at_expr(
                m,
                codes::TILE_COVER,
                x,
                format!(
                    "`{}` truncates: {} is not a multiple of {}, so {} of every {a} rows or columns are never covered",
                    m.expr_to_string(x),
                    cx.describe_value(lhs, a),
                    cx.describe_value(rhs, b),
                    a % b
                ),
            )
            .with_help(format!(
                "choose values where {} divides {} (add `require {} % {} == 0;`), or use `cdiv` and guard the tail",
                m.expr_to_string(rhs),
                m.expr_to_string(lhs),
                m.expr_to_string(lhs),
                m.expr_to_string(rhs)
            )),
        );
    }
}
