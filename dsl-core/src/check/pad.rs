//! `dma.pad<low, high, mid, value> src => dst;`: a copy that surrounds each dimension of the
//! source with `low[d]` elements before it and `high[d]` after it, all set to `value`. The
//! rules: four arguments (E1695); `low`, `high` and `mid` i-tuples with one entry per
//! dimension of the source (E1696); and `mid` — padding between the elements of a dimension —
//! zero (E1697): a CUDA copy of a padded tile is a dense box at an offset, which interior padding
//! is not, so the CUDA target has no lowering of it (Croqtile's CUDA target rejects it too).

use super::transform::ituple_elems;
use super::view_state::Views;
use super::{Cx, at_expr, codes};
use crate::diag::Diagnostics;
use crate::ir::{CopyDst, ExtStmt, Stmt};

pub(crate) fn check_pad(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in super::all_stmts(m) {
        let Stmt::Ext(ExtStmt::DmaFuture {
            src,
            dst,
            modifiers,
            ..
        }) = &m.stmts[s]
        else {
            continue;
        };
        let Some((op, args)) = modifiers.iter().find(|(n, _)| n.name == "pad") else {
            continue;
        };
        if args.len() != 4 {
            diags.push(
                crate::diag::Diagnostic::new(
                    codes::PAD_ARITY,
                    op.span,
                    format!(
                        "`dma.pad` takes four arguments (low, high and middle padding, then the pad value), found {}",
                        args.len()
                    ),
                )
                .with_help("write `dma.pad<{1, 2}, {1, 2}, {0, 0}, 0> src => dst;` for a 2-D source"),
            );
            continue;
        }
        let rank = views.get(*src).map(|v| v.shape.len());
        let mut ranks_ok = true;
        for (&arg, what) in args[..3].iter().zip(["low", "high", "middle"]) {
            let (Some(elems), Some(rank)) = (ituple_elems(m, arg), rank) else {
                continue;
            };
            if elems.len() != rank {
                ranks_ok = false;
                diags.push(
                    at_expr(
                        m,
                        codes::PAD_RANK,
                        arg,
                        format!(
                            "the {what} padding `{}` has {} {}, but `{}` has {rank} dimensions",
                            m.expr_to_string(arg),
                            elems.len(),
                            if elems.len() == 1 { "entry" } else { "entries" },
                            m.expr_to_string(*src)
                        ),
                    )
                    .with_help("give one padding amount per dimension of the source"),
                );
            }
        }
        if !ranks_ok {
            continue;
        }
        let mid = args[2];
        let nonzero = match ituple_elems(m, mid) {
            Some(elems) => elems
                .iter()
                .find(|&&x| cx.static_value(x).is_some_and(|v| v != 0))
                .copied(),
            None => Some(mid).filter(|&x| cx.static_value(x).is_some_and(|v| v != 0)),
        };
        if let Some(x) = nonzero {
            let into = match dst {
                CopyDst::Fresh(space) => format!("a fresh {} buffer", space.name()),
                CopyDst::Expr(d) => format!("`{}`", m.expr_to_string(*d)),
            };
            diags.push(
                at_expr(
                    m,
                    codes::PAD_MIDDLE,
                    x,
                    format!(
                        "middle padding `{}` (between the elements of a dimension) is not supported on the CUDA target: the copy into {into} is a dense box at an offset",
                        m.expr_to_string(mid)
                    ),
                )
                .with_help("set every middle padding amount to 0, e.g. `{0, 0}`, and pad around the data with the low and high amounts"),
            );
        }
    }
}
