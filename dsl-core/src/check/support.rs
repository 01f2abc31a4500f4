//! The lowering gate: constructs the front end parses and checks but no lowering handles
//! yet, each reported as "not supported yet: …" with its own code. [`check_config`] (the
//! check every emit, launch and tuning goes through) runs it, so a module it accepts always
//! lowers; [`check_language`] (what `tessel check` reports) leaves it out and returns its
//! findings as notes, so a kernel written in today's Croqtile can be checked before tessel
//! lowers all of it.
//!
//! [`check_config`]: super::check_config
//! [`check_language`]: super::check_language

use super::codes;
use super::{Cx, all_stmts, stmt_exprs, walk_expr};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Expr, MemSpace, Returns, Stmt};

/// Codes of the other passes that state a limit of the lowering rather than a rule of the
/// language (statements outside any `parallel` — host code of a `__co__` function —, several
/// top-level `parallel`s — several launches —, f8 element types): `check_language` reports
/// them as notes.
pub(crate) const LOWERING_ONLY: &[&str] = &[codes::OUTSIDE_PARALLEL, codes::F8, codes::NO_BLOCK];

/// Whether a finding is a restriction of the lowering rather than of the language: the
/// [`LOWERING_ONLY`] codes and every rule of `check/lowerable.rs` (`E1101`–`E1199`).
pub(crate) fn lowering_only(code: &str) -> bool {
    LOWERING_ONLY.contains(&code) || code.starts_with("E11")
}

/// Built-in functions the lowering handles.
const LOWERED_FUNCS: &[&str] = &["cdiv", "min", "max"];

pub(crate) fn lowering_gate(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let not_lowered = |code, span, what: &str| {
        Diagnostic::new(code, span, format!("not supported yet: {what}"))
            .with_help("`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet")
    };
    if let Returns::Value { span, .. } = &m.kernel.returns {
        diags.push(not_lowered(
            codes::NOT_LOWERED_RETURN,
            *span,
            "a `__co__` function that returns a value",
        ));
    }
    for p in &m.kernel.params {
        for &d in p
            .shape
            .iter()
            .filter(|&&d| matches!(&m.exprs[d], Expr::Name(n) if n.starts_with('?')))
        {
            diags.push(not_lowered(
                codes::NOT_LOWERED_UNNAMED_DIM,
                m.expr_span(d),
                "unnamed dimensions (`?`, `mdspan<N>`)",
            ));
        }
        if p.shape.is_empty() {
            diags.push(not_lowered(
                codes::NOT_LOWERED_SCALAR_PARAM,
                p.name.span,
                "scalar parameters",
            ));
        }
        if !p.dtype.is_lowered() {
            diags.push(not_lowered(
                codes::NOT_LOWERED_DTYPE,
                p.dtype_span,
                &format!("element type `{}`", p.dtype),
            ));
        }
    }
    for at in super::geometry::partial_groups(cx) {
        diags.push(not_lowered(
            codes::NOT_LOWERED_PARTIAL_GROUP,
            at,
            "a `group`/`group-4` level whose inner levels leave lanes idle",
        ));
    }
    for s in &m.streams {
        diags.push(not_lowered(
            codes::NOT_LOWERED_STREAM,
            s.name.span,
            "`stream` parameters",
        ));
    }
    for x in &m.parallel_ext {
        diags.push(not_lowered(
            codes::NOT_LOWERED_STREAM,
            m.stmt_span(x.stmt),
            "`parallel.async` / `parallel<s>` / cooperative launches",
        ));
    }
    for u in &m.unroll_factors {
        diags.push(not_lowered(
            codes::NOT_LOWERED_UNROLL_FACTOR,
            m.expr_span(u.factor),
            "an unroll factor `: unroll(N)`",
        ));
    }
    for a in &m.attributes {
        diags.push(not_lowered(
            codes::NOT_LOWERED_ATTRIBUTE,
            a.span,
            &format!("the attribute `[[{}]]`", a.name.name),
        ));
    }
    for x in &m.decl_ext {
        diags.push(not_lowered(
            codes::NOT_LOWERED_DECL,
            m.stmt_span(x.decl()),
            x.construct(),
        ));
    }
    for s in all_stmts(m) {
        let span = m.stmt_span(s);
        match &m.stmts[s] {
            Stmt::Wait { event } | Stmt::Trigger { event, .. }
                if matches!(m.exprs[*event], Expr::View { .. }) =>
            {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_VIEW,
                    m.expr_span(*event),
                    "event generations `e.at(k)`",
                ));
            }
            Stmt::Mma { .. } if cx.in_warp_mma(s) => diags.push(not_lowered(
                codes::NOT_LOWERED_WARP_MMA,
                span,
                "`mma` under a `: group` level (warp-level tensor cores)",
            )),
            Stmt::MmaLoad { name, .. } if name.name.starts_with("direct$") => {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_DIRECT_OPERAND,
                    span,
                    "a shared tensor as a direct `mma` operand",
                ))
            }
            Stmt::Ext(x) => diags.push(not_lowered(codes::NOT_LOWERED_STMT, span, x.construct())),
            Stmt::Let { value, .. } if super::views_ext::is_view_let(m, *value) => {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_VIEW_LET,
                    span,
                    "a name given to a view (`v = t.span_as(…)`)",
                ))
            }
            Stmt::DmaCopy { src, dst, .. } | Stmt::TmaCopy { src, dst, .. } => {
                for e in super::views_ext::untiled_operands(m, *src, dst) {
                    diags.push(not_lowered(codes::NOT_LOWERED_FIRST_TILE, m.expr_span(e), "a `.subspan` tiling without `.at` as a copy operand (its first tile)").with_help("to copy one tile of it, pick it with `.at(i, j)`, e.g. `t.subspan(TM, TK).at(bm, k)`; the first tile alone is not lowered yet"));
                }
            }
            Stmt::TensorDecl {
                space,
                dtype,
                dtype_span,
                ..
            } => {
                if !dtype.is_lowered() {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_DTYPE,
                        *dtype_span,
                        &format!("element type `{dtype}`"),
                    ));
                }
                if *space == MemSpace::Global {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_GLOBAL_DECL,
                        span,
                        "a global tensor declared in the kernel body",
                    ));
                }
            }
            Stmt::ScalarDecl { dtype, .. } | Stmt::MmaFill { dtype, .. } if !dtype.is_lowered() => {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_DTYPE,
                    span,
                    &format!("element type `{dtype}`"),
                ));
            }
            _ => {}
        }
        for e in stmt_exprs(&m.stmts[s]) {
            walk_expr(m, e, &mut |x| {
                if let Expr::Field { field, .. } = &m.exprs[x] {
                    if field.name != "data" {
                        diags.push(not_lowered(
                            codes::NOT_LOWERED_VIEW,
                            field.span,
                            &format!("the field `.{}`", field.name),
                        ));
                    }
                }
                if let Expr::View {
                    op: crate::ir::ViewOp::Chunkat,
                    args,
                    ..
                } = &m.exprs[x]
                    && args
                        .iter()
                        .any(|&a| matches!(m.exprs[a], Expr::Compose { .. }))
                {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_VIEW,
                        m.expr_span(x),
                        "`.chunkat` with a composed index (`a # b`)",
                    ));
                }
                if let Expr::View { op, .. } = &m.exprs[x] {
                    if !op.is_lowered() {
                        diags.push(not_lowered(
                            codes::NOT_LOWERED_VIEW,
                            m.expr_span(x),
                            &format!("the view method `.{}`", op.name()),
                        ));
                    }
                }
                if let Expr::Call { func, .. } = &m.exprs[x] {
                    if !LOWERED_FUNCS.contains(&func.name.as_str()) {
                        let what = if func.name == "ituple" {
                            "i-tuple values `{a, b}`".to_string()
                        } else {
                            format!("the built-in `{}`", func.name)
                        };
                        diags.push(not_lowered(codes::NOT_LOWERED_MATH, m.expr_span(x), &what));
                    }
                }
            });
        }
    }
}
