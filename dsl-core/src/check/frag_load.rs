//! `mma.load src, t;`: a tile loaded into the registers of a declared `frag` tile `t` — the
//! register-A operand of a later `mma` written in place (`ma = mma.load.frag src;` binds a new
//! one instead). The rules: `t` is a `frag` tile (E0110) and `src` has its shape (E0111). Not
//! lowered yet (the gate's `E1300`).

use super::view_state::Views;
use super::{Binding, Cx, at_expr, codes};
use crate::diag::Diagnostics;
use crate::ir::{DeclExt, ExtStmt, Stmt};

pub(crate) fn check_frag_loads(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in super::all_stmts(m) {
        let Stmt::Ext(ExtStmt::LoadInto { src, dst }) = &m.stmts[s] else {
            continue;
        };
        // The declaration of the `frag` tile `dst` names; `Err(())` when it names something
        // else (another binding, a view, a future's data). An unresolved name is `resolve`'s
        // to report.
        let frag_decl = match (&m.exprs[*dst], cx.res.bindings.get(dst)) {
            (crate::ir::Expr::Name(_), None) => continue,
            (crate::ir::Expr::Name(_), Some(Binding::Tensor(decl, _)))
                if m.decl_ext
                    .iter()
                    .any(|x| matches!(x, DeclExt::Frag { decl: d } if d == decl)) =>
            {
                Ok(*decl)
            }
            _ => Err(()),
        };
        let Ok(tile) = frag_decl else {
            diags.push(
                at_expr(
                    m,
                    codes::LOAD_INTO_NOT_FRAG,
                    *dst,
                    format!(
                        "`mma.load src, t;` loads into a `frag` tile, and `{}` is not one",
                        m.expr_to_string(*dst)
                    ),
                )
                .with_help("declare the registers with `frag f16 [64, 16] t;`, or bind a new operand: `ma = mma.load.frag src;`"),
            );
            continue;
        };
        let Stmt::TensorDecl { shape, .. } = &m.stmts[tile] else {
            continue;
        };
        let want: Vec<Option<i64>> = shape.iter().map(|&e| cx.static_value(e)).collect();
        // The source's shape: its view's, or a whole tensor's as declared.
        let got: Vec<Option<i64>> = match (views.get(*src), cx.res.bindings.get(src)) {
            (Some(sv), _) => sv.shape.iter().map(|d| cx.dim_value(d)).collect(),
            (None, Some(Binding::Tensor(decl, _))) => match &m.stmts[*decl] {
                Stmt::TensorDecl { shape, .. } => {
                    shape.iter().map(|&e| cx.static_value(e)).collect()
                }
                _ => continue,
            },
            (None, Some(Binding::Param(i))) => match m.kernel.params.get(*i) {
                Some(p) => p.shape.iter().map(|&e| cx.static_value(e)).collect(),
                None => continue,
            },
            _ => continue,
        };
        let differs = got.len() != want.len()
            || got
                .iter()
                .zip(&want)
                .any(|(a, b)| matches!((a, b), (Some(a), Some(b)) if a != b));
        if differs {
            let show = |v: &[Option<i64>]| {
                v.iter()
                    .map(|x| x.map_or("?".to_string(), |x| x.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            diags.push(
                at_expr(
                    m,
                    codes::LOAD_INTO_SHAPE,
                    *src,
                    format!(
                        "`{}` is a [{}] tile, but the `frag` tile `{}` holds [{}]",
                        m.expr_to_string(*src),
                        show(&got),
                        m.expr_to_string(*dst),
                        show(&want)
                    ),
                )
                .with_help("load a tile of the `frag` tile's shape"),
            );
        }
    }
}
