//! Events (mbarriers): `wait`, `trigger` and `tma.copy.async<ev>` name a declared `shared`
//! event (an element of it when it is an array), and every event that is waited on is
//! triggered somewhere (by a `trigger` or a completing `tma.copy.async`), else the wait
//! deadlocks.

use super::{Binding, Cx, EventInfo, all_stmts, at_expr, codes};
use crate::diag::Diagnostics;
use crate::ir::{CopyDst, Expr, ExprId, ExtStmt, MemSpace, Module, Stmt, StmtId};
use std::collections::{HashMap, HashSet};

pub(crate) fn check_events(cx: &Cx, diags: &mut Diagnostics) -> Vec<EventInfo> {
    let m = cx.m;
    let mut events: Vec<EventInfo> = Vec::new();
    for s in all_stmts(m) {
        if let Stmt::EventDecl { space, names } = &m.stmts[s] {
            for (i, d) in names.iter().enumerate() {
                events.push(EventInfo {
                    name: d.name.name.clone(),
                    decl: s,
                    declarator: i,
                    space: *space,
                    count: d.count.and_then(|c| cx.static_value(c)),
                    waits: Vec::new(),
                    triggers: Vec::new(),
                });
            }
        }
    }
    // First wait expression per event, for the deadlock message.
    let mut first_wait: Vec<Option<ExprId>> = vec![None; events.len()];
    for s in all_stmts(m) {
        let (e, is_wait) = match &m.stmts[s] {
            Stmt::Wait { event } => (*event, true),
            Stmt::Trigger { event, .. } => (*event, false),
            Stmt::TmaCopy {
                event: Some(event), ..
            } => (*event, false),
            Stmt::Ext(crate::ir::ExtStmt::TriggerAfter { event, .. }) => (*event, false),
            _ => continue,
        };
        let Some(idx) = use_of(cx, s, e, &events, diags) else {
            continue;
        };
        if is_wait {
            events[idx].waits.push(s);
            first_wait[idx].get_or_insert(e);
        } else {
            events[idx].triggers.push(s);
        }
    }
    // A wait on `e.at(k)` tests the parity of generation `k`; a wait on `e[i]` flips a phase bit
    // this thread keeps per barrier. Mixed on one event, the kept bit misses the generation
    // waits and the next barrier wait tests the wrong phase.
    for ev in &events {
        let by_generation = |w: &StmtId| matches!(&m.stmts[*w], Stmt::Wait { event } if matches!(m.exprs[*event], Expr::View { .. }));
        if let (Some(g), Some(b)) = (
            ev.waits.iter().find(|w| by_generation(w)),
            ev.waits.iter().find(|w| !by_generation(w)),
        ) {
            diags.push(
                crate::diag::Diagnostic::new(
                    codes::EVENT_WAIT_MIX,
                    m.stmt_span(*b),
                    format!(
                        "`{}` is waited by generation (`{}.at(k)`) elsewhere; a barrier wait on it would test the wrong phase",
                        ev.name, ev.name
                    ),
                )
                .with_note(m.stmt_span(*g), "waited by generation here")
                .with_help(format!(
                    "wait every generation the same way: `wait {}.at(k);` with the pipeline's running order `k`",
                    ev.name
                )),
            );
        }
    }
    cluster_triggers(cx, false, diags);
    for (i, ev) in events.iter().enumerate() {
        if ev.triggers.is_empty() && !ev.waits.is_empty() {
            let Some(at) = first_wait[i] else { continue };
            let shown = m.expr_to_string(at);
            let idx = if ev.count.is_some() { "[i]" } else { "" };
            let mut d = at_expr(
                m,
                codes::DEADLOCK,
                at,
                format!("deadlock: `wait {shown}` can never finish, because nothing triggers `{}`", ev.name),
            )
            .with_help(format!(
                "add `trigger {}{idx};` where the data is ready, or let a copy complete on it: `tma.copy.async<{}{idx}> …`",
                ev.name, ev.name
            ));
            if let Some(names) = decl_span(cx, ev.decl, ev.declarator) {
                d = d.with_note(names, "event declared here");
            }
            diags.push(d);
        }
    }
    events
}

fn decl_span(cx: &Cx, s: StmtId, d: usize) -> Option<crate::span::Span> {
    match &cx.m.stmts[s] {
        Stmt::EventDecl { names, .. } => names.get(d).map(|n| n.name.span),
        _ => None,
    }
}

/// The event a `wait`/`trigger`/`tma.copy.async` expression names, checking indexing and space.
fn use_of(
    cx: &Cx,
    _s: StmtId,
    e: ExprId,
    events: &[EventInfo],
    diags: &mut Diagnostics,
) -> Option<usize> {
    let m = cx.m;
    // `e.at(k)`: step `k` of a cyclic event — for an array, element `k % N` (any index form
    // is then fine).
    let (name_expr, indexed, cyclic) = match &m.exprs[e] {
        Expr::Name(_) => (e, false, false),
        Expr::Index { base, .. } => (*base, true, false),
        Expr::View {
            base,
            op: crate::ir::ViewOp::At,
            ..
        } => match &m.exprs[*base] {
            Expr::Index { base, .. } => (*base, true, true),
            _ => (*base, false, true),
        },
        _ => return None,
    };
    let Some(Binding::Event(ds, di)) = cx.res.bindings.get(&name_expr).copied() else {
        return None;
    };
    let idx = events
        .iter()
        .position(|ev| ev.decl == ds && ev.declarator == di)?;
    let ev = &events[idx];
    let is_array = match &m.stmts[ds] {
        Stmt::EventDecl { names, .. } => names.get(di).is_some_and(|n| n.count.is_some()),
        _ => false,
    };
    if !cyclic && is_array && !indexed {
        diags.push(
            at_expr(
                m,
                codes::EVENT_INDEX,
                e,
                format!("`{}` is an array of events; name one of them", ev.name),
            )
            .with_help(format!("index it, e.g. `{}[stage]`", ev.name)),
        );
    } else if !cyclic && !is_array && indexed {
        diags.push(
            at_expr(
                m,
                codes::EVENT_INDEX,
                e,
                format!("`{}` is a single event, not an array", ev.name),
            )
            .with_help(format!(
                "drop the index, or declare `shared event {}[N];`",
                ev.name
            )),
        );
    }
    if ev.space != MemSpace::Shared {
        let mut d = at_expr(
            m,
            codes::EVENT_SPACE,
            e,
            format!(
                "`{}` is a {} event; events are mbarriers and live in shared memory",
                ev.name, ev.space
            ),
        )
        .with_help(format!(
            "declare it `shared event {}{};`",
            ev.name,
            if is_array { "[N]" } else { "" }
        ));
        if let Some(sp) = decl_span(cx, ds, di) {
            d = d.with_note(sp, "declared here");
        }
        diags.push(d);
    }
    Some(idx)
}

/// The TMA loads whose future an event publishes: `f = tma.copy.async g => s;` followed, in the
/// same statement list, by `trigger e after f[, …];`, with `f` named nowhere else (not waited,
/// its `.data` not read). Such a load completes on `e` itself (its bytes join `e`'s phase), so
/// the `trigger` does not wait for it — `after` binds the copy to the event, as the language
/// defines it. Copy statement → the event expression of its `trigger`.
pub(crate) fn bound_copies(m: &Module) -> HashMap<StmtId, ExprId> {
    // The names the statements use, other than in a `trigger … after` list.
    let mut named: HashSet<&str> = HashSet::new();
    for s in all_stmts(m) {
        let after: &[ExprId] = match &m.stmts[s] {
            Stmt::Ext(ExtStmt::TriggerAfter { after, .. }) => after,
            _ => &[],
        };
        for e in super::stmt_exprs(&m.stmts[s]) {
            if after.contains(&e) {
                continue;
            }
            super::walk_expr(m, e, &mut |x| {
                if let Expr::Name(n) = &m.exprs[x] {
                    named.insert(n);
                }
            });
        }
    }
    let named_elsewhere = |f: &str| named.contains(f);
    let mut out = HashMap::new();
    fn blocks<'m>(m: &'m Module, b: &'m [StmtId], out: &mut Vec<&'m [StmtId]>) {
        out.push(b);
        for &s in b {
            for inner in super::stmt_blocks(&m.stmts[s]) {
                blocks(m, inner, out);
            }
        }
    }
    let mut all = Vec::new();
    blocks(m, &m.kernel.body, &mut all);
    for b in all {
        for (i, &s) in b.iter().enumerate() {
            let Stmt::TmaCopy {
                event: None,
                bind: Some(f),
                dst: CopyDst::Expr(_),
                ..
            } = &m.stmts[s]
            else {
                continue;
            };
            let trigger = b[i + 1..].iter().find_map(|&t| match &m.stmts[t] {
                Stmt::Trigger {
                    event,
                    after: Some(a),
                } if a.name == f.name => Some(*event),
                Stmt::Ext(ExtStmt::TriggerAfter { event, after })
                    if after
                        .iter()
                        .any(|&a| matches!(&m.exprs[a], Expr::Name(n) if *n == f.name)) =>
                {
                    Some(*event)
                }
                _ => None,
            });
            if let Some(ev) = trigger
                && !named_elsewhere(&f.name)
            {
                out.insert(s, ev);
            }
        }
    }
    out
}

/// The event array a `wait`/`trigger` operand names: `e`, `e[i]` or `e.at(k)`.
pub(crate) fn event_root(m: &Module, e: ExprId) -> Option<&str> {
    match &m.exprs[e] {
        Expr::Name(n) => Some(n),
        Expr::Index { base, .. }
        | Expr::View {
            base,
            op: crate::ir::ViewOp::At,
            ..
        } => match &m.exprs[*base] {
            Expr::Name(n) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

/// An event declarator as the resolver bound one use of it (`e`, `e[i]`, `e.at(k)`): its
/// `EventDecl` and the declarator's place in it, with the spelling kept to name C++ identifiers.
/// Ordered by name first, so a set of them lists events as their names sort.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventRef {
    pub name: String,
    pub decl: StmtId,
    pub declarator: usize,
}

impl EventRef {
    /// The checker's binding of the event.
    pub fn binding(&self) -> Binding {
        Binding::Event(self.decl, self.declarator)
    }
}

/// The event a `wait`/`trigger` operand names, by the resolver's binding of its root (`None`
/// for a copy future or an unresolved name).
pub fn event_ref(m: &Module, bindings: &HashMap<ExprId, Binding>, e: ExprId) -> Option<EventRef> {
    let root = match &m.exprs[e] {
        Expr::Name(_) => e,
        Expr::Index { base, .. }
        | Expr::View {
            base,
            op: crate::ir::ViewOp::At,
            ..
        } => match &m.exprs[*base] {
            Expr::Name(_) => *base,
            _ => return None,
        },
        _ => return None,
    };
    let (Expr::Name(name), Some(Binding::Event(decl, declarator))) =
        (&m.exprs[root], bindings.get(&root).copied())
    else {
        return None;
    };
    Some(EventRef {
        name: name.clone(),
        decl,
        declarator,
    })
}

/// Whether `e` has one value for every thread of a block: it names only tunables, constants,
/// dimensions, scalar parameters, `: block` variables, loop variables of loops whose extents
/// are such values, and `let`s of such values. A `trigger` under an `if` on such a condition
/// keeps its event's arrival count: the same threads reach it, or none do.
pub(crate) fn block_uniform(cx: &Cx, e: ExprId) -> bool {
    uniform_within(cx, e, crate::ir::Level::Block)
}

/// Whether `e` has one value for every thread of one unit of `scope` (`Block`: a block; `Group`:
/// a warp): [`block_uniform`]'s values, and for a warp also the variables of `: group-4` and
/// `: group` levels (a warp lies inside one warpgroup and is one unit of `: group`).
pub(crate) fn uniform_within(cx: &Cx, e: ExprId, scope: crate::ir::Level) -> bool {
    use crate::ir::Level;
    let uniform_level = |l: Level| match l {
        Level::Block => true,
        Level::Group4 | Level::Group => scope == Level::Group,
        Level::Thread => false,
    };
    fn go(
        cx: &Cx,
        e: ExprId,
        depth: u32,
        uniform_level: &dyn Fn(crate::ir::Level) -> bool,
    ) -> bool {
        let m = cx.m;
        let mut ok = depth < 32;
        super::walk_expr(m, e, &mut |x| {
            if !ok || !matches!(m.exprs[x], Expr::Name(_)) {
                return;
            }
            ok = match cx.res.bindings.get(&x).copied() {
                Some(Binding::Tunable | Binding::Constant | Binding::SymDim { .. }) => true,
                Some(Binding::Param(i)) => {
                    m.kernel.params.get(i).is_some_and(|p| p.shape.is_empty())
                }
                Some(Binding::ParallelVar { stmt, level, .. }) => matches!(
                    &m.stmts[stmt],
                    Stmt::Parallel { levels, .. }
                        if levels.get(level).is_some_and(|l| uniform_level(l.level))
                ),
                Some(Binding::LoopVar { stmt, .. }) => match &m.stmts[stmt] {
                    Stmt::Foreach { extents, .. } => {
                        extents.iter().all(|&x| go(cx, x, depth + 1, uniform_level))
                    }
                    _ => false,
                },
                Some(Binding::Let(s)) => match &m.stmts[s] {
                    Stmt::Let { value, .. } => go(cx, *value, depth + 1, uniform_level),
                    _ => false,
                },
                // `int n = v;` never assigned again is a `let` of `v`.
                Some(Binding::Scalar(s)) => match &m.stmts[s] {
                    Stmt::ScalarDecl { init: Some(v), .. } => {
                        !assigned(cx, s) && go(cx, *v, depth + 1, uniform_level)
                    }
                    _ => false,
                },
                _ => false,
            };
        });
        ok
    }
    go(cx, e, 0, &uniform_level)
}

/// Whether a statement assigns the scalar declared by `decl` (`=`, `+=`, … or `reduce`).
pub(crate) fn assigned(cx: &Cx, decl: StmtId) -> bool {
    assigned_scalars(cx).contains(&decl)
}

/// The declarations of every scalar some statement assigns (`=`, `+=`, … or `reduce`).
pub(crate) fn assigned_scalars(cx: &Cx) -> HashSet<StmtId> {
    scalars_assigned(cx.m, &cx.res.bindings, &cx.res.idents)
}

/// The declarations of every scalar some statement assigns (`=`, `+=`, … or `reduce`), from the
/// resolution of names (`KernelInfo::bindings` and `idents`).
pub fn scalars_assigned(
    m: &crate::ir::Module,
    bindings: &std::collections::HashMap<ExprId, Binding>,
    idents: &std::collections::HashMap<(StmtId, super::IdentRole), Binding>,
) -> HashSet<StmtId> {
    all_stmts(m)
        .into_iter()
        .filter_map(|s| match &m.stmts[s] {
            Stmt::Assign { target, .. } => bindings.get(target),
            Stmt::Reduce { .. } => idents.get(&(s, super::IdentRole::Target)),
            _ => None,
        })
        .filter_map(|b| match b {
            Binding::Scalar(d) => Some(*d),
            _ => None,
        })
        .collect()
}

/// The events a multicast load depends on: those waited before a `.multicast` TMA load in its
/// statement list. The peers write into this block's tile, so the load must wait until every
/// block of the cluster has released it: the lowering makes these events cluster-wide (each
/// arrival goes to every block; `lower/cluster.rs`).
pub(crate) fn cluster_wide_events(cx: &Cx) -> HashSet<EventRef> {
    let m = cx.m;
    let mut out = HashSet::new();
    let mut lists: Vec<&[StmtId]> = vec![&m.kernel.body];
    while let Some(list) = lists.pop() {
        if let Some(load) = list.iter().position(|s| m.is_multicast(*s)) {
            for &w in &list[..load] {
                if let Stmt::Wait { event } = &m.stmts[w]
                    && let Some(ev) = event_ref(m, &cx.res.bindings, *event)
                {
                    out.insert(ev);
                }
            }
        }
        for &s in list {
            lists.extend(
                super::stmt_blocks(&m.stmts[s])
                    .into_iter()
                    .map(|b| b.as_slice()),
            );
        }
    }
    out
}

/// `trigger.cluster e;` arrives on `e` in every block of the cluster: the kernel must run in
/// clusters (E1500), and tessel lowers it where it makes `e` cluster-wide itself — `e` guards a
/// multicast load ([`cluster_wide_events`]); elsewhere it is not lowered yet (E1385).
pub(crate) fn cluster_triggers(cx: &Cx, gate: bool, diags: &mut Diagnostics) {
    let m = cx.m;
    let clustered = m.cluster.is_some() || m.cluster_level.is_some();
    let wide = cluster_wide_events(cx);
    for &s in &m.cluster_triggers {
        let event = match &m.stmts[s] {
            Stmt::Trigger { event, .. } | Stmt::Ext(ExtStmt::TriggerAfter { event, .. }) => *event,
            _ => continue,
        };
        let name = event_root(m, event).unwrap_or("?");
        if !clustered && !gate {
            diags.push(
                crate::diag::Diagnostic::new(
                    codes::CLUSTER_TRIGGER,
                    m.stmt_span(s),
                    format!("`trigger.cluster {name}` in a kernel that does not run in clusters"),
                )
                .with_help("add a `: cluster` level (`parallel {c} by [2] : cluster { … }`) or write `trigger`"),
            );
        } else if clustered
            && gate
            && !event_ref(m, &cx.res.bindings, event).is_some_and(|ev| wide.contains(&ev))
        {
            diags.push(
                crate::diag::Diagnostic::new(
                    codes::NOT_LOWERED_CLUSTER_TRIGGER,
                    m.stmt_span(s),
                    format!("not supported yet: `trigger.cluster {name}` where `{name}` does not guard a multicast load"),
                )
                .with_help("tessel makes an event cluster-wide when it is waited before a `.multicast` load in the same statement list"),
            );
        }
    }
}
