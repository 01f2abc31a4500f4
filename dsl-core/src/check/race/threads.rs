//! What each thread of the block touches: the evaluation of an access's guards and indices for
//! every thread (`threadIdx.x`, each parallel variable by the launch geometry's formula) under
//! sampled values of the loop and block variables, and the search for two different threads on
//! one element.

use super::super::geometry_sym::{Index, sym_geometry};
use super::super::{Binding, Cx};
use super::{Access, BUDGET, DIM_SAMPLE, MAX_COMBOS, MAX_ELEMS, MAX_RANK};
use crate::ir::{BinaryOp, Expr, ExprId, Level, Stmt, StmtId, UnaryOp};
use crate::sym::{Sym, SymEnv};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Values of the loop and block variables for one access.
type Env = Vec<(Binding, i64)>;

/// An element: its array entry, then its coordinates (those past the tensor's rank 0).
type Key = [i64; MAX_RANK + 1];

/// What one access touches under one assignment.
pub(super) struct Touch {
    /// Who touches which elements: one thread and its elements, or, for a collective access
    /// (`mma.store`, `mma.load`), the threads that run it together and their tile, each
    /// element by one of them.
    items: Vec<(Vec<u32>, std::ops::Range<usize>)>,
    elems: Vec<Key>,
    /// Each element's threads (those of the items that hold it), sorted.
    owners: HashMap<Key, Vec<u32>>,
}

/// A race found: the threads and element, and the assignment that shows it.
pub(super) struct Witness {
    pub(super) tid_a: usize,
    pub(super) tid_b: usize,
    pub(super) element: Vec<i64>,
}

/// One choice of the shared values: for the earlier access and the later one.
type Choice = (Env, Env);

pub(super) struct Evaluator<'a> {
    pub(super) cx: &'a Cx<'a>,
    threads: usize,
    syms: SymEnv,
    /// Each thread-level parallel variable's value for every thread of the block.
    thread_vars: HashMap<Binding, Vec<i64>>,
    /// Block-level variables with their extents (where known).
    block_vars: Vec<(Binding, Option<i64>)>,
    /// Scalars some statement assigns after their declaration.
    mutable: HashSet<StmtId>,
    /// What is left of the work the check may do on this kernel (elements evaluated and
    /// looked up).
    budget: Cell<usize>,
    /// Lanes a warp (warpgroup) level leaves idle: the statements of the guarded region, and
    /// the unit and the number of its first threads that run them (`IdleLanes`).
    idle: Vec<(HashSet<StmtId>, i64, i64)>,
}

impl<'a> Evaluator<'a> {
    pub(super) fn new(
        cx: &'a Cx<'a>,
        chains: &[Vec<(StmtId, usize)>],
        threads: usize,
    ) -> Option<Self> {
        let m = cx.m;
        let g = sym_geometry(m, chains).ok()?;
        let mut syms: SymEnv = cx
            .static_env
            .values
            .iter()
            .map(|(n, &v)| (n.clone(), v))
            .collect();
        for (n, &v) in &cx.env.values {
            syms.insert(n.clone(), v);
        }
        for (&e, b) in &cx.res.bindings {
            if let (Binding::SymDim { .. }, Expr::Name(n)) = (b, &m.exprs[e]) {
                syms.entry(n.clone()).or_insert(DIM_SAMPLE);
            }
        }
        let mut thread_vars = HashMap::new();
        for v in &g.thread_vars {
            let Index::Thread {
                inner,
                level,
                stride,
                extent,
            } = &v.index
            else {
                continue;
            };
            let pos = |s: &Sym| s.eval(&syms).ok().filter(|&x| x > 0);
            let inner = pos(inner)?;
            let level = match level {
                Some(l) => Some(pos(l)?),
                None => None,
            };
            let stride = pos(stride)?;
            let extent = match extent {
                Some(x) => Some(pos(x)?),
                None => None,
            };
            let values = (0..threads as i64)
                .map(|tid| {
                    let mut lin = tid / inner;
                    if let Some(l) = level {
                        lin %= l;
                    }
                    let mut f = lin / stride;
                    if let Some(x) = extent {
                        f %= x;
                    }
                    f
                })
                .collect();
            thread_vars.insert(v.binding, values);
        }
        let block_vars = g
            .block_vars
            .iter()
            .map(|v| (v.binding, v.extent.eval(&syms).ok()))
            .collect();
        let mutable = super::super::events::assigned_scalars(cx);
        let mut idle = Vec::new();
        for x in &g.idle_lanes {
            let Stmt::Parallel { body, .. } = &m.stmts[x.stmt] else {
                return None;
            };
            let region = super::super::stmts_within(m, body).into_iter().collect();
            idle.push((region, x.unit.eval(&syms).ok()?, x.size.eval(&syms).ok()?));
        }
        Some(Evaluator {
            cx,
            threads,
            syms,
            thread_vars,
            block_vars,
            mutable,
            budget: Cell::new(BUDGET),
            idle,
        })
    }

    /// `e`'s value for thread `tid` under `env`; `None` where it has none known here.
    fn value(&self, e: ExprId, env: &Env, tid: usize, depth: u32) -> Option<i64> {
        let m = self.cx.m;
        if depth > 32 {
            return None;
        }
        let v = |x: ExprId| self.value(x, env, tid, depth + 1);
        Some(match &m.exprs[e] {
            Expr::Int(i) => *i,
            Expr::Bool(b) => *b as i64,
            Expr::Name(n) => match *self.cx.res.bindings.get(&e)? {
                Binding::Tunable | Binding::Constant | Binding::SymDim { .. } => {
                    *self.syms.get(n)?
                }
                b @ Binding::ParallelVar { .. } => match self.thread_vars.get(&b) {
                    Some(vals) => *vals.get(tid)?,
                    None => lookup(env, b)?,
                },
                b @ Binding::LoopVar { .. } => lookup(env, b)?,
                Binding::Let(s) => match &m.stmts[s] {
                    Stmt::Let { value, .. } => v(*value)?,
                    _ => return None,
                },
                Binding::Scalar(d) if !self.mutable.contains(&d) => match &m.stmts[d] {
                    Stmt::ScalarDecl { init: Some(i), .. } => v(*i)?,
                    _ => return None,
                },
                _ => return None,
            },
            Expr::Unary { op, expr } => {
                let x = v(*expr)?;
                match op {
                    UnaryOp::Neg => x.checked_neg()?,
                    UnaryOp::Not => (x == 0) as i64,
                }
            }
            Expr::Binary { op, lhs, rhs } => {
                let a = v(*lhs)?;
                match op {
                    BinaryOp::And if a == 0 => return Some(0),
                    BinaryOp::Or if a != 0 => return Some(1),
                    BinaryOp::And | BinaryOp::Or => (v(*rhs)? != 0) as i64,
                    _ => op.apply(a, v(*rhs)?).ok()?,
                }
            }
            Expr::Compose { outer, inner } => {
                let ext = self.compose_extent(*inner, env, tid, depth + 1)?;
                v(*outer)?.checked_mul(ext)?.checked_add(v(*inner)?)?
            }
            Expr::Call { func, args } if args.len() == 2 => {
                let (a, b) = (v(args[0])?, v(args[1])?);
                match func.name.as_str() {
                    "min" => a.min(b),
                    "max" => a.max(b),
                    "cdiv" if b != 0 => {
                        let q = a.checked_div(b)?;
                        if a % b != 0 && ((a < 0) == (b < 0)) {
                            q + 1
                        } else {
                            q
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// The extent of the right side of `#`.
    fn compose_extent(&self, e: ExprId, env: &Env, tid: usize, depth: u32) -> Option<i64> {
        let m = self.cx.m;
        match &m.exprs[e] {
            Expr::Name(_) => {
                let x = super::super::var_extent_in(m, &self.cx.res.bindings, e)?;
                self.value(x, env, tid, depth + 1)
            }
            Expr::Compose { outer, inner } => self
                .compose_extent(*outer, env, tid, depth + 1)?
                .checked_mul(self.compose_extent(*inner, env, tid, depth + 1)?),
            _ => None,
        }
    }

    /// What access `a` touches, thread by thread; `None` when a guard or index has no value.
    fn touch(&self, a: &Access, env: &Env) -> Option<Touch> {
        let v = &a.view;
        if v.origin.len() > MAX_RANK || v.tile.len() != v.origin.len() {
            return None;
        }
        let tile: Vec<i64> = v
            .tile
            .iter()
            .map(|t| t.eval(&self.syms).ok().filter(|&x| x >= 0))
            .collect::<Option<_>>()?;
        let strides: Vec<Vec<i64>> = v
            .origin
            .iter()
            .map(|terms| {
                terms
                    .iter()
                    .map(|t| t.stride.eval(&self.syms).ok())
                    .collect::<Option<_>>()
            })
            .collect::<Option<_>>()?;
        let per_thread = tile
            .iter()
            .try_fold(1usize, |acc, &t| acc.checked_mul(t as usize))?;
        self.spend(self.threads * (1 + a.conds.len() + v.origin.len()))?;
        // Each running thread's first element, in thread order.
        let mut starts: Vec<(u32, Key)> = Vec::new();
        for tid in 0..self.threads {
            let mut runs = self
                .idle
                .iter()
                .all(|(region, unit, size)| !region.contains(&a.stmt) || tid as i64 % unit < *size);
            for &(c, holds) in &a.conds {
                if !runs {
                    break;
                }
                if (self.value(c, env, tid, 0)? != 0) != holds {
                    runs = false;
                    break;
                }
            }
            if !runs {
                continue;
            }
            let mut first: Key = [0; MAX_RANK + 1];
            if let Some(i) = v.array_index {
                first[0] = self.value(i, env, tid, 0)?;
            }
            for (d, (terms, strides)) in v.origin.iter().zip(&strides).enumerate() {
                for (term, &s) in terms.iter().zip(strides) {
                    let x = self.value(term.index, env, tid, 0)?.checked_mul(s)?;
                    first[d + 1] = first[d + 1].checked_add(x)?;
                }
            }
            starts.push((tid as u32, first));
        }
        // A collective access: the threads that share a tile store (or load) it together.
        let groups: Vec<(Vec<u32>, Key)> = if a.collective.is_some() {
            let mut by_tile: Vec<(Vec<u32>, Key)> = Vec::new();
            for (tid, first) in starts {
                match by_tile.iter_mut().find(|(_, f)| *f == first) {
                    Some((ts, _)) => ts.push(tid),
                    None => by_tile.push((vec![tid], first)),
                }
            }
            by_tile
        } else {
            starts.into_iter().map(|(t, f)| (vec![t], f)).collect()
        };
        let total = per_thread.checked_mul(groups.len())?;
        if total > MAX_ELEMS {
            return None;
        }
        self.spend(total)?;
        let mut t = Touch {
            items: Vec::with_capacity(groups.len()),
            elems: Vec::with_capacity(total),
            owners: HashMap::new(),
        };
        for (ts, first) in groups {
            let start = t.elems.len();
            // Every element of the box [first, first + tile), the last dimension fastest.
            for k in 0..per_thread {
                let mut e = first;
                let mut rest = k as i64;
                for d in (0..tile.len()).rev() {
                    e[d + 1] = e[d + 1].checked_add(rest % tile[d])?;
                    rest /= tile[d];
                }
                let owners = t.owners.entry(e).or_default();
                if owners.is_empty() {
                    owners.extend_from_slice(&ts);
                } else {
                    owners.extend(
                        ts.iter()
                            .filter(|&&t| !owners.contains(&t))
                            .collect::<Vec<_>>(),
                    );
                }
                t.elems.push(e);
            }
            t.items.push((ts, start..t.elems.len()));
        }
        for ts in t.owners.values_mut() {
            ts.sort_unstable();
        }
        Some(t)
    }

    /// Loop `l`'s variables as (first value, count) each, and its number of iterations;
    /// `None` when a bound has no value the whole block shares.
    fn loop_ranges(&self, l: StmtId) -> Option<(Vec<(i64, i64)>, i64)> {
        let m = self.cx.m;
        let Stmt::Foreach { vars, extents, .. } = &m.stmts[l] else {
            return None;
        };
        // No thread: a bound that differs between threads has no value here.
        let uniform = |e: ExprId| self.value(e, &Vec::new(), usize::MAX, 0);
        let mut ranges = Vec::new();
        for (i, &e) in extents.iter().enumerate().take(vars.len()) {
            let (lo, hi) = match m.loop_range(l, i) {
                Some(r) => (uniform(r.start)?, uniform(r.end)?),
                None => (0, uniform(e)?),
            };
            ranges.push((lo, hi.checked_sub(lo)?.max(0)));
        }
        let count = ranges
            .iter()
            .try_fold(1i64, |acc, &(_, n)| acc.checked_mul(n))?;
        Some((ranges, count))
    }

    /// The assignment of loop `l`'s variables in its iteration `f` (row-major).
    fn decode(l: StmtId, ranges: &[(i64, i64)], f: i64) -> Env {
        let mut env = Vec::new();
        let mut rest = f;
        for (i, &(lo, n)) in ranges.iter().enumerate().rev() {
            env.push((Binding::LoopVar { stmt: l, index: i }, lo + rest % n));
            rest /= n;
        }
        env
    }

    /// A few iterations of loop `l` (all of them when it runs at most 8 times) as
    /// (iteration, assignment), with the next iteration's assignment where there is one.
    fn iterations(&self, l: StmtId) -> Option<Vec<(Env, Option<Env>)>> {
        let (ranges, count) = self.loop_ranges(l)?;
        let picks: Vec<i64> = if count <= 8 {
            (0..count).collect()
        } else {
            let mut p = vec![0, 1, 2, count / 2, count - 2, count - 1];
            p.dedup();
            p
        };
        Some(
            picks
                .into_iter()
                .map(|f| {
                    let next = (f + 1 < count).then(|| Self::decode(l, &ranges, f + 1));
                    (Self::decode(l, &ranges, f), next)
                })
                .collect(),
        )
    }

    /// The assignments to try for accesses `a` (earlier) and `b` (later): block variables
    /// shared, the loops around both shared — but the loop `carried` (b runs in the next
    /// iteration) and the loops inside it, which each access iterates on its own.
    fn choices(&self, a: &Access, b: &Access, carried: Option<StmtId>) -> Option<Vec<Choice>> {
        let mut slots: Vec<Vec<Choice>> = Vec::new();
        let mut blocks: Vec<Choice> = Vec::new();
        for k in 0..2 {
            if k == 1
                && !self
                    .block_vars
                    .iter()
                    .any(|(_, e)| e.is_some_and(|e| e > 1))
            {
                break;
            }
            let env: Env = self
                .block_vars
                .iter()
                .map(|(b, e)| (*b, if e.is_some_and(|e| e > k) { k } else { 0 }))
                .collect();
            blocks.push((env.clone(), env));
        }
        slots.push(blocks);
        let common: Vec<StmtId> = a
            .loops
            .iter()
            .zip(&b.loops)
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| *x)
            .collect();
        let carried = carried.filter(|c| common.contains(c));
        let mut tied = true;
        for &l in &common {
            let its = self.iterations(l)?;
            if Some(l) == carried {
                tied = false;
                slots.push(
                    its.into_iter()
                        .filter_map(|(e, next)| Some((e, next?)))
                        .collect(),
                );
            } else if tied {
                slots.push(its.into_iter().map(|(e, _)| (e.clone(), e)).collect());
            } else {
                slots.push(its.iter().map(|(e, _)| (e.clone(), Vec::new())).collect());
                slots.push(its.into_iter().map(|(e, _)| (Vec::new(), e)).collect());
            }
        }
        for &l in &a.loops[common.len()..] {
            let its = self.iterations(l)?;
            slots.push(its.into_iter().map(|(e, _)| (e, Vec::new())).collect());
        }
        for &l in &b.loops[common.len()..] {
            let its = self.iterations(l)?;
            slots.push(its.into_iter().map(|(e, _)| (Vec::new(), e)).collect());
        }
        if slots.iter().any(Vec::is_empty) {
            return Some(Vec::new());
        }
        // The first MAX_COMBOS of the product, the first slot varying fastest.
        let total = slots
            .iter()
            .try_fold(1usize, |acc, s| acc.checked_mul(s.len()))
            .unwrap_or(usize::MAX);
        let mut out = Vec::new();
        for mut k in 0..total.min(MAX_COMBOS) {
            let (mut ea, mut eb) = (Vec::new(), Vec::new());
            for s in &slots {
                let (x, y) = &s[k % s.len()];
                k /= s.len();
                ea.extend(x.iter().copied());
                eb.extend(y.iter().copied());
            }
            out.push((ea, eb));
        }
        Some(out)
    }

    /// Two different threads touching one element, `a` before `b` with nothing ordering them.
    pub(super) fn witness(
        &self,
        list: &[Access],
        first: usize,
        second: usize,
        carried: Option<StmtId>,
        apart: u32,
        cache: &mut HashMap<(usize, Env), Option<Rc<Touch>>>,
    ) -> Option<Witness> {
        let (a, b) = (&list[first], &list[second]);
        let mut touch = |i: usize, env: &Env| -> Option<Rc<Touch>> {
            cache
                .entry((i, env.clone()))
                .or_insert_with(|| self.touch(&list[i], env).map(Rc::new))
                .clone()
        };
        for (ea, eb) in self.choices(a, b, carried)? {
            let (Some(ta), Some(tb)) = (touch(first, &ea), touch(second, &eb)) else {
                continue;
            };
            // A thread that stored the element itself reads its own store or a later one of
            // that statement (all threads storing it is W1202's business). An `mma.load`'s
            // element is read by one unknown thread of its group: a race unless each of them
            // stored it itself; an `mma.store`'s is written by one unknown thread: never known
            // to be the reader's own.
            let own_store = a.write && !b.write && a.collective.is_none();
            for (threads, range) in &tb.items {
                self.spend(range.len())?;
                for x in &tb.elems[range.clone()] {
                    let Some(ts) = ta.owners.get(x) else {
                        continue;
                    };
                    // A reader of `threads` that did not store the element itself (`ts` is
                    // sorted), else any reader and another thread's store; after a barrier of
                    // groups of `apart` threads, a pair from two different groups.
                    let pair = if apart > 0 {
                        let group = |t: u32| t / apart;
                        // The first and last of `ts` span its groups: one of them lies in a
                        // group other than `b`'s unless all of `ts` lie in `b`'s.
                        let other = |b: u32| {
                            [ts[0], ts[ts.len() - 1]]
                                .into_iter()
                                .find(|&a| group(a) != group(b))
                        };
                        threads
                            .iter()
                            .filter(|t| !own_store || ts.binary_search(t).is_err())
                            .find_map(|&b| other(b).map(|a| (a, b)))
                    } else if own_store {
                        threads
                            .iter()
                            .find(|t| ts.binary_search(t).is_err())
                            .map(|&b| (ts[0], b))
                    } else {
                        let b = threads[0];
                        ts.iter()
                            .find(|&&t| t != b)
                            .map(|&a| (a, b))
                            .or_else(|| threads.get(1).map(|&b| (ts[0], b)))
                    };
                    if let Some((tid_a, tid_b)) = pair {
                        return Some(Witness {
                            tid_a: tid_a as usize,
                            tid_b: tid_b as usize,
                            element: x[..=a.view.origin.len()].to_vec(),
                        });
                    }
                }
            }
        }
        None
    }

    /// Takes `n` units of the kernel's work budget; `None` once it is spent.
    fn spend(&self, n: usize) -> Option<()> {
        let left = self.budget.get().checked_sub(n)?;
        self.budget.set(left);
        Some(())
    }

    /// `t = 5` (the thread's parallel variables at `s`), or `threadIdx.x = 5`.
    pub(super) fn thread_name(&self, s: StmtId, tid: usize) -> String {
        let cx = self.cx;
        let mut parts = Vec::new();
        for l in cx.res.chains.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(pl) = cx.level(*l) else { continue };
            if pl.level == Level::Block {
                continue;
            }
            for (j, v) in pl.vars.iter().enumerate() {
                let b = Binding::ParallelVar {
                    stmt: l.stmt,
                    level: l.level,
                    index: j,
                };
                if let Some(x) = self.thread_vars.get(&b).and_then(|vals| vals.get(tid)) {
                    parts.push(format!("{} = {x}", v.name));
                }
            }
        }
        if parts.is_empty() {
            format!("threadIdx.x = {tid}")
        } else {
            parts.join(", ")
        }
    }
}

fn lookup(env: &Env, b: Binding) -> Option<i64> {
    env.iter().find(|(x, _)| *x == b).map(|(_, v)| *v)
}
