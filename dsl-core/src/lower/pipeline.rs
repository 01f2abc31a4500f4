//! Software pipelining of the WGMMA k-loop ("release one stage late").
//!
//! A consumer loop that ends with `mma.commit; trigger empty[stage];` where
//! `stage = iv % STAGES`: wait for this k-tile's WGMMAs, then hand the stage back. Lowered
//! literally that drains the tensor pipe every k-tile. When the pattern matches exactly, the
//! loop instead keeps one WGMMA group in flight (`wgmma.wait_group 1`) and releases the
//! *previous* k-tile's stage, whose group is then known complete; the last stage is released
//! after the loop. The producer sees the same sequence of releases, one k-tile later. That is
//! safe with two or more stages (with one, the next load needs this very stage) and pays off
//! with three or more (measured on an H200: with two, the late release starves the producer,
//! 0.57x of cuBLAS against 0.65x literal), so `if constexpr (STAGES > 2)` chooses at compile time.

use crate::check::{Binding, KernelInfo};
use crate::ir::{BinaryOp, Expr, Module, Stmt, StmtId};
use crate::sym::Sym;

/// A matched `mma.commit; trigger E[stage];` loop tail.
#[derive(Clone, Debug, PartialEq)]
pub struct Deferred {
    pub commit: StmtId,
    pub trigger: StmtId,
    /// The event the loop's `trigger` releases (the checker's binding of it).
    pub event: crate::check::events::EventRef,
    /// The ring size `S` of `stage = iv % S`.
    pub stages: Sym,
    pub iv: String,
    pub stage: String,
    /// The loop's trip count.
    pub trip: Sym,
    /// The loop variable's first value: `0`, or `tsl_kb` for a `streamk` segment.
    pub lo: super::cxx::CExpr,
}

/// Matches the loop `foreach {iv} in [trip] { …; stage = iv % S; …; mma.commit; trigger E[stage]; }`,
/// its names as the checker binds them: `stage` a `let` of the body, `iv` the loop's variable.
pub fn match_loop(
    m: &Module,
    info: &KernelInfo,
    vars: &[crate::ir::Ident],
    trip: &Sym,
    body: &[StmtId],
) -> Option<Deferred> {
    if vars.len() != 1 || body.len() < 2 {
        return None;
    }
    let iv = &vars[0].name;
    let (commit, trigger) = (body[body.len() - 2], body[body.len() - 1]);
    if !matches!(m.stmts[commit], Stmt::MmaCommit) {
        return None;
    }
    let Stmt::Trigger { event, after: None } = &m.stmts[trigger] else {
        return None;
    };
    let Expr::Index { base, index } = &m.exprs[*event] else {
        return None;
    };
    let (Expr::Name(_), Expr::Name(stage)) = (&m.exprs[*base], &m.exprs[*index]) else {
        return None;
    };
    let ev = crate::check::events::event_ref(m, &info.bindings, *event)?;
    let Some(&Binding::Let(decl)) = info.bindings.get(index) else {
        return None;
    };
    if !body.contains(&decl) {
        return None;
    }
    let Stmt::Let { value, .. } = &m.stmts[decl] else {
        return None;
    };
    let Expr::Binary {
        op: BinaryOp::Rem,
        lhs,
        rhs,
    } = &m.exprs[*value]
    else {
        return None;
    };
    // `iv`: variable 0 of the `foreach` whose body this is.
    let Some(&Binding::LoopVar { stmt, index: 0 }) = info.bindings.get(lhs) else {
        return None;
    };
    if !matches!(&m.stmts[stmt], Stmt::Foreach { body: b, .. } if b.as_slice() == body) {
        return None;
    }
    let stages = Sym::from_expr(m, *rhs)?;
    Some(Deferred {
        commit,
        trigger,
        event: ev,
        stages,
        iv: iv.clone(),
        stage: stage.clone(),
        trip: trip.clone(),
        lo: super::cxx::CExpr::int(0),
    })
}
