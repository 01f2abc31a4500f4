//! `cluster C;`: thread-block clusters of `C` blocks along the first `: block` variable, with the
//! operand the cluster's blocks share multicast by TMA (see the lowering's `cluster` pass). `C`
//! must evaluate, under the configuration and without problem sizes, to an integer in 1..=8 (the
//! portable cluster size limit); the kernel must take the Hopper path (TMA, mbarriers) and
//! rasterize its 2-D block level (`raster G;`), which places a cluster's blocks on adjacent rows.

use super::Cx;
use super::codes;
use super::occupancy::{IntItem, check_int_item, hopper_stmt};
use crate::diag::{Diagnostic, Diagnostics};

/// The portable limit on blocks per cluster (larger needs a non-portable opt-in).
pub const MAX_CLUSTER: i64 = 8;

pub(crate) fn check_cluster(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let Some(c) = m.cluster else { return };
    let span = m.expr_span(c);
    if hopper_stmt(m).is_none() {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_PATH,
                span,
                "`cluster` applies to Hopper kernels: its blocks share operands through TMA multicast and mbarriers, and this kernel has no `tma.copy` or events",
            )
            .with_help("remove the `cluster` item, or load the tiles with `tma.copy.async<event>`"),
        );
        return;
    }
    if m.raster.is_none() {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_PATH,
                span,
                "`cluster` places a cluster's blocks on adjacent rows of a rasterized grid; this kernel has no `raster`",
            )
            .with_help("add `raster G;` (G rows of tiles per group) to the header"),
        );
        return;
    }
    check_int_item(
        cx,
        c,
        &IntItem {
            keyword: "cluster",
            unit: "blocks per cluster",
            max: MAX_CLUSTER,
            code: codes::CLUSTER,
            help: "use a tunable such as `CLUSTER in [1, 2]`, or constrain it with a `require`",
            quantity: "cluster size",
        },
        diags,
    );
}

/// The portable limit raised by `cluster nonportable;` (Hopper's largest cluster).
pub const MAX_CLUSTER_NONPORTABLE: i64 = 16;

/// Whether `name` is a variable of the kernel's `: cluster` level.
pub(crate) fn is_cluster_var(m: &crate::ir::Module, name: &str) -> bool {
    m.cluster_level
        .as_ref()
        .is_some_and(|c| c.vars.iter().any(|v| v.name == name))
}

/// The kernel's `: block` level: the first level of its top-level `parallel` statement.
fn block_level(m: &crate::ir::Module) -> Option<&crate::ir::ParallelLevel> {
    m.kernel.body.iter().find_map(|&s| match &m.stmts[s] {
        crate::ir::Stmt::Parallel { levels, .. } => levels
            .first()
            .filter(|l| l.level == crate::ir::Level::Block),
        _ => None,
    })
}

/// The root name of a view (`lhs` of `lhs.subspan(…).at(…)`).
fn root(m: &crate::ir::Module, e: crate::ir::ExprId) -> Option<&str> {
    use crate::ir::Expr;
    match &m.exprs[e] {
        Expr::Name(n) => Some(n),
        Expr::Index { base, .. } | Expr::View { base, .. } | Expr::Field { base, .. } => {
            root(m, *base)
        }
        _ => None,
    }
}

fn mentions(m: &crate::ir::Module, e: crate::ir::ExprId, name: &str) -> bool {
    let mut hit = false;
    super::walk_expr(m, e, &mut |x| {
        hit |= matches!(&m.exprs[x], crate::ir::Expr::Name(n) if n == name);
    });
    hit
}

/// The block variables a multicast load of `src` is shared along: those of the cluster's
/// dimensions (`dims` of them, outermost block variable first) that `src` does not mention.
pub fn shared_dims(
    m: &crate::ir::Module,
    src: crate::ir::ExprId,
    block_vars: &[String],
    dims: usize,
) -> Vec<usize> {
    (0..dims.min(block_vars.len()))
        .filter(|&i| !mentions(m, src, &block_vars[i]))
        .collect()
}

/// The `: cluster` level and `.multicast` rules: the cluster shape (blocks per dimension and in
/// all, portable or opted in), the `: block` level it tiles (Hopper, 2-D), each multicast
/// statement (a TMA load from a global tensor into shared memory whose tile some blocks of the
/// cluster share), and the writes the padded grid allows (TMA stores only).
pub(crate) fn check_cluster_level(cx: &Cx, views: &super::view::Views, diags: &mut Diagnostics) {
    use crate::ir::{CopyDst, ExtStmt, MemSpace, Stmt, StmtId};
    let m = cx.m;
    let params: Vec<&str> = m
        .kernel
        .params
        .iter()
        .map(|p| p.name.name.as_str())
        .collect();
    let is_param = |e| root(m, e).is_some_and(|r| params.contains(&r));
    // `.multicast` statements: what they copy.
    for &(s, span) in &m.multicast {
        let (src, dst) = match &m.stmts[s] {
            Stmt::TmaCopy { src, dst, .. } => (*src, dst),
            Stmt::Ext(ExtStmt::DmaFuture { src, dst, .. }) => (*src, dst),
            _ => continue,
        };
        let into_shared = match dst {
            CopyDst::Fresh(space) => *space == MemSpace::Shared,
            CopyDst::Expr(d) => !is_param(*d),
        };
        if !is_param(src) || !into_shared {
            diags.push(
                Diagnostic::new(
                    codes::MULTICAST_NOT_TMA,
                    span,
                    "`.multicast` sends a tile loaded from global memory to the shared memory of several blocks; this copy is not a load from a global tensor into shared memory",
                )
                .with_help("remove `.multicast` (a TMA store writes one block's tile)"),
            );
            continue;
        }
        if m.cluster_level.is_none() {
            let msg = if m.cluster.is_some() {
                "`.multicast` chooses the loads a `: cluster` level multicasts; under the `cluster C;` header item the shared operand is multicast without it"
            } else {
                "`.multicast` needs thread-block clusters: this kernel has no `: cluster` level"
            };
            diags.push(
                Diagnostic::new(codes::MULTICAST_NO_CLUSTER, span, msg).with_help(
                    "wrap the `: block` level in `parallel {cm} by [2] : cluster { … }`, or remove `.multicast`",
                ),
            );
        }
    }
    if let (Some(span), None) = (m.cluster_nonportable, &m.cluster_level) {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_SHAPE,
                span,
                "`cluster nonportable` allows `: cluster` levels of up to 16 blocks, and this kernel has none",
            )
            .with_help("remove the item, or add a `parallel {cm} by [C] : cluster { … }` level"),
        );
    }
    let Some(c) = &m.cluster_level else { return };
    let Some(block) = block_level(m) else {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_GRID,
                c.span,
                "a `: cluster` level groups the blocks of a `: block` level, and this kernel has none",
            )
            .with_help("write `parallel {cm} by [2] : cluster { parallel {bm, bn} by [X, Y] : block { … } }`"),
        );
        return;
    };
    if hopper_stmt(m).is_none() {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_GRID,
                c.span,
                "a `: cluster` level applies to Hopper kernels (its blocks share tiles through TMA multicast and mbarriers), and this kernel has no `tma.copy` or events",
            )
            .with_help("remove the `: cluster` level, or load the tiles with `tma.copy.async<event>`"),
        );
        return;
    }
    if block.vars.len() != 2 || c.extents.len() > 2 {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_GRID,
                c.span,
                format!(
                    "a `: cluster` level tiles a 2-D `: block` level with one or two extents (blocks per cluster along its first and second variables); here the `: block` level has {} variable(s) and the cluster {} extent(s)",
                    block.vars.len(),
                    c.extents.len()
                ),
            )
            .with_note(block.level_span, "the `: block` level")
            .with_help("write `parallel {cm, cn} by [2, 1] : cluster { parallel {bm, bn} by [X, Y] : block { … } }`"),
        );
        return;
    }
    // Blocks per cluster: each extent, and their product.
    let max = if m.cluster_nonportable.is_some() {
        MAX_CLUSTER_NONPORTABLE
    } else {
        MAX_CLUSTER
    };
    let help = if m.cluster_nonportable.is_some() {
        "Hopper clusters hold at most 16 blocks"
    } else {
        "portable clusters hold at most 8 blocks; add `cluster nonportable;` to the header for up to 16 (H100/H200 only)"
    };
    let mut product = Some(1i64);
    for &e in &c.extents {
        if !cx.resolved(e) {
            product = None;
            continue;
        }
        match super::eval::eval(m, e, &cx.static_env) {
            Ok(v) if v >= 1 => product = product.map(|p| p.saturating_mul(v)),
            Ok(v) => {
                product = None;
                diags.push(
                    Diagnostic::new(
                        codes::CLUSTER_SHAPE,
                        m.expr_span(e),
                        format!(
                            "a cluster extent must be at least 1 block; `{}` is {v}{}",
                            m.expr_to_string(e),
                            super::occupancy::values(cx, e)
                        ),
                    )
                    .with_help("use a tunable such as `CLUSTER_M in [1, 2]`, or constrain it with a `require`"),
                );
            }
            Err(_) => {
                product = None;
                diags.push(
                    Diagnostic::new(
                        codes::CLUSTER_SHAPE,
                        m.expr_span(e),
                        format!(
                            "the cluster shape is fixed when the kernel is compiled, but `{}` has no value without the problem sizes",
                            m.expr_to_string(e)
                        ),
                    )
                    .with_help("write the extents over tunables and constants only"),
                );
            }
        }
    }
    if let Some(p) = product
        && p > max
    {
        let vals: String = c
            .extents
            .iter()
            .map(|&e| m.expr_to_string(e))
            .collect::<Vec<_>>()
            .join(" × ");
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_SHAPE,
                c.span,
                format!("this cluster holds {vals} = {p} blocks; the limit is {max}"),
            )
            .with_help(help),
        );
    }
    // Multicast loads: some blocks of the cluster must load the same tile.
    let block_vars: Vec<String> = block.vars.iter().map(|v| v.name.clone()).collect();
    for &(s, span) in &m.multicast {
        let src = match &m.stmts[s] {
            Stmt::TmaCopy { src, .. } => *src,
            Stmt::Ext(ExtStmt::DmaFuture { src, .. }) => *src,
            _ => continue,
        };
        if !is_param(src) {
            continue;
        }
        if shared_dims(m, src, &block_vars, c.extents.len()).is_empty() {
            let along: Vec<String> = block_vars
                .iter()
                .take(c.extents.len())
                .map(|v| format!("`{v}`"))
                .collect();
            diags.push(
                Diagnostic::new(
                    codes::MULTICAST_UNSHARED,
                    span,
                    format!(
                        "this tile depends on {}, along which the cluster's blocks lie, so no two blocks of a cluster load the same tile: there is nothing to multicast",
                        along.join(" and ")
                    ),
                )
                .with_note(m.expr_span(src), "the tile")
                .with_help("multicast the operand the blocks share (the one indexed by the other block variable), or give the cluster an extent along a variable this tile does not use"),
            );
        }
    }
    // Each block of a multicast group loads rows/slices of the tile: whole 8-row swizzle atoms.
    let extent = |i: usize| {
        c.extents
            .get(i)
            .filter(|&&e| cx.resolved(e))
            .and_then(|&e| super::eval::eval(m, e, &cx.static_env).ok())
    };
    for &(s, span) in &m.multicast {
        let Stmt::TmaCopy { src, .. } = &m.stmts[s] else {
            continue;
        };
        if !is_param(*src) {
            continue;
        }
        let dims = shared_dims(m, *src, &block_vars, c.extents.len());
        let slices = dims.iter().map(|&i| extent(i)).product::<Option<i64>>();
        check_slices(cx, views, *src, span, slices, diags);
    }
    // A multicast load writes into its peers' shared memory: in its statement list it must
    // follow a `wait` (the ring's "stage is free" event, which then counts every block's
    // consumers).
    let shared = |s: StmtId| match &m.stmts[s] {
        Stmt::TmaCopy {
            event: Some(_),
            src,
            ..
        } => {
            m.is_multicast(s)
                && is_param(*src)
                && !shared_dims(m, *src, &block_vars, c.extents.len()).is_empty()
        }
        _ => false,
    };
    let mut lists: Vec<&[StmtId]> = vec![&m.kernel.body];
    while let Some(list) = lists.pop() {
        let mut waited = false;
        for &s in list {
            if shared(s) && !waited {
                diags.push(
                    Diagnostic::new(
                        codes::MULTICAST_WAIT,
                        m.stmt_span(s),
                        "this load is multicast into other blocks of the cluster, so it must first wait for an event that says the destination is free in all of them",
                    )
                    .with_help("wait on the ring's free-stage event before it (`wait empty[stage];`)"),
                );
            }
            waited |= matches!(m.stmts[s], Stmt::Wait { .. });
            lists.extend(
                super::stmt_blocks(&m.stmts[s])
                    .into_iter()
                    .map(|b| b.as_slice()),
            );
        }
    }
    // The grid is padded to whole clusters: a block past the edge must not write global memory
    // except through TMA stores (clipped at the tensor's bounds).
    for s in super::all_stmts(m) {
        let target = match &m.stmts[s] {
            Stmt::DmaCopy {
                dst: CopyDst::Expr(d),
                ..
            } => Some(*d),
            Stmt::Ext(ExtStmt::DmaFuture {
                tma: false,
                dst: CopyDst::Expr(d),
                ..
            }) => Some(*d),
            Stmt::MmaStore { dst, .. } => Some(*dst),
            Stmt::Assign { target, .. } => Some(*target),
            _ => None,
        };
        if let Some(t) = target
            && is_param(t)
        {
            diags.push(
                Diagnostic::new(
                    codes::CLUSTER_PADDED_WRITE,
                    m.stmt_span(s),
                    "under a `: cluster` level the grid is padded to whole clusters, so blocks past the tensor's edge run this statement; only TMA stores (`tma.copy tile => global`) are clipped at the edge",
                )
                .with_note(c.span, "the cluster level")
                .with_help("stage the tile in shared memory and store it with `tma.copy`"),
            );
        }
    }
}

/// The lowering gate for clusters: a `: cluster` variable used as a value, and `.multicast`
/// on a TMA load bound to a future.
pub(crate) fn gate(cx: &Cx, diags: &mut Diagnostics) {
    use crate::ir::{Expr, ExtStmt, Stmt};
    let m = cx.m;
    let not_lowered = |code, span, what: &str| {
        Diagnostic::new(code, span, format!("not supported yet: {what}")).with_help(
            "`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet",
        )
    };
    if let Some(c) = &m.cluster_level {
        for (e, x) in m.exprs.iter() {
            if let Expr::Name(n) = x
                && c.vars.iter().any(|v| &v.name == n)
                && !cx.res.bindings.contains_key(&e)
            {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_CLUSTER_RANK,
                    m.expr_span(e),
                    &format!("a block's coordinate in its cluster (`{n}`) as a value"),
                ));
            }
        }
    }
    for &(s, span) in &m.multicast {
        // Lowered: with an event (`tma.copy.async<e>.multicast`) and synchronous
        // (`tma.copy.multicast`); not the forms bound to a future.
        let bound = matches!(&m.stmts[s], Stmt::Ext(ExtStmt::DmaFuture { .. }))
            || matches!(&m.stmts[s], Stmt::TmaCopy { bind: Some(_), .. });
        if bound {
            diags.push(not_lowered(
                codes::NOT_LOWERED_SYNC_MULTICAST,
                span,
                "`.multicast` on a TMA load bound to a future (write `tma.copy.async<full[stage]>.multicast …` after a `wait` for the stage, or the synchronous `tma.copy.multicast …`)",
            ));
        }
    }
}

/// A multicast tile of `src` is loaded in `slices` slices of its rows, one per block sharing it:
/// each must be whole 8-row swizzle atoms (the lowering's layout of the slices in shared memory).
fn check_slices(
    cx: &Cx,
    views: &super::view::Views,
    src: crate::ir::ExprId,
    span: crate::span::Span,
    slices: Option<i64>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    let (Some(slices), Some(rows)) = (
        slices.filter(|&n| n > 1),
        views
            .get(src)
            .and_then(|v| v.shape.first())
            .and_then(|d| cx.dim_value(d)),
    ) else {
        return;
    };
    if rows % slices.saturating_mul(8) != 0 {
        diags.push(
            Diagnostic::new(
                codes::MULTICAST_SLICE,
                span,
                format!(
                    "this {rows}-row tile is shared by {slices} blocks, each loading {} of its rows; a slice must be a whole number of 8-row swizzle atoms (rows a multiple of {})",
                    if rows % slices == 0 { format!("{}", rows / slices) } else { format!("{rows}/{slices}") },
                    slices.saturating_mul(8)
                ),
            )
            .with_note(m.expr_span(src), "the tile")
            .with_help("choose tile rows that are a multiple of 8 × the blocks sharing it, e.g. with a `require`"),
        );
    }
}
