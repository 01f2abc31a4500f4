//! `streamk;`: stream-K for the last wave of a persistent grid (helpers in
//! `codegen-cuda/cuda/lowering/streamk.cuh`, which says how the work is split and how a tile's
//! partial sums meet). Each `inthreads` branch walks segments — a block tile and the
//! k-iterations `[tsl_kb, tsl_ke)` of it this block runs — instead of whole tiles:
//! `for (tsl_seg = 0; tsl_seg < tsl_sk.segments(); ++tsl_seg)`, each segment's tile and range a
//! function of its index and the launch (no state carried between segments, so the compiler
//! keeps the walk in uniform registers as it does the persistent walk). The
//! branch's main loop (`check::streamk::main_loop`) runs over the segment; the branch whose main
//! loop accumulates (`mc`) then either hands its partial sums on (`tsl_sk_publish`, a segment
//! that does not start the tile: the rest of the tile's statements are skipped) or, starting the
//! tile while later blocks hold the rest of it, adds theirs (`tsl_sk_gather`) before the
//! tile's epilogue. Branches see the same segments in the same order, so the rings between them
//! stay in step; the pipelined `mma.commit` releases stages from the segment's first k-tile
//! (`Deferred::lo`). The workspace is the kernel's last parameter, `tsl_sk_ws`
//! (`KernelArg::Workspace`).

use super::cxx::{CExpr, COp};
use super::emitter::Emitter;
use super::kernel::{Call, Op};
use super::pipeline::Deferred;
use crate::ir::{Stmt, StmtId};
use crate::sym::Sym;

/// The kernel parameter that carries the workspace.
pub const WORKSPACE: &str = "tsl_sk_ws";
/// Bytes of workspace per thread of a block: `TSL_SK_REGS` (128) f32 partial sums and a flag.
pub const BYTES_PER_THREAD: i64 = 128 * 4 + 4;

/// The main loop of a segment runs over `[tsl_kb, tsl_ke)`.
pub fn segment_range() -> (CExpr, CExpr) {
    (CExpr::var("tsl_kb"), CExpr::var("tsl_ke"))
}

/// A pipelined main loop's tail under `streamk`: the first k-tile is `tsl_kb`, the last
/// `tsl_ke - 1`.
pub fn segment_deferred(e: &Emitter, s: StmtId, mut d: Deferred) -> Deferred {
    if e.sk_loop == Some(s) {
        d.lo = CExpr::var("tsl_kb");
        d.trip = Sym::Name("tsl_ke".into());
    }
    d
}

/// An `inthreads` branch body under `streamk` (the `persistent` branch body with the segment
/// walk; see the module comment).
pub fn branch_body(e: &mut Emitter, body: &[StmtId], line: Option<u32>) {
    let m = e.m;
    let split = super::persistent::once_prefix(e, body);
    e.scopes.push();
    for &s in &body[..split] {
        stmt(e, s);
    }
    if split < body.len() {
        let rest = &body[split..];
        let main = crate::check::streamk::main_loop(m, rest);
        let kt = match main.map(|l| &m.stmts[l]) {
            Some(Stmt::Foreach { extents, .. }) if extents.len() == 1 => {
                e.cx().sym(extents[0]).map(|s| CExpr::sym(&s))
            }
            _ => Err(super::error::LowerError::new(
                crate::span::Span::DUMMY,
                "`streamk`: a branch without one main k-loop",
            )),
        };
        let kt = match kt {
            Ok(kt) => kt,
            Err(err) => {
                e.errors.push(err);
                e.scopes.pop();
                return;
            }
        };
        let c = e
            .geo
            .cluster
            .as_ref()
            .map_or(CExpr::int(1), CExpr::sym_operand);
        e.emit(
            Op::Decl {
                ty: "const tsl_sk_plan".into(),
                name: "tsl_sk".into(),
                init: Some(CExpr::call(
                    "tsl_sk_make_plan",
                    vec![CExpr::var("tsl_tiles"), c, kt],
                )),
            },
            Some("streamk: whole tiles in full waves, the last tiles' k-tiles spread over every block"),
            line,
        );
        e.open(
            Op::For {
                var: "tsl_seg".into(),
                init: CExpr::int(0),
                bound: sk().method("segments", vec![]),
                step: None,
            },
            Some(
                "streamk: this block's segments: its whole tiles, then its share of the last ones",
            ),
            line,
        );
        e.scopes.push();
        for (name, part) in [("tsl_tile", "tile"), ("tsl_kb", "kb"), ("tsl_ke", "ke")] {
            e.emit(
                Op::Decl {
                    ty: "const int".into(),
                    name: name.into(),
                    init: Some(sk().method(part, vec![CExpr::var("tsl_seg")])),
                },
                None,
                line,
            );
        }
        super::persistent::bind_block_vars(e, line);
        for &s in rest {
            if Some(s) != main {
                stmt(e, s);
                continue;
            }
            e.sk_loop = Some(s);
            stmt(e, s);
            e.sk_loop = None;
            let accs = crate::check::streamk::accumulators(m, s);
            if let Some(acc) = accs.iter().next() {
                fixup(e, acc, e.dsl_line(s));
            }
        }
        super::persistent::close_tile_loop(e, line);
    }
    e.scopes.pop();
}

/// `tsl_sk`, the segment plan.
fn sk() -> CExpr {
    CExpr::var("tsl_sk")
}

/// After the accumulating main loop: hand the partial sums on, or add the later blocks'.
fn fixup(e: &mut Emitter, acc: &str, line: Option<u32>) {
    e.open(
        Op::If {
            cond: CExpr::var("tsl_kb").bin(COp::Ne, CExpr::int(0)),
            constexpr: false,
        },
        Some("streamk: not the tile's first k-tiles: the block that has those adds these partial sums"),
        line,
    );
    e.call(
        Call::new("tsl_sk_publish")
            .targs([CExpr::var("tsl_threads")])
            .args([CExpr::var(acc), CExpr::var(WORKSPACE)]),
        None,
        line,
    );
    e.emit(Op::Continue, None, line);
    e.close(line);
    e.emit(
        Op::Guarded {
            cond: CExpr::var("tsl_ke").bin(COp::Ne, sk().member("kt")),
            calls: vec![
                Call::new("tsl_sk_gather")
                    .targs([CExpr::var("tsl_threads")])
                    .args([
                        CExpr::var(acc),
                        CExpr::var(WORKSPACE),
                        sk(),
                        CExpr::var("tsl_tile"),
                    ]),
            ],
        },
        Some("streamk: later blocks hold the rest of the tile: add their partial sums"),
        line,
    );
}

/// One statement; an error is recorded and lowering goes on.
fn stmt(e: &mut Emitter, s: StmtId) {
    if let Err(err) = e.stmt(s) {
        e.errors.push(err);
    }
}
