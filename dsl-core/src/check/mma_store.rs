//! `mma.store`: what it stores — the accumulator, or a column slice of it — has the
//! destination's shape and a compatible element type, and the destination's rows are
//! contiguous (the fragment is written as a dense row-major tile).
//!
//! A slice (`mc.subspan(WARP_M, W).at(0, j)`, `mc.chunkat(_, j)`) is a view of the accumulator
//! as a register tile of its `[M, N]` shape. In the m64nNk16 fragment, columns `[8k, 8k + 8)`
//! are registers `4k..4k+3` (f32) of every thread, so a slice is a register range when it
//! spans all M rows and its width is a multiple of 8 that divides N (its offset, a multiple
//! of the width, is then one too). Its indices must be known once the loops around the store
//! are unrolled (the register-tile rule in `simt`, E0906), and stay in range (`range`, E0702).

use super::resolve::Role;
use super::view::{VState, Views, fragment_view};
use super::{Cx, Dim, all_stmts, at_expr, codes};
use super::{dim_span, frag_def};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{DType, Stmt, StmtId};
use std::collections::HashMap;

pub(crate) fn check_stores(
    cx: &Cx,
    views: &mut Views,
    acc_shape: &HashMap<StmtId, Vec<Dim>>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    for s in all_stmts(m) {
        let Stmt::MmaStore {
            acc,
            view,
            dst,
            mods,
        } = &m.stmts[s]
        else {
            continue;
        };
        let Some(def) = frag_def(cx, s, Role::Acc) else {
            continue;
        };
        let loaded = super::loaded_acc_dtype(cx, views, def);
        let acc_dt = match (&m.stmts[def], loaded) {
            (Stmt::MmaFill { dtype, .. }, _) => *dtype,
            // A warp accumulator loaded from a tensor.
            (Stmt::MmaLoad { .. }, Some(d)) => d,
            _ => {
                diags.push(
                    Diagnostic::new(
                        codes::MMA_OPERAND,
                        acc.span,
                        format!(
                            "`{}` is a loaded operand; `mma.store` stores an accumulator",
                            acc.name
                        ),
                    )
                    .with_help("store the fragment created by `mma.fill` and updated by `mma`"),
                );
                continue;
            }
        };
        let Some(dv) = views.get(*dst).cloned() else {
            continue;
        };
        let ok = dv.dtype == acc_dt
            || (acc_dt == DType::F32 && matches!(dv.dtype, DType::F16 | DType::BF16));
        if !ok {
            diags.push(
                at_expr(m, codes::STORE_DTYPE, *dst, format!("`mma.store` of an {acc_dt} accumulator into an {} tile", dv.dtype))
                    .with_note(m.stmt_span(def), format!("`{}` is {acc_dt}", acc.name))
                    .with_help(format!("store into an {acc_dt} tile (an f32 accumulator may also be stored into f16 or bf16)")),
            );
        }
        let Some(shape) = acc_shape.get(&def) else {
            continue;
        };
        let stored = match view {
            None => shape.clone(),
            Some(x) => {
                let root = VState::fragment(def, acc_dt, shape.clone());
                let Some(sv) = fragment_view(cx, views, diags, *x, root) else {
                    continue;
                };
                // A `.transpose()` here is reported by `simt` (E0908).
                if sv.transposed || !check_slice(cx, &acc.name, *x, shape, &sv, diags) {
                    continue;
                }
                sv.shape
            }
        };
        // `.transp` writes the transpose: an `[N, M]` destination.
        let stored = match mods.transpose {
            true => stored.iter().rev().cloned().collect(),
            false => stored,
        };
        let show = |v: &[Dim]| -> String {
            let p: Vec<String> = v.iter().map(|d| cx.describe_dim(d)).collect();
            format!("[{}]", p.join(", "))
        };
        let mismatch = dv.shape.len() != 2
            || (0..2).any(|i| matches!((cx.dim_value(&stored[i]), cx.dim_value(&dv.shape[i])), (Some(a), Some(b)) if a != b));
        if dv.element {
            continue;
        }
        if mismatch && mods.transpose {
            diags.push(
                at_expr(
                    m,
                    codes::MMA_STORE_SHAPE,
                    *dst,
                    format!("`mma.store.transp` writes the transpose of the {} accumulator `{}`, {}, into a {} tile", show(shape), acc.name, show(&stored), show(&dv.shape)),
                )
                .with_help(format!("store the transpose into a tile of shape {}", show(&stored))),
            );
            continue;
        }
        if mismatch {
            let d = match view {
                None => at_expr(
                    m,
                    codes::MMA_STORE_SHAPE,
                    *dst,
                    format!("`mma.store` writes the {} accumulator `{}` into a {} tile", show(shape), acc.name, show(&dv.shape)),
                )
                .with_help("store into a tile of the accumulator's shape [M, N], e.g. `shared f16 [WARP_M, WARP_N] output_s;`"),
                Some(_) => at_expr(
                    m,
                    codes::MMA_STORE_SHAPE,
                    *dst,
                    format!(
                        "`mma.store` writes a {} slice of the {} accumulator `{}` into a {} tile",
                        show(&stored),
                        show(shape),
                        acc.name,
                        show(&dv.shape)
                    ),
                )
                .with_help(format!("store into a tile of the slice's shape, e.g. `shared f16 {} output_s;`", show(&stored))),
            };
            diags.push(d);
            continue;
        }
        // A global destination, a transposed or a masked store is written element by element
        // at the destination's own row pitch (`tsl_acc_store_pitched`).
        if dv.space == crate::ir::MemSpace::Global || mods.transpose || mods.mask.is_some() {
            continue;
        }
        // The fragment is written row after row, `W` elements each: the destination's rows
        // must be `W` apart, i.e. the view spans whole rows of its tensor.
        let (Some(w), Some(pitch)) = (
            dv.shape.last().and_then(|d| cx.dim_value(d)),
            dv.decl_shape.last().and_then(|d| cx.dim_value(d)),
        ) else {
            continue;
        };
        if w != pitch && !dv.transposed {
            let name = cx.binding_name(dv.root);
            let rows = dim_text(cx, &dv.shape[0]);
            diags.push(
                at_expr(
                    m,
                    codes::MMA_STORE_DENSE,
                    *dst,
                    format!("`mma.store` writes rows of {w} elements back to back, but the rows of `{name}` are {pitch} elements apart"),
                )
                .with_help(format!("store into a whole tile of {w} columns, e.g. `shared {} [{rows}, {w}] {name};`, and copy it on from there", dv.dtype)),
            );
        }
    }
}

/// A slice spans all M rows and a multiple of 8 columns dividing N; false after an error.
fn check_slice(
    cx: &Cx,
    acc: &str,
    x: crate::ir::ExprId,
    shape: &[Dim],
    sv: &VState,
    diags: &mut Diagnostics,
) -> bool {
    let m = cx.m;
    let span = m.expr_span(x);
    let (Some(rows), Some(mv)) = (cx.dim_value(&sv.shape[0]), cx.dim_value(&shape[0])) else {
        return true;
    };
    if rows != mv {
        diags.push(
            Diagnostic::new(
                codes::ACC_SLICE_ROWS,
                dim_span(cx, &sv.shape[0], span),
                format!(
                    "a slice of the accumulator `{acc}` must span all of its {} rows (a WGMMA fragment splits by columns only); this one has {}",
                    cx.describe_dim(&shape[0]),
                    cx.describe_dim(&sv.shape[0])
                ),
            )
            .with_help(format!(
                "slice the columns only: `{acc}.subspan({}, W).at(0, j)` or `{acc}.chunkat(_, j)`",
                dim_text(cx, &shape[0])
            )),
        );
        return false;
    }
    let (Some(w), Some(n)) = (cx.dim_value(&sv.shape[1]), cx.dim_value(&shape[1])) else {
        return true;
    };
    if w % 8 != 0 || w < 1 || n % w != 0 {
        // The nearest fitting widths on either side, searched a bounded distance (N is at most
        // 256 for WGMMA; an absurd configuration must not make the search run for ever).
        let fits = |c: &i64| *c >= 8 && *c <= n && n % c == 0;
        let start = (w / 8) * 8;
        let below = (0..1024)
            .map(|k| start - 8 * k)
            .take_while(|&c| c >= 8)
            .find(|c| *c < w && fits(c));
        let above = (0..1024)
            .filter_map(|k| start.checked_add(8 * (k + 1)))
            .take_while(|&c| c <= n)
            .find(fits);
        let (below, above) = (below.as_ref(), above.as_ref());
        let mut listed: Vec<String> = (1..=(n / 8).min(128))
            .map(|k| 8 * k)
            .filter(fits)
            .map(|c| c.to_string())
            .collect();
        if n / 8 > 128 {
            listed.push("…".into());
        }
        let near: Vec<String> = below.into_iter().chain(above).map(i64::to_string).collect();
        let near = match near.is_empty() {
            true => "store the whole accumulator".to_string(),
            false => format!("try {}", near.join(" or ")),
        };
        diags.push(
            Diagnostic::new(
                codes::ACC_SLICE_COLS,
                dim_span(cx, &sv.shape[1], span),
                format!(
                    "a slice of the accumulator `{acc}` must be whole 8-column register groups, a multiple of 8 columns dividing N = {}; this one is {} wide — {near}",
                    cx.describe_dim(&shape[1]),
                    cx.describe_dim(&sv.shape[1]),
                ),
            )
            .with_help(format!(
                "columns [8k, 8k + 8) of an m64nNk16 fragment are registers 4k..4k+3 of every thread; widths that fit N = {n}: {}",
                listed.join(", ")
            )),
        );
        return false;
    }
    true
}

/// A dim as the user wrote it (`WARP_M`), or its value when the checker computed it.
fn dim_text(cx: &Cx, d: &Dim) -> String {
    match d.expr {
        super::DimExpr::Expr(e) => cx.m.expr_to_string(e),
        super::DimExpr::Const(v) => v.to_string(),
    }
}
