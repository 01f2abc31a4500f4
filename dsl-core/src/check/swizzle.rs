//! Swizzle: every stated `.swiz<N>` is 32, 64 or 128; a `tma.copy` into a shared tensor and
//! the `mma.load`s from it use one swizzle (stated on one side, inferred on the other; a
//! disagreement is an error at both); a swizzled tensor's contiguous row (last dim × element
//! size) is exactly the swizzle width. A WGMMA operand tile no statement states a swizzle for
//! takes the swizzle of its rows when tessel writes every byte of it (`implicit`): its layout
//! is then tessel's to choose, as Croqtile chooses the layout of its shared buffers.

use super::view::Views;
use super::{Binding, Cx, DimExpr, FragInfo, FragKind, all_stmts, at_expr, codes};
use crate::diag::Diagnostics;
use crate::ir::{CopyDst, ExprId, ExtStmt, MemSpace, Stmt, StmtId};
use std::collections::HashMap;

struct Site {
    stmt: StmtId,
    is_load: bool,
    /// The stated swizzle: its expression and (valid) value.
    stated: Option<(ExprId, Option<u32>)>,
}

/// The swizzle of each `tma.copy` (also a TMA future's) and `mma.load`: its value in bytes (0 = none) under the
/// config, and the expression it comes from (its own `.swiz<…>`, else the one stated on the
/// other side of the same shared tensor; absent for an unswizzled site).
pub(crate) struct Swizzles {
    pub bytes: HashMap<StmtId, u32>,
    pub source: HashMap<StmtId, ExprId>,
    /// The sites of the tiles whose swizzle no statement states (`implicit`), with the
    /// swizzle chosen for them; also in `bytes`.
    pub implicit: HashMap<StmtId, u32>,
}

pub(crate) fn check_swizzle(
    cx: &Cx,
    views: &Views,
    frags: &HashMap<StmtId, FragInfo>,
    diags: &mut Diagnostics,
) -> Swizzles {
    let m = cx.m;
    let mut out = HashMap::new();
    let mut source = HashMap::new();
    let mut implicit_sites = HashMap::new();
    let mut groups: Vec<(Binding, Vec<Site>)> = Vec::new();
    for s in all_stmts(m) {
        let (sw, shared_side, is_load) = match &m.stmts[s] {
            Stmt::TmaCopy {
                swizzle, src, dst, ..
            } => {
                let dst_view = match dst {
                    CopyDst::Expr(d) => views.get(*d).map(|v| (v.root, v.space)),
                    CopyDst::Fresh(sp) => Some((Binding::Future(s), *sp)),
                };
                let src_view = views.get(*src).map(|v| (v.root, v.space));
                let side = [dst_view, src_view]
                    .into_iter()
                    .flatten()
                    .find(|(_, sp)| *sp == MemSpace::Shared)
                    .map(|(r, _)| r);
                (*swizzle, side, false)
            }
            Stmt::MmaLoad { swizzle, src, .. } => (
                *swizzle,
                views
                    .get(*src)
                    .map(|v| v.root)
                    .or_else(|| future_root(cx, *src)),
                true,
            ),
            // `f = tma.copy.swiz<N> … => shared;` (and `f = dma.copy.swiz<N> …`, or a plain
            // `f = dma.copy … => shared;`): the future's fresh buffer has the swizzle.
            Stmt::Ext(ExtStmt::DmaFuture {
                bind: Some(_),
                modifiers,
                dst: CopyDst::Fresh(MemSpace::Shared),
                ..
            }) => {
                let swz = modifiers
                    .iter()
                    .find(|(n, _)| n.name == "swiz")
                    .and_then(|(_, a)| a.first().copied());
                (swz, Some(Binding::Future(s)), false)
            }
            _ => continue,
        };
        let stated = sw.map(|e| {
            let v = cx.value(e);
            match v {
                Some(v) if [32, 64, 128].contains(&v) => (e, Some(v as u32)),
                // A `dma.copy` may state other swizzles (the gate keeps them unlowered).
                Some(_) if dma_future(m, Binding::Future(s)) => (e, None),
                Some(v) => {
                    diags.push(
                        at_expr(m, codes::SWIZZLE_VALUE, e, format!("swizzle must be 32, 64 or 128 bytes, not {}", cx.describe_value(e, v)))
                            .with_help("use .swiz<128> for 64-element f16 rows (128 B), .swiz<64> for 32-element rows"),
                    );
                    (e, None)
                }
                None => (e, None),
            }
        });
        out.insert(s, stated.and_then(|(_, v)| v).unwrap_or(0));
        if let Some((e, _)) = stated {
            source.insert(s, e);
        }
        let site = Site {
            stmt: s,
            is_load,
            stated,
        };
        if let Some(root) = shared_side {
            match groups.iter_mut().find(|(r, _)| *r == root) {
                Some((_, g)) => g.push(site),
                None => groups.push((root, vec![site])),
            }
        }
    }

    for (root, sites) in &groups {
        let stated: Vec<(&Site, ExprId, u32)> = sites
            .iter()
            .filter_map(|s| s.stated.and_then(|(e, v)| v.map(|v| (s, e, v))))
            .collect();
        // The mma.load's swizzle is the source of truth; the copy must agree with it.
        let truth = stated
            .iter()
            .find(|(s, _, _)| s.is_load)
            .or(stated.first())
            .copied();
        let Some((tsite, texpr, tval)) = truth else {
            if let Some(v) = implicit(cx, views, frags, *root, sites) {
                for s in sites {
                    out.insert(s.stmt, v);
                    implicit_sites.insert(s.stmt, v);
                }
            }
            continue;
        };
        let mut conflict = false;
        for &(_, e, v) in &stated {
            if v != tval {
                conflict = true;
                let (what, other) = if tsite.is_load {
                    ("mma.load", "reads")
                } else {
                    ("tma.copy", "writes")
                };
                let name = cx.binding_name(*root);
                diags.push(
                    at_expr(
                        m,
                        codes::SWIZZLE_MISMATCH,
                        e,
                        format!("swizzle {v} here, but the {what} that {other} `{name}` uses swizzle {tval}"),
                    )
                    .with_note(m.expr_span(texpr), format!("swizzle {tval} stated here"))
                    .with_help(format!(
                        "a tma.copy must write `{name}` in the layout the mma.load reads: use .swiz<{tval}> on both (or state it once)"
                    )),
                );
            }
        }
        for s in sites {
            if s.stated.is_none() {
                out.insert(s.stmt, tval);
                source.insert(s.stmt, texpr);
            }
        }
        // A `dma.copy.swiz` future's buffer: the lowering's gate decides which rows it lowers
        // (`check/support.rs`); Croqtile swizzles other row widths too.
        if conflict || dma_future(m, *root) {
            continue;
        }
        // Row bytes of the shared tensor.
        let Some(v) = sites
            .iter()
            .find_map(|s| site_view(cx, views, s.stmt, *root))
        else {
            continue;
        };
        let Some(last) = v.decl_shape.last() else {
            continue;
        };
        let Some(elems) = cx.dim_value(last) else {
            continue;
        };
        let size = v.dtype.size_bytes() as i64;
        let row = elems.saturating_mul(size);
        if row != tval as i64 {
            let name = cx.binding_name(*root);
            let mut d = at_expr(
                m,
                codes::SWIZZLE_ROW,
                texpr,
                format!(
                    "swizzle {tval} needs {tval}-byte rows, but `{name}` rows are {} × {} = {elems} × {size} = {row} bytes",
                    cx.describe_dim(last).split(" = ").next().unwrap_or(""),
                    v.dtype
                ),
            );
            if let DimExpr::Expr(le) = last.expr {
                d = d.with_note(m.expr_span(le), "the contiguous (last) dimension");
            }
            let help = if [32, 64, 128].contains(&row) {
                format!(
                    "use .swiz<{row}>, or make the rows {tval} bytes ({} elements)",
                    tval as i64 / size
                )
            } else {
                format!(
                    "make the rows {tval} bytes ({} {} elements)",
                    tval as i64 / size,
                    v.dtype
                )
            };
            diags.push(d.with_help(help));
        }
    }
    Swizzles {
        bytes: out,
        source,
        implicit: implicit_sites,
    }
}

/// The swizzle of a shared tile no statement states one for (`root`, touched by `sites`): the
/// width of its rows (32, 64 or 128 bytes) where it is a WGMMA operand (read through a
/// descriptor, or into registers) and tessel writes every byte of it — each writer a `tma.copy` or a synchronous
/// `f = dma.copy src => shared;` of a 2-D global tile the block copies together
/// (`lower/dma_swiz.rs`) — and no other statement names it (an element access would see the
/// layout). `None` keeps the tile unswizzled, and an operand of it `E1422`.
fn implicit(
    cx: &Cx,
    views: &Views,
    frags: &HashMap<StmtId, FragInfo>,
    root: Binding,
    sites: &[Site],
) -> Option<u32> {
    let m = cx.m;
    // An operand read into registers (`mma.load t, a_frag`) loads at swizzled addresses too.
    let operand = sites.iter().any(|s| {
        s.is_load
            && frags
                .get(&s.stmt)
                .is_some_and(|f| matches!(f.kind, FragKind::A | FragKind::B))
    });
    if cx.warp_kernel() || cx.tma_warp_kernel() {
        return None;
    }
    let writers_lower = sites.iter().all(|s| match &m.stmts[s.stmt] {
        Stmt::MmaLoad { .. } => true,
        // A TMA copy of the whole tile (or array entry): a box of the tile's rows.
        Stmt::TmaCopy { src, dst, .. } => {
            let whole = |e: crate::ir::ExprId| match &m.exprs[e] {
                crate::ir::Expr::Name(_) => true,
                crate::ir::Expr::Index { base, .. } => {
                    matches!(m.exprs[*base], crate::ir::Expr::Name(_))
                }
                _ => false,
            };
            let shared_side = match dst {
                CopyDst::Expr(d) if super::sparse::root_binding(cx, *d) == Some(root) => *d,
                _ => *src,
            };
            matches!(dst, CopyDst::Fresh(_)) || whole(shared_side)
        }
        Stmt::Ext(ExtStmt::DmaFuture {
            tma,
            is_async: false,
            after: None,
            modifiers,
            src,
            ..
        }) => {
            modifiers.is_empty()
                && (*tma
                    || (super::support::block_uniform(cx, s.stmt)
                        && matches!(super::support::root_space(cx, *src), Some(MemSpace::Global))))
        }
        _ => false,
    });
    if !operand || !writers_lower || named_elsewhere(cx, root, sites) {
        return None;
    }
    let (rows, dtype) = match root {
        Binding::Future(f) => {
            let src = match &m.stmts[f] {
                Stmt::Ext(ExtStmt::DmaFuture { src, .. }) => *src,
                _ => return None,
            };
            let (tile, dtype) = super::fresh_tile(m, &cx.res.bindings, src)?;
            (
                tile.iter()
                    .map(|d| cx.sym_value(d))
                    .collect::<Option<Vec<_>>>()?,
                dtype,
            )
        }
        _ => {
            let v = sites
                .iter()
                .find_map(|s| site_view(cx, views, s.stmt, root))?;
            let dims = v.decl_shape.iter().map(|d| cx.dim_value(d));
            (dims.collect::<Option<Vec<_>>>()?, v.dtype)
        }
    };
    let [_, cols] = rows.as_slice() else {
        return None;
    };
    let row = cols.checked_mul(dtype.size_bytes() as i64)?;
    [32, 64, 128].contains(&row).then_some(row as u32)
}

/// Whether a statement other than `sites` (and the `mma`s, which name fragments) names the
/// tile `root`.
fn named_elsewhere(cx: &Cx, root: Binding, sites: &[Site]) -> bool {
    let m = cx.m;
    all_stmts(m).into_iter().any(|s| {
        if sites.iter().any(|x| x.stmt == s) {
            return false;
        }
        let mut named = false;
        for e in super::stmt_exprs(&m.stmts[s]) {
            super::walk_expr(m, e, &mut |x| {
                named |= cx.res.bindings.get(&x) == Some(&root);
            });
        }
        named
    })
}

/// Whether `root` is the fresh buffer of a `dma.copy` (not TMA) future.
fn dma_future(m: &crate::ir::Module, root: Binding) -> bool {
    matches!(root, Binding::Future(d) if matches!(m.stmts[d], Stmt::Ext(ExtStmt::DmaFuture { tma: false, .. })))
}

/// The view of `root` that statement `s` touches.
fn site_view<'v>(
    cx: &Cx,
    views: &'v Views,
    s: StmtId,
    root: Binding,
) -> Option<&'v super::view::VState> {
    let exprs = super::stmt_exprs(&cx.m.stmts[s]);
    exprs
        .into_iter()
        .filter_map(|e| views.get(e))
        .find(|v| v.root == root)
}

/// The future whose fresh buffer `e` reads (`f`, `f.chunkat(…)`, `f[i]`), where the view
/// analysis has no view of it (a TMA future's buffer).
fn future_root(cx: &Cx, mut e: ExprId) -> Option<Binding> {
    use crate::ir::Expr;
    loop {
        match &cx.m.exprs[e] {
            Expr::View { base, .. } | Expr::Index { base, .. } => e = *base,
            Expr::Name(_) => {
                return match cx.res.bindings.get(&e) {
                    Some(b @ Binding::Future(_)) => Some(*b),
                    _ => None,
                };
            }
            _ => return None,
        }
    }
}
