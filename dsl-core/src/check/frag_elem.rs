//! Element-wise work on `mma` accumulators, in two forms:
//!
//! - whole-fragment arithmetic, `mc += s;`, `mc *= s;`, `mc = mc * s + b;`: every element of
//!   the accumulator `mc` is updated; in the value, `mc` names that element and every other
//!   name is a scalar (a parameter, a constant, a named value);
//! - `apply {i, j} in acc.span { … acc.at(i, j) = expr; … }`: the body runs once per element,
//!   `(i, j)` being the element's row and column in the accumulator tile; each thread runs it
//!   for the elements its registers hold (the fragment layout of `mma.sync` or WGMMA).
//!
//! Rules: the fragment is an accumulator (`mma.fill`, or an accumulator `mma.load`), not a
//! loaded operand (E1540); whole-fragment arithmetic names the fragment itself, not an element
//! of it (E1541); inside `apply`, the walked accumulator is read and written as
//! `acc.at(i, j)` with the apply's own variables in order (E1542); an accumulator's `apply`
//! has two variables (E1543); its body holds assignments, `if`s and named values only
//! (E1544).
//!
//! Lowering limits (the gate, [`gate`]): an element-wise update of a warp accumulator before
//! the first `mma` into it (its layout is the instructions' the `mma` picks; E1450). A kernel's accumulators are all warp-level
//! (`mma.sync`) or all WGMMA ones; the element numbering of each is `lower/frag_elem.rs`'s.

use super::resolve::Role;
use super::{Binding, Cx, all_stmts, at_expr, codes, frag_def, walk_expr};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Expr, ExprId, Module, Stmt, StmtId, ViewOp};

/// The fragment an `apply` walks: extents that are all `f.span(d)` (or `f.span`) of one name.
pub(crate) fn walked_name(m: &Module, extents: &[ExprId]) -> Option<String> {
    let mut name: Option<String> = None;
    for &e in extents {
        let base = match &m.exprs[e] {
            Expr::View {
                base,
                op: ViewOp::SpanOf,
                ..
            } => *base,
            Expr::Field { base, field } if field.name == "span" => *base,
            _ => return None,
        };
        let Expr::Name(n) = &m.exprs[base] else {
            return None;
        };
        match &name {
            Some(prev) if prev != n => return None,
            _ => name = Some(n.clone()),
        }
    }
    name
}

/// One element-wise statement over an accumulator.
#[derive(Clone, Debug)]
pub(crate) enum Site {
    /// `mc op= value;`: the assignment and the accumulator's definition.
    Whole { stmt: StmtId, def: StmtId },
    /// `apply {i, j} in acc.span { … }`: the loop and the accumulator's definition.
    Apply { stmt: StmtId, def: StmtId },
}

impl Site {
    pub fn stmt(&self) -> StmtId {
        match self {
            Site::Whole { stmt, .. } | Site::Apply { stmt, .. } => *stmt,
        }
    }
    pub fn def(&self) -> StmtId {
        match self {
            Site::Whole { def, .. } | Site::Apply { def, .. } => *def,
        }
    }
}

/// The element-wise statements over fragments, with the fragment's definition.
pub(crate) fn sites(cx: &Cx) -> Vec<Site> {
    let m = cx.m;
    let mut out = Vec::new();
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::Assign { target, .. } => {
                if let Some(Binding::Frag(def)) = cx.res.bindings.get(target)
                    && matches!(m.exprs[*target], Expr::Name(_))
                {
                    out.push(Site::Whole { stmt: s, def: *def });
                }
            }
            Stmt::Foreach { extents, .. } => {
                if walked_name(m, extents).is_some()
                    && let Some(base) = span_base(m, extents[0])
                    && let Some(Binding::Frag(def)) = cx.res.bindings.get(&base)
                {
                    out.push(Site::Apply { stmt: s, def: *def });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `s` is an `apply` over an accumulator's span (its extents are the accumulator's
/// shape, which the lowering knows; they are not integer arithmetic).
pub(crate) fn acc_apply(cx: &Cx, s: StmtId) -> bool {
    sites(cx)
        .iter()
        .any(|x| matches!(x, Site::Apply { stmt, def } if *stmt == s && is_accumulator(cx, *def)))
}

fn span_base(m: &Module, e: ExprId) -> Option<ExprId> {
    match &m.exprs[e] {
        Expr::View {
            base,
            op: ViewOp::SpanOf,
            ..
        } => Some(*base),
        Expr::Field { base, .. } => Some(*base),
        _ => None,
    }
}

/// Whether the fragment defined by `def` is an accumulator: an `mma.fill`, or an `mma.load`
/// some `mma` accumulates into.
pub(crate) fn is_accumulator(cx: &Cx, def: StmtId) -> bool {
    let m = cx.m;
    match &m.stmts[def] {
        Stmt::MmaFill { .. } => true,
        Stmt::MmaLoad { .. } => all_stmts(m).into_iter().any(|s| {
            matches!(m.stmts[s], Stmt::Mma { .. }) && frag_def(cx, s, Role::Acc) == Some(def)
        }),
        _ => false,
    }
}

fn frag_name(m: &Module, def: StmtId) -> String {
    match &m.stmts[def] {
        Stmt::MmaFill { name, .. } | Stmt::MmaLoad { name, .. } => name.name.clone(),
        _ => String::new(),
    }
}

/// Whether `e` names the fragment defined by `def`.
fn names_frag(cx: &Cx, e: ExprId, def: StmtId) -> bool {
    matches!(cx.m.exprs[e], Expr::Name(_))
        && matches!(cx.res.bindings.get(&e), Some(Binding::Frag(d)) if *d == def)
}

pub(crate) fn check_frag_elem(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    for site in sites(cx) {
        let s = site.stmt();
        let def = site.def();
        let name = frag_name(m, def);
        if !is_accumulator(cx, def) {
            diags.push(
                Diagnostic::new(
                    codes::FRAG_ELEM_NOT_ACC,
                    m.stmt_span(s),
                    format!(
                        "`{name}` is a loaded `mma` operand; element-wise work applies to accumulators"
                    ),
                )
                .with_help("update the accumulator (`mc = mma.fill.f32 0.0f;`) the `mma` writes"),
            );
            continue;
        }
        match site {
            Site::Whole { .. } => {
                let Stmt::Assign { value, .. } = &m.stmts[s] else {
                    continue;
                };
                walk_expr(m, *value, &mut |x| {
                    if let Expr::View { base, .. } = &m.exprs[x]
                        && names_frag(cx, *base, def)
                    {
                        diags.push(
                            at_expr(
                                m,
                                codes::FRAG_WHOLE_INDEXED,
                                x,
                                format!(
                                    "whole-fragment arithmetic names `{name}` itself, not an element of it"
                                ),
                            )
                            .with_help(format!(
                                "write `{name} = {name} * s + b;`, or use `apply {{i, j}} in {name}.span {{ {name}.at(i, j) = …; }}` for per-element work"
                            )),
                        );
                    }
                });
            }
            Site::Apply { .. } => check_apply(cx, s, def, &name, diags),
        }
    }
}

fn check_apply(cx: &Cx, s: StmtId, def: StmtId, name: &str, diags: &mut Diagnostics) {
    let m = cx.m;
    let Stmt::Foreach { vars, body, .. } = &m.stmts[s] else {
        return;
    };
    if vars.len() != 2 {
        diags.push(
            Diagnostic::new(
                codes::FRAG_APPLY_VARS,
                m.stmt_span(s),
                format!(
                    "`apply` over the accumulator `{name}` takes two variables (row, column), found {}",
                    vars.len()
                ),
            )
            .with_help(format!("write `apply {{i, j}} in {name}.span {{ … }}`")),
        );
        return;
    }
    let is_var = |e: ExprId, index: usize| {
        matches!(
            cx.res.bindings.get(&e),
            Some(Binding::LoopVar { stmt, index: i }) if *stmt == s && *i == index
        )
    };
    let mut inner = Vec::new();
    collect(m, body, &mut inner);
    for b in inner {
        let ok = matches!(
            m.stmts[b],
            Stmt::Assign { .. } | Stmt::If { .. } | Stmt::Let { .. } | Stmt::ScalarDecl { .. }
        );
        if !ok {
            diags.push(
                Diagnostic::new(
                    codes::FRAG_APPLY_BODY,
                    m.stmt_span(b),
                    format!(
                        "the body of `apply` over `{name}` runs per element: it holds assignments, `if`s and named values only"
                    ),
                )
                .with_help("move copies, `mma`s and loops out of the `apply`"),
            );
        }
        for e in super::stmt_exprs(&m.stmts[b]) {
            walk_expr(m, e, &mut |x| match &m.exprs[x] {
                Expr::View { base, op, args } if names_frag(cx, *base, def) => {
                    let right = *op == ViewOp::At
                        && args.len() == 2
                        && is_var(args[0], 0)
                        && is_var(args[1], 1);
                    if !right {
                        diags.push(elem_index(m, x, name, vars));
                    }
                }
                Expr::Name(_) if names_frag(cx, x, def) && !is_base(m, x) => {
                    diags.push(elem_index(m, x, name, vars));
                }
                _ => {}
            });
        }
    }
}

/// Whether `x` is the base of a view (walked separately).
fn is_base(m: &Module, x: ExprId) -> bool {
    m.exprs
        .iter()
        .any(|(_, e)| matches!(e, Expr::View { base, .. } if *base == x))
}

fn elem_index(m: &Module, x: ExprId, name: &str, vars: &[crate::ir::Ident]) -> Diagnostic {
    let (i, j) = (&vars[0].name, &vars[1].name);
    at_expr(
        m,
        codes::FRAG_ELEM_INDEX,
        x,
        format!("inside `apply {{{i}, {j}}} in {name}.span`, an element of `{name}` is `{name}.at({i}, {j})`"),
    )
    .with_help(format!(
        "each thread holds only its own elements of `{name}`: index it with the apply's variables, in order"
    ))
}

/// Every statement under `body`, nested ones included.
fn collect(m: &Module, body: &[StmtId], out: &mut Vec<StmtId>) {
    for &b in body {
        out.push(b);
        for inner in super::stmt_blocks(&m.stmts[b]) {
            collect(m, inner, out);
        }
    }
}

/// Element-wise work the lowering cannot place yet.
pub(crate) fn gate(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let warp_kernel =
        super::warp_mma::has_warp_mma(cx) && super::warp_mma::hopper_constructs(cx).is_none();
    let order = all_stmts(m);
    let pos = |s: StmtId| order.iter().position(|&x| x == s);
    let not_lowered = |code, span, what: String| {
        Diagnostic::new(code, span, format!("not supported yet: {what}"))
            .with_help("`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet")
    };
    for site in sites(cx) {
        let (s, def) = (site.stmt(), site.def());
        if !is_accumulator(cx, def) {
            continue;
        }
        let name = frag_name(m, def);
        let span = m.stmt_span(s);
        let warp = warp_kernel || cx.in_warp_mma(s);
        if warp {
            // The layout is the instructions' the first `mma` into it picks (or the tile an
            // accumulator `mma.load` reads).
            let sized = matches!(m.stmts[def], Stmt::MmaLoad { .. })
                || order.iter().any(|&x| {
                    matches!(m.stmts[x], Stmt::Mma { .. })
                        && frag_def(cx, x, Role::Acc) == Some(def)
                        && pos(x) < pos(s)
                });
            if !sized {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_FRAG_ELEM_ORDER,
                    span,
                    format!(
                        "element-wise work on the warp accumulator `{name}` before the first `mma` into it"
                    ),
                ));
            }
        }
    }
}
