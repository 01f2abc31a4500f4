//! Hopper statements: events → mbarriers, `tma.copy` → bulk tensor copies, `mma.*` → WGMMA.
//!
//! - `shared event e[N]` → an array of mbarriers, initialised by thread 0 with the number of
//!   threads that reach the first `trigger e` (counted at compile time by `tsl_count_threads`),
//!   and one phase bit per barrier per thread (`tsl_phase_e`) that each `wait` flips.
//! - `tma.copy.async<e> g => s` → `expect_tx(e, bytes)` + a TMA load completing on `e`; the
//!   statement's `trigger e` is the arrive that closes the phase.
//! - `tma.copy g => s` (no event) → thread 0 issues on a kernel-owned barrier, every thread waits.
//! - `tma.copy s => g` → a proxy fence, a barrier over the threads that store, one thread issues
//!   the TMA store (see `tma_store`: when it waits for the tile's read).
//! - `mma.load` → a shared-memory matrix descriptor; `mma.row.row` → `wgmma.mma_async` (fenced
//!   before the loop that issues it); `mma.commit` → commit + wait; `mma.store` → the
//!   accumulator fragment (or a column slice of it: a range of its registers) written to a
//!   shared tile.

use super::cexpr::View;
use super::cxx::{CExpr, COp, CUn, ThreadLambda};
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, Op};
use super::pipeline::Deferred;
use super::scope::{FragKind, Local, TensorLocal};
use super::wgmma_issue::{commit_wait, desc_cpp, register_a_issue, wgmma_commit_wait};
use crate::check::events::{EventRef, event_ref};
use crate::check::{Binding, IdentRole};
use crate::ir::{CopyDst, DType, Expr, ExtStmt, MemSpace, Stmt, StmtId};
use crate::sym::Sym;

pub fn wgmma_fence(e: &mut Emitter, line: Option<u32>) {
    e.call(
        Call::new("tsl_wgmma_fence"),
        Some("order accumulator registers before the WGMMAs below"),
        line,
    );
}

/// One arrival on `event[idx]` from the threads executing the statement (one per warp when
/// whole warps reach it).
/// Under `cluster C;` a cluster-scope event's arrival goes to the barrier in every block of the
/// cluster.
pub fn arrive_call(e: &Emitter, event: &EventRef, idx: &CExpr) -> (Call, Option<&'static str>) {
    let bar = barrier_ptr(&event.name, idx.clone());
    let warp = CExpr::var(format!("tsl_warp_{}", event.name));
    match &e.cluster {
        Some(c) if c.events.contains(event) => (
            Call::new("tsl_mbar_arrive_cluster")
                .targs([CExpr::sym(&c.size), warp])
                .args([bar]),
            Some("every block of the cluster"),
        ),
        _ => (
            Call::new("tsl_mbar_arrive_from").targs([warp]).args([bar]),
            None,
        ),
    }
}

/// `&event[idx]`: the barrier of an event array's entry.
fn barrier_ptr(event: &str, idx: CExpr) -> CExpr {
    CExpr::var(event).index(idx).addr()
}

/// `&tsl_tma_bar`, the barrier of the synchronous TMA loads.
fn tma_bar() -> CExpr {
    CExpr::var("tsl_tma_bar").addr()
}

/// `threadIdx.x == 0`.
fn first_thread() -> CExpr {
    CExpr::builtin("threadIdx", "x").eq(CExpr::int(0))
}

/// Waits for every committed WGMMA group (`mma….async` ones left in flight).
pub fn wgmma_wait_all(e: &mut Emitter, line: Option<u32>, why: &str) {
    e.wgmma_pending = false;
    e.call(
        Call::new("tsl_wgmma_wait").targs([CExpr::int(0)]),
        Some(why),
        line,
    );
}

/// The `mma….async` statement whose future `event` names.
pub fn mma_future(m: &crate::ir::Module, event: crate::ir::ExprId) -> Option<StmtId> {
    let Expr::Name(n) = &m.exprs[event] else {
        return None;
    };
    m.mma_async
        .iter()
        .find(|(_, f)| f.as_ref().is_some_and(|f| &f.name == n))
        .map(|(s, _)| *s)
}

/// The statement list that holds `s` directly.
fn parent_block(m: &crate::ir::Module, s: StmtId) -> Option<&[StmtId]> {
    if m.kernel.body.contains(&s) {
        return Some(&m.kernel.body);
    }
    m.stmts.iter().find_map(|(_, st)| {
        crate::check::stmt_blocks(st)
            .into_iter()
            .find(|b| b.contains(&s))
            .map(|b| b.as_slice())
    })
}

/// `wait f;` for `f = mma.<a>.<b>.async …`: WGMMA groups complete in order, so `f`'s group is
/// done once at most N groups are pending, N the `.async` `mma`s issued after it in the same
/// statement list before the wait (0 — wait for all — when the wait is elsewhere, always
/// correct). Then the accumulator's registers are pinned after the wait.
pub fn wait_mma(
    e: &mut Emitter,
    s: StmtId,
    event: crate::ir::ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let Some(def) = mma_future(m, event) else {
        return Err(LowerError::new(m.expr_span(event), "not an `mma` future"));
    };
    let later = match parent_block(m, def) {
        Some(b) if b.contains(&s) => {
            let (i, j) = (
                b.iter().position(|x| *x == def).unwrap_or(0),
                b.iter().position(|x| *x == s).unwrap_or(0),
            );
            match i < j {
                true => b[i + 1..j]
                    .iter()
                    .filter(|x| m.mma_async(**x).is_some())
                    .count(),
                false => 0,
            }
        }
        _ => 0,
    };
    if e.wgmma_uncommitted {
        // Synchronous WGMMAs issued since: their group is newer than every `.async` one.
        e.call(Call::new("tsl_wgmma_commit"), None, line);
        e.wgmma_uncommitted = false;
    }
    let Stmt::Mma { acc, .. } = &m.stmts[def] else {
        return Err(LowerError::new(m.expr_span(event), "not an `mma` future"));
    };
    if later == 0 {
        e.wgmma_pending = false;
    }
    e.call(
        Call::new("tsl_wgmma_wait_for")
            .targs([CExpr::int(later as i64)])
            .args([CExpr::var(&acc.name)]),
        Some(&format!(
            "`{}`'s WGMMAs are complete ({later} later group(s) may still run)",
            m.expr_to_string(event)
        )),
        line,
    );
    Ok(())
}

/// The barrier a `wait`/`trigger`/`tma.copy.async<…>` operand names: (C++ pointer to it, the
/// event — the checker's binding of its declarator, whose name spells the barrier array —,
/// index in the array).
fn barrier_of(
    e: &mut Emitter,
    ev: crate::ir::ExprId,
) -> Result<(CExpr, EventRef, CExpr), LowerError> {
    let m = e.m;
    let not_event = || LowerError::new(m.expr_span(ev), "expected an event");
    let event = event_ref(m, &e.info.bindings, ev).ok_or_else(not_event)?;
    match &m.exprs[ev] {
        Expr::Name(_) => Ok((
            barrier_ptr(&event.name, CExpr::int(0)),
            event,
            CExpr::int(0),
        )),
        Expr::Index { index, .. } => {
            let (i, _) = e.cx().value(*index)?;
            Ok((barrier_ptr(&event.name, i.clone()), event, i))
        }
        Expr::View { .. } => match super::roles::generation(&e.cx(), ev)? {
            Some(g) => Ok((barrier_ptr(&g.array, g.slot.clone()), event, g.slot)),
            None => Err(not_event()),
        },
        _ => Err(not_event()),
    }
}

/// Whether `wait f;` (statement `s`) waits on the future of a TMA load without an event issued
/// before it in the load's statement list (or in a statement after the load there): the
/// lowering waits for such a load before the next statement, on every thread of the block (the
/// gate admits it nowhere else, E1692), so the wait has nothing left to wait for.
fn synchronous_copy_before(e: &Emitter, s: StmtId, event: crate::ir::ExprId) -> bool {
    let m = e.m;
    let Some(Binding::Future(def)) = e.info.bindings.get(&event).copied() else {
        return false;
    };
    if !matches!(m.stmts[def], Stmt::TmaCopy { event: None, .. })
        || e.info.bound_copies.contains_key(&def)
    {
        return false;
    }
    fn holds(m: &crate::ir::Module, b: &[StmtId], s: StmtId) -> bool {
        b.iter().any(|&x| {
            x == s
                || crate::check::stmt_blocks(&m.stmts[x])
                    .into_iter()
                    .any(|inner| holds(m, inner, s))
        })
    }
    parent_block(m, def).is_some_and(|b| {
        let i = b.iter().position(|y| *y == def).unwrap_or(b.len());
        holds(m, &b[(i + 1).min(b.len())..], s)
    })
}

pub fn sync_stmt(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    match &m.stmts[s] {
        Stmt::EventDecl { names, .. } => {
            for (di, d) in names.iter().enumerate() {
                let n = &d.name.name;
                let count = d.count.map(|c| e.cx().sym(c)).transpose()?;
                let len = count.clone().unwrap_or(Sym::Int(1));
                let (arrivals, first, named) = e
                    .arrivals
                    .get(&Binding::Event(s, di))
                    .cloned()
                    .unwrap_or((CExpr::Lit("true"), s, Vec::new()));
                e.emit(
                    array("__shared__ alignas(8) unsigned long long", n, &len),
                    None,
                    line,
                );
                let mut lets = thread_decls(e, first)?;
                lets.extend(named);
                let reach = CExpr::Lambda(Box::new(ThreadLambda::OfThread {
                    lets,
                    value: arrivals,
                }));
                let decl = |ty: &'static str, name: String, init: CExpr| Op::Decl {
                    ty: ty.into(),
                    name,
                    init: Some(init),
                };
                let reach_n = || CExpr::var(format!("tsl_reach_{n}"));
                let threads = || CExpr::var("tsl_threads");
                e.emit(
                    decl("constexpr auto", format!("tsl_reach_{n}"), reach),
                    Some(&format!("threads that reach `trigger {n}`")),
                    line,
                );
                e.emit(
                    decl(
                        "constexpr bool",
                        format!("tsl_warp_{n}"),
                        CExpr::call_t("tsl_warp_uniform", vec![threads()], vec![reach_n()]),
                    ),
                    Some("whole warps: one arrival per warp"),
                    line,
                );
                // Threads, or warps when whole warps arrive.
                let per_warp = CExpr::var(format!("tsl_warp_{n}"))
                    .ternary(CExpr::int(32), CExpr::int(1))
                    .paren();
                let mut expected =
                    CExpr::call_t("tsl_count_threads", vec![threads()], vec![reach_n()])
                        .div(per_warp);
                // `pingpong;`: one consumer warpgroup makes each phase of the events its branch
                // triggers.
                let this = EventRef {
                    name: n.clone(),
                    decl: s,
                    declarator: di,
                };
                if let Some(pp) = super::persistent::pingpong(e)
                    && super::persistent::pingpong_triggers(m, e.info, pp.branch).contains(&this)
                {
                    expected = expected.div(CExpr::var("tsl_consumers"));
                }
                if let Some(c) = &e.cluster
                    && c.events.contains(&this)
                {
                    expected = expected.mul(CExpr::sym_operand(&c.size));
                }
                e.emit(
                    decl("constexpr int", format!("tsl_arrivals_{n}"), expected),
                    None,
                    line,
                );
                e.open(
                    Op::If {
                        cond: first_thread(),
                        constexpr: false,
                    },
                    None,
                    line,
                );
                let init = Call::new("tsl_mbar_init").args([
                    barrier_ptr(n, CExpr::var("i")),
                    CExpr::var(format!("tsl_arrivals_{n}")),
                ]);
                e.emit(
                    Op::ForCall {
                        var: "i".into(),
                        bound: CExpr::sym(&len),
                        call: init,
                    },
                    None,
                    line,
                );
                e.call(Call::new("tsl_mbar_init_fence"), None, line);
                e.close(line);
                // Waits on generations (`e.at(k)`) carry their parity; only the others flip bits.
                let ring_waits = crate::check::all_stmts(m).into_iter().any(|w| {
                    matches!(&m.stmts[w], Stmt::Wait { event }
                        if !matches!(m.exprs[*event], Expr::View { .. })
                            && super::roles::event_binding(m, e.info, *event)
                                == Some(Binding::Event(s, di)))
                });
                if ring_waits {
                    let (init, note) = if m.is_ready(s) {
                        (
                            CExpr::Lit("~0u"),
                            "one parity bit per barrier, flipped by each wait; all set: `= ready`, so each first wait passes on the fresh barrier",
                        )
                    } else {
                        (
                            CExpr::int(0),
                            "one parity bit per barrier, flipped by each wait",
                        )
                    };
                    e.emit(
                        decl("unsigned", format!("tsl_phase_{n}"), init),
                        Some(note),
                        line,
                    );
                }
                e.scopes
                    .declare(Binding::Event(s, di), Local::Event { count });
            }
            if e.cluster.is_some() {
                e.call(
                    Call::new("tsl_cluster_sync"),
                    Some("every block's barriers are initialised before its peers arrive on them or multicast into it"),
                    line,
                );
            } else {
                e.barrier(
                    Some("barriers are initialised before anyone uses them"),
                    line,
                );
            }
        }
        Stmt::Wait { event } if matches!(m.exprs[*event], Expr::View { .. }) => {
            let Some(g) = super::roles::generation(&e.cx(), *event)? else {
                return Err(LowerError::new(m.expr_span(*event), "expected an event"));
            };
            let ready = event_ref(m, &e.info.bindings, *event).is_some_and(|r| m.is_ready(r.decl));
            let (parity, note) = if ready {
                (
                    g.parity.paren().bin(COp::BitXor, CExpr::int(1)),
                    "generation k of the ring: barrier k % N; `= ready`: generation 0 is the fresh barrier's, so generation g is phase g - 1, parity (k / N + 1) % 2",
                )
            } else {
                (
                    g.parity,
                    "generation k of the ring: barrier k % N, phase parity (k / N) % 2",
                )
            };
            e.call(
                Call::new("tsl_mbar_wait").args([
                    CExpr::call("tsl_smem_addr", vec![barrier_ptr(&g.array, g.slot)]),
                    parity,
                ]),
                Some(note),
                line,
            );
        }
        Stmt::Wait { event } if synchronous_copy_before(e, s, *event) => {
            let why = format!(
                "`{}` landed with its load above (a TMA load without an event is waited where it is issued)",
                m.expr_to_string(*event)
            );
            e.emit(Op::Comment(why), None, line);
        }
        Stmt::Wait { event } => {
            let (_, ev, idx) = barrier_of(e, *event)?;
            let phase = CExpr::var(format!("tsl_phase_{}", ev.name));
            e.call(
                Call::new("tsl_mbar_wait_ring").args([CExpr::var(ev.name), idx, phase]),
                None,
                line,
            );
        }
        Stmt::Trigger { event, .. } | Stmt::Ext(ExtStmt::TriggerAfter { event, .. }) => {
            if e.deferred.as_ref().is_some_and(|d| d.trigger == s) {
                let why = "released one k-tile late, by the pipelined `mma.commit` above";
                e.emit(Op::Comment(why.into()), None, line);
            } else {
                if e.wgmma_uncommitted {
                    // The WGMMAs issued above read shared memory until they complete: the
                    // event may release what they read.
                    wgmma_commit_wait(e, line, "the WGMMAs above are done before the event fires");
                    // Under an `if`, the path around the trigger has not committed them.
                    e.wgmma_uncommitted = super::roles::under_if(m, s);
                }
                let (_, ev, idx) = barrier_of(e, *event)?;
                let (call, note) = arrive_call(e, &ev, &idx);
                e.call(call, note, line);
            }
        }
        Stmt::TmaCopy {
            event, src, dst, ..
        } => {
            let CopyDst::Expr(d) = dst else {
                return Err(LowerError::new(
                    m.stmt_span(s),
                    "`tma.copy … => shared` needs a declared destination tensor",
                ));
            };
            let sv = e.cx().view(*src)?;
            let dv = e.cx().view(*d)?;
            let swz = e.swizzle.get(&s).cloned().unwrap_or(Sym::Int(0));
            match (sv.tensor.space, dv.tensor.space) {
                (MemSpace::Global, MemSpace::Shared) => {
                    match (event, e.bound_copies.get(&s).copied()) {
                        (None, Some(ev)) => bound_load(e, s, ev, &sv, &dv, swz, line)?,
                        _ => tma_load(e, s, *event, &sv, &dv, swz, line)?,
                    }
                }
                (MemSpace::Shared, MemSpace::Global) => {
                    super::tma_store::store(e, &sv, &dv, swz, line)?
                }
                _ => {
                    return Err(LowerError::new(
                        m.stmt_span(s),
                        "`tma.copy` moves tiles between global and shared memory",
                    ));
                }
            }
        }
        _ => unreachable!(),
    }
    Ok(())
}

/// `f = tma.copy[.swiz<N>] src => shared;`: a synchronous TMA load into the future's fresh
/// buffer `f` (placed by the `memory` pass, of the source tile's shape), after which `f` names
/// that shared tile. Without `.async` the copy has completed when the statement ends: it is the
/// synchronous load of `tma.copy src => t;`, waited for before the next statement that is not
/// a synchronous TMA load.
pub fn future_load(
    e: &mut Emitter,
    s: StmtId,
    f: &crate::ir::Ident,
    src: crate::ir::ExprId,
    dst: &CopyDst,
    line: Option<u32>,
) -> Result<(), LowerError> {
    if !matches!(dst, CopyDst::Fresh(MemSpace::Shared)) {
        return Err(LowerError::new(
            e.m.stmt_span(s),
            "a synchronous `tma.copy` future loads into a fresh `=> shared` buffer",
        ));
    }
    super::simt::declare_fresh(e, f, line)?;
    let t = e.scopes.cpp_tensor(&f.name).cloned().ok_or_else(|| {
        LowerError::new(f.span, "internal: a fresh shared buffer without a tensor")
    })?;
    let sv = e.cx().view(src)?;
    let dv = View::whole(t);
    if sv.tensor.space != MemSpace::Global {
        return Err(LowerError::new(
            e.m.expr_span(src),
            "a `tma.copy` future loads from global memory",
        ));
    }
    let swz = e.swizzle.get(&s).cloned().unwrap_or(Sym::Int(0));
    tma_load(e, s, None, &sv, &dv, swz, line)
}

/// A TMA load whose future `trigger ev after f` publishes: one thread of those that reach the
/// event's `trigger` (all of them run the load statement too) adds the bytes to the event's
/// phase and issues the copy, before its own arrival — so the phase cannot complete before the
/// bytes are expected.
fn bound_load(
    e: &mut Emitter,
    s: StmtId,
    ev: crate::ir::ExprId,
    sv: &View,
    dv: &View,
    swz: Sym,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let (p, arr, _) = barrier_of(e, ev)?;
    if sv.tile.len() != 2 {
        return Err(LowerError::new(
            e.m.stmt_span(s),
            "`tma.copy` lowers 2-D tiles",
        ));
    }
    let bytes = Sym::mul(
        sv.tile_elems(),
        Sym::Int(sv.tensor.dtype.size_bytes() as i64),
    );
    let lead = match &e.m.stmts[s] {
        Stmt::TmaCopy { bind: Some(f), .. } => format!("tsl_lead_{}", f.name),
        _ => format!("tsl_lead_{}", arr.name),
    };
    let cond = CExpr::join(COp::And, e.thread_conds.iter().map(|c| c.clone().paren()))
        .unwrap_or(CExpr::Lit("true"));
    e.emit(
        Op::Decl {
            ty: "constexpr int".into(),
            name: lead.clone(),
            // Evaluated by the C++ compiler, like the arrival counts.
            init: Some(CExpr::Lambda(Box::new(ThreadLambda::FirstThread {
                lets: thread_decls(e, s)?,
                cond,
            }))),
        },
        Some("the first thread running this load issues it"),
        line,
    );
    e.open(
        Op::If {
            cond: CExpr::builtin("threadIdx", "x").eq(CExpr::var(&lead)),
            constexpr: false,
        },
        None,
        line,
    );
    if let Some(mc) = e.cluster.as_ref().and_then(|c| c.load(s)) {
        // `.multicast` under a cluster: this block loads its slice for every block.
        tma_load_multicast(e, p, sv, dv, swz, mc, bytes, line)?;
        e.close(line);
        return Ok(());
    }
    let map = e.tma_map(sv, swz)?;
    tma_load_on(e, p, &map, sv, dv, bytes, "the event's phase", line);
    e.close(line);
    Ok(())
}

/// `tsl_mbar_expect_tx(p, bytes); tsl_tma_load_2d(…, p);`: a TMA load of `sv` into `dv` through
/// tensor map `map`, completing on barrier `p` (`phase` names it in the note).
#[allow(clippy::too_many_arguments)]
fn tma_load_on(
    e: &mut Emitter,
    p: CExpr,
    map: &str,
    sv: &View,
    dv: &View,
    bytes: Sym,
    phase: &str,
    line: Option<u32>,
) {
    e.call(
        Call::new("tsl_mbar_expect_tx").args([p.clone(), CExpr::sym(&bytes)]),
        Some(&format!("bytes this copy adds to {phase}")),
        line,
    );
    let load = Call::new("tsl_tma_load_2d").args([
        dv.tile_ptr(),
        CExpr::var(map).addr(),
        sv.origin[1].clone(),
        sv.origin[0].clone(),
        p,
    ]);
    e.call(load, Some("coords: column, row"), line);
}

/// `const int wg = tsl_tid / 128; …` for the thread-counting lambda.
/// The thread variables of the levels around `s` as functions of `tsl_tid`, for the
/// compile-time thread counts of `s` (its `inthreads` conditions name only those). Sibling
/// `parallel` levels may reuse a name with another index: only the enclosing one is declared.
fn thread_decls(e: &Emitter, s: StmtId) -> Result<Vec<(String, CExpr)>, LowerError> {
    let chain = super::roles::enclosing_levels(e.m, s);
    let encloses = |b: &Binding| match b {
        Binding::ParallelVar { stmt, level, .. } => chain.contains(&(*stmt, *level)),
        _ => false,
    };
    let mut seen: Vec<(String, CExpr)> = Vec::new();
    let tid = CExpr::var("tsl_tid");
    for v in e.geo.thread_vars.iter().filter(|v| encloses(&v.binding)) {
        let (n, f) = (
            v.name.clone(),
            super::emitter::par_index(&v.index, tid.clone()),
        );
        match seen.iter().find(|(sn, _)| *sn == n) {
            Some((_, sf)) if *sf == f => {}
            Some(_) => {
                return Err(LowerError::new(
                    e.m.stmt_span(s),
                    format!("two enclosing thread levels name `{n}` with different thread indexes"),
                ));
            }
            None => seen.push((n, f)),
        }
    }
    Ok(seen)
}

fn tma_load(
    e: &mut Emitter,
    s: StmtId,
    event: Option<crate::ir::ExprId>,
    sv: &View,
    dv: &View,
    swz: Sym,
    line: Option<u32>,
) -> Result<(), LowerError> {
    if sv.tile.len() != 2 {
        return Err(LowerError::new(
            e.m.stmt_span(s),
            "`tma.copy` lowers 2-D tiles",
        ));
    }
    let bytes = Sym::mul(
        sv.tile_elems(),
        Sym::Int(sv.tensor.dtype.size_bytes() as i64),
    );
    let cluster = e.cluster.as_ref().and_then(|c| c.load(s));
    if let (Some(mc), Some(ev)) = (cluster, event) {
        let (p, _, _) = barrier_of(e, ev)?;
        return tma_load_multicast(e, p, sv, dv, swz, mc, bytes, line);
    }
    if let (Some(mc), None) = (e.cluster.as_ref().and_then(|c| c.load(s)), event) {
        // A synchronous multicast load: peers write into this block's tiles, so the group of
        // loads starts once every block of the cluster is done with the previous ones.
        e.uses_sync_tma = true;
        if !e.pending_sync_tma {
            e.call(
                Call::new("tsl_cluster_sync"),
                Some("every block of the cluster is done with the previous tiles"),
                line,
            );
        }
        e.open(
            Op::If {
                cond: first_thread(),
                constexpr: false,
            },
            None,
            line,
        );
        tma_load_multicast(e, tma_bar(), sv, dv, swz, mc, bytes, line)?;
        e.close(line);
        e.pending_sync_tma = true;
        return Ok(());
    }
    let map = e.tma_map(sv, swz)?;
    match event {
        Some(ev) => {
            let (p, _, _) = barrier_of(e, ev)?;
            tma_load_on(e, p, &map, sv, dv, bytes, "the phase", line);
        }
        None => {
            e.uses_sync_tma = true;
            if !e.pending_sync_tma {
                if e.cluster.as_ref().is_some_and(|c| c.sync_multicast) {
                    // Peers multicast into this block's tiles: all of them must be done.
                    e.call(
                        Call::new("tsl_cluster_sync"),
                        Some("every block of the cluster is done with the previous tiles"),
                        line,
                    );
                } else {
                    e.barrier(Some("everyone is done with the previous tiles"), line);
                }
            }
            let expect = Call::new("tsl_mbar_expect_tx").args([tma_bar(), CExpr::sym(&bytes)]);
            let load = Call::new("tsl_tma_load_2d").args([
                dv.tile_ptr(),
                CExpr::var(&map).addr(),
                sv.origin[1].clone(),
                sv.origin[0].clone(),
                tma_bar(),
            ]);
            e.guarded(first_thread(), vec![expect, load], None, line);
            e.pending_sync_tma = true;
        }
    }
    Ok(())
}

/// A multicast load under `cluster C;` (or a `.multicast` load under a `: cluster` level),
/// completing on the barrier `p`: the whole tile's bytes are expected here (C slices land, one
/// from each block), and this block loads rows `[rank · R/C, (rank + 1) · R/C)` for every
/// block of the cluster.
#[allow(clippy::too_many_arguments)]
fn tma_load_multicast(
    e: &mut Emitter,
    p: CExpr,
    sv: &View,
    dv: &View,
    swz: Sym,
    mc: super::cluster::McLoad,
    bytes: Sym,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let c = mc.slices;
    let slice = Sym::bin(crate::ir::BinaryOp::Div, sv.tile[0].clone(), c.clone());
    let mut part = sv.clone();
    part.tile[0] = slice.clone();
    let map = e.tma_map(&part, swz)?;
    let rank = mc.slice;
    e.call(
        Call::new("tsl_mbar_expect_tx").args([p.clone(), CExpr::sym(&bytes)]),
        Some(&format!(
            "bytes this copy adds to the phase (all {c} slices)"
        )),
        line,
    );
    let whole = Op::StaticAssert {
        cond: CExpr::sym_operand(&sv.tile[0])
            .rem(CExpr::int(8).mul(CExpr::sym_operand(&c)).paren())
            .eq(CExpr::int(0)),
        message: "cluster multicast: each block's slice must be whole 8-row swizzle atoms".into(),
    };
    e.emit(whole, None, line);
    let slice_elems = Sym::mul(slice.clone(), sv.tile[1].clone());
    let dst = dv
        .tile_ptr()
        .add(rank.clone().mul(CExpr::sym_operand(&slice_elems)));
    let row = sv.origin[0]
        .clone()
        .add(rank.mul(CExpr::sym_operand(&slice)));
    let load = mc
        .load
        .args([dst, CExpr::var(&map).addr(), sv.origin[1].clone(), row, p]);
    e.call(
        load,
        Some(&format!(
            "this block's 1/{c} of the rows, multicast to the cluster"
        )),
        line,
    );
    Ok(())
}

pub fn mma_stmt(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    match &m.stmts[s] {
        Stmt::MmaFill { name, dtype, value } => {
            let n = acc_n(e, s).ok_or_else(|| {
                LowerError::new(
                    name.span,
                    format!(
                        "`{}` is never used as an accumulator (`mma.row.row {}, a, b`)",
                        name.name, name.name
                    ),
                )
            })?;
            let (v, _) = e.cx().value(*value)?;
            let (ty, regs) = match dtype {
                DType::F32 => (
                    "float",
                    Sym::bin(crate::ir::BinaryOp::Div, n.clone(), Sym::Int(2)),
                ),
                DType::I32 => (
                    "int",
                    Sym::bin(crate::ir::BinaryOp::Div, n.clone(), Sym::Int(2)),
                ),
                _ => (
                    "tsl_u32",
                    Sym::bin(crate::ir::BinaryOp::Div, n.clone(), Sym::Int(4)),
                ),
            };
            e.emit(
                array(ty, &name.name, &regs),
                Some(&format!(
                    "64x{} accumulator fragment, {} per thread",
                    n.to_cpp(),
                    dtype
                )),
                line,
            );
            e.call(
                Call::new("tsl_acc_fill").args([CExpr::var(&name.name), v]),
                None,
                line,
            );
            e.scopes.declare(
                Binding::Frag(s),
                Local::Frag(FragKind::Acc {
                    n: n.clone(),
                    dtype: *dtype,
                }),
            );
            if let Some(every) = promote_every(e, s, *dtype) {
                let part = promote_part(&name.name);
                e.emit(
                    array("float", &part, &regs),
                    Some(&format!(
                        "promote: the f8 WGMMAs' partial sums, added into {} every {} k-tiles",
                        name.name,
                        every.to_cpp()
                    )),
                    line,
                );
                e.call(
                    Call::new("tsl_acc_fill").args([CExpr::var(part), CExpr::float(0.0)]),
                    None,
                    line,
                );
                e.emit(
                    Op::Decl {
                        ty: "int".into(),
                        name: promote_count(&name.name),
                        init: Some(CExpr::int(0)),
                    },
                    Some("k-tiles summed into the partial since the last promotion"),
                    line,
                );
            }
            if scaled_acc(e, s) {
                let part = scaled_part(&name.name);
                let what = if scaled_later(e, s) {
                    "`mma.scale`: the products since the last `mma.scale` in f32, then added into"
                } else {
                    "`mma….scale`: one scaled mma's product in f32, then added into"
                };
                e.emit(
                    array(
                        "float",
                        &part,
                        &Sym::bin(crate::ir::BinaryOp::Div, n.clone(), Sym::Int(2)),
                    ),
                    Some(&format!("{what} {}", name.name)),
                    line,
                );
                e.call(
                    Call::new("tsl_acc_fill").args([CExpr::var(part), CExpr::float(0.0)]),
                    None,
                    line,
                );
                if scaled_later(e, s) {
                    e.emit(
                        Op::Decl {
                            ty: "int".into(),
                            name: partial_sums(&name.name),
                            init: Some(CExpr::int(0)),
                        },
                        Some(
                            "whether the partial holds products (0: the next WGMMA overwrites it)",
                        ),
                        line,
                    );
                }
            }
            if !e.wgmma_ns.contains(&n) {
                e.wgmma_ns.push(n);
            }
        }
        Stmt::MmaLoad { name, src, .. } if super::sparse::is_meta(e, s) => {
            super::sparse::meta_load(e, s, name, *src, line)?;
        }
        // A whole `frag` register tile as an operand: its registers are the operand.
        Stmt::MmaLoad { src, .. }
            if matches!(&m.exprs[*src], Expr::Name(_))
                && matches!(
                    e.cx().local(*src),
                    Some(Local::Frag(FragKind::ARegs { .. }))
                ) =>
        {
            if let Some(Local::Frag(f)) = e.cx().local(*src).cloned() {
                e.scopes
                    .declare(crate::check::Binding::Frag(s), Local::Frag(f));
            }
        }
        Stmt::MmaLoad { name, src, .. } if m.is_frag_load(s) => {
            afrag_load(e, s, name, *src, line)?;
        }
        Stmt::MmaLoad { name, src, .. } => {
            let v = e.cx().view(*src)?;
            if v.tensor.space != MemSpace::Shared {
                return Err(LowerError::new(
                    m.expr_span(*src),
                    "WGMMA operands are read from shared memory",
                ));
            }
            let swz = e.swizzle.get(&s).cloned().unwrap_or(Sym::Int(0));
            let desc = Op::Decl {
                ty: "const tsl_u64".into(),
                name: desc_cpp(&name.name),
                init: Some(CExpr::call_t(
                    "tsl_wgmma_desc",
                    vec![CExpr::sym(&swz)],
                    vec![v.tensor.ptr(), v.tile_offset()],
                )),
            };
            let why = format!("descriptor: K-major, swizzle {} B", swz.to_cpp());
            e.emit(desc, Some(&why), line);
            let k = v.tile.last().cloned().unwrap_or(Sym::Int(1));
            e.scopes.declare(
                Binding::Frag(s),
                Local::Frag(FragKind::Desc {
                    dtype: v.tensor.dtype,
                    k,
                }),
            );
        }
        Stmt::Mma { acc, a, b, .. } if m.sparse_meta(s).is_some() => {
            let meta = m.sparse_meta(s).cloned().unwrap_or_else(|| acc.clone());
            super::sparse::mma(e, s, (acc, a, b, &meta), line)?;
        }
        // `mma.row.col` of 16-bit operands: B MN-major (`lower/mn_major.rs`).
        Stmt::Mma {
            acc, a, b, b_major, ..
        } if *b_major != crate::ir::Major::Row => super::mn_major::mma(e, s, (acc, a, b), line)?,
        Stmt::Mma { acc, a, b, .. }
            if matches!(e.frag(s, IdentRole::A), Some(FragKind::ARegs { .. })) =>
        {
            register_a_mma(e, s, (acc, a, b), line)?;
        }
        Stmt::Mma { acc, a, b, .. } => {
            let Some(FragKind::Acc { n, dtype }) = e.frag(s, IdentRole::Acc) else {
                return Err(LowerError::new(
                    acc.span,
                    format!(
                        "`{}` is not an accumulator (`{} = mma.fill.f32 0.0f;`)",
                        acc.name, acc.name
                    ),
                ));
            };
            let Some(FragKind::Desc { dtype: in_ty, k }) = e.frag(s, IdentRole::A) else {
                return Err(LowerError::new(
                    a.span,
                    format!("`{}` is not an `mma.load` operand", a.name),
                ));
            };
            let acc_ty = match dtype {
                DType::F32 => "f32",
                DType::I32 => "s32",
                _ => "f16",
            };
            let key = (acc_ty.to_string(), in_ty.name().to_string());
            // (An accumulator `mma.scale` scales is fed through its f32 partial, below.)
            if !e.wgmma_types.contains(&key) && !scaled_later(e, s) {
                e.wgmma_types.push(key);
            }
            // The instruction's K is 32 bytes of K: 16 for 16-bit operands, 32 for 8-bit ones.
            let ik = 32 / i64::from(in_ty.size_bytes());
            let steps = Sym::bin(crate::ir::BinaryOp::Div, k.clone(), Sym::Int(ik));
            // 16-bit operands go through the dispatch on C++ element types; the 8-bit types
            // share one C++ byte type, so their variant is named.
            let op = if in_ty.size_bytes() == 1 {
                CExpr::Template {
                    name: format!("tsl_wgmma_{acc_ty}_{}", in_ty.name()),
                    targs: vec![CExpr::sym(&n)],
                }
            } else {
                let acc_cpp = if dtype == DType::F32 {
                    "float"
                } else {
                    super::cexpr::scalar_type(dtype)
                };
                wgmma_template(in_ty, acc_cpp, &n)
            };
            let (a_cpp, b_cpp) = (desc_cpp(&a.name), desc_cpp(&b.name));
            let what = format!(
                "{} += {a_cpp}·{b_cpp}ᵀ (wgmma m64nNk{ik}, N = {})",
                acc.name,
                n.to_cpp()
            );
            if let Some(sc) = m.mma_scale(s) {
                let f32_op = f32_partial_op(e, in_ty, &n);
                return emit_scaled(
                    e,
                    sc,
                    (f32_op, &steps),
                    (&acc.name, &a_cpp, &b_cpp),
                    &what,
                    line,
                );
            }
            // An accumulator that `mma.scale` scales later: the products sum into its f32
            // partial fragment (the statement adds them into the accumulator, scaled).
            let (target, op) = if scaled_later(e, s) {
                (scaled_part(&acc.name), f32_partial_op(e, in_ty, &n))
            } else {
                (acc.name.clone(), op)
            };
            let what = if target == acc.name {
                what
            } else {
                format!(
                    "{target} += {a_cpp}·{b_cpp}ᵀ (wgmma m64nNk{ik}, N = {}), scaled into {} by `mma.scale`",
                    n.to_cpp(),
                    acc.name
                )
            };
            let full = super::plan::expand(e.m, &steps);
            let one_step = super::domain::configs(e.m)
                .iter()
                .all(|cfg| full.eval(cfg) == Ok(1));
            if let Some(every) = promote_every(e, s, dtype) {
                emit_promoted(
                    e,
                    op,
                    &steps,
                    (&acc.name, &a_cpp, &b_cpp),
                    &every,
                    &what,
                    line,
                );
            } else if one_step {
                // A loop whose body issues this `mma` fences before it (`body`); an `mma` reached
                // otherwise (under a nested `parallel`, or outside any loop) fences itself.
                if !fenced_by_loop(e.m, s) {
                    e.call(
                        Call::new("tsl_wgmma_fence"),
                        Some("order accumulator registers before this WGMMA"),
                        line,
                    );
                }
                let d = if target == acc.name {
                    CExpr::int(1)
                } else {
                    CExpr::var(partial_sums(&acc.name))
                };
                let mma = Call::new("mma").of(op).args([
                    CExpr::var(&target),
                    CExpr::var(a_cpp),
                    CExpr::var(b_cpp),
                    d,
                ]);
                e.call(mma, Some(&what), line);
            } else {
                // One fence per batch (CUTLASS's convention): the accumulators were last
                // touched by the previous batch's wait, not by a wgmma of this batch.
                e.call(
                    Call::new("tsl_wgmma_fence"),
                    Some("the accumulators are ordered before this batch of WGMMAs"),
                    line,
                );
                let call = if target == acc.name {
                    Call::new("tsl_wgmma_k_steps")
                        .targs([op, CExpr::sym(&steps)])
                        .args([CExpr::var(&target), CExpr::var(a_cpp), CExpr::var(b_cpp)])
                } else {
                    Call::new("tsl_wgmma_k_steps_d")
                        .targs([op, CExpr::sym(&steps)])
                        .args([
                            CExpr::var(&target),
                            CExpr::var(a_cpp),
                            CExpr::var(b_cpp),
                            CExpr::var(partial_sums(&acc.name)),
                        ])
                };
                e.call(
                    call,
                    Some(&format!("{what}, {} K-steps of {ik}", steps.to_cpp())),
                    line,
                );
            }
            if target != acc.name {
                e.emit(set_flag(&acc.name, 1), None, line);
            }
            e.wgmma_uncommitted = true;
            if m.mma_async(s).is_some() && promote_every(e, s, dtype).is_none() {
                // `.async`: its own commit group, completed by `wait f` (or a later wait).
                super::wgmma_issue::commit_async(e, line);
            }
        }
        Stmt::MmaCommit => match e.deferred.clone().filter(|d| d.commit == s) {
            Some(d) => {
                e.wgmma_uncommitted = false;
                emit_commit(e, &d, line)
            }
            None => wgmma_commit_wait(e, line, "the stage's WGMMAs are done reading it"),
        },
        Stmt::MmaStore {
            acc,
            view,
            dst,
            mods,
        } => {
            let Some(FragKind::Acc { n, dtype }) = e.frag(s, IdentRole::Acc) else {
                return Err(LowerError::new(
                    acc.span,
                    format!("`{}` is not an accumulator", acc.name),
                ));
            };
            let v = e.cx().view(*dst)?;
            let slice = view
                .map(|x| acc_slice(e, x, &acc.name, &n, dtype))
                .transpose()?;
            if e.wgmma_uncommitted {
                wgmma_commit_wait(e, line, "accumulators are final");
            } else {
                wgmma_wait_all(e, line, "accumulators are final");
            }
            if let Some(every) = promote_every(e, s, dtype) {
                e.open(
                    Op::If {
                        cond: CExpr::sym_operand(&every).bin(COp::Gt, CExpr::int(0)),
                        constexpr: true,
                    },
                    Some("promote: the last partial sums"),
                    line,
                );
                e.call(
                    Call::new("tsl_acc_promote")
                        .args([CExpr::var(&acc.name), CExpr::var(promote_part(&acc.name))]),
                    None,
                    line,
                );
                e.close(line);
            }
            if v.tensor.space == MemSpace::Global
                || mods.transpose
                || mods.mask.is_some()
                || v.transposed
            {
                return store_pitched(e, (&acc.name, &n), &v, slice, mods, line);
            }
            super::tma_store::before_write(e, &v.tensor.name, line);
            let (call, note) = match slice {
                None => (
                    Call::new("tsl_acc_store")
                        .targs([CExpr::sym(&n)])
                        .args([CExpr::var(&acc.name), v.tile_ptr()]),
                    "fragment → row-major tile".to_string(),
                ),
                Some((w, c0)) => (
                    Call::new("tsl_acc_store_cols")
                        .targs([CExpr::sym(&n), CExpr::sym(&w)])
                        .args([CExpr::var(&acc.name), c0.clone(), v.tile_ptr()]),
                    format!("{} fragment columns from {c0} → row-major tile", w.to_cpp()),
                ),
            };
            e.call(call, Some(&note), line);
        }
        _ => unreachable!(),
    }
    Ok(())
}

/// Whether declarator `declarator` of the `frag` declaration `decl` is read whole as the A
/// operand of a warpgroup `mma`: some `mma`'s A operand is (by the checker's binding) an
/// `mma.load` of the name bound to this declaration. It is declared as A-fragment registers.
pub fn is_register_a_frag(e: &Emitter, decl: StmtId, declarator: usize) -> bool {
    let m = e.m;
    let is_frag = m
        .decl_ext
        .iter()
        .any(|x| matches!(x, crate::ir::DeclExt::Frag { decl: d } if *d == decl));
    let this = Binding::Tensor(decl, declarator);
    let loads_whole = |l: StmtId| {
        matches!(&m.stmts[l], Stmt::MmaLoad { src, .. }
            if matches!(m.exprs[*src], Expr::Name(_)) && e.info.bindings.get(src) == Some(&this))
    };
    is_frag
        && crate::check::all_stmts(m).into_iter().any(|s| {
            matches!(m.stmts[s], Stmt::Mma { .. })
                && matches!(e.info.idents.get(&(s, IdentRole::A)), Some(Binding::Frag(l)) if loads_whole(*l))
        })
}

/// `frag f16 [64, K] a {v};` read whole as a register-A operand: K/4 f16x2 registers per thread
/// in the A-fragment layout, filled with `v` when the declaration has one.
pub fn afrag_decl(
    e: &mut Emitter,
    decl: StmtId,
    declarator: usize,
    (name, dtype, shape): (&str, DType, &[Sym]),
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let k = shape.last().cloned().unwrap_or(Sym::Int(16));
    let words = Sym::bin(crate::ir::BinaryOp::Div, k.clone(), Sym::Int(4));
    e.emit(
        array("tsl_u32", name, &words),
        Some(&format!(
            "64x{} {dtype} A fragment of a register-A WGMMA: {} f16x2 words per thread",
            k.to_cpp(),
            words.to_cpp()
        )),
        line,
    );
    if let Some(v) = m.decl_init(decl) {
        let (v, _) = e.cx().value(v)?;
        e.call(
            Call::new("tsl_afrag_fill")
                .targs([CExpr::Type(super::cexpr::scalar_type(dtype))])
                .args([CExpr::var(name), v]),
            None,
            line,
        );
    }
    e.scopes.declare(
        crate::check::Binding::Tensor(decl, declarator),
        Local::Frag(FragKind::ARegs {
            dtype,
            k,
            regs: name.to_string(),
        }),
    );
    Ok(())
}

/// `a = mma.load.frag t;`: the `[64, K]` K-major shared tile `t` read into A-fragment registers
/// (each thread its K/2 elements, at swizzled addresses when the tile is swizzled).
fn afrag_load(
    e: &mut Emitter,
    s: StmtId,
    name: &crate::ir::Ident,
    src: crate::ir::ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let v = e.cx().view(src)?;
    if v.tensor.space != MemSpace::Shared || v.transposed || v.tile.len() != 2 {
        return Err(LowerError::new(
            e.m.expr_span(src),
            "`mma.load.frag` reads a 2-D K-major shared tile",
        ));
    }
    let k = v.tile[1].clone();
    let words = Sym::bin(crate::ir::BinaryOp::Div, k.clone(), Sym::Int(4));
    let swz = e.swizzle.get(&s).cloned().unwrap_or(Sym::Int(0));
    e.emit(
        array("tsl_u32", &name.name, &words),
        Some(&format!(
            "64x{} A fragment in registers: {} f16x2 words per thread",
            k.to_cpp(),
            words.to_cpp()
        )),
        line,
    );
    e.call(
        Call::new("tsl_afrag_load")
            .targs([CExpr::sym(&swz), CExpr::sym(&v.tensor.ld())])
            .args([CExpr::var(&name.name), v.tensor.ptr(), v.tile_offset()]),
        Some(&format!(
            "shared tile → A-fragment registers (swizzle {} B)",
            swz.to_cpp()
        )),
        line,
    );
    e.scopes.declare(
        crate::check::Binding::Frag(s),
        Local::Frag(FragKind::ARegs {
            dtype: v.tensor.dtype,
            k,
            regs: name.name.clone(),
        }),
    );
    Ok(())
}

/// A register-A `mma` (`wgmma.mma_async` with A in registers, B through its descriptor): the
/// A registers are pinned and fenced, K/16 instructions issue (K-step ks reads A's registers
/// 4ks..4ks+3 and B's descriptor advanced by 32 bytes), and the group is waited for at once —
/// the A registers must not change while a WGMMA reads them — unless it is `.async`.
fn register_a_mma(
    e: &mut Emitter,
    s: StmtId,
    (acc, a, b): (&crate::ir::Ident, &crate::ir::Ident, &crate::ir::Ident),
    line: Option<u32>,
) -> Result<(), LowerError> {
    let Some(FragKind::Acc { n, dtype }) = e.frag(s, IdentRole::Acc) else {
        return Err(LowerError::new(
            acc.span,
            format!("`{}` is not an accumulator", acc.name),
        ));
    };
    let Some(FragKind::ARegs {
        dtype: in_ty,
        k,
        regs,
    }) = e.frag(s, IdentRole::A)
    else {
        return Err(LowerError::new(a.span, "not a register fragment"));
    };
    let Some(FragKind::Desc { .. }) = e.frag(s, IdentRole::B) else {
        return Err(LowerError::new(
            b.span,
            "the B operand of a register-A WGMMA is a shared tile",
        ));
    };
    let acc_ty = match dtype {
        DType::F32 => "f32",
        _ => "f16",
    };
    let key = (acc_ty.to_string(), format!("rs_{}", in_ty.name()));
    if !e.wgmma_types.contains(&key) {
        e.wgmma_types.push(key);
    }
    if !e.wgmma_ns.contains(&n) {
        e.wgmma_ns.push(n.clone());
    }
    let op = CExpr::Template {
        name: format!("tsl_wgmma_rs_{acc_ty}_{}", in_ty.name()),
        targs: vec![CExpr::sym(&n)],
    };
    let steps = Sym::bin(crate::ir::BinaryOp::Div, k, Sym::Int(16));
    let b_cpp = desc_cpp(&b.name);
    let what = format!(
        "{} += {regs}·{b_cpp}ᵀ (register-A wgmma m64nNk16, N = {}), {} K-steps",
        acc.name,
        n.to_cpp(),
        steps.to_cpp()
    );
    let k_steps = Call::new("tsl_wgmma_rs_k_steps")
        .targs([op, CExpr::sym(&steps)])
        .args([CExpr::var(&acc.name), CExpr::var(&regs), CExpr::var(b_cpp)]);
    register_a_issue(e, s, &regs, k_steps, &what, line);
    Ok(())
}

/// The accumulator statement `s` is about, by the checker's binding: its own declaration for
/// an `mma.fill`, its accumulator operand's otherwise (an `mma`, `mma.store`, re-fill).
fn acc_of(e: &Emitter, s: StmtId) -> Option<Binding> {
    match &e.m.stmts[s] {
        Stmt::MmaFill { .. } => Some(Binding::Frag(s)),
        _ => e.info.idents.get(&(s, IdentRole::Acc)).copied(),
    }
}

/// Whether statement `x` names the accumulator `acc` (by binding) as its accumulator operand.
fn names_acc(e: &Emitter, x: StmtId, acc: Option<Binding>) -> bool {
    acc.is_some() && e.info.idents.get(&(x, IdentRole::Acc)).copied() == acc
}

/// Whether some `mma….scale` accumulates into the accumulator of statement `s`.
fn scaled_acc(e: &Emitter, s: StmtId) -> bool {
    let acc = acc_of(e, s);
    e.m.mma_scales
        .iter()
        .any(|sc| matches!(&e.m.stmts[sc.stmt], Stmt::Mma { .. }) && names_acc(e, sc.stmt, acc))
        || scaled_later(e, s)
}

/// Whether a standalone `mma.scale acc, sl, sr;` scales the accumulator of statement `s`: then
/// every `mma` into it sums into its f32 partial fragment, which each `mma.scale` adds into
/// the accumulator, scaled.
fn scaled_later(e: &Emitter, s: StmtId) -> bool {
    let acc = acc_of(e, s);
    e.m.stmts.iter().any(|(x, st)| {
        matches!(st, Stmt::Ext(crate::ir::ExtStmt::MmaScaleAcc { .. })) && names_acc(e, x, acc)
    })
}

/// `mma.scale acc, sl, sr;`: the `mma`s summing into `acc`'s partial fragment complete, every
/// thread adds `sl[row] · sr · partial` into its accumulator registers (as `mma….scale` does),
/// and the partial restarts at 0 for the next block of K.
pub fn scale_acc(
    e: &mut Emitter,
    s: StmtId,
    acc: &crate::ir::Ident,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let Some(sc) = e.m.scales_of(s) else {
        return Err(LowerError::new(acc.span, "not an `mma.scale` statement"));
    };
    if !matches!(e.frag(s, IdentRole::Acc), Some(FragKind::Acc { .. })) {
        return Err(LowerError::new(
            acc.span,
            format!("`{}` is not a WGMMA accumulator", acc.name),
        ));
    }
    if e.wgmma_uncommitted {
        wgmma_commit_wait(e, line, "the partial sums are complete");
    } else {
        e.call(
            Call::new("tsl_wgmma_wait").targs([CExpr::int(0)]),
            Some("the partial sums are complete"),
            line,
        );
    }
    e.open(
        Op::If {
            cond: CExpr::var(partial_sums(&acc.name)),
            constexpr: false,
        },
        Some("an `mma` has summed products into the partial since the last `mma.scale`"),
        line,
    );
    scale_add(e, sc, &acc.name, line)?;
    e.close(line);
    // The next WGMMA writes the partial with scale-d 0 (no register writes here for the
    // WGMMAs to wait on).
    e.emit(
        set_flag(&acc.name, 0),
        Some("the next block of K starts a new partial"),
        line,
    );
    Ok(())
}

/// `acc_scaled_d = v;`: whether the partial `mma.scale` adds into `acc` holds products.
fn set_flag(acc: &str, v: i64) -> Op {
    Op::Assign {
        place: CExpr::var(partial_sums(acc)),
        value: CExpr::int(v),
    }
}

/// The flag of a partial that `mma.scale` adds: whether it holds products.
fn partial_sums(acc: &str) -> String {
    format!("{acc}_scaled_d")
}

fn scaled_part(acc: &str) -> String {
    format!("{acc}_scaled")
}

/// `mma.<a>.<b>.scale acc, a, b, sl, sr;`: the product goes into the f32 partial fragment
/// (its first K-step with scale-d 0, so the partial needs no zeroing), the warpgroup waits for
/// it, and every thread adds `sl[row] · sr · partial` into its accumulator registers: per-row
/// scales are read from the `[M, 1]` column `sl` (rows past the tensor's end read none), or
/// `sl` is one value.
fn emit_scaled(
    e: &mut Emitter,
    sc: crate::ir::MmaScale,
    (op, steps): (CExpr, &Sym),
    (acc, a, b): (&str, &str, &str),
    what: &str,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let part = scaled_part(acc);
    e.call(
        Call::new("tsl_wgmma_fence"),
        Some("the partial's registers are ordered before this batch of WGMMAs"),
        line,
    );
    e.call(
        Call::new("tsl_wgmma_k_steps_fresh")
            .targs([op, CExpr::sym(steps)])
            .args([CExpr::var(&part), CExpr::var(a), CExpr::var(b)]),
        Some(&format!(
            "{part} = A·Bᵀ: {what}, {} K-steps",
            steps.to_cpp()
        )),
        line,
    );
    wgmma_commit_wait(e, line, "the scaled product is complete");
    scale_add(e, sc, acc, line)
}

/// `acc += sl[row] · sr · partial` (per-row scales read from the `[M, 1]` column `sl`, rows past
/// the tensor's end read none) or `acc += sl · sr · partial` (`sl` one value).
fn scale_add(
    e: &mut Emitter,
    sc: crate::ir::MmaScale,
    acc: &str,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let part = scaled_part(acc);
    let sr = e.cx().value(sc.rhs)?.0;
    let per_row = matches!(&m.exprs[sc.lhs], Expr::View { op, .. } if *op != crate::ir::ViewOp::At)
        || crate::check::tile_pick(&m.exprs, sc.lhs);
    let call = if per_row {
        let v = e.cx().view(sc.lhs)?;
        let t = &v.tensor;
        if t.space == MemSpace::Global {
            e.pointer_params.insert(t.param.unwrap_or(0));
        }
        Call::new("tsl_acc_scale_add").args([
            CExpr::var(acc),
            CExpr::var(part),
            v.tile_ptr(),
            CExpr::sym(&t.ld()),
            extent_from(&t.shape[0], &v.origin[0]),
            sr,
        ])
    } else {
        let sl = e.cx().value(sc.lhs)?.0;
        Call::new("tsl_acc_scale_add").args([CExpr::var(acc), CExpr::var(part), sl, sr])
    };
    e.call(
        call,
        Some(if per_row {
            "acc += scale_a[row] · scale_b · partial"
        } else {
            "acc += scale_a · scale_b · partial"
        }),
        line,
    );
    Ok(())
}

/// `mma.fill acc, v;` on a WGMMA accumulator: the WGMMAs still writing it complete, every
/// register is set to v, and the next WGMMA is ordered after those writes by a fence. A
/// promoted accumulator's partial sums restart too.
pub fn refill(
    e: &mut Emitter,
    s: StmtId,
    acc: &crate::ir::Ident,
    value: crate::ir::ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let Some(FragKind::Acc { dtype, .. }) = e.frag(s, IdentRole::Acc) else {
        return Err(LowerError::new(
            acc.span,
            format!("`{}` is not a WGMMA accumulator", acc.name),
        ));
    };
    let (v, _) = e.cx().value(value)?;
    if e.wgmma_uncommitted {
        wgmma_commit_wait(e, line, "the WGMMAs writing the accumulator are done");
    } else {
        e.call(
            Call::new("tsl_wgmma_wait").targs([CExpr::int(0)]),
            Some("the WGMMAs writing the accumulator are done"),
            line,
        );
    }
    e.call(
        Call::new("tsl_acc_fill").args([CExpr::var(&acc.name), v]),
        None,
        line,
    );
    if scaled_later(e, s) {
        e.emit(
            set_flag(&acc.name, 0),
            Some("and the partial `mma.scale` adds in restarts"),
            line,
        );
    }
    if promote_every(e, s, dtype).is_some() {
        e.call(
            Call::new("tsl_acc_fill")
                .args([CExpr::var(promote_part(&acc.name)), CExpr::float(0.0)]),
            None,
            line,
        );
        e.emit(zero(CExpr::var(promote_count(&acc.name))), None, line);
    }
    wgmma_fence(e, line);
    Ok(())
}

/// `mma.store` element by element at the destination's row pitch (`tsl_acc_store_pitched`):
/// into a global tile (bounded by the tensor's extent from the tile origin), transposed
/// (`.transp`, or a `.transpose()`d destination) or masked (`.mask acc, dst, rows[, cols]`:
/// only the first `rows` rows and `cols` columns of the stored fragment).
fn store_pitched(
    e: &mut Emitter,
    (acc, n): (&str, &Sym),
    v: &View,
    slice: Option<(Sym, CExpr)>,
    mods: &crate::ir::StoreMods,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let t = &v.tensor;
    if t.shape.len() != 2 || v.origin.len() != 2 || v.element {
        return Err(LowerError::new(
            e.m.kernel.name.span,
            format!(
                "internal: `mma.store` into `{}`, which is not a 2-D tile",
                t.name
            ),
        ));
    }
    match t.space {
        MemSpace::Global => {
            let p = t.param.unwrap_or(0);
            e.pointer_params.insert(p);
            e.written_params.insert(p);
        }
        _ => super::tma_store::before_write(e, &t.name, line),
    }
    let trans = mods.transpose != v.transposed;
    let (w, c0) = slice.unwrap_or_else(|| (n.clone(), CExpr::int(0)));
    // The destination's extent from the tile origin, per tensor dimension.
    let extent = |d: usize| extent_from(&t.shape[d], &v.origin[d]);
    let (rows_ext, cols_ext) = match trans {
        false => (extent(0), extent(1)),
        true => (extent(1), extent(0)),
    };
    // `.mask`'s guards clip the extents (a guard may be negative: nothing is written).
    let (rg, cg) = match mods.mask {
        Some((r, c)) => (
            Some(e.cx().value(r)?.0),
            c.map(|c| e.cx().value(c)).transpose()?.map(|v| v.0),
        ),
        None => (None, None),
    };
    let bound = |ext: CExpr, g: Option<CExpr>| match g {
        Some(g) => CExpr::call("tsl_store_bound", vec![ext, g]),
        None => ext,
    };
    let call = Call::new("tsl_acc_store_pitched")
        .targs([
            CExpr::sym(&w),
            CExpr::Lit(if trans { "true" } else { "false" }),
        ])
        .args([
            CExpr::var(acc),
            c0,
            v.tile_ptr(),
            CExpr::sym(&t.ld()),
            bound(rows_ext, rg),
            bound(cols_ext, cg),
        ]);
    let what = match (t.space, trans, mods.mask.is_some()) {
        (MemSpace::Global, false, false) => {
            "the accumulator layout straight to global, bounds-checked"
        }
        (MemSpace::Global, true, _) => "transposed, straight to global, bounds-checked",
        (MemSpace::Global, false, true) => "masked, straight to global, bounds-checked",
        (_, true, _) => "transposed into the tile",
        (_, false, _) => "masked into the tile",
    };
    e.call(call, Some(what), line);
    Ok(())
}

/// `promote P;` applies to the accumulator of statement `s` (an f32 accumulator of an `mma`
/// with 8-bit float operands): P as a C++ expression.
fn promote_every(e: &Emitter, s: StmtId, dtype: DType) -> Option<Sym> {
    let m = e.m;
    let p = m.promote?;
    if dtype != DType::F32 {
        return None;
    }
    let acc = acc_of(e, s);
    let f8_operand = m.stmts.iter().any(|(x, st)| {
        matches!(st, Stmt::Mma { .. })
            && names_acc(e, x, acc)
            && operand_dtype(e, x).is_some_and(DType::is_f8)
    });
    f8_operand.then(|| Sym::from_expr(m, p)).flatten()
}

/// The element type of the tensor the `A` operand of `mma` statement `s` is loaded from: the
/// checker's binding of the operand (its `mma.load`) and of that load's source root.
fn operand_dtype(e: &Emitter, s: StmtId) -> Option<DType> {
    let Binding::Frag(load) = *e.info.idents.get(&(s, IdentRole::A))? else {
        return None;
    };
    let Stmt::MmaLoad { src, .. } = &e.m.stmts[load] else {
        return None;
    };
    let root = e.info.sym_views.get(src)?.as_ref().ok()?.root;
    match e.info.bindings.get(&root)? {
        b @ Binding::Tensor(..) => Some(e.info.tensors.get(b)?.dtype),
        _ => None,
    }
}

fn promote_part(acc: &str) -> String {
    format!("{acc}_part")
}

fn promote_count(acc: &str) -> String {
    format!("tsl_promote_{acc}")
}

/// A promoted `mma`: with `P > 0` its WGMMAs sum into the partial fragment, and every P-th
/// k-tile the warpgroup waits for them and adds the partial into the accumulator in f32; with
/// `P = 0` it is an ordinary `mma`.
fn emit_promoted(
    e: &mut Emitter,
    op: CExpr,
    steps: &Sym,
    (acc, a, b): (&str, &str, &str),
    every: &Sym,
    what: &str,
    line: Option<u32>,
) {
    let p = CExpr::sym_operand(every);
    let part = promote_part(acc);
    let count = promote_count(acc);
    let batch = |e: &mut Emitter, into: &str| {
        e.call(
            Call::new("tsl_wgmma_fence"),
            Some("the accumulators are ordered before this batch of WGMMAs"),
            line,
        );
        e.call(
            Call::new("tsl_wgmma_k_steps")
                .targs([op.clone(), CExpr::sym(steps)])
                .args([CExpr::var(into), CExpr::var(a), CExpr::var(b)]),
            Some(&format!("{what}, {} K-steps", steps.to_cpp())),
            line,
        );
    };
    e.open(
        Op::If {
            cond: p.clone().bin(COp::Gt, CExpr::int(0)),
            constexpr: true,
        },
        Some(&format!("promote: this k-tile sums into `{part}`")),
        line,
    );
    batch(e, &part);
    e.open(
        Op::If {
            cond: CExpr::var(&count).un(CUn::PreInc).eq(p.clone()),
            constexpr: false,
        },
        Some(&format!("every {p} k-tiles: {acc} += {part} in f32")),
        line,
    );
    e.emit(commit_wait(), Some("the partial is complete"), line);
    e.call(
        Call::new("tsl_acc_promote").args([CExpr::var(acc), CExpr::var(&part)]),
        None,
        line,
    );
    e.emit(zero(CExpr::var(&count)), None, line);
    e.close(line);
    e.otherwise(None, line);
    batch(e, acc);
    e.close(line);
}

/// Whether `s` is a statement of a `foreach` body: the loop lowering emits the WGMMA fence
/// before such a loop.
fn fenced_by_loop(m: &crate::ir::Module, s: StmtId) -> bool {
    m.stmts
        .iter()
        .any(|(_, st)| matches!(st, Stmt::Foreach { body, .. } if body.contains(&s)))
}

/// The column slice `x` (`mc.subspan(64, W).at(0, j)`, `mc.chunkat(_, j)`) of the 64×N
/// accumulator `acc`: its width `W` and the C++ of its first column. The checker made it whole
/// rows and a multiple of 8 columns dividing N (E0910, E0911).
fn acc_slice(
    e: &Emitter,
    x: crate::ir::ExprId,
    acc: &str,
    n: &Sym,
    dtype: DType,
) -> Result<(Sym, CExpr), LowerError> {
    let frag = TensorLocal {
        name: acc.to_string(),
        space: MemSpace::Local,
        dtype,
        shape: vec![Sym::Int(64), n.clone()],
        count: None,
        param: None,
        squeezed: None,
    };
    let v = e.cx().fragment_view(x, &frag)?;
    if v.element || v.transposed || v.tile.len() != 2 || !v.origin[0].is_zero() {
        return Err(LowerError::new(
            e.m.expr_span(x),
            "`mma.store` stores all 64 rows of a column slice of the accumulator",
        ));
    }
    Ok((v.tile[1].clone(), v.origin[1].clone()))
}

/// N of the accumulator `fill` defines: the rows of the B operand's tile (the checker's view of
/// the source of its `mma.load`) in the first `mma` into it, as the checker binds the operands.
fn acc_n(e: &Emitter, fill: StmtId) -> Option<Sym> {
    use crate::check::{Binding, IdentRole};
    let m = e.m;
    let frag = |s: StmtId, role: IdentRole| match e.info.idents.get(&(s, role)) {
        Some(Binding::Frag(d)) => Some(*d),
        _ => None,
    };
    let (mma, load) = m.stmts.iter().find_map(|(s, st)| match st {
        Stmt::Mma { .. } if frag(s, IdentRole::Acc) == Some(fill) => {
            Some((s, frag(s, IdentRole::B)?))
        }
        _ => None,
    })?;
    // An MN-major B (`mma.row.col`, `lower/mn_major.rs`) is [K, N]: N is its second dimension.
    if let Stmt::Mma { b_major, .. } = &m.stmts[mma]
        && *b_major != crate::ir::Major::Row
    {
        let Stmt::MmaLoad { src, .. } = &m.stmts[load] else {
            return None;
        };
        let v = e.info.sym_views.get(src)?.as_ref().ok()?;
        return v.tile.get(1).cloned();
    }
    let Stmt::MmaLoad { src, .. } = &m.stmts[load] else {
        return None;
    };
    let v = e.info.sym_views.get(src)?.as_ref().ok()?;
    v.tile.first().cloned()
}

/// The loop tail that replaces `mma.commit` (the trigger itself then emits nothing).
pub fn emit_commit(e: &mut Emitter, d: &Deferred, line: Option<u32>) {
    let s = CExpr::sym_operand(&d.stages);
    e.call(Call::new("tsl_wgmma_commit"), None, line);
    e.open(
        Op::If {
            cond: s.clone().bin(COp::Gt, CExpr::int(2)),
            constexpr: true,
        },
        Some("pipelined: this k-tile's WGMMAs stay in flight, the previous one's stage is free"),
        line,
    );
    e.call(
        Call::new("tsl_wgmma_wait").targs([CExpr::int(1)]),
        None,
        line,
    );
    let iv = CExpr::var(&d.iv);
    let prev = iv.clone().sub(CExpr::int(1)).paren().rem(s);
    let (arrive, note) = arrive_call(e, &d.event, &prev);
    e.guarded(iv.bin(COp::Gt, d.lo.clone()), vec![arrive], note, line);
    e.otherwise(
        Some("shallow ring: free this stage as soon as its WGMMAs are done"),
        line,
    );
    e.call(
        Call::new("tsl_wgmma_wait").targs([CExpr::int(0)]),
        None,
        line,
    );
    let (arrive, note) = arrive_call(e, &d.event, &CExpr::var(&d.stage));
    e.call(arrive, note, line);
    e.close(line);
}

/// After the loop: wait for the last group and release its stage.
pub fn emit_tail(e: &mut Emitter, d: &Deferred, line: Option<u32>) {
    if e.before_tail
        .as_ref()
        .is_some_and(|(at, _)| *at == e.indent)
    {
        for (call, note) in e.before_tail.take().map(|b| b.1).unwrap_or_default() {
            e.call(call, note, line);
        }
    }
    let s = CExpr::sym_operand(&d.stages);
    let trip = CExpr::sym_operand(&d.trip);
    let last = trip.clone().sub(CExpr::int(1)).paren().rem(s.clone());
    e.open(
        Op::If {
            cond: s.bin(COp::Gt, CExpr::int(2)),
            constexpr: true,
        },
        Some("the last k-tile's WGMMAs, then its stage"),
        line,
    );
    e.call(
        Call::new("tsl_wgmma_wait").targs([CExpr::int(0)]),
        None,
        line,
    );
    let (arrive, note) = arrive_call(e, &d.event, &last);
    let cond = trip.bin(COp::Gt, CExpr::int(0));
    e.guarded(cond, vec![arrive], note, line);
    e.close(line);
}

/// `ty name[len];`
/// The WGMMA wrapper that multiplies `in_ty` operands into an f32 partial fragment of width `n`
/// (a scaled `mma`'s product, or the sums a later `mma.scale` scales), recorded among the
/// kernel's WGMMA type pairs.
fn f32_partial_op(e: &mut Emitter, in_ty: DType, n: &Sym) -> CExpr {
    let key = ("f32".to_string(), in_ty.name().to_string());
    if !e.wgmma_types.contains(&key) {
        e.wgmma_types.push(key);
    }
    if in_ty.size_bytes() == 1 {
        CExpr::Template {
            name: format!("tsl_wgmma_f32_{}", in_ty.name()),
            targs: vec![CExpr::sym(n)],
        }
    } else {
        wgmma_template(in_ty, "float", n)
    }
}

/// `tsl_wgmma<A, C, N>`: the WGMMA of `in_ty` operands into `acc` accumulators, width `n`.
fn wgmma_template(in_ty: DType, acc: &'static str, n: &Sym) -> CExpr {
    CExpr::Template {
        name: "tsl_wgmma".into(),
        targs: vec![
            CExpr::Type(super::cexpr::scalar_type(in_ty)),
            CExpr::Type(acc),
            CExpr::sym(n),
        ],
    }
}

/// A tensor dimension's extent from an origin on it: `S`, or `S - (o)`.
fn extent_from(dim: &Sym, origin: &CExpr) -> CExpr {
    if origin.is_zero() {
        CExpr::sym(dim)
    } else {
        CExpr::sym_operand(dim).sub(origin.clone().paren())
    }
}

fn array(ty: &'static str, name: &str, len: &Sym) -> Op {
    Op::Array {
        ty: ty.into(),
        name: name.into(),
        len: CExpr::sym(len),
    }
}

/// `place = 0;`
fn zero(place: CExpr) -> Op {
    Op::Assign {
        place,
        value: CExpr::int(0),
    }
}
