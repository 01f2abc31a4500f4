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
                if m.walked_fragment(extents).is_some()
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
    let m = cx.m;
    // Over a `frag` tile.
    if let Stmt::Foreach { extents, .. } = &m.stmts[s]
        && m.walked_fragment(extents).is_some()
        && let Some(base) = span_base(m, extents[0])
        && tile_of(cx, &tiles(cx), base).is_some()
    {
        return true;
    }
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
    let warp_kernel = cx.warp_kernel();
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

/// A `frag` register tile (`frag f32 [M] v;`, `frag f16 [M, N] x;`): one declarator.
#[derive(Clone, Debug)]
pub(crate) struct Tile {
    pub decl: StmtId,
    pub index: usize,
    pub name: String,
    pub dtype: crate::ir::DType,
    /// The shape under the config.
    pub shape: Vec<Option<i64>>,
    /// Whether the shape names no tunable (the lowering lays it out at compile time).
    pub fixed: bool,
}

/// The `frag` register tiles of the module.
pub(crate) fn tiles(cx: &Cx) -> Vec<Tile> {
    let m = cx.m;
    let mut out = Vec::new();
    for x in &m.decl_ext {
        let crate::ir::DeclExt::Frag { decl } = x else {
            continue;
        };
        let Stmt::TensorDecl {
            dtype,
            shape,
            names,
            ..
        } = &m.stmts[*decl]
        else {
            continue;
        };
        let mut fixed = true;
        for &d in shape {
            walk_expr(m, d, &mut |x| {
                if let Expr::Name(n) = &m.exprs[x] {
                    fixed &= m.tunable(n).is_none();
                }
            });
        }
        for (index, d) in names.iter().enumerate() {
            out.push(Tile {
                decl: *decl,
                index,
                name: d.name.name.clone(),
                dtype: *dtype,
                shape: shape.iter().map(|&e| cx.value(e)).collect(),
                fixed,
            });
        }
    }
    out
}

/// The tile `e` names (a name bound to a `frag` declarator).
fn tile_of<'t>(cx: &Cx, tiles: &'t [Tile], e: ExprId) -> Option<&'t Tile> {
    match cx.res.bindings.get(&e) {
        Some(Binding::Tensor(decl, i)) => tiles.iter().find(|t| t.decl == *decl && t.index == *i),
        _ => None,
    }
}

/// Whether the kernel's accumulators are warp-level (`mma.sync`) ones, and whether it has any.
fn paths(cx: &Cx) -> (bool, bool) {
    let warp = cx.warp_kernel();
    let any = all_stmts(cx.m)
        .into_iter()
        .any(|s| matches!(cx.m.stmts[s], Stmt::Mma { .. }));
    (warp, any)
}

/// Whether the lowering lays tile `t` out in its kernel's accumulator layout: a compile-time
/// `[M]` (f32, one value per accumulator row) or `[M, N]` (f32 or f16) tile of a kernel with
/// `mma`s, M a multiple of 8 (of 16 for 16-row warp tiles; 64, one warpgroup's rows, for
/// WGMMA) and N of 8.
pub(crate) fn lowerable_tile(cx: &Cx, t: &Tile) -> bool {
    let (warp, any) = paths(cx);
    if !any || !t.fixed {
        return false;
    }
    let rows_ok = |mv: i64| {
        if warp {
            mv > 0 && mv % 8 == 0
        } else {
            mv == 64
        }
    };
    match t.shape[..] {
        [Some(mv)] => rows_ok(mv) && t.dtype == crate::ir::DType::F32,
        [Some(mv), Some(nv)] => {
            rows_ok(mv)
                && nv > 0
                && nv % 8 == 0
                && (warp || nv <= 256)
                && matches!(t.dtype, crate::ir::DType::F32 | crate::ir::DType::F16)
        }
        _ => false,
    }
}

/// The M × N of each accumulator (by definition): warp ones from the `mma.sync` checks, WGMMA
/// ones from the `mma`'s operands (one warpgroup's 64 rows).
pub(crate) fn acc_shapes(
    frags: &std::collections::HashMap<StmtId, super::FragInfo>,
    warp: &std::collections::HashMap<StmtId, (i64, i64)>,
) -> std::collections::HashMap<StmtId, (i64, i64)> {
    let mut out = warp.clone();
    for f in frags.values() {
        if f.kind == super::FragKind::Acc
            && let [Some(mv), Some(nv)] = [f.shape[0].value, f.shape[1].value]
        {
            out.entry(f.def).or_insert((mv, nv));
        }
    }
    out
}

/// Rules of `frag` tiles in element-wise work: inside an `apply` over an `[M, N]` accumulator
/// or tile, a tile is read and written as `x.at(i, j)` of an `[M, N]` tile or `v.at(i)` of an
/// `[M]` one (E1545); `reduce_*(v, src, 1)` and `copy(dst, src)` name tiles and accumulators of
/// matching shapes (E1546).
pub(crate) fn check_tiles(
    cx: &Cx,
    shapes: &std::collections::HashMap<StmtId, (i64, i64)>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    let tiles = tiles(cx);
    if tiles.is_empty() {
        return;
    }
    // The shape of what an expression names: an accumulator or a tile.
    let shape_of = |e: ExprId| -> Option<Vec<Option<i64>>> {
        if let Some(t) = tile_of(cx, &tiles, e) {
            return Some(t.shape.clone());
        }
        match cx.res.bindings.get(&e) {
            Some(Binding::Frag(d)) if is_accumulator(cx, *d) => {
                shapes.get(d).map(|(a, b)| vec![Some(*a), Some(*b)])
            }
            _ => None,
        }
    };
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::Foreach {
                vars,
                extents,
                body,
                ..
            } => {
                let Some(base) = m.walked_fragment(extents).and(span_base(m, extents[0])) else {
                    continue;
                };
                let Some(shape) = shape_of(base) else {
                    continue;
                };
                let is_var = |e: ExprId, index: usize| {
                    matches!(
                        cx.res.bindings.get(&e),
                        Some(Binding::LoopVar { stmt, index: i }) if *stmt == s && *i == index
                    )
                };
                if tile_of(cx, &tiles, base).is_some() && vars.len() != shape.len() {
                    diags.push(
                        Diagnostic::new(
                            codes::FRAG_APPLY_VARS,
                            m.stmt_span(s),
                            format!(
                                "`apply` over a {}-D fragment takes {} variable(s), found {}",
                                shape.len(),
                                shape.len(),
                                vars.len()
                            ),
                        )
                        .with_help("one variable per dimension: `apply {i} in v.span`, `apply {i, j} in x.span`"),
                    );
                    continue;
                }
                let mut inner = Vec::new();
                collect(m, body, &mut inner);
                for b in inner {
                    if tile_of(cx, &tiles, base).is_some()
                        && !matches!(
                            m.stmts[b],
                            Stmt::Assign { .. }
                                | Stmt::If { .. }
                                | Stmt::Let { .. }
                                | Stmt::ScalarDecl { .. }
                        )
                    {
                        diags.push(
                            Diagnostic::new(
                                codes::FRAG_APPLY_BODY,
                                m.stmt_span(b),
                                "the body of `apply` over a fragment runs per element: it holds assignments, `if`s and named values only",
                            )
                            .with_help("move copies, `mma`s and loops out of the `apply`"),
                        );
                    }
                    for e in super::stmt_exprs(&m.stmts[b]) {
                        walk_expr(m, e, &mut |x| {
                            let Expr::View { base: tb, op, args } = &m.exprs[x] else {
                                return;
                            };
                            let Some(t) = tile_of(cx, &tiles, *tb) else {
                                return;
                            };
                            let right = *op == ViewOp::At
                                && match t.shape.len() {
                                    1 => {
                                        args.len() == 1
                                            && is_var(args[0], 0)
                                            && t.shape[0] == shape[0]
                                    }
                                    _ => {
                                        shape.len() == 2
                                            && args.len() == 2
                                            && is_var(args[0], 0)
                                            && is_var(args[1], 1)
                                            && t.shape == shape
                                    }
                                };
                            if !right {
                                let dims: Vec<String> = shape
                                    .iter()
                                    .map(|d| d.map_or("?".into(), |v| v.to_string()))
                                    .collect();
                                diags.push(
                                    at_expr(
                                        m,
                                        codes::FRAG_TILE_INDEX,
                                        x,
                                        format!(
                                            "inside `apply` over the [{}] fragment `{}`, the fragment `{}` is read and written at the element's own row and column",
                                            dims.join(", "),
                                            m.expr_to_string(base),
                                            t.name
                                        ),
                                    )
                                    .with_help(format!(
                                        "each thread holds its own elements: write `{}.at({})` of a fragment of that shape, or `v.at({})` of one value per row",
                                        t.name,
                                        vars.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", "),
                                        vars[0].name
                                    )),
                                );
                            }
                        });
                    }
                }
            }
            // `all_reduce_sum(v);`: a row fragment's values combined across each row's quad.
            Stmt::Ext(crate::ir::ExtStmt::FragOp { op, args }) if args.len() == 1 => {
                // The values are per row of an [M, N] fragment: an `apply` over one writes
                // `v.at(i)`, or a row reduction writes `v` (Croqtile: "a replicated 1-D layout").
                let tile = tile_of(cx, &tiles, args[0]);
                let same = |e: ExprId| {
                    tile.is_some_and(|t| {
                        tile_of(cx, &tiles, e)
                            .is_some_and(|u| u.decl == t.decl && u.index == t.index)
                    })
                };
                let per_row = all_stmts(m).into_iter().any(|w| match &m.stmts[w] {
                    Stmt::Foreach { vars, body, .. } if vars.len() == 2 => {
                        let mut inner = Vec::new();
                        collect(m, body, &mut inner);
                        inner.iter().any(|&b| {
                            matches!(&m.stmts[b], Stmt::Assign { target, .. }
                            if matches!(&m.exprs[*target], Expr::View { base, .. } if same(*base)))
                        })
                    }
                    Stmt::Ext(crate::ir::ExtStmt::FragOp { args: a, .. }) => {
                        a.len() == 3 && same(a[0])
                    }
                    _ => false,
                });
                if shape_of(args[0]).is_none_or(|sh| sh.len() != 1) || !per_row {
                    diags.push(
                        at_expr(
                            m,
                            codes::FRAG_OP,
                            args[0],
                            format!("`{op}` combines a row fragment (`frag f32 [M] v;`) across the threads that hold each row; `{}` is none", m.expr_to_string(args[0])),
                        )
                        .with_help(format!("give `{}` its rows first: `apply {{i, j}} in acc.span {}.at(i) = … acc.at(i, j) …;` or `reduce_sum({}, acc, 1);`", m.expr_to_string(args[0]), m.expr_to_string(args[0]), m.expr_to_string(args[0]))),
                    );
                }
            }
            Stmt::Ext(crate::ir::ExtStmt::FragOp { op, args }) => {
                let (dst, src) = (args[0], args[1]);
                // An accumulator whose shape the `mma` checks could not establish (they
                // reported why) is not checked here.
                let unsized_acc = |e: ExprId| matches!(cx.res.bindings.get(&e), Some(Binding::Frag(d)) if is_accumulator(cx, *d) && !shapes.contains_key(d));
                if unsized_acc(dst) || unsized_acc(src) {
                    continue;
                }
                let (Some(ds), Some(ss)) = (shape_of(dst), shape_of(src)) else {
                    diags.push(
                        at_expr(
                            m,
                            codes::FRAG_OP,
                            dst,
                            format!("`{op}` takes `frag` tiles and `mma` accumulators"),
                        )
                        .with_help("declare the destination as `frag f32 [M] v;` (one value per row) or `frag f32 [M, N] x;`"),
                    );
                    continue;
                };
                let ok = if *op == "copy" {
                    ds == ss
                } else {
                    ds.len() == 1 && ss.len() == 2 && ds[0] == ss[0] && cx.value(args[2]) == Some(1)
                };
                if !ok {
                    let help = if *op == "copy" {
                        "copy between fragments of one shape".to_string()
                    } else {
                        format!(
                            "`{op}(v, src, 1)` reduces each row of an [M, N] `src` into the [M] fragment `v`"
                        )
                    };
                    diags.push(
                        Diagnostic::new(
                            codes::FRAG_OP,
                            m.stmt_span(s),
                            format!("`{op}` of fragments whose shapes do not match"),
                        )
                        .with_help(help),
                    );
                }
            }
            _ => {}
        }
    }
}

/// Whether `s` is a fragment operation the lowering handles: `copy` or a row reduction of
/// lowerable tiles and accumulators.
pub(crate) fn lowered_frag_op(cx: &Cx, s: StmtId) -> bool {
    let m = cx.m;
    let Stmt::Ext(crate::ir::ExtStmt::FragOp { args, .. }) = &m.stmts[s] else {
        return false;
    };
    let tiles = tiles(cx);
    args.iter().take(2).all(|&a| match tile_of(cx, &tiles, a) {
        Some(t) => lowerable_tile(cx, t),
        None => matches!(cx.res.bindings.get(&a), Some(Binding::Frag(d)) if is_accumulator(cx, *d)),
    })
}

/// `frag` tiles used where the lowering has no place for them: outside an `apply` over an
/// accumulator or tile, `copy` and the row reductions (E1451).
pub(crate) fn tile_gate(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    // A `frag` read whole as a register-A WGMMA operand is not an accumulator-layout tile.
    let reg_a = super::wgmma::register_a_frags(cx);
    let tiles: Vec<Tile> = tiles(cx)
        .into_iter()
        .filter(|t| !reg_a.contains(&t.decl))
        .collect();
    if tiles.is_empty() {
        return;
    }
    let mut inside = std::collections::HashSet::new();
    for s in all_stmts(m) {
        if let Stmt::Foreach { body, extents, .. } = &m.stmts[s]
            && m.walked_fragment(extents).is_some()
        {
            let mut v = Vec::new();
            collect(m, body, &mut v);
            inside.extend(v);
        }
    }
    for s in all_stmts(m) {
        let st = &m.stmts[s];
        if inside.contains(&s)
            || register_a_use(cx, &tiles, s)
            || matches!(st, Stmt::TensorDecl { .. })
            || matches!(st, Stmt::Ext(crate::ir::ExtStmt::FragOp { .. }))
            || matches!(st, Stmt::Foreach { extents, .. } if m.walked_fragment(extents).is_some())
        {
            continue;
        }
        for e in super::stmt_exprs(st) {
            walk_expr(m, e, &mut |x| {
                if let Some(t) = tile_of(cx, &tiles, x)
                    && lowerable_tile(cx, t)
                {
                    diags.push(
                        at_expr(
                            m,
                            codes::NOT_LOWERED_FRAG_TILE_USE,
                            x,
                            format!(
                                "not supported yet: the fragment `{}` outside `apply`, `copy` and the row reductions",
                                t.name
                            ),
                        )
                        .with_help("`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet"),
                    );
                }
            });
        }
    }
}

/// Whether `s` loads a whole f16 `[64, K]` tile (K a multiple of 16) as the A operand of a
/// warpgroup `mma`: in the accumulator layout its K/4 f16x2 words per thread are the A
/// fragment of K/16 K-steps, so a register-A WGMMA reads the tile as it is (`lower/body.rs`
/// declares it as both). The probabilities of an attention kernel, `p.at(i, j) =
/// __to<f16>(s.at(i, j))` then `mma.row.row o, p, v`, take this path.
fn register_a_use(cx: &Cx, tiles: &[Tile], s: StmtId) -> bool {
    let m = cx.m;
    let Stmt::MmaLoad { name, src, .. } = &m.stmts[s] else {
        return false;
    };
    let Some(t) = tile_of(cx, tiles, *src) else {
        return false;
    };
    let as_a = all_stmts(m).into_iter().any(|x| {
        matches!(&m.stmts[x], Stmt::Mma { a, .. } if a.name == name.name) && cx.in_group4(x)
    });
    matches!(m.exprs[*src], crate::ir::Expr::Name(_))
        && t.dtype == crate::ir::DType::F16
        && matches!(t.shape.as_slice(), [Some(64), Some(k)] if k % 16 == 0)
        && t.fixed
        && as_a
}

/// Whether declaration `decl` is a `frag` declaration whose tiles all lower
/// ([`lowerable_tile`]): its `frag` and `{v}` parts pass the gate.
pub(crate) fn lowered_tile_decl(cx: &Cx, decl: StmtId) -> bool {
    if super::wgmma::register_a_frags(cx).contains(&decl) {
        return false;
    }
    let ts: Vec<Tile> = tiles(cx).into_iter().filter(|t| t.decl == decl).collect();
    !ts.is_empty() && ts.iter().all(|t| lowerable_tile(cx, t))
}
