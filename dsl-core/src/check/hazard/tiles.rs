//! Block tiles (warnings): a grid extent `cdiv(D, T)` (or `D / T`) says each block owns `T` rows of `D`.
//! Two ways a kernel can disagree with that, each computing some rows twice and others never:
//! - an element index `b # inner` (with `b` that block variable) whose inner variables'
//!   extents multiply to something other than `T` (`bm # tr # i` with `BM / TM` threads of
//!   `TM` rows, where `BM % TM != 0`, or `tr` over the wrong extent);
//! - a copy of a tile view `x.subspan(S, …).at(b, …)` into a whole shared tile with `S ≠ T`:
//!   the rows loaded are not the block's rows.
//!
//! Only `#` chains written directly as `.at(…)` coordinates are checked (on a `.subspan`
//! view a coordinate counts whole tiles, so the tile size is a factor of the product).

use super::super::{Binding, Cx, codes, stmt_exprs, walk_expr};
use crate::ir::{BinaryOp, CopyDst, Expr, ExprId, Level, Stmt, ViewOp};

pub(super) fn check(cx: &Cx, diags: &mut Vec<crate::diag::Diagnostic>) {
    let m = cx.m;
    for s in super::super::all_stmts(m) {
        if let Stmt::DmaCopy { src, dst, .. } | Stmt::TmaCopy { src, dst, .. } = &m.stmts[s]
            && let CopyDst::Expr(d) = dst
            && whole(cx, *d)
            && let Expr::View {
                op: ViewOp::At,
                base,
                args,
            } = &m.exprs[*src]
        {
            subspan_at(cx, *base, args, diags);
        }
        for e in stmt_exprs(&m.stmts[s]) {
            walk_expr(m, e, &mut |x| {
                if let Expr::View {
                    op: ViewOp::At,
                    base,
                    args,
                } = &m.exprs[x]
                {
                    // `.at` on a `.subspan(S…)`: coordinates count tiles of `S` elements.
                    let sizes = match &m.exprs[*base] {
                        Expr::View {
                            op: ViewOp::Subspan,
                            args: sizes,
                            ..
                        } => Some(sizes.clone()),
                        _ => None,
                    };
                    for (j, &a) in args.iter().enumerate() {
                        if !matches!(m.exprs[a], Expr::Compose { .. }) {
                            continue;
                        }
                        let scale = match &sizes {
                            None => Some(1),
                            Some(sz) => sz.get(j).and_then(|&z| cx.value(z)),
                        };
                        if let Some(scale) = scale {
                            compose(cx, a, scale, diags);
                        }
                    }
                }
            });
        }
    }
}

/// A whole tensor (or one tensor of an array): no view method applied.
fn whole(cx: &Cx, e: ExprId) -> bool {
    match &cx.m.exprs[e] {
        Expr::Name(_) => true,
        Expr::Index { base, .. } => matches!(cx.m.exprs[*base], Expr::Name(_)),
        _ => false,
    }
}

/// The tile `T` of a block-level variable whose extent is `cdiv(D, T)` or `D / T`, with `T`'s
/// expression.
fn block_tile(cx: &Cx, var: ExprId) -> Option<(ExprId, i64)> {
    let m = cx.m;
    let Some(Binding::ParallelVar { stmt, level, index }) = cx.res.bindings.get(&var).copied()
    else {
        return None;
    };
    let Stmt::Parallel { levels, .. } = &m.stmts[stmt] else {
        return None;
    };
    let l = levels.get(level)?;
    if l.level != Level::Block {
        return None;
    }
    let t = match &m.exprs[*l.extents.get(index)?] {
        Expr::Call { func, args } if func.name == "cdiv" && args.len() == 2 => args[1],
        Expr::Binary {
            op: BinaryOp::Div,
            rhs,
            ..
        } => *rhs,
        _ => return None,
    };
    Some((t, cx.value(t)?))
}

/// The leaves of a `#` chain, in order (`(a # b) # c` and `a # (b # c)` are both `a, b, c`).
fn leaves(cx: &Cx, e: ExprId, out: &mut Vec<ExprId>) {
    match &cx.m.exprs[e] {
        Expr::Compose { outer, inner } => {
            leaves(cx, *outer, out);
            leaves(cx, *inner, out);
        }
        _ => out.push(e),
    }
}

/// `root` (an index `b # inner…` counting units of `scale` elements) against `b`'s tile.
fn compose(cx: &Cx, root: ExprId, scale: i64, diags: &mut Vec<crate::diag::Diagnostic>) {
    let m = cx.m;
    let mut ls = Vec::new();
    leaves(cx, root, &mut ls);
    let Some((&first, rest)) = ls.split_first() else {
        return;
    };
    let Some((t_expr, t)) = block_tile(cx, first) else {
        return;
    };
    let mut product: i64 = scale;
    let mut parts = Vec::new();
    if scale != 1 {
        parts.push(format!("tiles of {scale}"));
    }
    for &leaf in rest {
        let Some(ext) = super::super::view::var_extent(cx, leaf) else {
            return;
        };
        let Some(v) = cx.value(ext) else { return };
        let Some(p) = product.checked_mul(v) else {
            return;
        };
        product = p;
        parts.push(format!(
            "`{}` over {}",
            m.expr_to_string(leaf),
            cx.describe_value(ext, v)
        ));
    }
    if product == t {
        return;
    }
    diags.push(
        crate::diag::Diagnostic::warning(
            codes::TILE_STRIDE,
            m.expr_span(root),
            format!(
                "`{}` gives each block {product} rows or columns ({}), but the grid gives each block {} of them",
                m.expr_to_string(root),
                parts.join(" × "),
                cx.describe_value(t_expr, t)
            ),
        )
        .with_help(format!(
            "make the extents inside `{}` multiply to {}: the threads then cover exactly the block's tile",
            m.expr_to_string(first),
            m.expr_to_string(t_expr)
        )),
    );
}

/// `x.subspan(S0, S1, …).at(c0, c1, …)`: a bare block variable `ci` must have tile `Si`.
fn subspan_at(cx: &Cx, base: ExprId, coords: &[ExprId], diags: &mut Vec<crate::diag::Diagnostic>) {
    let m = cx.m;
    let Expr::View {
        op: ViewOp::Subspan,
        args: sizes,
        ..
    } = &m.exprs[base]
    else {
        return;
    };
    if sizes.len() != coords.len() {
        return;
    }
    for (&size, &c) in sizes.iter().zip(coords) {
        if !matches!(m.exprs[c], Expr::Name(_)) {
            continue;
        }
        let (Some((t_expr, t)), Some(s)) = (block_tile(cx, c), cx.value(size)) else {
            continue;
        };
        if s == t {
            continue;
        }
        diags.push(
            crate::diag::Diagnostic::warning(
                codes::TILE_STRIDE,
                m.expr_span(size),
                format!(
                    "the tile at block coordinate `{}` is {} wide, but the grid gives each block {}",
                    m.expr_to_string(c),
                    cx.describe_value(size, s),
                    cx.describe_value(t_expr, t)
                ),
            )
            .with_help(format!(
                "load `{}` rows or columns per block, or change the grid to `cdiv(…, {})`",
                m.expr_to_string(t_expr),
                m.expr_to_string(size)
            )),
        );
    }
}
