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
//!
//! `pingpong;` (the ping-pong schedule): the consumer branch — run by warpgroups `L…` — is run
//! for each tile by one of them. Consumer `c` of `C` walks tiles `c, c + C, …` of the block's
//! walk (`tsl_tile = blockIdx.x + c * gridDim.x`, step `C * gridDim.x`), while the producer
//! loads every tile in walk order through the same ring. A turn orders the consumers' main
//! loops — from the first statement of the tile that waits on an event to the last (a pipelined
//! k-loop hands the turn on as it closes, before its tail waits for the last WGMMAs) — so one
//! consumer's WGMMAs run while the one before it stores its tile; the ring's parity bits travel
//! with the turn (through shared memory), so each consumer waits on the phases the tiles before
//! it left. The branch's once-per-block triggers (a ring's initial credits) come from consumer
//! 0 only, and an event the branch triggers counts one warpgroup's arrivals per phase
//! (`tsl_arrivals_e / tsl_consumers`).

use super::cxx::{CExpr, COp};
use super::emitter::Emitter;
use super::kernel::{Call, Op};
use super::scope::Local;
use crate::check::ParVar;
use crate::check::events::{EventRef, event_ref};
use crate::ir::{BinaryOp, Expr, ExprId, Level, Module, Stmt, StmtId};
use crate::sym::Sym;
use std::collections::BTreeSet;

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
    let grid = CExpr::builtin("gridDim", "x");
    open_tile_walk(
        e,
        CExpr::builtin("blockIdx", "x"),
        tile().bin(COp::AddAssign, grid),
        "persistent: this block's tiles",
        line,
    );
}

/// Opens a loop over tiles `init`, `step`, … of the walk and binds the block variables.
fn open_tile_walk(e: &mut Emitter, init: CExpr, step: CExpr, note: &str, line: Option<u32>) {
    e.open(
        Op::For {
            var: "tsl_tile".into(),
            init,
            bound: CExpr::var("tsl_tiles"),
            step: Some(step),
        },
        Some(note),
        line,
    );
    e.scopes.push();
    bind_block_vars(e, line);
}

/// Binds the block variables to the tile `tsl_tile` (in the scope the tile loop opened).
pub(super) fn bind_block_vars(e: &mut Emitter, line: Option<u32>) {
    let vars: Vec<ParVar> = e.geo.block_vars.clone();
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
            emit_raster(e, tile(), line);
        }
        (_, [bm, bn]) => {
            let rows = CExpr::sym_operand(&bm.extent);
            e.emit(const_int(&bm.name, tile().rem(rows.clone())), None, line);
            e.emit(const_int(&bn.name, tile().div(rows)), None, line);
        }
        (_, [b]) => e.emit(const_int(&b.name, tile()), None, line),
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
pub fn emit_raster(e: &mut Emitter, tile: CExpr, line: Option<u32>) {
    let geo = e.geo;
    let Some((cm, cn)) = &geo.cluster_shape else {
        e.call(super::cluster::raster_call(geo, tile), None, line);
        return;
    };
    let (bm, bn) = (&geo.block_vars[0], &geo.block_vars[1]);
    let group = geo.raster.clone().unwrap_or(Sym::Int(1));
    let call = super::kernel::Call::new("tsl_raster_cluster_2d").args([
        tile,
        CExpr::sym(&bm.extent),
        CExpr::sym(&bn.extent),
        CExpr::sym(&group),
        CExpr::sym_operand(cm),
        CExpr::sym_operand(cn),
        CExpr::var(&bm.name),
        CExpr::var(&bn.name),
    ]);
    e.call(call, None, line);
}

/// `const int name = init;`
fn const_int(name: &str, init: CExpr) -> Op {
    Op::Decl {
        ty: "const int".into(),
        name: name.into(),
        init: Some(init),
    }
}

/// `tsl_tile`, the tile a walk is at.
fn tile() -> CExpr {
    CExpr::var("tsl_tile")
}

/// `tsl_tile != blockIdx.x`: not this block's first tile.
fn not_first_tile() -> CExpr {
    tile().bin(COp::Ne, CExpr::builtin("blockIdx", "x"))
}

/// `tsl_tile + gridDim.x < tsl_tiles`: the block has a later tile.
fn has_next_tile() -> CExpr {
    tile()
        .add(CExpr::builtin("gridDim", "x"))
        .lt(CExpr::var("tsl_tiles"))
}

/// `pingpong;`: the consumer branch, the first warpgroup it runs on, and how many take turns.
pub struct PingPong {
    pub branch: StmtId,
    pub first_wg: i64,
    pub consumers: Sym,
}

pub fn pingpong(e: &Emitter) -> Option<PingPong> {
    let (branch, first_wg) = super::roles::pingpong_branch(e.m, e.info, e.geo)?;
    let wg = e
        .geo
        .thread_vars
        .iter()
        .find(|v| v.level == Level::Group4)?;
    Some(PingPong {
        branch,
        first_wg,
        consumers: Sym::bin(BinaryOp::Sub, wg.extent.clone(), Sym::Int(first_wg)),
    })
}

/// Every statement of `b`, nested ones included.
fn nested(m: &Module, b: &[StmtId], out: &mut Vec<StmtId>) {
    for &s in b {
        out.push(s);
        for inner in crate::check::stmt_blocks(&m.stmts[s]) {
            nested(m, inner, out);
        }
    }
}

/// Events that some statement of `branch` triggers (by the checker's binding of each): under
/// `pingpong;` one warpgroup makes each of their phases.
pub fn pingpong_triggers(
    m: &Module,
    info: &crate::check::KernelInfo,
    branch: StmtId,
) -> BTreeSet<EventRef> {
    let mut all = Vec::new();
    nested(m, &[branch], &mut all);
    all.into_iter()
        .filter_map(|s| match &m.stmts[s] {
            Stmt::Trigger { event, .. }
            | Stmt::Ext(crate::ir::ExtStmt::TriggerAfter { event, .. }) => {
                event_ref(m, &info.bindings, *event)
            }
            _ => None,
        })
        .collect()
}

/// The ring events `b` waits on with per-thread parity bits (`wait e[i]`, not `e.at(k)`), by
/// the checker's binding of each; the name spells their C++ identifiers.
fn ring_waits(m: &Module, info: &crate::check::KernelInfo, b: &[StmtId]) -> BTreeSet<EventRef> {
    let mut all = Vec::new();
    nested(m, b, &mut all);
    all.into_iter()
        .filter_map(|s| match &m.stmts[s] {
            Stmt::Wait { event } if !matches!(m.exprs[*event], Expr::View { .. }) => {
                event_ref(m, &info.bindings, *event)
            }
            _ => None,
        })
        .collect()
}

/// The consumer branch's body under `pingpong;` (see the module comment).
pub fn pingpong_body(e: &mut Emitter, body: &[StmtId], pp: &PingPong, line: Option<u32>) {
    let m = e.m;
    let split = once_prefix(e, body);
    e.scopes.push();
    e.emit(
        const_int(
            "tsl_consumer",
            CExpr::builtin("threadIdx", "x")
                .div(CExpr::int(128))
                .sub(CExpr::int(pp.first_wg)),
        ),
        Some("pingpong: this warpgroup's place among the tsl_consumers that take turns"),
        line,
    );
    for &s in &body[..split] {
        if matches!(m.stmts[s], Stmt::Let { .. }) {
            stmt(e, s);
            continue;
        }
        e.open(
            Op::If {
                cond: CExpr::var("tsl_consumer").eq(CExpr::int(0)),
                constexpr: false,
            },
            Some("pingpong: one warpgroup makes the block's once-only triggers"),
            line,
        );
        stmt(e, s);
        e.close(None);
    }
    if split == body.len() {
        e.scopes.pop();
        return;
    }
    let rest = &body[split..];
    let rings: Vec<String> = ring_waits(m, e.info, rest)
        .into_iter()
        .map(|r| r.name)
        .collect();
    for r in &rings {
        e.emit(
            Op::Decl {
                ty: "__shared__ unsigned".into(),
                name: format!("tsl_pingpong_phase_{r}"),
                init: None,
            },
            Some(&format!(
                "pingpong: the parity bits of `{r}`, handed from turn to turn"
            )),
            line,
        );
    }
    let grid = || CExpr::builtin("gridDim", "x");
    open_tile_walk(
        e,
        CExpr::builtin("blockIdx", "x").add(CExpr::var("tsl_consumer").mul(grid())),
        tile().bin(COp::AddAssign, CExpr::var("tsl_consumers").mul(grid())),
        "pingpong: this warpgroup's tiles, every tsl_consumers-th of the block's",
        line,
    );
    let info = e.info;
    let waits = |s: StmtId| !ring_waits(m, info, &[s]).is_empty();
    let first = rest.iter().position(|&s| waits(s));
    let last = rest.iter().rposition(|&s| waits(s));
    for (i, &s) in rest.iter().enumerate() {
        let sl = e.dsl_line(s);
        if Some(i) == first {
            e.call(
                Call::new("tsl_pingpong_wait_turn")
                    .targs([CExpr::var("tsl_consumers")])
                    .args([CExpr::var("tsl_consumer"), not_first_tile()]),
                Some("pingpong: the main loop starts when the previous tile's has ended"),
                sl,
            );
            for r in &rings {
                e.call(
                    Call::new("tsl_pingpong_take_phase")
                        .targs([CExpr::var("tsl_consumers")])
                        .args([
                            CExpr::var(format!("tsl_phase_{r}")),
                            CExpr::var(format!("tsl_pingpong_phase_{r}")),
                            not_first_tile(),
                        ]),
                    Some("continue the ring where the previous tile left it"),
                    sl,
                );
            }
        }
        if Some(i) != last {
            stmt(e, s);
            continue;
        }
        let mut pass: Vec<(Call, Option<&'static str>)> = rings
            .iter()
            .map(|r| {
                let call = Call::new("tsl_pingpong_hand_phase")
                    .targs([CExpr::var("tsl_consumers")])
                    .args([
                        CExpr::var(format!("tsl_phase_{r}")),
                        CExpr::var(format!("tsl_pingpong_phase_{r}")),
                        has_next_tile(),
                    ]);
                (call, None)
            })
            .collect();
        pass.push((
            Call::new("tsl_pingpong_pass_turn")
                .targs([CExpr::var("tsl_consumers")])
                .args([CExpr::var("tsl_consumer"), has_next_tile()]),
            Some("pingpong: the next tile's main loop may start; this epilogue overlaps it"),
        ));
        // A pipelined k-loop hands the turn on when it closes, while its last WGMMAs finish
        // (`hopper::emit_tail`); otherwise after the statement.
        e.before_tail = Some((e.indent, pass));
        stmt(e, s);
        if let Some((_, pass)) = e.before_tail.take() {
            for (call, note) in pass {
                e.call(call, note, sl);
            }
        }
    }
    close_tile_loop(e, line);
    e.scopes.pop();
}

/// One statement; an error is recorded and lowering goes on.
fn stmt(e: &mut Emitter, s: StmtId) {
    if let Err(err) = e.stmt(s) {
        e.errors.push(err);
    }
}
