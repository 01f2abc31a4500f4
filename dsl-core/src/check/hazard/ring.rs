//! Event protocols. An event is an mbarrier: each phase completes when the threads that reach
//! its first `trigger` have all arrived, and the `n`-th `wait` of a thread returns once `n`
//! phases have completed. Three ways a ring of events goes wrong on the GPU:
//!
//! - **arrival counts** (`E1207`): a `trigger` reached by another number of threads than the
//!   first one (its phases complete early or never), or by no thread at all (`E1210`: a
//!   barrier cannot expect zero arrivals);
//! - **deadlock** (`E1208`): a `wait` that no phase can ever satisfy — typically a consumer
//!   that never grants the initial credits, so the producer's first `wait empty[s]` and the
//!   consumer's first `wait full[s]` wait on each other;
//! - **running ahead** (`E1209`): a phase that completes twice before a waiter consumed the
//!   first (a double `trigger`): the producer overwrites a stage that is still being read.
//!
//! The last two are found by running the protocol: each top-level `inthreads` branch is an
//! agent whose `wait`s and `trigger`s are listed in order under the configuration (loops over
//! problem sizes run a few times round every ring), then the agents advance until all finish
//! or none can. Anything the listing cannot evaluate (an event index that depends on the
//! thread) leaves the protocol unchecked rather than guessed.

use super::super::eval::{Env, eval};
use super::super::{Binding, Cx, codes, first_unknown_name};
use super::{Scope, statements};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Block, Expr, ExprId, ExtStmt, Level, Stmt, StmtId};
use std::collections::{HashMap, HashSet};

/// An event: its declaration statement and declarator.
type EventKey = (StmtId, usize);

pub(super) fn check(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let all = statements(m);
    let mut triggered: HashSet<EventKey> = HashSet::new();
    for (s, _) in &all {
        if let Some(event) = trigger_operand(&m.stmts[*s])
            && let Some(k) = any_event_of(cx, event)
        {
            triggered.insert(k);
        }
    }
    let counts_ok = arrivals(cx, &all, diags);
    if counts_ok && !triggered.is_empty() {
        simulate(cx, &all, &triggered, diags);
    }
}

/// `shared event<N> e;`: a warning where `N` is not the number of threads of the block that take
/// part in `e` — that wait on it or trigger it, in any form, counted once each (Croqtile's
/// participation of an event). tessel's barriers count the arrivals of the threads that reach
/// a `trigger` themselves; the stated number is checked, not used.
pub(super) fn participants(cx: &Cx, warnings: &mut Vec<Diagnostic>) {
    let m = cx.m;
    if m.event_participants.is_empty() {
        return;
    }
    let all = statements(m);
    for &(decl, n) in &m.event_participants {
        let Some(stated) = cx.static_value(n) else {
            continue;
        };
        let Stmt::EventDecl { names, .. } = &m.stmts[decl] else {
            continue;
        };
        for (di, d) in names.iter().enumerate() {
            let uses: Vec<&(StmtId, Scope)> = all
                .iter()
                .filter(|(s, _)| {
                    event_operand(&m.stmts[*s])
                        .and_then(|e| any_event_of(cx, e))
                        .is_some_and(|k| k == (decl, di))
                })
                .collect();
            if uses.is_empty() {
                continue;
            }
            let Some(taking_part) = union_reaching(cx, &uses) else {
                continue;
            };
            if taking_part != stated as u64 {
                warnings.push(
                    Diagnostic::warning(
                        codes::EVENT_PARTICIPANTS,
                        m.expr_span(n),
                        format!(
                            "`{}` states {stated} participating threads, but {taking_part} threads of the block wait on it or trigger it",
                            d.name.name
                        ),
                    )
                    .with_note(m.stmt_span(uses[0].0), "a use of it")
                    .with_help(format!(
                        "write `event<{taking_part}>`, or drop the count: tessel counts each phase's arrivals from the threads that reach a `trigger`"
                    )),
                );
            }
        }
    }
}

/// How many threads of the block reach at least one of `uses` (under their `inthreads`
/// conditions), when the statements sit under the same `parallel` levels and the conditions
/// evaluate per thread.
fn union_reaching(cx: &Cx, uses: &[&(StmtId, Scope)]) -> Option<u64> {
    let m = cx.m;
    let levels = cx.res.chains.get(&uses[0].0)?;
    if uses
        .iter()
        .any(|(s, _)| cx.res.chains.get(s) != Some(levels))
    {
        return None;
    }
    let mut vars: Vec<(String, i64)> = Vec::new();
    for l in levels {
        let pl = cx.level(*l)?;
        if pl.level == Level::Block {
            continue;
        }
        for (v, e) in pl.vars.iter().zip(&pl.extents) {
            vars.push((v.name.clone(), cx.static_value(*e)?));
        }
    }
    let total = vars
        .iter()
        .try_fold(1i64, |acc, (_, n)| acc.checked_mul(*n))?;
    if !(1..=4096).contains(&total) {
        return None;
    }
    let mut env = cx.env.clone();
    // Extents too, for compositions of thread variables (`p # lane`).
    for (name, n) in &vars {
        env.extents.insert(name.clone(), *n);
    }
    let mut count = 0u64;
    for t in 0..total {
        let mut rest = t;
        for (name, n) in vars.iter().rev() {
            env.values.insert(name.clone(), rest % n);
            rest /= n;
        }
        let mut any = false;
        for (_, scope) in uses {
            let mut all = true;
            for c in scope.conds.iter().filter(|c| c.1) {
                all &= eval(m, c.0, &env).ok()? != 0;
            }
            any |= all;
        }
        count += u64::from(any);
    }
    Some(count)
}

/// The event operand of a `trigger` in either form (`trigger e;`, `trigger e after f1, f2;`).
fn trigger_operand(s: &Stmt) -> Option<ExprId> {
    match s {
        Stmt::Trigger { event, .. } | Stmt::Ext(ExtStmt::TriggerAfter { event, .. }) => {
            Some(*event)
        }
        _ => None,
    }
}

/// The event a `wait` or `trigger` (either form) names.
fn event_operand(s: &Stmt) -> Option<ExprId> {
    match s {
        Stmt::Wait { event } => Some(*event),
        _ => trigger_operand(s),
    }
}

/// The event a `trigger` operand names in any form (`e`, `e[i]`, `e.at(k)`): arrival counts
/// hold per barrier whichever way it is indexed.
fn any_event_of(cx: &Cx, e: ExprId) -> Option<EventKey> {
    let name = match &cx.m.exprs[e] {
        Expr::View {
            base,
            op: crate::ir::ViewOp::At,
            ..
        } => *base,
        _ => return event_of(cx, e).map(|(k, _)| k),
    };
    match cx.res.bindings.get(&name)? {
        Binding::Event(s, d) => Some((*s, *d)),
        _ => None,
    }
}

/// The event an expression names (`e`, `e[i]`), and its index expression; `e.at(k)` (a
/// generation, not an element) is left to the other checks.
fn event_of(cx: &Cx, e: ExprId) -> Option<(EventKey, Option<ExprId>)> {
    let (name, index) = match &cx.m.exprs[e] {
        Expr::Name(_) => (e, None),
        Expr::Index { base, index } => (*base, Some(*index)),
        _ => return None,
    };
    match cx.res.bindings.get(&name)? {
        Binding::Event(s, d) => Some(((*s, *d), index)),
        _ => None,
    }
}

fn event_name(cx: &Cx, k: EventKey) -> String {
    cx.binding_name(Binding::Event(k.0, k.1))
}

/// Number of threads of the block that satisfy every `inthreads` condition of `scope`, if the
/// conditions only use thread variables and values known under the configuration.
fn reaching(cx: &Cx, s: StmtId, scope: &Scope) -> Option<u64> {
    union_reaching(cx, &[&(s, scope.clone())])
}

/// The first name in an `inthreads` condition whose value is not fixed for a thread when the
/// kernel is compiled: anything but the thread-level `parallel` variables, tunables and
/// constants (and lets of those), if any.
fn runtime_name(cx: &Cx, e: ExprId) -> Option<String> {
    let m = cx.m;
    first_unknown_name(cx, e, &|b| match b {
        Binding::Tunable | Binding::Constant => true,
        Binding::ParallelVar { stmt, level, .. } => match &m.stmts[*stmt] {
            Stmt::Parallel { levels, .. } => {
                levels.get(*level).is_some_and(|l| l.level != Level::Block)
            }
            _ => false,
        },
        _ => false,
    })
}

/// Arrival counts: every `trigger` of an event is reached by as many threads as its first.
/// Returns whether the protocol can be simulated (consistent counts, no `trigger` under an
/// `if`, which the lowering reports).
fn arrivals(cx: &Cx, all: &[(StmtId, Scope)], diags: &mut Diagnostics) -> bool {
    let m = cx.m;
    let mut first: HashMap<EventKey, (StmtId, Option<u64>)> = HashMap::new();
    let mut runtime_conds: HashSet<ExprId> = HashSet::new();
    let mut ok = true;
    for (s, scope) in all {
        let Some(event) = trigger_operand(&m.stmts[*s]) else {
            continue;
        };
        let Some(k) = any_event_of(cx, event) else {
            continue;
        };
        let name = event_name(cx, k);
        if scope.ifs > 0 {
            // The lowering rejects a `trigger` under `if` (its count would depend on data);
            // the protocol is not simulated then.
            ok = false;
            continue;
        }
        if let Some((cond, bad)) = scope
            .conds
            .iter()
            .filter(|c| c.1)
            .find_map(|c| runtime_name(cx, c.0).map(|n| (c.0, n)))
        {
            ok = false;
            // One report per condition, at its first trigger.
            if !runtime_conds.insert(cond) {
                continue;
            }
            diags.push(
                Diagnostic::new(
                    codes::TRIGGER_RUNTIME_THREADS,
                    m.expr_span(cond),
                    format!(
                        "this `inthreads` condition chooses the threads that `trigger {name}`, but `{bad}` is known only at run time: each phase of `{name}` expects a number of arrivals fixed when the kernel is compiled"
                    ),
                )
                .with_note(m.stmt_span(*s), "the trigger")
                .with_help("choose the triggering threads by thread indexes, tunables and constants; test run-time values inside the branch, around the work, not the trigger"),
            );
            continue;
        }
        let n = reaching(cx, *s, scope);
        if n == Some(0) {
            ok = false;
            diags.push(
                Diagnostic::new(
                    codes::TRIGGER_UNREACHED,
                    m.stmt_span(*s),
                    format!(
                        "no thread of the block reaches this `trigger {name}`: its `inthreads` conditions select none, so the phases of `{name}` would complete on no arrival"
                    ),
                )
                .with_help("check the `inthreads` conditions around it against the extents of the `parallel` levels"),
            );
            continue;
        }
        match first.get(&k) {
            None => {
                first.insert(k, (*s, n));
            }
            Some(&(f, expected)) => {
                let (Some(want), Some(got)) = (expected, n) else {
                    continue;
                };
                if want != got {
                    ok = false;
                    diags.push(
                        Diagnostic::new(
                            codes::ARRIVALS,
                            m.stmt_span(*s),
                            format!(
                                "this `trigger {name}` is reached by {got} threads, but each phase of `{name}` expects {want} arrivals (the threads of its first `trigger`)"
                            ),
                        )
                        .with_note(m.stmt_span(f), "the first trigger, which sets the count")
                        .with_help(format!(
                            "trigger `{name}` from the same threads everywhere (the same `inthreads` condition)"
                        )),
                    );
                }
            }
        }
    }
    ok
}

/// One step of an agent: on barrier `i` of an event. A `wait e[i]` (generation `None`) returns
/// once the barrier has completed one phase more than this agent's earlier waits on it; a
/// `wait e.at(k)` once it has completed generation `k / N` (barrier `k % N`).
#[derive(Clone, Copy)]
enum Act {
    Wait(EventKey, i64, Option<i64>, StmtId),
    Trigger(EventKey, i64, StmtId),
}

/// Most steps listed per agent, and statements visited while listing.
const MAX_STEPS: usize = 100_000;

struct Lister<'a, 'b> {
    cx: &'a Cx<'b>,
    triggered: &'a HashSet<EventKey>,
    /// Statements holding a `wait`/`trigger` of a triggered event (themselves or inside).
    eventful: &'a HashSet<StmtId>,
    /// Iterations given to a loop whose extent depends on problem sizes.
    sym_iters: i64,
    /// Problem dims set to a large value (the loops over them are then capped).
    sym_env: Env,
    out: Vec<Act>,
    visited: usize,
}

impl Lister<'_, '_> {
    /// Lists the steps of `b`; `None` when something cannot be evaluated.
    fn block(&mut self, b: &Block, env: &mut Env) -> Option<()> {
        let m = self.cx.m;
        for &s in b {
            self.visited += 1;
            if self.visited > MAX_STEPS || self.out.len() > MAX_STEPS {
                return None;
            }
            match &m.stmts[s] {
                Stmt::Let { name, value } => match eval(m, *value, env) {
                    Ok(v) => {
                        env.values.insert(name.name.clone(), v);
                    }
                    Err(_) => {
                        env.values.remove(&name.name);
                    }
                },
                // Scalars (`mutable int order = 0;` … `order++`), for generations `e.at(order)`.
                Stmt::ScalarDecl { name, init, .. } => {
                    match init.map(|v| eval(m, v, env)) {
                        Some(Ok(v)) => env.values.insert(name.name.clone(), v),
                        _ => env.values.remove(&name.name),
                    };
                }
                Stmt::Assign { target, op, value } => {
                    if let Expr::Name(n) = &m.exprs[*target] {
                        let now = env.values.get(n).copied();
                        let v = eval(m, *value, env).ok();
                        let next = match (op, now, v) {
                            (crate::ir::AssignOp::Set, _, Some(v)) => Some(v),
                            (crate::ir::AssignOp::Add, Some(a), Some(v)) => a.checked_add(v),
                            (crate::ir::AssignOp::Sub, Some(a), Some(v)) => a.checked_sub(v),
                            _ => None,
                        };
                        match next {
                            Some(x) => env.values.insert(n.clone(), x),
                            None => env.values.remove(n),
                        };
                    }
                }
                // A statement the listing does not enter forgets the scalars it assigns: a
                // counter stepped under an `if` without events is unknown from then on (the
                // protocol is left unchecked rather than run with a stale value).
                _ if !self.eventful.contains(&s) => {
                    fn forget(m: &crate::ir::Module, b: &[StmtId], env: &mut Env) {
                        for &t in b {
                            if let Stmt::Assign { target, .. } = &m.stmts[t]
                                && let Expr::Name(n) = &m.exprs[*target]
                            {
                                env.values.remove(n);
                            }
                            for inner in super::super::stmt_blocks(&m.stmts[t]) {
                                forget(m, inner, env);
                            }
                        }
                    }
                    for b in super::super::stmt_blocks(&m.stmts[s]) {
                        forget(m, b, env);
                    }
                }
                st if event_operand(st).is_some() => {
                    let event = event_operand(st).expect("matched above");
                    let Some((k, i, generation)) = self.slot(event, env)? else {
                        continue;
                    };
                    if !self.triggered.contains(&k) {
                        continue;
                    }
                    self.out.push(match &m.stmts[s] {
                        Stmt::Wait { .. } => Act::Wait(k, i, generation, s),
                        _ => Act::Trigger(k, i, s),
                    });
                }
                Stmt::Foreach {
                    vars,
                    extents,
                    body,
                    ..
                } => {
                    let mut ns = Vec::new();
                    for &e in extents {
                        let n = match eval(m, e, env) {
                            Ok(n) if !self.depends_on_dims(e) => n,
                            _ => {
                                // Problem dims at a large value, then the loop capped.
                                let mut big = env.clone();
                                big.values.extend(self.sym_env.values.clone());
                                eval(m, e, &big).ok()?.min(self.sym_iters)
                            }
                        };
                        ns.push(n.max(0));
                    }
                    let total = ns.iter().try_fold(1i64, |a, n| a.checked_mul(*n))?;
                    if total as usize > MAX_STEPS {
                        return None;
                    }
                    for t in 0..total {
                        let mut rest = t;
                        for (v, n) in vars.iter().zip(&ns).rev() {
                            env.values.insert(v.name.clone(), rest % n);
                            rest /= n;
                        }
                        self.block(body, env)?;
                    }
                    for v in vars {
                        env.values.remove(&v.name);
                    }
                }
                Stmt::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let c = eval(m, *cond, env).ok()?;
                    if c != 0 {
                        self.block(then_body, env)?;
                    } else if let Some(e) = else_body {
                        self.block(e, env)?;
                    }
                }
                Stmt::InThreads { body, .. } | Stmt::Parallel { body, .. } => {
                    self.block(body, env)?;
                }
                _ => {}
            }
        }
        Some(())
    }

    /// The event, barrier and generation (for `e.at(k)`) an operand names under `env`:
    /// `Some(None)` for something that is not an event, `None` when it cannot be evaluated.
    #[allow(clippy::type_complexity)]
    fn slot(&self, event: ExprId, env: &Env) -> Option<Option<(EventKey, i64, Option<i64>)>> {
        let m = self.cx.m;
        if let Some((k, index)) = event_of(self.cx, event) {
            let i = match index {
                Some(ix) => eval(m, ix, env).ok()?,
                None => 0,
            };
            return Some(Some((k, i, None)));
        }
        let Expr::View { args, .. } = &m.exprs[event] else {
            return Some(None);
        };
        let (Some(k), [g]) = (any_event_of(self.cx, event), args.as_slice()) else {
            return Some(None);
        };
        let n = match &m.stmts[k.0] {
            Stmt::EventDecl { names, .. } => match names.get(k.1).and_then(|d| d.count) {
                Some(c) => self.cx.static_value(c)?,
                None => 1,
            },
            _ => return Some(None),
        };
        let g = eval(m, *g, env).ok()?;
        if n < 1 || g < 0 {
            return None;
        }
        Some(Some((k, g % n, Some(g / n))))
    }

    /// Whether `e` names a problem dim (a symbolic dimension of a parameter).
    fn depends_on_dims(&self, e: ExprId) -> bool {
        let mut dims = false;
        super::super::walk_expr(self.cx.m, e, &mut |x| {
            if matches!(self.cx.res.bindings.get(&x), Some(Binding::SymDim { .. })) {
                dims = true;
            }
        });
        dims
    }
}

/// Statements that hold (or are) a `wait`/`trigger` of a triggered event.
fn eventful(cx: &Cx, triggered: &HashSet<EventKey>) -> HashSet<StmtId> {
    let m = cx.m;
    fn go(cx: &Cx, s: StmtId, triggered: &HashSet<EventKey>, out: &mut HashSet<StmtId>) -> bool {
        let m = cx.m;
        let mut any = event_operand(&m.stmts[s])
            .and_then(|event| any_event_of(cx, event))
            .is_some_and(|k| triggered.contains(&k));
        for b in super::super::stmt_blocks(&m.stmts[s]) {
            for &inner in b {
                any |= go(cx, inner, triggered, out);
            }
        }
        if any {
            out.insert(s);
        }
        any
    }
    let mut out = HashSet::new();
    for &s in &m.kernel.body {
        go(cx, s, triggered, &mut out);
    }
    out
}

fn simulate(
    cx: &Cx,
    all: &[(StmtId, Scope)],
    triggered: &HashSet<EventKey>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    let eventful = eventful(cx, triggered);
    // Agents: the outermost `inthreads` branches holding events, or the whole body.
    let mut branches: Vec<StmtId> = Vec::new();
    let mut outside = false;
    for (s, scope) in all {
        if event_operand(&m.stmts[*s]).is_none() || !eventful.contains(s) {
            continue;
        }
        match scope.conds.iter().find(|c| c.1) {
            Some(&(cond, _)) => {
                let Some((b, _)) = all.iter().find(
                    |(b, _)| matches!(&m.stmts[*b], Stmt::InThreads { cond: c, .. } if *c == cond),
                ) else {
                    return;
                };
                if !branches.contains(b) {
                    branches.push(*b);
                }
            }
            None => outside = true,
        }
    }
    if outside && !branches.is_empty() {
        return;
    }
    let ring = all
        .iter()
        .filter_map(|(s, _)| match &m.stmts[*s] {
            Stmt::EventDecl { names, .. } => Some(
                names
                    .iter()
                    .filter_map(|d| d.count.and_then(|c| cx.static_value(c)))
                    .max()
                    .unwrap_or(1),
            ),
            _ => None,
        })
        .max()
        .unwrap_or(1)
        .clamp(1, 64);
    let mut sym_env = Env::new();
    for p in &m.kernel.params {
        for &d in &p.shape {
            if let Expr::Name(n) = &m.exprs[d]
                && !cx.static_env.values.contains_key(n)
            {
                sym_env.values.insert(n.clone(), 1 << 40);
            }
        }
    }
    let mut lister = Lister {
        cx,
        triggered,
        eventful: &eventful,
        sym_iters: 2 * ring + 3,
        sym_env,
        out: Vec::new(),
        visited: 0,
    };
    let mut agents: Vec<Vec<Act>> = Vec::new();
    let bodies: Vec<Block> = if branches.is_empty() {
        vec![m.kernel.body.clone()]
    } else {
        branches
            .iter()
            .map(|b| match &m.stmts[*b] {
                Stmt::InThreads { body, .. } => body.clone(),
                _ => Vec::new(),
            })
            .collect()
    };
    for body in &bodies {
        lister.out.clear();
        lister.visited = 0;
        let mut env = cx.static_env.clone();
        if lister.block(body, &mut env).is_none() {
            return;
        }
        agents.push(std::mem::take(&mut lister.out));
    }
    run(cx, &agents, diags);
}

fn run(cx: &Cx, agents: &[Vec<Act>], diags: &mut Diagnostics) {
    let m = cx.m;
    let mut waiters: HashMap<EventKey, Vec<usize>> = HashMap::new();
    for (a, acts) in agents.iter().enumerate() {
        for act in acts {
            if let Act::Wait(k, _, None, _) = act {
                let w = waiters.entry(*k).or_default();
                if !w.contains(&a) {
                    w.push(a);
                }
            }
        }
    }
    // `= ready`: generation 0 of every barrier has completed before anyone runs.
    let ready = |k: EventKey| u64::from(m.is_ready(k.0));
    let mut pos = vec![0usize; agents.len()];
    let mut completed: HashMap<(EventKey, i64), u64> = HashMap::new();
    let mut waited: Vec<HashMap<(EventKey, i64), u64>> = vec![HashMap::new(); agents.len()];
    loop {
        let mut progress = false;
        for a in 0..agents.len() {
            while let Some(&act) = agents[a].get(pos[a]) {
                match act {
                    Act::Wait(k, i, Some(g), _) => {
                        let done = completed.get(&(k, i)).copied().unwrap_or(ready(k));
                        if done <= g as u64 {
                            break;
                        }
                    }
                    Act::Wait(k, i, None, _) => {
                        let done = completed.get(&(k, i)).copied().unwrap_or(ready(k));
                        let w = waited[a].entry((k, i)).or_insert(0);
                        if done <= *w {
                            break;
                        }
                        *w += 1;
                    }
                    Act::Trigger(k, i, s) => {
                        let done = completed.entry((k, i)).or_insert(ready(k));
                        *done += 1;
                        let done = *done;
                        for &b in waiters.get(&k).map(Vec::as_slice).unwrap_or(&[]) {
                            let w = waited[b].get(&(k, i)).copied().unwrap_or(0);
                            if done > w + 1 {
                                let name = event_name(cx, k);
                                diags.push(
                                    Diagnostic::new(
                                        codes::RING_AHEAD,
                                        m.stmt_span(s),
                                        format!(
                                            "`{name}[{i}]` completes a second phase here before its waiter consumed the first: the ring runs ahead (a data race on the slot it guards)"
                                        ),
                                    )
                                    .with_help(format!(
                                        "trigger each slot of `{name}` once per `wait` on it: remove the extra `trigger`, or wait between the two"
                                    )),
                                );
                                return;
                            }
                        }
                    }
                }
                pos[a] += 1;
                progress = true;
            }
        }
        if (0..agents.len()).all(|a| pos[a] == agents[a].len()) {
            return;
        }
        if !progress {
            break;
        }
    }
    // Deadlock: every unfinished agent is blocked on a wait.
    let mut blocked: Vec<(StmtId, EventKey, i64, Option<i64>)> = (0..agents.len())
        .filter_map(|a| match agents[a].get(pos[a]) {
            Some(Act::Wait(k, i, g, s)) => Some((*s, *k, *i, *g)),
            _ => None,
        })
        .collect();
    blocked.sort_by_key(|(s, ..)| m.stmt_span(*s).start);
    let Some(&(s, k, i, g)) = blocked.first() else {
        return;
    };
    let what = |k: EventKey, i: i64, g: Option<i64>| match g {
        None => format!("`{}[{i}]`", event_name(cx, k)),
        Some(g) => format!("generation {g} of `{}[{i}]`", event_name(cx, k)),
    };
    let name = event_name(cx, k);
    let mut d = Diagnostic::new(
        codes::RING_DEADLOCK,
        m.stmt_span(s),
        format!(
            "deadlock: this `wait` on {} never returns: no `trigger` can complete the phase it waits for while the other side is blocked too",
            what(k, i, g)
        ),
    )
    .with_help(format!(
        "grant the initial credits: declare the slots free (`shared event {name}[N] = ready;`), or, before its first `wait`, let the side that frees them trigger each one once (`foreach {{s}} in [N] trigger {name}[s];`)"
    ));
    for &(o, ok, oi, og) in &blocked[1..] {
        d = d.with_note(
            m.stmt_span(o),
            format!("also blocked here, on {}", what(ok, oi, og)),
        );
    }
    diags.push(d);
}
