//! `persistent;`: a persistent grid. The grid is `min(tiles, SMs × blocks per SM)` (the runtime
//! binds `TSL_SM_COUNT`), and each `inthreads` branch walks the tiles of the `: block` level in
//! turn — `for (tsl_tile = blockIdx.x; tsl_tile < tsl_tiles; tsl_tile += gridDim.x)` — so the
//! producer starts loading the next tile while the consumers run this tile's epilogue, and no
//! block pays the pipeline fill twice.
//!
//! Events persist across a block's tiles. A branch's leading `let`s and trigger-only statements
//! (a ring's initial credits, `foreach {s} in [STAGES] trigger empty[s];`) therefore run once,
//! before the loop; everything from the first other statement runs per tile. Both sides of a
//! ring see the same tile sequence, so their per-barrier phase bits stay in step.

use super::emitter::Emitter;
use super::kernel::Op;
use super::scope::Local;
use crate::check::ParVar;
use crate::ir::{ExprId, Module, Stmt, StmtId};
use crate::sym::Sym;

fn mentions(m: &Module, e: ExprId, names: &[String]) -> bool {
    super::walk::mentions(m, e, &|n| names.iter().any(|x| x == n))
}

/// A statement that runs once per block rather than once per tile.
fn once(m: &Module, s: StmtId, block_vars: &[String]) -> bool {
    match &m.stmts[s] {
        Stmt::Let { value, .. } => !mentions(m, *value, block_vars),
        Stmt::Trigger { event, .. } => !mentions(m, *event, block_vars),
        Stmt::Foreach { body, .. } => {
            !body.is_empty()
                && body
                    .iter()
                    .all(|&b| matches!(m.stmts[b], Stmt::Trigger { .. }) && once(m, b, block_vars))
        }
        _ => false,
    }
}

/// How many leading statements of a branch body run once per block (the rest run per tile).
pub fn once_prefix(e: &Emitter, body: &[StmtId]) -> usize {
    let names: Vec<String> = e.geo.block_vars.iter().map(|v| v.name.clone()).collect();
    body.iter()
        .position(|&s| !once(e.m, s, &names))
        .unwrap_or(body.len())
}

/// Opens the loop over this block's tiles and binds the block variables to the tile.
pub fn open_tile_loop(e: &mut Emitter, line: Option<u32>) {
    let vars: Vec<ParVar> = e.geo.block_vars.clone();
    e.open(
        Op::For {
            var: "tsl_tile".into(),
            init: "blockIdx.x".into(),
            bound: "tsl_tiles".into(),
            step: Some("tsl_tile += gridDim.x".into()),
        },
        Some("persistent: this block's tiles"),
        line,
    );
    e.scopes.push();
    match (&e.geo.raster, vars.as_slice()) {
        (Some(_), [bm, bn]) => {
            let names = vec![bm.name.clone(), bn.name.clone()];
            e.emit(
                Op::Decls {
                    ty: "int".into(),
                    names,
                },
                None,
                line,
            );
            emit_raster(e, "tsl_tile", line);
        }
        (_, [bm, bn]) => {
            let rows = super::cexpr::cpp_paren(&bm.extent);
            e.emit(
                const_int(&bm.name, format!("tsl_tile % {rows}")),
                None,
                line,
            );
            e.emit(
                const_int(&bn.name, format!("tsl_tile / {rows}")),
                None,
                line,
            );
        }
        (_, [b]) => e.emit(const_int(&b.name, "tsl_tile".into()), None, line),
        _ => e.errors.push(super::error::LowerError::new(
            crate::span::Span::DUMMY,
            "`persistent` supports a `: block` level of one or two variables",
        )),
    }
    for v in &vars {
        e.scopes.declare(v.binding, Local::ParVar);
    }
}

/// Closes the tile loop (after its statements), then waits for the branch's TMA stores.
pub fn close_tile_loop(e: &mut Emitter, line: Option<u32>) {
    e.flush_sync_tma();
    e.flush_dma();
    e.scopes.pop();
    e.close(None);
    super::tma_store::end_of_branch(e, line);
}

/// Emits the rasterization of `tile` (see [`super::cluster::raster_call`]). Under a `: cluster` level: cluster
/// tiles rasterized in groups, then the block's rank gives its row and column inside the
/// cluster (a recorded call, so the writer includes the level's helpers).
pub fn emit_raster(e: &mut Emitter, tile: &str, line: Option<u32>) {
    let geo = e.geo;
    let Some((cm, cn)) = &geo.cluster_shape else {
        e.call(super::cluster::raster_call(geo, tile), None, line);
        return;
    };
    let (bm, bn) = (&geo.block_vars[0], &geo.block_vars[1]);
    let group = geo.raster.clone().unwrap_or(Sym::Int(1));
    let call = super::kernel::Call::new("tsl_raster_cluster_2d").args([
        tile.to_string(),
        bm.extent.to_string(),
        bn.extent.to_string(),
        group.to_string(),
        super::cexpr::cpp_paren(cm),
        super::cexpr::cpp_paren(cn),
        bm.name.clone(),
        bn.name.clone(),
    ]);
    e.call(call, None, line);
}

/// `const int name = init;`
fn const_int(name: &str, init: String) -> Op {
    Op::Decl {
        ty: "const int".into(),
        name: name.into(),
        init: Some(init),
    }
}
