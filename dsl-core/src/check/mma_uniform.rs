//! One tile per collective `mma`: a warp-level `mma` (`mma.sync`) is one instruction of a whole
//! warp, a WGMMA one of a whole warpgroup, so the tile an `mma.load` under it reads and the tile
//! an `mma.store` writes must be the same for every thread of that warp or warpgroup. An index
//! that depends on a variable of a level inside it — a `: thread` variable, or a `: group`
//! variable under a `: group-4` level of its own — names a different tile in different threads,
//! which no instruction can do (E0913).
//!
//! A name depends on such a variable through a `let`, a scalar's initial value or any value
//! assigned to it, or a loop whose extents do; every other name (tunables, constants, problem
//! sizes, scalar parameters, buffers) is the same for every thread.

use super::{Binding, Cx, all_stmts, codes, walk_expr};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Expr, ExprId, Level, Stmt, StmtId};

/// How deep the levels nest: a variable of a deeper level than the unit differs within it.
fn depth(l: Level) -> u8 {
    match l {
        Level::Block => 0,
        Level::Group4 => 1,
        Level::Group => 2,
        Level::Thread => 3,
    }
}

pub(crate) fn check(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in all_stmts(m) {
        let (tile, what) = match &m.stmts[s] {
            Stmt::MmaLoad { src, .. } => (*src, "`mma.load` reads"),
            Stmt::MmaStore { dst, .. } => (*dst, "`mma.store` writes"),
            _ => continue,
        };
        let (unit, unit_name, collective) = if cx.in_warp_mma(s) {
            (Level::Group, "warp", "an `mma.sync`")
        } else if cx.in_group4(s) {
            (Level::Group4, "warpgroup", "a WGMMA")
        } else {
            continue;
        };
        if let Some((at, var, level)) = varying(cx, tile, unit, 0) {
            let kind = match level {
                Level::Group => "`: group`",
                _ => "`: thread`",
            };
            let mut d = Diagnostic::new(
                codes::MMA_TILE_VARIES,
                m.expr_span(tile),
                format!(
                    "the tile this {what} differs between the threads of one {unit_name}: it \
                     depends on `{var}`, a {kind} variable, but {collective} is one \
                     instruction of the whole {unit_name}"
                ),
            )
            .with_help(format!(
                "index the tile by variables of the {unit_name}'s own level or outside it (one \
                 tile per {unit_name})"
            ));
            if at != tile {
                d = d.with_note(m.expr_span(at), format!("`{var}` is used here"));
            }
            diags.push(d);
        }
    }
}

/// The first name in `e` whose value may differ between the threads of one unit of level
/// `unit`, with the variable it comes from and that variable's level.
pub(crate) fn varying(cx: &Cx, e: ExprId, unit: Level, d: u32) -> Option<(ExprId, String, Level)> {
    let m = cx.m;
    if d > 16 {
        return None;
    }
    let mut found = None;
    walk_expr(m, e, &mut |x| {
        if found.is_some() {
            return;
        }
        let Expr::Name(name) = &m.exprs[x] else {
            return;
        };
        found = match cx.res.bindings.get(&x).copied() {
            Some(Binding::ParallelVar { stmt, level, .. }) => match &m.stmts[stmt] {
                Stmt::Parallel { levels, .. } => levels
                    .get(level)
                    .filter(|l| depth(l.level) > depth(unit))
                    .map(|l| (x, name.clone(), l.level)),
                _ => None,
            },
            Some(Binding::LoopVar { stmt, .. }) => match &m.stmts[stmt] {
                Stmt::Foreach { extents, .. } => extents
                    .iter()
                    .find_map(|&v| varying(cx, v, unit, d + 1))
                    .map(|(_, v, l)| (x, v, l)),
                _ => None,
            },
            Some(Binding::Let(s)) => match &m.stmts[s] {
                Stmt::Let { value, .. } => {
                    varying(cx, *value, unit, d + 1).map(|(_, v, l)| (x, v, l))
                }
                _ => None,
            },
            Some(Binding::Scalar(s)) => scalar_values(cx, s)
                .into_iter()
                .find_map(|v| varying(cx, v, unit, d + 1))
                .map(|(_, v, l)| (x, v, l)),
            Some(Binding::Future(s)) => fresh_shared_sources(m, s)
                .into_iter()
                .find_map(|v| varying(cx, v, unit, d + 1))
                .map(|(_, v, l)| (x, v, l)),
            _ => None,
        };
    });
    found
}

/// The sources of every synchronous `dma.copy` into the fresh shared buffer of the future that
/// `def` binds (each binding of its name: they share one buffer). A buffer whose tile differs
/// between threads is each thread's own ([`per_thread_fresh`]), so its contents differ
/// where a source does.
pub(crate) fn fresh_shared_sources(m: &crate::ir::Module, def: StmtId) -> Vec<ExprId> {
    let Some(name) = fresh_shared_name(m, def) else {
        return Vec::new();
    };
    all_stmts(m)
        .into_iter()
        .filter(|&s| fresh_shared_name(m, s) == Some(name))
        .filter_map(|s| match &m.stmts[s] {
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture { src, .. }) => Some(*src),
            _ => None,
        })
        .collect()
}

/// The name bound by a `dma.copy` (without TMA) into a fresh shared buffer.
pub(crate) fn fresh_shared_name(m: &crate::ir::Module, s: StmtId) -> Option<&str> {
    match &m.stmts[s] {
        Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
            tma: false,
            bind: Some(f),
            dst: crate::ir::CopyDst::Fresh(crate::ir::MemSpace::Shared),
            ..
        }) => Some(&f.name),
        _ => None,
    }
}

/// Every value the scalar declared by `decl` takes: its initial value and each one assigned.
fn scalar_values(cx: &Cx, decl: StmtId) -> Vec<ExprId> {
    let m = cx.m;
    let init = match &m.stmts[decl] {
        Stmt::ScalarDecl { init, .. } => *init,
        _ => None,
    };
    init.into_iter()
        .chain(all_stmts(m).into_iter().filter_map(|s| match &m.stmts[s] {
            Stmt::Assign { target, value, .. }
                if cx.res.bindings.get(target) == Some(&Binding::Scalar(decl)) =>
            {
                Some(*value)
            }
            _ => None,
        }))
        .collect()
}

/// The fresh shared buffers that are each thread's own: `f = dma.copy src => shared;` whose
/// tile differs between the block's threads (Croqtile's reading: each thread copies its own
/// tile). Such a buffer has one slot per thread of the block, and every binding of its name
/// copies per thread.
pub(crate) fn per_thread_fresh(cx: &Cx) -> std::collections::BTreeSet<String> {
    all_stmts(cx.m)
        .into_iter()
        .filter_map(|s| {
            let name = fresh_shared_name(cx.m, s)?;
            fresh_shared_sources(cx.m, s)
                .into_iter()
                .any(|src| varying(cx, src, Level::Block, 0).is_some())
                .then(|| name.to_string())
        })
        .collect()
}
