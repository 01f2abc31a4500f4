//! `tma.copy s => g`: TMA stores, and when their wait for the source tile can be deferred.
//!
//! A TMA store reads its shared source tile asynchronously; the tile may not be written again
//! until the store has read it (`cp.async.bulk.wait_group.read`). The plain lowering waits
//! right after issuing, in the issuing thread; when an `mma.store` may write the tile again (an
//! epilogue that stores an accumulator in column slices through one tile), a barrier before
//! that write tells the other threads. When the source tile is written only by `mma.store` and read only by
//! TMA stores (the warp-specialised epilogue: `mma.store mc, out_s[c]; tma.copy out_s[c] => …`),
//! and the kernel is persistent, the wait moves to the next write of the tile — the next tile's
//! `mma.store`, after a whole main loop — and to the end of the branch, so the store's read
//! overlaps the next tile's MMAs instead of stalling the warpgroup between tiles.

use super::cexpr::View;
use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::Call;
use super::walk::root;
use crate::check::stmt_exprs;
use crate::ir::{CopyDst, ExprId, Module, Stmt};
use crate::sym::Sym;
use std::collections::BTreeSet;

fn mentions(m: &Module, e: ExprId, t: &str) -> bool {
    super::walk::mentions(m, e, &|n| n == t)
}

/// Shared tiles whose TMA stores wait for their read lazily: in a persistent kernel (where a
/// branch stores once per tile, so there is a next write to wait at), the sources of TMA stores
/// to global memory that no statement other than `mma.store` (writing them) and TMA stores
/// (reading them) touches after their declaration.
pub fn lazy_tiles(m: &Module) -> BTreeSet<String> {
    if m.persistent.is_none() {
        return BTreeSet::new();
    }
    let mut tiles: BTreeSet<String> = m
        .stmts
        .iter()
        .filter_map(|(_, st)| store_source(m, st))
        .map(str::to_string)
        .collect();
    tiles.retain(|t| {
        m.stmts.iter().all(|(_, st)| match st {
            Stmt::TensorDecl { .. } => true,
            Stmt::MmaStore { dst, .. } => {
                root(m, *dst) == Some(t.as_str()) || !mentions(m, *dst, t)
            }
            Stmt::TmaCopy { src, .. } if store_source(m, st).is_some() => {
                root(m, *src) == Some(t.as_str())
                    || !stmt_exprs(st).iter().any(|&x| mentions(m, x, t))
            }
            _ => !stmt_exprs(st).iter().any(|&x| mentions(m, x, t)),
        })
    });
    tiles
}

/// The shared tile a TMA store to global memory (`tma.copy s => g`) reads, if `st` is one.
fn store_source<'m>(m: &'m Module, st: &Stmt) -> Option<&'m str> {
    match st {
        Stmt::TmaCopy {
            event: None,
            src,
            dst: CopyDst::Expr(d),
            ..
        } if root(m, *d).is_some_and(|r| super::walk::param_names(m).contains(&r)) => root(m, *src),
        _ => None,
    }
}

/// Shared tiles that an `mma.store` may write again after a TMA store from them was issued:
/// the write follows the store in a block, or both sit in one loop body (a `foreach`, or the
/// tile loop of a persistent kernel) — e.g. an epilogue storing an accumulator in column
/// slices through one tile. Without the lazy wait only the storing thread waits for the read
/// (right after issuing); the others must learn it at a barrier before they write the tile.
pub fn rewritten_tiles(m: &Module) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let (stores, writes) = rewrites(m, &m.kernel.body, &mut BTreeSet::new(), &mut out);
    if m.persistent.is_some() {
        out.extend(stores.intersection(&writes).cloned());
    }
    out
}

/// The tiles `block` stores from and writes (at any depth), recording in `out` each write
/// that can follow a store; `seen` holds the tiles stored from before the block.
fn rewrites(
    m: &Module,
    block: &[crate::ir::StmtId],
    seen: &mut BTreeSet<String>,
    out: &mut BTreeSet<String>,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut stores, mut writes) = (BTreeSet::new(), BTreeSet::new());
    for &s in block {
        let st = &m.stmts[s];
        if let Some(t) = store_source(m, st) {
            seen.insert(t.to_string());
            stores.insert(t.to_string());
        }
        if let Stmt::MmaStore { dst, .. } = st
            && let Some(t) = root(m, *dst)
        {
            if seen.contains(t) {
                out.insert(t.to_string());
            }
            writes.insert(t.to_string());
        }
        for inner in crate::check::stmt_blocks(st) {
            let (s_in, w_in) = rewrites(m, inner, seen, out);
            if matches!(st, Stmt::Foreach { .. }) {
                out.extend(s_in.intersection(&w_in).cloned());
            }
            stores.extend(s_in);
            writes.extend(w_in);
        }
    }
    (stores, writes)
}

/// Whether stores are issued per warpgroup (a group-4 level, inside an `inthreads` branch —
/// without a thread level its conditions select whole warpgroups): barrier `1 + warpgroup`
/// over 128 threads and the warpgroup's first thread; otherwise `__syncthreads` and thread 0
/// (which a branch that not every thread enters must not reach).
fn per_warpgroup(e: &Emitter) -> bool {
    e.geo.has_group4 && !e.thread_conds.is_empty()
}

/// `tma.copy sv => dv` from shared to global memory.
pub fn store(
    e: &mut Emitter,
    sv: &View,
    dv: &View,
    swz: Sym,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let map = e.tma_map(dv, swz)?;
    e.written_params.insert(dv.tensor.param.unwrap_or(0));
    e.call(
        Call::new("tsl_fence_proxy_async"),
        Some("make the tile's st.shared visible to the TMA engine"),
        line,
    );
    if per_warpgroup(e) {
        barrier(e, Some("this warpgroup's tile is complete"), line);
    } else {
        barrier(e, Some("the tile is complete"), line);
    }
    let first = first_thread(e);
    // The box's coordinates, innermost first: one argument each.
    let issue = Call::new("tsl_tma_store_2d").args([
        CExpr::var(&map).addr(),
        sv.tile_ptr(),
        dv.origin[1].clone(),
        dv.origin[0].clone(),
    ]);
    if e.lazy_store_tiles.contains(&sv.tensor.name) {
        let calls = vec![issue, Call::new("tsl_tma_store_commit")];
        e.guarded(
            first,
            calls,
            Some("read-wait deferred to the tile's next write"),
            line,
        );
        e.pending_store_read = true;
    } else {
        e.guarded(
            first,
            vec![issue, Call::new("tsl_tma_store_flush")],
            None,
            line,
        );
    }
    Ok(())
}

/// The barrier over the threads that write the tile: their warpgroup's named barrier when each
/// warpgroup stores its own tile, else the block's.
fn barrier(e: &mut Emitter, note: Option<&str>, line: Option<u32>) {
    if per_warpgroup(e) {
        let wg = CExpr::builtin("threadIdx", "x").div(CExpr::int(128));
        let id = CExpr::int(1).add(wg);
        let sync = Call::new("tsl_named_barrier_sync").args([id, CExpr::int(128)]);
        e.call(sync, note, line);
    } else {
        e.barrier(note, line);
    }
}

/// Before `mma.store` writes `tile`: when its TMA stores wait lazily, the storing thread waits
/// until the last one has read the tile, and a barrier tells the others; when they wait right
/// after issuing and the tile is written again (`rewritten_tiles`), the barrier alone.
pub fn before_write(e: &mut Emitter, tile: &str, line: Option<u32>) {
    if !e.lazy_store_tiles.contains(tile) {
        if e.rewritten_store_tiles.contains(tile) {
            barrier(
                e,
                Some("the last TMA store from this tile has read it (its issuing thread waited)"),
                line,
            );
        }
        return;
    }
    e.guarded(
        first_thread(e),
        vec![wait_read()],
        Some("the last TMA store from this tile has read it"),
        line,
    );
    barrier(e, Some("the tile may be overwritten"), line);
}

/// At the end of a branch: the deferred read-waits of its TMA stores (shared memory must
/// outlive the reads).
pub fn end_of_branch(e: &mut Emitter, line: Option<u32>) {
    if std::mem::take(&mut e.pending_store_read) {
        e.guarded(
            first_thread(e),
            vec![wait_read()],
            Some("the last TMA stores have read their tiles"),
            line,
        );
    }
}

/// Waits until the TMA stores issued by this thread have read their shared tiles.
fn wait_read() -> Call {
    Call::new("tsl_tma_store_wait_read").targs([CExpr::int(0)])
}

/// The thread that issues the stores: its warpgroup's first when each warpgroup stores its own
/// tile, else the block's.
fn first_thread(e: &Emitter) -> CExpr {
    let tid = CExpr::builtin("threadIdx", "x");
    let tid = if per_warpgroup(e) {
        tid.rem(CExpr::int(128))
    } else {
        tid
    };
    tid.eq(CExpr::int(0))
}
