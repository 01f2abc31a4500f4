//! `tma.copy s => g`: TMA stores, and when their wait for the source tile can be deferred.
//!
//! A TMA store reads its shared source tile asynchronously; the tile may not be written again
//! until the store has read it (`cp.async.bulk.wait_group.read`). The plain lowering waits
//! right after issuing. When the source tile is written only by `mma.store` and read only by
//! TMA stores (the warp-specialised epilogue: `mma.store mc, out_s[c]; tma.copy out_s[c] => …`),
//! and the kernel is persistent, the wait moves to the next write of the tile — the next tile's
//! `mma.store`, after a whole main loop — and to the end of the branch, so the store's read
//! overlaps the next tile's MMAs instead of stalling the warpgroup between tiles.

use super::LowerError;
use super::body::Emitter;
use super::cexpr::View;
use super::sym::Sym;
use super::walk::root;
use crate::ir::{CopyDst, ExprId, Module, Stmt};
use std::collections::BTreeSet;

fn mentions(m: &Module, e: ExprId, t: &str) -> bool {
    super::walk::mentions(m, e, &|n| n == t)
}

/// The expressions a statement holds directly (not those of nested statements).
fn exprs(st: &Stmt) -> Vec<ExprId> {
    let dst = |d: &CopyDst| match d {
        CopyDst::Expr(x) => vec![*x],
        CopyDst::Fresh(_) => vec![],
    };
    match st {
        Stmt::Parallel { levels, .. } => levels.iter().flat_map(|l| l.extents.clone()).collect(),
        Stmt::Foreach { extents, .. } => extents.clone(),
        Stmt::TensorDecl { shape, names, .. } => {
            let mut v = shape.clone();
            v.extend(names.iter().filter_map(|d| d.count));
            v
        }
        Stmt::EventDecl { names, .. } => names.iter().filter_map(|d| d.count).collect(),
        Stmt::ScalarDecl { init, .. } => init.iter().copied().collect(),
        Stmt::Let { value, .. } => vec![*value],
        Stmt::Assign { target, value, .. } => vec![*target, *value],
        Stmt::If { cond, .. } | Stmt::InThreads { cond, .. } => vec![*cond],
        Stmt::DmaCopy { src, dst: d, .. } => [vec![*src], dst(d)].concat(),
        Stmt::TmaCopy {
            event,
            swizzle,
            src,
            dst: d,
            ..
        } => [
            event.iter().chain(swizzle).copied().collect(),
            vec![*src],
            dst(d),
        ]
        .concat(),
        Stmt::MmaFill { value, .. } => vec![*value],
        Stmt::MmaLoad { swizzle, src, .. } => swizzle.iter().copied().chain([*src]).collect(),
        Stmt::MmaStore { dst, .. } => vec![*dst],
        Stmt::Wait { event } | Stmt::Trigger { event, .. } => vec![*event],
        Stmt::DmaWait { pending } => vec![*pending],
        Stmt::Mma { .. } | Stmt::MmaCommit | Stmt::SyncShared | Stmt::Reduce { .. } => vec![],
    }
}

/// Shared tiles whose TMA stores wait for their read lazily: in a persistent kernel (where a
/// branch stores once per tile, so there is a next write to wait at), the sources of TMA stores
/// to global memory that no statement other than `mma.store` (writing them) and TMA stores
/// (reading them) touches after their declaration.
pub fn lazy_tiles(m: &Module) -> BTreeSet<String> {
    if m.persistent.is_none() {
        return BTreeSet::new();
    }
    let params = super::walk::param_names(m);
    let is_store = |st: &Stmt| match st {
        Stmt::TmaCopy {
            event: None,
            dst: CopyDst::Expr(d),
            ..
        } => root(m, *d).is_some_and(|r| params.contains(&r)),
        _ => false,
    };
    let mut tiles: BTreeSet<String> = m
        .stmts
        .iter()
        .filter(|(_, st)| is_store(st))
        .filter_map(|(_, st)| match st {
            Stmt::TmaCopy { src, .. } => root(m, *src).map(str::to_string),
            _ => None,
        })
        .collect();
    tiles.retain(|t| {
        m.stmts.iter().all(|(_, st)| match st {
            Stmt::TensorDecl { .. } => true,
            Stmt::MmaStore { dst, .. } => {
                root(m, *dst) == Some(t.as_str()) || !mentions(m, *dst, t)
            }
            Stmt::TmaCopy { src, .. } if is_store(st) => {
                root(m, *src) == Some(t.as_str()) || !exprs(st).iter().any(|&x| mentions(m, x, t))
            }
            _ => !exprs(st).iter().any(|&x| mentions(m, x, t)),
        })
    });
    tiles
}

/// Whether stores are issued per warpgroup (a group-4 level with a thread variable, inside an
/// `inthreads` branch): barrier `1 + warpgroup` over 128 threads and the warpgroup's first
/// thread; otherwise `__syncthreads` and thread 0.
fn per_warpgroup(e: &Emitter) -> bool {
    e.geo
        .thread_vars
        .iter()
        .any(|v| v.level == crate::ir::Level::Thread)
        && e.geo.has_group4
        && !e.thread_conds.is_empty()
}

/// `tma.copy sv => dv` from shared to global memory.
pub fn store(
    e: &mut Emitter,
    sv: &View,
    dv: &View,
    swz: Sym,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let map = super::hopper::tma_map(e, dv, swz)?;
    e.written_params.insert(dv.tensor.param.unwrap_or(0));
    let coords = format!("{}, {}", dv.origin[1], dv.origin[0]);
    e.line(
        "tsl_fence_proxy_async();  // make the tile's st.shared visible to the TMA engine",
        line,
    );
    let (bar, first) = if per_warpgroup(e) {
        (
            "tsl_named_barrier_sync(1 + threadIdx.x / 128, 128);  // this warpgroup's tile is complete",
            "threadIdx.x % 128 == 0",
        )
    } else {
        (
            "__syncthreads();  // the tile is complete",
            "threadIdx.x == 0",
        )
    };
    e.line(bar, line);
    let issue = format!("tsl_tma_store_2d(&{map}, {}, {coords});", sv.tile_ptr());
    if e.lazy_store_tiles.contains(&sv.tensor.name) {
        e.line(format!("if ({first}) {{ {issue} tsl_tma_store_commit(); }}  // read-wait deferred to the tile's next write"), line);
        e.pending_store_read = true;
    } else {
        e.line(
            format!("if ({first}) {{ {issue} tsl_tma_store_flush(); }}"),
            line,
        );
    }
    Ok(())
}

/// Before `mma.store` writes `tile`: when its TMA stores wait lazily, the storing thread waits
/// until the last one has read the tile, and a barrier tells the others.
pub fn before_write(e: &mut Emitter, tile: &str, line: Option<u32>) {
    if !e.lazy_store_tiles.contains(tile) {
        return;
    }
    if per_warpgroup(e) {
        e.line("if (threadIdx.x % 128 == 0) tsl_tma_store_wait_read<0>();  // the last TMA store from this tile has read it", line);
        e.line(
            "tsl_named_barrier_sync(1 + threadIdx.x / 128, 128);  // the tile may be overwritten",
            line,
        );
    } else {
        e.line("if (threadIdx.x == 0) tsl_tma_store_wait_read<0>();  // the last TMA store from this tile has read it", line);
        e.line("__syncthreads();  // the tile may be overwritten", line);
    }
}

/// At the end of a branch: the deferred read-waits of its TMA stores (shared memory must
/// outlive the reads).
pub fn end_of_branch(e: &mut Emitter, line: Option<u32>) {
    if std::mem::take(&mut e.pending_store_read) {
        let first = if per_warpgroup(e) {
            "threadIdx.x % 128 == 0"
        } else {
            "threadIdx.x == 0"
        };
        e.line(
            format!("if ({first}) tsl_tma_store_wait_read<0>();  // the last TMA stores have read their tiles"),
            line,
        );
    }
}
