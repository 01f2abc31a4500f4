//! Warp-level tensor cores: an `mma` under a `: group` level (one warp) runs Croqtile's
//! `mma.sync` / `wmma` shapes, not WGMMA's. Checked here — the operand tile's M must be 8 or
//! 16 rows and its K one of 4, 8, 16, 32 — and reported as not lowered by the gate. Also:
//! `mma.fill acc, v` re-initializes an accumulator, never a loaded operand.

use super::frag_def;
use super::resolve::Role;
use super::view::Views;
use super::{Cx, all_stmts, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{ExtStmt, Stmt};

const WARP_M: &[i64] = &[8, 16];
const WARP_K: &[i64] = &[4, 8, 16, 32];

pub(crate) fn check_warp_mma(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::Mma { a, .. } if cx.in_warp_mma(s) => {
                let Some(def) = frag_def(cx, s, Role::A) else {
                    continue;
                };
                let Stmt::MmaLoad { src, .. } = &m.stmts[def] else {
                    continue;
                };
                let Some(v) = views.get(*src) else { continue };
                let dims: Vec<Option<i64>> = v.shape.iter().map(|d| cx.dim_value(d)).collect();
                let [Some(rows), Some(k)] = dims[..] else {
                    continue;
                };
                if !WARP_M.contains(&rows) || !WARP_K.contains(&k) {
                    diags.push(
                        Diagnostic::new(
                            codes::WARP_MMA_SHAPE,
                            a.span,
                            format!(
                                "a warp-level `mma` takes A tiles of 8 or 16 rows and a K of 4, 8, 16 or 32; `{}` is {rows} × {k}",
                                a.name
                            ),
                        )
                        .with_note(m.stmt_span(def), "loaded here")
                        .with_help("split the tile among more `: group` units, or use a `: group-4` level (WGMMA, M = 64)"),
                    );
                }
            }
            Stmt::Ext(ExtStmt::MmaRefill { acc, .. }) => {
                if let Some(def) = frag_def(cx, s, Role::Acc)
                    && matches!(m.stmts[def], Stmt::MmaLoad { .. })
                {
                    diags.push(
                        Diagnostic::new(
                            codes::MMA_OPERAND,
                            acc.span,
                            format!("`{}` is a loaded operand; `mma.fill` re-initializes an accumulator", acc.name),
                        )
                        .with_note(m.stmt_span(def), "loaded here")
                        .with_help("fill the accumulator made by `mc = mma.fill 0.0f;`"),
                    );
                }
            }
            _ => {}
        }
    }
}
