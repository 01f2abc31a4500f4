//! What lowering can translate. Every restriction of the lowering that a well-formed kernel can
//! run into is a diagnostic here, with its own code, so that `check` ok means `emit` ok:
//!
//! - `a # b` composes with a loop or parallel variable `b` (whose extent is the stride);
//! - sizes (extents, shapes, counts, `.subspan` sizes): integer arithmetic
//!   the lowering can keep symbolic;
//! - copies: into a fresh buffer only as a future (`f = dma.copy … => shared` / `=> local`),
//!   `.async` with a register side, directions other than global ↔ shared and the
//!   register-tile ones, shared → global only synchronous and not transposed, ranks (tiles made
//!   of rows; a register side beyond rank 2 walked in row-major order: 1-D or whole; 2-D TMA
//!   tiles), `.transpose()` only as a cooperative copy's 2-D shared destination;
//! - assignments: one element (`.at(i, j)`), no compound assignment to a global element;
//! - the `: block` level: at most 3 variables, exactly 2 under `raster`, 1 or 2 under
//!   `persistent`;
//! - async copies into one `.transpose()`d tensor copy one tile shape (they share a stage);
//! - events: no `trigger` under an `if` (the arrival count must be static);
//! - fragments: an `mma.fill` accumulator is used by an `mma.row.row`;
//! - clusters: a multicast TMA load follows a `wait` in its statement list.

use super::view::Views;
use super::{Binding, Cx, DimExpr, all_stmts, at_expr, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{
    AssignOp, CopyDst, Expr, ExprId, ExtStmt, Level, MemSpace, Module, Stmt, StmtId, ViewOp,
};

pub(crate) fn check_lowerable(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    integer_extents(cx, diags);
    compositions(cx, diags);
    chunk_indices(cx, diags);
    copies(cx, views, diags);
    block_copies(cx, views, diags);
    assignments(cx, views, diags);
    block_level(cx.m, diags);
    triggers(cx, diags);
    accumulators(cx, diags);
    multicast_waits(cx.m, diags);
}

/// `.chunkat(…)` indices: `_`, a loop or parallel variable, or a composition of them — the
/// variable's extent is the chunk count, so a constant or a computed index gives none.
fn chunk_indices(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    fn variable(cx: &Cx, e: ExprId) -> bool {
        match &cx.m.exprs[e] {
            Expr::Wildcard => true,
            Expr::Name(_) => matches!(
                cx.res.bindings.get(&e),
                Some(Binding::LoopVar { .. } | Binding::ParallelVar { .. })
            ),
            Expr::Compose { outer, inner } => variable(cx, *outer) && variable(cx, *inner),
            _ => false,
        }
    }
    for s in all_stmts(m) {
        for x in super::stmt_exprs(&m.stmts[s]) {
            super::walk_expr(m, x, &mut |v| {
                if let Expr::View {
                    op: ViewOp::Chunkat,
                    args,
                    ..
                } = &m.exprs[v]
                {
                    for &a in args {
                        // The view check already explains a constant it cannot split by.
                        let span = m.expr_span(a);
                        let ok = match super::chunk_index(m, a) {
                            super::ChunkIndex::Base(b) => variable(cx, b),
                            super::ChunkIndex::Bound(_) => true,
                        };
                        if !ok && !diags.0.iter().any(|d| d.span == span) {
                            diags.push(
                                at_expr(
                                    m,
                                    codes::CHUNK_INDEX,
                                    a,
                                    format!(
                                        "a `.chunkat` index is a loop or parallel variable (its extent is the chunk count), a composition of them or `_`; `{}` is not",
                                        m.expr_to_string(a)
                                    ),
                                )
                                .with_help("pick a tile by position with `.subspan(…).at(i, j)`"),
                            );
                        }
                    }
                }
            });
        }
    }
}

/// `a # b`: `b` is a loop or parallel variable, or a composition of them (its extent is the
/// stride of `a`).
fn compositions(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    fn strided(cx: &Cx, e: ExprId) -> bool {
        match &cx.m.exprs[e] {
            Expr::Name(_) => matches!(
                cx.res.bindings.get(&e),
                Some(Binding::LoopVar { .. } | Binding::ParallelVar { .. })
            ),
            Expr::Compose { outer, inner } => strided(cx, *outer) && strided(cx, *inner),
            _ => false,
        }
    }
    for s in all_stmts(m) {
        for x in super::stmt_exprs(&m.stmts[s]) {
            super::walk_expr(m, x, &mut |c| {
                if let Expr::Compose { inner, .. } = &m.exprs[c]
                    && !strided(cx, *inner)
                {
                    diags.push(
                        at_expr(
                            m,
                            codes::COMPOSE_STRIDE,
                            *inner,
                            format!(
                                "the right side of `#` gives the stride by its extent, so it must be a loop or parallel variable (or a composition of them); `{}` is not",
                                m.expr_to_string(*inner)
                            ),
                        )
                        .with_help("write the index out: `i * N + j`"),
                    );
                }
            });
        }
    }
}

/// A view dimension as written (or its value when the checker computed it).
fn dim_text(m: &Module, d: &super::Dim) -> String {
    match d.expr {
        DimExpr::Expr(x) => m.expr_to_string(x),
        DimExpr::Const(v) => v.to_string(),
    }
}

/// The tensor a view expression starts from.
fn view_root(m: &Module, e: ExprId) -> Option<&str> {
    match &m.exprs[e] {
        Expr::Name(n) => Some(n),
        Expr::Index { base, .. } | Expr::View { base, .. } | Expr::Field { base, .. } => {
            view_root(m, *base)
        }
        _ => None,
    }
}

/// Under `cluster C;`, a TMA load (completing on an event) of a kernel parameter's tile that
/// does not depend on the first `: block` variable is multicast into every block of the
/// cluster: it must follow a `wait` in its statement list (the event that says the stage is
/// free in all of them).
fn multicast_waits(m: &Module, diags: &mut Diagnostics) {
    if m.cluster.is_none() {
        return;
    }
    let Some(row_var) = all_stmts(m).into_iter().find_map(|s| match &m.stmts[s] {
        Stmt::Parallel { levels, .. } => levels
            .iter()
            .find(|l| l.level == Level::Block)
            .and_then(|l| l.vars.first())
            .map(|v| v.name.clone()),
        _ => None,
    }) else {
        return;
    };
    let params: Vec<&str> = m
        .kernel
        .params
        .iter()
        .map(|p| p.name.name.as_str())
        .collect();
    let multicast = |s: StmtId| match &m.stmts[s] {
        Stmt::TmaCopy {
            event: Some(_),
            src,
            dst: CopyDst::Expr(_),
            ..
        } => {
            let mut uses_row = false;
            super::walk_expr(m, *src, &mut |x| {
                uses_row |= matches!(&m.exprs[x], Expr::Name(n) if *n == row_var);
            });
            view_root(m, *src).is_some_and(|r| params.contains(&r)) && !uses_row
        }
        _ => false,
    };
    let mut lists: Vec<&[StmtId]> = vec![&m.kernel.body];
    while let Some(list) = lists.pop() {
        let mut waited = false;
        for &s in list {
            if multicast(s) && !waited {
                diags.push(
                    at_stmt(
                        m,
                        codes::MULTICAST_WAIT,
                        s,
                        "under `cluster`, this load is multicast into every block of the cluster, so it must first wait for an event that says the destination is free in all of them",
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
}

/// Whether `e` is integer arithmetic the lowering keeps symbolic (C++ over template
/// parameters): literals, names, unary and binary operators, `cdiv`/`min`/`max`.
/// Names must not be floating-point scalars.
fn symbolic(cx: &Cx, e: ExprId) -> bool {
    let m = cx.m;
    match &m.exprs[e] {
        Expr::Int(_) | Expr::Bool(_) => true,
        Expr::Name(_) => !float_scalar(cx, e),
        Expr::Unary { expr, .. } => symbolic(cx, *expr),
        Expr::Binary { lhs, rhs, .. } => symbolic(cx, *lhs) && symbolic(cx, *rhs),
        Expr::Call { func, args } => {
            args.len() == 2
                && ["cdiv", "min", "max"].contains(&func.name.as_str())
                && args.iter().all(|&a| symbolic(cx, a))
        }
        _ => false,
    }
}

/// A name bound to a floating-point scalar.
fn float_scalar(cx: &Cx, e: ExprId) -> bool {
    matches!(
        cx.res.bindings.get(&e),
        Some(Binding::Scalar(s))
            if matches!(&cx.m.stmts[*s], Stmt::ScalarDecl { dtype, .. } if dtype.is_float())
    )
}

/// An index free of floating-point values (literals or scalars): it becomes pointer arithmetic.
fn integer_index(cx: &Cx, e: ExprId) -> bool {
    let mut ok = true;
    super::walk_expr(cx.m, e, &mut |x| {
        ok &= !matches!(cx.m.exprs[x], Expr::Float { .. }) && !float_scalar(cx, x);
    });
    ok
}

/// Extents, shapes, counts and `.subspan` sizes are integer arithmetic; tensor-array indices
/// hold no floating-point value.
fn integer_extents(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut sites: Vec<(ExprId, &str)> = Vec::new();
    let mut indices: Vec<ExprId> = Vec::new();
    for s in all_stmts(m) {
        match &m.stmts[s] {
            // A float or `bool` extent is the language error `E0108` (`geometry`).
            Stmt::Parallel { levels, .. } => {
                for l in levels {
                    sites.extend(
                        l.extents
                            .iter()
                            .filter(|&&e| super::geometry::not_integer(cx, e).is_none())
                            .map(|&e| (e, "a parallel extent")),
                    );
                }
            }
            // `apply {i, j} in acc.span`: the accumulator's shape (`check/frag_elem.rs`).
            Stmt::Foreach { .. } if super::frag_elem::acc_apply(cx, s) => {}
            Stmt::Foreach { extents, .. } => {
                sites.extend(extents.iter().map(|&e| (e, "a loop extent")));
            }
            Stmt::TensorDecl { shape, names, .. } => {
                sites.extend(shape.iter().map(|&e| (e, "a tensor dimension")));
                sites.extend(
                    names
                        .iter()
                        .filter_map(|d| d.count)
                        .map(|e| (e, "an array count")),
                );
            }
            Stmt::EventDecl { names, .. } => {
                sites.extend(
                    names
                        .iter()
                        .filter_map(|d| d.count)
                        .map(|e| (e, "an array count")),
                );
            }
            _ => {}
        }
        for x in super::stmt_exprs(&m.stmts[s]) {
            super::walk_expr(m, x, &mut |v| {
                if let Expr::View {
                    op: ViewOp::Subspan,
                    args,
                    ..
                } = &m.exprs[v]
                {
                    // `_` (the whole dimension) takes the view's own extent.
                    sites.extend(
                        args.iter()
                            .filter(|&&a| !matches!(m.exprs[a], Expr::Wildcard))
                            .map(|&a| (a, "a `.subspan` size")),
                    );
                }
                if let Expr::Index { index, .. } = &m.exprs[v] {
                    indices.push(*index);
                }
            });
        }
    }
    for e in indices {
        if !integer_index(cx, e) {
            diags.push(
                at_expr(
                    m,
                    codes::NOT_INTEGER,
                    e,
                    format!(
                        "an array index must be an integer; `{}` is not",
                        m.expr_to_string(e)
                    ),
                )
                .with_help("index with integers, loop and parallel variables and integer bindings"),
            );
        }
    }
    for (e, what) in sites {
        if !symbolic(cx, e) {
            diags.push(
                at_expr(
                    m,
                    codes::NOT_INTEGER,
                    e,
                    format!(
                        "{what} must be integer arithmetic; `{}` is not",
                        m.expr_to_string(e)
                    ),
                )
                .with_help("write it with integers, tunables, constants and dims, `+ - * / %` and `cdiv`/`min`/`max`"),
            );
        }
    }
}

fn at_stmt(m: &Module, code: &'static str, s: StmtId, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, m.stmt_span(s), msg)
}

/// What E1104 says a cooperative copy moves.
const ROWS_HELP: &str = "copy a 1-D or 2-D view, or a tile of rank 3 or more made of rows: extents of 1 first (`x.subspan(1, BM, BK).at(b, i, k)`), then any extent, then whole dimensions (the tensor's extent, from 0) up to the last";

/// Whether a cooperative copy moves tile `e` through its 2-D helpers (`lower/simt.rs`): a 1-D
/// or 2-D tile, or one of rank 3 or more whose rows fold ([`super::fold_rows`]; not a
/// transposed or squeezed one).
fn copies_as_rows(cx: &Cx, views: &Views, e: ExprId) -> bool {
    if views.get(e).is_some_and(|v| v.shape.len() <= 2) {
        return true;
    }
    let m = cx.m;
    let shared = super::smem::shared_buffers(m, &cx.res.bindings);
    let root = |r: ExprId| super::root_of(m, &cx.res.bindings, &shared, r, 0);
    let Ok(v) = super::sym_view(m, &cx.res.bindings, &root, e) else {
        return false;
    };
    if v.transposed || v.squeezed.is_some() {
        return false;
    }
    let Ok(r) = root(v.root) else { return false };
    let zero: Vec<bool> = v
        .origin
        .iter()
        .map(|terms| {
            terms
                .iter()
                .all(|t| matches!(m.exprs[t.index], Expr::Int(0)))
        })
        .collect();
    super::fold_rows(&v.tile, &zero, &r.shape).is_some()
}

/// A `dma.copy` through shared memory (global ↔ shared, without a register side) is made by
/// the whole block together — each thread moves a share of one tile — and a `tma.copy` outside
/// every `inthreads` branch by one thread for the whole block, so the tile must be the same
/// for every thread of the block: an index that depends on a `: thread`, `: group` or
/// `: group-4` variable would have each thread move a share of a different tile, or the issuing
/// thread load its own tile only. (Croqtile reads such a copy as each thread's own; tessel does
/// not lower per-thread copies through shared memory yet.)
fn block_copies(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    for c in thread_varying_copies(cx, views) {
        if c.per_thread {
            continue;
        }
        if super::mma_uniform::fresh_shared_name(m, c.stmt).is_some() {
            diags.push(
                at_expr(
                    m,
                    codes::COPY_TILE_VARIES,
                    c.at,
                    format!(
                        "this fresh shared buffer is each thread's own (its tile depends on `{}`, a `: {}` variable), and tessel copies into such a buffer synchronously only, from a global tile made of rows",
                        c.var,
                        c.level.name()
                    ),
                )
                .with_help("drop `.async` and the copy's modifiers (each thread copies its own tile alone, so there is nothing to overlap across the block), or index the copy by `: block` variables and loops"),
            );
            continue;
        }
        diags.push(
            at_expr(
                m,
                codes::COPY_TILE_VARIES,
                c.at,
                format!(
                    "this copy through shared memory is made once for the whole block, but its tile differs between the block's threads: it depends on `{}`, a `: {}` variable",
                    c.var,
                    c.level.name()
                ),
            )
            .with_help(format!(
                "index the copy by `: block` variables and loops (make `{}`'s level `: block` if each of its values needs a tile of its own), copy per thread into registers (`=> local`), or write a synchronous `dma.copy` between a global tile and a shared tile of each thread's own (`=> s.chunkat(t, _)`), which each thread makes alone",
                c.var
            )),
        );
    }
}

/// A copy through shared memory whose tile differs between the block's threads.
struct VaryingCopy {
    stmt: StmtId,
    /// The index that varies, its variable and that variable's level.
    at: ExprId,
    var: String,
    level: Level,
    /// A synchronous `dma.copy` between a global tile and a declared shared tile, both made of
    /// rows, the shared one differing between the threads too: each thread makes its own copy
    /// (`lower/regtile.rs`), as Croqtile reads it.
    per_thread: bool,
}

fn thread_varying_copies(cx: &Cx, views: &Views) -> Vec<VaryingCopy> {
    let m = cx.m;
    let mut branched: Vec<StmtId> = Vec::new();
    for s in all_stmts(m) {
        if let Stmt::InThreads { body, .. } = &m.stmts[s] {
            branched.extend(super::stmts_within(m, body));
        }
    }
    let mut out = Vec::new();
    for s in all_stmts(m) {
        // `plain_future`: a future's copy without modifiers or `after`, `.async` or not (into
        // a buffer of its thread's own, each copies as it issues).
        let (src, dst, plain_sync, plain_future) = match &m.stmts[s] {
            Stmt::DmaCopy {
                src, dst, is_async, ..
            } => (*src, dst, !*is_async, false),
            Stmt::Ext(ExtStmt::DmaFuture {
                tma: false,
                src,
                dst,
                is_async,
                modifiers,
                after,
                ..
            }) => {
                let plain = modifiers.is_empty() && after.is_none();
                (*src, dst, !*is_async && plain, plain)
            }
            // Outside every `inthreads` branch one thread of the block issues a TMA copy for
            // all (inside one, a thread of each warpgroup of the branch does).
            Stmt::TmaCopy { src, dst, .. }
            | Stmt::Ext(ExtStmt::DmaFuture {
                tma: true,
                src,
                dst,
                ..
            }) if !branched.contains(&s) => (*src, dst, false, false),
            _ => continue,
        };
        let dst_expr = match dst {
            CopyDst::Expr(d) => Some(*d),
            CopyDst::Fresh(_) => None,
        };
        let spaces = [Some(src), dst_expr]
            .into_iter()
            .flatten()
            .filter_map(|x| views.get(x).map(|v| v.space))
            .collect::<Vec<_>>();
        let fresh_shared = matches!(dst, CopyDst::Fresh(MemSpace::Shared));
        let through_shared = (spaces.contains(&MemSpace::Shared) || fresh_shared)
            && !spaces.contains(&MemSpace::Local)
            && !matches!(dst, CopyDst::Fresh(MemSpace::Local));
        if !through_shared {
            continue;
        }
        // Every binding of a buffer that is each thread's own copies into the thread's slot.
        let own_buffer = || {
            super::mma_uniform::fresh_shared_sources(m, s)
                .into_iter()
                .find_map(|x| super::mma_uniform::varying(cx, x, Level::Block, 0))
        };
        let Some((at, var, level)) = [Some(src), dst_expr]
            .into_iter()
            .flatten()
            .find_map(|x| super::mma_uniform::varying(cx, x, Level::Block, 0))
            .or_else(own_buffer)
        else {
            continue;
        };
        // The shared side must differ between the threads too: one shared tile that every
        // thread writes its own data into is no copy of each thread's own. A fresh buffer is
        // each thread's own when its tile differs (`mma_uniform::per_thread_fresh`).
        let fresh_own = fresh_shared
            && plain_future
            && views
                .get(src)
                .is_some_and(|v| v.space == MemSpace::Global && !v.transposed)
            && copies_as_rows(cx, views, src);
        let per_thread = fresh_own
            || plain_sync
                && dst_expr.is_some_and(|d| {
                    let (sv, dv) = (views.get(src), views.get(d));
                    let shared_side = match (sv.map(|v| v.space), dv.map(|v| v.space)) {
                        (Some(MemSpace::Global), Some(MemSpace::Shared)) => d,
                        (Some(MemSpace::Shared), Some(MemSpace::Global)) => src,
                        _ => return false,
                    };
                    [sv, dv].iter().all(|v| v.is_some_and(|v| !v.transposed))
                        && copies_as_rows(cx, views, src)
                        && copies_as_rows(cx, views, d)
                        && super::mma_uniform::varying(cx, shared_side, Level::Block, 0).is_some()
                });
        out.push(VaryingCopy {
            stmt: s,
            at,
            var,
            level,
            per_thread,
        });
    }
    out
}

/// The synchronous `dma.copy`s between global and shared tiles that each thread makes alone:
/// their tiles differ between the block's threads (see [`block_copies`]).
pub(crate) fn per_thread_copies(cx: &Cx, views: &Views) -> Vec<StmtId> {
    thread_varying_copies(cx, views)
        .into_iter()
        .filter(|c| c.per_thread)
        .map(|c| c.stmt)
        .collect()
}

/// A whole register tensor: no view method, no array entry.
fn whole(v: &super::view_state::VState) -> bool {
    v.array_index.is_none()
        && v.tiled.is_none()
        && v.coords.iter().all(Option::is_none)
        && !v.element
        && !v.transposed
}

/// A copy with a register side (`src` → `dst`, each with its view): synchronous, neither side
/// transposed, 1-D and 2-D tiles — or, between global memory and registers, a global tile
/// made of rows (`fold_rows`) and a register side that is 1-D or a whole register tensor,
/// which the copy walks in row-major order.
fn register_copy(
    cx: &Cx,
    views: &Views,
    s: StmtId,
    is_async: bool,
    (src, sv): (ExprId, &super::view_state::VState),
    (d, dv): (ExprId, &super::view_state::VState),
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    let to = dv.space;
    if is_async {
        diags.push(
            at_stmt(
                m,
                codes::ASYNC_REGISTER_COPY,
                s,
                "a copy into or out of registers is per thread and synchronous",
            )
            .with_help("drop `.async`"),
        );
    }
    // Beyond rank 2, each side is walked as rows: a tile made of rows (`fold_rows`), and a
    // register side in row-major order, so 1-D or a whole register tensor.
    let high = sv.shape.len() > 2 || dv.shape.len() > 2;
    for (v, x) in [(sv, src), (dv, d)] {
        let rank = v.shape.len();
        let ok = match v.space {
            _ if rank == 0 => false,
            _ if !high => true,
            MemSpace::Local => rank == 1 || whole(v),
            _ => copies_as_rows(cx, views, x),
        };
        if !ok {
            let msg = if high {
                format!(
                    "a register tile copy beyond two dimensions walks rows: a tile made of rows and a register side that is 1-D or a whole register tensor; this one has {rank} dimensions"
                )
            } else {
                "a register tile copy moves tiles, not single elements".to_string()
            };
            diags.push(
                at_expr(m, codes::REGISTER_COPY_RANK, x, msg)
                    .with_help("copy a 1-D or 2-D view of the tile, or a tile whose leading extents are 1 and whose dimensions after the first other one are whole, into a whole register tensor"),
            );
            break;
        }
    }
    // The register side walks the other side's rows with its own pitch: a 2-D register
    // tile needs the other side's row count, written the same way (it becomes a C++
    // template argument), unless the other side is one row.
    let (reg, other, at) = if to == MemSpace::Local {
        (dv, sv, d)
    } else {
        (sv, dv, src)
    };
    if reg.shape.len() == 2 && (1..=2).contains(&other.shape.len()) {
        let rows = |v: &super::view::VState| match v.shape.len() {
            1 => "1".to_string(),
            _ => dim_text(m, &v.shape[0]),
        };
        let (r, o) = (rows(reg), rows(other));
        if r != o && o != "1" {
            diags.push(
                at_expr(
                    m,
                    codes::REGISTER_ROWS,
                    at,
                    format!(
                        "a 2-D register tile copies a tile of its own row count, written the same way: `{r}` rows here, `{o}` on the other side"
                    ),
                )
                .with_help("write both row counts alike, or make the register tile 1-D"),
            );
        }
    }
    if dv.transposed {
        diags.push(
            at_expr(
                m,
                codes::TRANSPOSE_TARGET,
                d,
                "`.transpose()` is a cooperative global → shared copy's destination; a register tile cannot be one",
            )
            .with_help("copy into a shared tile with `.transpose()`, then into registers"),
        );
    }
}

fn copies(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    // The tile shape of the first async transposed copy into each shared tensor: they share
    // one register stage, so they share its shape (compared as written, as the stage's C++
    // template arguments are).
    let mut stages: Vec<(Binding, Vec<String>)> = Vec::new();
    let mut fresh_shapes: Vec<(String, Vec<String>)> = Vec::new();
    for s in all_stmts(m) {
        let (tma, is_async, src, dst) = match &m.stmts[s] {
            Stmt::DmaCopy {
                is_async, src, dst, ..
            } => (false, *is_async, *src, dst),
            Stmt::TmaCopy { src, dst, .. } => (true, false, *src, dst),
            Stmt::Ext(ExtStmt::DmaFuture {
                tma,
                is_async,
                src,
                dst,
                bind,
                ..
            }) => {
                let op = if *tma { "tma.copy" } else { "dma.copy" };
                // `f = dma.copy … => shared;`: a fresh buffer of the source tile's shape, one
                // shape per future name (the name is the buffer).
                if let (CopyDst::Fresh(MemSpace::Shared), Some(f)) = (dst, bind) {
                    let shape = super::fresh::fresh_shape(m, &cx.res.bindings, s)
                        .map(|(sh, _)| sh.iter().map(|d| d.to_cpp()).collect::<Vec<_>>());
                    match (shape, fresh_shapes.iter().find(|x| x.0 == f.name)) {
                        (None, _) => diags.push(
                            at_expr(m, codes::FRESH_SHAPE, *src, format!("`{} = {op} … => shared` sizes its buffer from the source's tile, and this source's tile has no shape known at launch", f.name))
                                .with_help("copy a tile whose extents are integers, tunables, constants and problem sizes: `t.subspan(R, C).at(i, j)`, or `t.chunkat(i, j)` with `i` over `cdiv(M, R)`"),
                        ),
                        (Some(sh), Some((_, first))) if *first != sh => diags.push(
                            at_expr(m, codes::FRESH_SHAPE, *src, format!("`{}` names one shared buffer: [{}] here, [{}] before", f.name, sh.join(", "), first.join(", ")))
                                .with_help("give the futures of different tile shapes different names"),
                        ),
                        (Some(sh), None) => fresh_shapes.push((f.name.clone(), sh)),
                        _ => {}
                    }
                    if views.get(*src).is_some_and(|v| v.space != MemSpace::Global) {
                        diags.push(
                            at_stmt(
                                m,
                                codes::COPY_DIRECTION,
                                s,
                                "a fresh `=> shared` buffer is filled from global memory",
                            )
                            .with_help("copy from a global tensor"),
                        );
                    } else if let Some(v) = views.get(*src)
                        && !*tma
                        && !copies_as_rows(cx, views, *src)
                    {
                        // The cooperative copy that fills it moves tiles made of rows.
                        diags.push(
                            at_expr(
                                m,
                                codes::SHARED_COPY_RANK,
                                *src,
                                format!(
                                    "a cooperative copy into shared memory moves tiles made of rows; this one has {} dimensions that do not fold into rows",
                                    v.shape.len()
                                ),
                            )
                            .with_help(ROWS_HELP),
                        );
                    }
                    continue;
                }
                // `f = dma.copy … => local;`: a register array of the source tile's shape.
                if let (CopyDst::Fresh(MemSpace::Local), Some(f), false) = (dst, bind, *tma) {
                    let Some(sv) = views.get(*src) else { continue };
                    if super::fresh::fresh_tile(m, &cx.res.bindings, *src).is_none() {
                        diags.push(
                            at_expr(m, codes::FRESH_SHAPE, *src, format!("`{} = dma.copy … => local` sizes its register array from the source's tile, and this source's tile has no compile-time shape", f.name))
                                .with_help("copy a tile whose extents are integers, tunables and constants: `t.subspan(R, C).at(i, j)`, or `t.chunkat(i, j)` with `i` over `cdiv(M, R)`"),
                        );
                        continue;
                    }
                    let shape = sv.tiled.clone().unwrap_or_else(|| sv.shape.clone());
                    let fresh = super::view_state::VState::root(
                        Binding::Future(s),
                        sv.dtype,
                        MemSpace::Local,
                        shape,
                    );
                    register_copy(cx, views, s, *is_async, (*src, sv), (*src, &fresh), diags);
                    continue;
                }
                (*tma, *is_async, *src, dst)
            }
            _ => continue,
        };
        let op = if tma { "tma.copy" } else { "dma.copy" };
        let CopyDst::Expr(d) = dst else {
            let space = match dst {
                CopyDst::Fresh(space) => *space,
                CopyDst::Expr(_) => MemSpace::Shared,
            };
            diags.push(
                at_stmt(
                    m,
                    codes::FRESH_COPY,
                    s,
                    format!("`{op} … => {space}` into a fresh buffer is not supported"),
                )
                .with_help(format!(
                    "declare the destination (`{space} f16 [BM, BK] a_s;`) and copy into it"
                )),
            );
            continue;
        };
        let (Some(sv), Some(dv)) = (views.get(src), views.get(*d)) else {
            continue;
        };
        let (from, to) = (sv.space, dv.space);
        if tma {
            if matches!(
                (from, to),
                (MemSpace::Global, MemSpace::Shared) | (MemSpace::Shared, MemSpace::Global)
            ) && sv.shape.len() != 2
            {
                diags.push(
                    at_expr(
                        m,
                        codes::TMA_RANK,
                        src,
                        format!(
                            "`tma.copy` moves 2-D tiles; this tile has {} dimensions",
                            sv.shape.len()
                        ),
                    )
                    .with_help("copy a 2-D tile (`t.subspan(R, C).at(i, j)`)"),
                );
            }
            continue;
        }
        if from == MemSpace::Local || to == MemSpace::Local {
            register_copy(cx, views, s, is_async, (src, &sv), (*d, &dv), diags);
            continue;
        }
        if from == MemSpace::Global && to == MemSpace::Global {
            continue; // the placement check reports it
        }
        if (from, to) == (MemSpace::Shared, MemSpace::Global) {
            // A cooperative store of a shared tile: synchronous, not transposed, 1-D or 2-D.
            if is_async {
                diags.push(
                    at_stmt(
                        m,
                        codes::ASYNC_STORE,
                        s,
                        "`dma.copy.async` from shared to global memory is not supported yet",
                    )
                    .with_help(
                        "drop `.async`: the store is synchronous (a barrier before, one after)",
                    ),
                );
            }
            if sv.transposed || dv.transposed {
                diags.push(
                    at_stmt(
                        m,
                        codes::STORE_TRANSPOSE,
                        s,
                        "a shared → global `dma.copy` copies rows as they are; `.transpose()` is not supported on either side",
                    )
                    .with_help("transpose on the way into shared memory (`=> t_s.transpose()`), then store"),
                );
            }
            if let Some((x, v)) = [(src, &sv), (*d, &dv)]
                .into_iter()
                .find(|(x, _)| !copies_as_rows(cx, views, *x))
            {
                diags.push(
                    at_expr(
                        m,
                        codes::SHARED_COPY_RANK,
                        x,
                        format!(
                            "a cooperative copy between shared and global memory moves tiles made of rows; this one has {} dimensions that do not fold into rows",
                            v.shape.len()
                        ),
                    )
                    .with_help(ROWS_HELP),
                );
            }
            continue;
        }
        if (from, to) != (MemSpace::Global, MemSpace::Shared) {
            diags.push(
                at_stmt(
                    m,
                    codes::COPY_DIRECTION,
                    s,
                    format!("`dma.copy` from {from} to {to} memory is not supported"),
                )
                .with_help("`dma.copy` moves global → shared, and between registers (`local`) and global or shared memory; go through a register tile"),
            );
            continue;
        }
        if is_async && dv.transposed {
            let shape: Vec<String> = sv.shape.iter().map(|d| dim_text(m, d)).collect();
            match stages.iter().find(|st| st.0 == dv.root) {
                Some((_, first)) if *first != shape => diags.push(
                    at_expr(
                        m,
                        codes::STAGE_SHAPE,
                        *d,
                        format!(
                            "the async copies into one `.transpose()`d tensor share a register stage, so they copy one tile shape: [{}] here, [{}] before",
                            shape.join(", "),
                            first.join(", ")
                        ),
                    )
                    .with_help("write every such copy's tile with the same extents"),
                ),
                Some(_) => {}
                None => stages.push((dv.root, shape)),
            }
        }
        let rows = copies_as_rows(cx, views, src) && copies_as_rows(cx, views, *d);
        if !rows || (dv.transposed && sv.shape.len() != 2) {
            diags.push(
                at_expr(
                    m,
                    codes::SHARED_COPY_RANK,
                    src,
                    format!(
                        "a cooperative copy into shared memory moves tiles made of rows (a transposed one 2-D); this one has {} dimensions that do not fold into rows",
                        sv.shape.len()
                    ),
                )
                .with_help(ROWS_HELP),
            );
        }
    }
}

fn assignments(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in all_stmts(m) {
        let Stmt::Assign { target, op, .. } = &m.stmts[s] else {
            continue;
        };
        if !matches!(m.exprs[*target], Expr::View { .. }) {
            continue;
        }
        let Some(v) = views.get(*target) else {
            continue;
        };
        if !v.element {
            diags.push(
                at_expr(
                    m,
                    codes::ASSIGN_TILE,
                    *target,
                    "only single elements can be assigned",
                )
                .with_help("assign `.at(i, j)`, or copy a tile with `dma.copy`"),
            );
        } else if *op != AssignOp::Set && v.space == MemSpace::Global {
            diags.push(
                at_expr(
                    m,
                    codes::COMPOUND_GLOBAL,
                    *target,
                    format!(
                        "compound assignment (`{}`) to a global element is not supported",
                        op.symbol()
                    ),
                )
                .with_help(
                    "accumulate in a scalar or a register tile (`local`) and store it with `=`",
                ),
            );
        }
    }
}

fn block_level(m: &Module, diags: &mut Diagnostics) {
    for s in all_stmts(m) {
        let Stmt::Parallel { levels, .. } = &m.stmts[s] else {
            continue;
        };
        for l in levels.iter().filter(|l| l.level == Level::Block) {
            let n = l.vars.len().max(l.extents.len());
            let what = format!("this `: block` level has {n} variable(s)");
            if n > 3 {
                diags.push(
                    Diagnostic::new(
                        codes::BLOCK_VARS,
                        l.level_span,
                        format!("a `: block` level has at most 3 variables (x, y, z); {what}"),
                    )
                    .with_help("fold two of them into one (`bq by [cdiv(N, B) * Q]`)"),
                );
            }
            if m.raster.is_some() && n != 2 {
                diags.push(
                    Diagnostic::new(
                        codes::RASTER_RANK,
                        l.level_span,
                        format!("`raster` groups the tiles of a 2-D `: block` level; {what}"),
                    )
                    .with_help("drop `raster`, or give the block level two variables"),
                );
            }
            if m.persistent.is_some() && !(1..=2).contains(&n) {
                diags.push(
                    Diagnostic::new(
                        codes::PERSISTENT_RANK,
                        l.level_span,
                        format!("`persistent` walks a 1-D or 2-D `: block` level; {what}"),
                    )
                    .with_help("drop `persistent`, or give the block level one or two variables"),
                );
            }
        }
    }
}

/// A `trigger` under an `if` whose condition may differ between threads: the threads that reach
/// it — its event's arrival count — would depend on data. Under a condition with one value per
/// block (`super::events::block_uniform`) the same threads reach it or none do, so the count
/// stands.
fn triggers(cx: &Cx, diags: &mut Diagnostics) {
    fn walk(cx: &Cx, b: &[StmtId], in_if: bool, diags: &mut Diagnostics) {
        let m = cx.m;
        for &s in b {
            let st = &m.stmts[s];
            let is_trigger = matches!(
                st,
                Stmt::Trigger { .. } | Stmt::Ext(crate::ir::ExtStmt::TriggerAfter { .. })
            );
            if in_if && is_trigger {
                diags.push(
                    at_stmt(
                        m,
                        codes::TRIGGER_IN_IF,
                        s,
                        "`trigger` inside an `if` whose condition may differ between threads: an event's arrival count must be known at compile time",
                    )
                    .with_help("select the triggering threads with `inthreads (cond)` instead, or branch on values every thread of the block shares (`: block` and loop variables)"),
                );
            }
            let inner = in_if
                || matches!(st, Stmt::If { cond, .. } if !super::events::block_uniform(cx, *cond));
            for blk in super::stmt_blocks(st) {
                walk(cx, blk, inner, diags);
            }
        }
    }
    walk(cx, &cx.m.kernel.body, false, diags);
}

fn accumulators(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let stmts = all_stmts(m);
    for &s in &stmts {
        let Stmt::MmaFill { name, .. } = &m.stmts[s] else {
            continue;
        };
        // Used when an `mma` accumulates into this very definition (not into a later
        // `mc = mma.fill …` that rebinds the name); named in another operand slot, it is the
        // operand check's error (E0307).
        let used = stmts.iter().any(|&u| {
            let Stmt::Mma { acc, a, b, .. } = &m.stmts[u] else {
                return false;
            };
            match super::frag_def(cx, u, super::resolve::Role::Acc) {
                Some(d) => d == s || [a, b].iter().any(|x| x.name == name.name),
                None => [acc, a, b].iter().any(|x| x.name == name.name),
            }
        });
        // An element of an accumulator array (`mc[0][1]`) may go unused.
        if !used && !name.name.ends_with(']') {
            diags.push(
                Diagnostic::new(
                    codes::ACC_UNUSED,
                    name.span,
                    format!(
                        "`{}` is never used as an accumulator, so its width is unknown",
                        name.name
                    ),
                )
                .with_help(format!(
                    "accumulate into it (`mma.row.row {}, a, b;`) or remove it",
                    name.name
                )),
            );
        }
    }
}
