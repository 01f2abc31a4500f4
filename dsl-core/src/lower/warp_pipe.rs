//! `[[frag_prefetch]]` on a K-tile loop of warp-level `mma`s: the operand fragments of each
//! k-step are loaded one step ahead into register double buffers, so that a step's `ldmatrix`
//! runs under the previous step's `mma.sync`s, and the tile's `dma.wait` moves before its last
//! k-step, whose loads then read the next tile (the sm_80 multistage mainloop):
//!
//! ```text
//! { kt = 0: wait; async copies; kk = 0: load slot 0 }
//! for kt:
//!   for kk (unrolled):
//!     if kk == F - 1 && kt + 1 < n: { kt + 1: wait; async copies }   // the next tile's head
//!     { kt, kk = the next step: load slot kk % 2 }   // the last step's next is tile kt + 1
//!     mma (slot kk % 2)
//! ```
//!
//! Each tile's wait and copies run in the same order and count as before (the copies right
//! after the wait's barrier), one k-step earlier: the waits see the same async-copy groups
//! outstanding, and the barrier before the last step orders every warp's last reads of the
//! tile (its last step's fragments were loaded a step earlier) before the copies that refill
//! its stage.
//!
//! Why the lowering does it, on request: once the loop has this shape the double buffer, the
//! slot of each step, the peeled first step and the moved wait have one right answer, and a
//! user writing them by hand would need fragments reassigned across iterations, slot indexing
//! and a peeled prologue in the language — three forms for one schedule, as CUTLASS's users
//! leave the multistage mainloop to the library. It is not applied silently because it is not
//! free: it doubles the operand fragments' registers, which decides between spilling and not at
//! the larger warp tiles. So the loop asks for it (as `#pragma unroll` asks for unrolling), the
//! checker says why a loop does not qualify, and the kernel's tunables and register `require`
//! decide the rest.
//!
//! The checker (`check/warp_pipe.rs`, E1600–E1606) accepts only the loop shape this keeps the
//! meaning of: the wait first, async copies, then the k-step loop of loads followed by `mma`s,
//! an even step count (the slot of a step is its parity). The next step's loads see the loop
//! variables as C++ constants of the same names in a block of their own; past the last tile
//! they read the last tile again (never past the staged tiles), and nothing uses them.

use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::Op;
use super::scope::Local;
use super::warp_frags::Buffer;
use crate::check::Binding;
use crate::ir::{Stmt, StmtId};

/// Whether `s` is a loop marked `[[frag_prefetch]]`.
pub fn marked(e: &Emitter, s: StmtId) -> bool {
    e.m.attributes
        .iter()
        .any(|a| a.target == s && a.name.name == "frag_prefetch")
}

fn paren(s: &crate::sym::Sym) -> CExpr {
    CExpr::sym_operand(s)
}

fn var(n: &str) -> CExpr {
    CExpr::var(n)
}

fn one() -> CExpr {
    CExpr::int(1)
}

pub fn lower(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    let internal = |what: &str| {
        LowerError::new(
            m.stmt_span(s),
            format!("internal: a `[[frag_prefetch]]` loop {what} (the checker's E1600–E1606)"),
        )
    };
    let Stmt::Foreach {
        vars,
        extents,
        body,
        ..
    } = &m.stmts[s]
    else {
        return Err(internal("is not a `foreach`"));
    };
    let (Some(&wait), Some(&steps)) = (body.first(), body.last()) else {
        return Err(internal("is empty"));
    };
    let copies = &body[1..body.len() - 1];
    let Stmt::Foreach {
        vars: step_vars,
        extents: step_extents,
        body: step_body,
        ..
    } = &m.stmts[steps]
    else {
        return Err(internal("does not end with its k-step loop"));
    };
    let (Some(kt), Some(kk), Some(&n), Some(&f)) = (
        vars.first(),
        step_vars.first(),
        extents.first(),
        step_extents.first(),
    ) else {
        return Err(internal("has no loop variable"));
    };
    let (kt, kk) = (kt.name.as_str(), kk.name.as_str());
    let n = e.cx().sym(n)?;
    let f = e.cx().sym(f)?;
    let loads: Vec<StmtId> = step_body
        .iter()
        .copied()
        .filter(|&t| matches!(m.stmts[t], Stmt::MmaLoad { .. }))
        .collect();
    let mmas: Vec<StmtId> = step_body
        .iter()
        .copied()
        .filter(|&t| matches!(m.stmts[t], Stmt::Mma { .. }))
        .collect();
    let step_line = e.dsl_line(steps);
    e.scopes
        .declare(Binding::LoopVar { stmt: s, index: 0 }, Local::LoopVar);
    e.scopes.declare(
        Binding::LoopVar {
            stmt: steps,
            index: 0,
        },
        Local::LoopVar,
    );
    e.emit(
        Op::StaticAssert {
            cond: paren(&f).rem(CExpr::int(2)).eq(CExpr::int(0)),
            message: "a k-step's fragments take the slot of its parity".into(),
        },
        None,
        step_line,
    );
    // The double buffers, sized by the first load of each.
    for &l in &loads {
        let Stmt::MmaLoad { name, .. } = &m.stmts[l] else {
            continue;
        };
        // A name no earlier node declares (a second such loop, or a name loaded twice).
        let buf = (0..)
            .map(|i| match i {
                0 => format!("tsl_{}_buf", name.name),
                _ => format!("tsl_{}_buf{i}", name.name),
            })
            .find(|b| !e.lines.iter().any(|l| l.op.declared() == Some(b.as_str())))
            .unwrap_or_default();
        let decl = e.lines.len();
        e.emit(
            Op::Array2D {
                ty: "tsl_u32".into(),
                name: buf.clone(),
                rows: CExpr::int(2),
                len: CExpr::int(0),
            },
            None,
            e.dsl_line(l),
        );
        e.warp.buffers.insert(
            Binding::Frag(l),
            Buffer {
                name: buf,
                decl,
                slot: CExpr::var(kk).rem(CExpr::int(2)),
            },
        );
    }
    // The first tile lands, the copies of the first iteration are issued, and the first
    // step's fragments are loaded.
    e.open(
        Op::Scope,
        Some("the first tile: its wait and copies, its first k-step's fragments into slot 0"),
        line,
    );
    e.scopes.push();
    for v in [kt, kk] {
        e.emit(
            Op::Decl {
                ty: "const int".into(),
                name: v.into(),
                init: Some(CExpr::int(0)),
            },
            None,
            line,
        );
    }
    e.stmt(wait)?;
    for &c in copies {
        e.stmt(c)?;
    }
    for &l in &loads {
        e.stmt(l)?;
    }
    e.scopes.pop();
    e.close(None);
    e.scopes.push();
    e.open(
        Op::For {
            var: kt.into(),
            init: CExpr::int(0),
            bound: CExpr::sym(&n),
            step: None,
        },
        None,
        line,
    );
    e.emit(Op::Unroll(None), None, None);
    e.open(
        Op::For {
            var: kk.into(),
            init: CExpr::int(0),
            bound: CExpr::sym(&f),
            step: None,
        },
        None,
        step_line,
    );
    // Before the last step: the next tile's wait and copies (the next iteration's first
    // statements, moved up a step), so that its first fragments load under this step's `mma`s.
    // The barrier also tells every warp is done reading this tile's stage, which the copies
    // may refill.
    e.open(
        Op::If {
            cond: var(kk)
                .eq(paren(&f).sub(one()))
                .and(var(kt).add(one()).lt(paren(&n))),
            constexpr: false,
        },
        Some("before the last k-step: the next tile's wait and copies"),
        e.dsl_line(wait),
    );
    e.emit(
        Op::Decl {
            ty: "const int".into(),
            name: "tsl_next_tile".into(),
            init: Some(var(kt).add(one())),
        },
        None,
        e.dsl_line(wait),
    );
    e.open(Op::Scope, None, e.dsl_line(wait));
    e.scopes.push();
    e.emit(
        Op::Decl {
            ty: "const int".into(),
            name: kt.into(),
            init: Some(var("tsl_next_tile")),
        },
        None,
        e.dsl_line(wait),
    );
    e.stmt(wait)?;
    for &c in copies {
        e.stmt(c)?;
    }
    e.scopes.pop();
    e.close(None);
    e.close(None);
    let in_tile = var(kk).add(one()).lt(paren(&f));
    let next_tile = var(kt)
        .add(one())
        .lt(paren(&n))
        .ternary(var(kt).add(one()), var(kt))
        .paren();
    let next_kt = in_tile.clone().ternary(var(kt), next_tile);
    let next_kk = in_tile.ternary(var(kk).add(one()), CExpr::int(0));
    for (name, init, note) in [
        (
            "tsl_next_kt",
            next_kt,
            "the next k-step's tile: the next tile after the last step (past the last tile, the last again: loaded, never used)",
        ),
        ("tsl_next_kk", next_kk, "and its k-step"),
    ] {
        e.emit(
            Op::Decl {
                ty: "const int".into(),
                name: name.into(),
                init: Some(init),
            },
            Some(note),
            step_line,
        );
    }
    e.open(
        Op::Scope,
        Some("the next k-step's fragments, under this step's mma.sync"),
        step_line,
    );
    e.scopes.push();
    for (v, init) in [(kt, "tsl_next_kt"), (kk, "tsl_next_kk")] {
        e.emit(
            Op::Decl {
                ty: "const int".into(),
                name: v.into(),
                init: Some(var(init)),
            },
            None,
            step_line,
        );
    }
    for &l in &loads {
        e.stmt(l)?;
    }
    e.scopes.pop();
    e.close(None);
    // This step's `mma`s read the slot its fragments were loaded into one step earlier.
    for &x in &mmas {
        e.stmt(x)?;
    }
    e.close(None);
    e.close(None);
    e.scopes.pop();
    Ok(())
}
