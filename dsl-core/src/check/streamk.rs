//! `streamk;`: stream-K for the last wave of a persistent kernel (`ir::Module::streamk`, lowered
//! by `lower/streamk.rs`). Each block walks segments — a tile and a range of its k-iterations —
//! instead of whole tiles, so the lowering must know which loop is the k-loop and which
//! accumulator its partial sums go into: the kernel walks its tiles (`persistent`, E1650) with
//! every consumer warpgroup on every tile (not `pingpong`, E1651) and a `: block` level not
//! under a `: cluster` level (`cluster C;` is fine, E1652); it is a warp-specialized WGMMA
//! kernel, every `inthreads` branch has exactly one main loop — a top-level `foreach` of one
//! variable over its whole range that waits on an event — all over the same extent, which does
//! not depend on the tile; a segment starts mid-tile, so the loop's waits are on rings, not
//! generations `e.at(k)`, and its body compares its index with nothing (`k > 0` would not mark
//! the tile's first k-tile) (E1653); the main loops' `mma`s accumulate into exactly one fragment,
//! filled with `mma.fill.f32` (the partial sums meet in an f32 workspace, E1654).

use super::{Cx, all_stmts, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{DType, Module, Stmt, StmtId};
use crate::sym::Sym;
use std::collections::BTreeSet;

fn waits(m: &Module, b: &[StmtId]) -> bool {
    b.iter().any(|&s| {
        matches!(m.stmts[s], Stmt::Wait { .. })
            || super::stmt_blocks(&m.stmts[s])
                .into_iter()
                .any(|inner| waits(m, inner))
    })
}

/// The branch's main loop: its one top-level `foreach` that waits on an event (`None` when
/// there is none or more than one).
pub fn main_loop(m: &Module, body: &[StmtId]) -> Option<StmtId> {
    let mut loops = body.iter().copied().filter(|&s| match &m.stmts[s] {
        Stmt::Foreach { body, .. } => waits(m, body),
        _ => false,
    });
    let first = loops.next()?;
    loops.next().is_none().then_some(first)
}

/// A comparison (`<`, `==`, …) that mentions the index `iv` of loop `l`, in its body.
fn compares_index(m: &Module, l: StmtId, iv: &str) -> Option<crate::ir::ExprId> {
    use crate::ir::{BinaryOp::*, Expr};
    let mut stack: Vec<StmtId> = match &m.stmts[l] {
        Stmt::Foreach { body, .. } => body.clone(),
        _ => return None,
    };
    let mut found = None;
    while let Some(s) = stack.pop() {
        for e in super::stmt_exprs(&m.stmts[s]) {
            super::walk_expr(m, e, &mut |x| {
                if let Expr::Binary { op, lhs, rhs } = &m.exprs[x]
                    && matches!(op, Lt | Le | Gt | Ge | Eq | Ne)
                    && (super::kernel_scope::mentions(m, *lhs, iv)
                        || super::kernel_scope::mentions(m, *rhs, iv))
                {
                    found.get_or_insert(x);
                }
            });
        }
        for inner in super::stmt_blocks(&m.stmts[s]) {
            stack.extend(inner.iter().copied());
        }
    }
    found
}

/// The accumulators the `mma`s of `s` (nested) add into.
pub fn accumulators(m: &Module, s: StmtId) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![s];
    while let Some(x) = stack.pop() {
        if let Stmt::Mma { acc, .. } = &m.stmts[x] {
            out.insert(acc.name.clone());
        }
        for inner in super::stmt_blocks(&m.stmts[x]) {
            stack.extend(inner.iter().copied());
        }
    }
    out
}

pub(crate) fn check_streamk(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let Some(span) = m.streamk else { return };
    let err = |code: &'static str, msg: String, help: &str| {
        Diagnostic::new(code, span, msg).with_help(help.to_string())
    };
    if m.persistent.is_none() {
        diags.push(err(
            codes::STREAMK_PERSISTENT,
            "`streamk` splits the last wave of the tiles a block walks; this kernel is not `persistent`".into(),
            "add `persistent;` to the header (or drop `streamk`)",
        ));
        return;
    }
    if m.pingpong.is_some() {
        diags.push(err(
            codes::STREAMK_PINGPONG,
            "`streamk` and `pingpong` both decide which tiles a warpgroup runs; use one".into(),
            "drop `pingpong` (the consumer warpgroups then share every tile) or `streamk`",
        ));
        return;
    }
    if m.cluster_level.is_some() {
        diags.push(err(
            codes::STREAMK_CLUSTER_LEVEL,
            "`streamk` walks clusters of blocks along the first block variable; this kernel has a `: cluster` level".into(),
            "write the cluster as a header `cluster C;` instead of a `: cluster` level",
        ));
        return;
    }
    let branches: Vec<StmtId> = all_stmts(m)
        .into_iter()
        .filter(|&s| matches!(m.stmts[s], Stmt::InThreads { .. }))
        .collect();
    let block_vars: Vec<String> = all_stmts(m)
        .into_iter()
        .filter_map(|s| match &m.stmts[s] {
            Stmt::Parallel { levels, .. } => Some(levels.clone()),
            _ => None,
        })
        .flatten()
        .filter(|l| l.level == crate::ir::Level::Block)
        .flat_map(|l| l.vars.into_iter().map(|v| v.name))
        .collect();
    if cx.lowering_path() != super::LoweringPath::Hopper || branches.is_empty() {
        diags.push(err(
            codes::STREAMK_MAIN_LOOP,
            "`streamk` splits the k-loops of a warp-specialized WGMMA kernel's `inthreads` branches; this kernel has none".into(),
            "write a producer `inthreads.async (wg == 0 && t == 0) { foreach {k} … }` and consumers `inthreads.async (wg >= 1) { foreach {k} … }` (see kernels/v4_streamk.co)",
        ));
        return;
    }
    let loop_help = "give each `inthreads` branch one `foreach {k} in [cdiv(K, TILE_K)] { wait …; … }` over the same K-tiles, the other statements outside it";
    let mut extents: Vec<Option<Sym>> = Vec::new();
    let mut accs = BTreeSet::new();
    for &b in &branches {
        let Stmt::InThreads { body, .. } = &m.stmts[b] else {
            continue;
        };
        let Some(l) = main_loop(m, body) else {
            diags.push(err(
                codes::STREAMK_MAIN_LOOP,
                "`streamk` splits each tile's k-loop; an `inthreads` branch has no loop that waits on an event, or more than one".into(),
                loop_help,
            ));
            return;
        };
        let Stmt::Foreach {
            vars, extents: ex, ..
        } = &m.stmts[l]
        else {
            continue;
        };
        let ranged = (0..vars.len()).any(|i| m.loop_range(l, i).is_some());
        let tile_dependent = ex.iter().any(|&e| {
            block_vars
                .iter()
                .any(|n| super::kernel_scope::mentions(m, e, n))
        });
        if vars.len() != 1 || ranged || tile_dependent {
            diags.push(err(
                codes::STREAMK_MAIN_LOOP,
                "`streamk` runs each segment's part of the k-loop; the main loop must be a `foreach` of one variable over its whole extent, the same for every tile".into(),
                loop_help,
            ));
            return;
        }
        // The loop's first iteration is the segment's, not 0: a comparison of its index (`k > 0`,
        // `k == K_TILES - 1`) would single out the wrong iteration.
        if let Some(at) = compares_index(m, l, &vars[0].name) {
            diags.push(
                Diagnostic::new(
                    codes::STREAMK_MAIN_LOOP,
                    m.expr_span(at),
                    format!(
                        "under `streamk` the main loop runs over a segment of the k-tiles, so `{}` compared here does not mark the tile's first or last k-tile",
                        vars[0].name
                    ),
                )
                .with_help("let the loop body depend on its index only through values (`k % STAGES`, `.at(…, k)`), or drop `streamk`"),
            );
            return;
        }
        extents.push(Sym::from_expr(m, ex[0]));
        accs.extend(accumulators(m, l));
    }
    if extents.iter().any(|e| e.is_none() || *e != extents[0]) {
        diags.push(err(
            codes::STREAMK_MAIN_LOOP,
            "`streamk` hands each branch the same k-iterations of a tile; the branches' main loops run over different extents".into(),
            loop_help,
        ));
        return;
    }
    // A generation wait counts phases from the user's index, which a segment starts mid-tile.
    for s in all_stmts(m) {
        if let Stmt::Wait { event } = &m.stmts[s]
            && matches!(m.exprs[*event], crate::ir::Expr::View { .. })
        {
            diags.push(
                Diagnostic::new(
                    codes::STREAMK_MAIN_LOOP,
                    m.expr_span(*event),
                    "under `streamk` a segment starts mid-tile, so an event generation `e.at(k)` would count the wrong phases",
                )
                .with_help("wait on the ring's barrier instead: `wait e[k % N];` (its parity bits follow the waits)"),
            );
            return;
        }
    }
    let f32_fill = |name: &str| {
        m.stmts.iter().any(|(_, s)| {
            matches!(s, Stmt::MmaFill { name: n, dtype: DType::F32, .. } if n.name == name)
        })
    };
    match accs.iter().collect::<Vec<_>>().as_slice() {
        [a] if f32_fill(a) => {}
        _ => diags.push(err(
            codes::STREAMK_ACCUMULATOR,
            format!(
                "`streamk` adds the partial sums of a tile in f32; the main loops accumulate into {}",
                if accs.is_empty() {
                    "no `mma` fragment".to_string()
                } else {
                    format!(
                        "{} ({})",
                        accs.iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", "),
                        "one fragment filled with `mma.fill.f32` is needed"
                    )
                }
            ),
            "accumulate into one fragment `mc = mma.fill.f32 0.0f;`",
        )),
    }
}
