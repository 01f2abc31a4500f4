//! Pass `roles`: warp specialization and event arrival counts.
//!
//! - An `inthreads` branch whose condition pins the `group-4` variable to warpgroup 0 is the
//!   *producer*; branches that need warpgroup ≥ 1 are *consumers*. When both exist, the body
//!   pass wraps each in a warpgroup-uniform `if` that rebalances registers with `setmaxnreg`.
//! - Each event's arrival count is the number of threads that reach its first `trigger`: the
//!   conjunction of the enclosing `inthreads` conditions, counted at C++ compile time.

use super::cxx::{CExpr, COp};
use crate::check::Geometry;
use crate::ir::{BinaryOp, Expr, ExprId, Level, Module, Stmt, StmtId};
use std::collections::HashMap;

/// Warp-specialization role of an `inthreads` branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Producer,
    Consumer,
}

pub fn warp_roles(
    m: &Module,
    info: &crate::check::KernelInfo,
    geo: &Geometry,
) -> HashMap<StmtId, (Role, CExpr)> {
    let mut out = HashMap::new();
    let Some(wg) = geo.thread_vars.iter().find(|v| v.level == Level::Group4) else {
        return out;
    };
    let mut branches = Vec::new();
    collect_inthreads(m, &m.kernel.body, &mut branches);
    for s in branches {
        let Stmt::InThreads { cond, .. } = &m.stmts[s] else {
            continue;
        };
        let is_wg = |e: ExprId| info.bindings.get(&e) == Some(&wg.binding);
        let (lo, hi) = wg_range(m, *cond, &is_wg);
        if lo == Some(0) && hi == Some(0) {
            let pred = CExpr::var(&wg.name).eq(CExpr::int(0));
            out.insert(s, (Role::Producer, pred));
        } else if let Some(l) = lo.filter(|&l| l >= 1) {
            let pred = CExpr::var(&wg.name).bin(COp::Ge, CExpr::int(l));
            out.insert(s, (Role::Consumer, pred));
        }
    }
    let producers = out.values().filter(|r| r.0 == Role::Producer).count();
    let consumers = out.values().filter(|r| r.0 == Role::Consumer).count();
    if producers != 1 || consumers == 0 {
        out.clear();
    }
    out
}

fn collect_inthreads(m: &Module, b: &[StmtId], out: &mut Vec<StmtId>) {
    for &s in b {
        match &m.stmts[s] {
            Stmt::InThreads { .. } => out.push(s),
            Stmt::Parallel { body, .. } | Stmt::Foreach { body, .. } => {
                collect_inthreads(m, body, out)
            }
            _ => {}
        }
    }
}

/// Inclusive bounds the condition puts on the variable `is_var` recognizes (conjunctions of
/// comparisons with literals).
fn wg_range(
    m: &Module,
    cond: ExprId,
    is_var: &dyn Fn(ExprId) -> bool,
) -> (Option<i64>, Option<i64>) {
    match &m.exprs[cond] {
        Expr::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
        } => {
            let (a, b) = wg_range(m, *lhs, is_var);
            let (c, d) = wg_range(m, *rhs, is_var);
            (
                a.max(c),
                match (b, d) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                },
            )
        }
        Expr::Binary { op, lhs, rhs } => {
            let (Expr::Name(_), Expr::Int(c)) = (&m.exprs[*lhs], &m.exprs[*rhs]) else {
                return (None, None);
            };
            if !is_var(*lhs) {
                return (None, None);
            }
            match op {
                BinaryOp::Eq => (Some(*c), Some(*c)),
                BinaryOp::Ge => (Some(*c), None),
                BinaryOp::Gt => (Some(c + 1), None),
                BinaryOp::Lt => (None, Some(c - 1)),
                BinaryOp::Le => (None, Some(*c)),
                _ => (None, None),
            }
        }
        _ => (None, None),
    }
}

/// The checker's binding of the event a `wait` or `trigger` operand names: the operand
/// itself, or the base of `e[k]` / `e.at(k)`.
pub fn event_binding(
    m: &Module,
    info: &crate::check::KernelInfo,
    event: crate::ir::ExprId,
) -> Option<crate::check::Binding> {
    let root = match &m.exprs[event] {
        crate::ir::Expr::Index { base, .. } | crate::ir::Expr::View { base, .. } => *base,
        _ => event,
    };
    info.bindings.get(&root).copied()
}

/// The `parallel` levels around `target` (statement, index of the level), outermost first.
pub fn enclosing_levels(m: &Module, target: StmtId) -> Vec<(StmtId, usize)> {
    fn go(m: &Module, b: &[StmtId], target: StmtId, path: &mut Vec<(StmtId, usize)>) -> bool {
        for &s in b {
            if s == target {
                return true;
            }
            let n = path.len();
            if let Stmt::Parallel { levels, .. } = &m.stmts[s] {
                path.extend((0..levels.len()).map(|i| (s, i)));
            }
            let bodies = crate::check::stmt_blocks(&m.stmts[s]);
            if bodies.into_iter().any(|b| go(m, b, target, path)) {
                return true;
            }
            path.truncate(n);
        }
        false
    }
    let mut path = Vec::new();
    go(m, &m.kernel.body, target, &mut path);
    path
}

/// What [`arrivals`] gives an event: the C++ predicate of the threads that reach its first
/// `trigger`, that trigger (whose enclosing levels declare the predicate's thread variables),
/// and the named values the predicate reads (`pred = p >= 32;` before `inthreads (pred)`), in
/// order, each as its C++ value.
pub type Arrival = (CExpr, StmtId, Vec<(String, CExpr)>);

/// Event (the checker's binding of its declarator) → its [`Arrival`]: the enclosing `inthreads`
/// conditions, rendered as C++ over the thread variables (whose extents give `#` its stride)
/// and the `let`s and never-assigned scalars they name. An `if` around a `trigger` does not enter it: the checker admits only
/// conditions with one value per block there (`check/lowerable.rs`, E1112), under which the
/// same threads reach the trigger or none do.
pub fn arrivals(
    m: &Module,
    info: &crate::check::KernelInfo,
    geo: &Geometry,
) -> Result<HashMap<crate::check::Binding, Arrival>, super::error::LowerError> {
    let mut scopes = super::scope::Scopes::default();
    for v in geo.block_vars.iter().chain(&geo.thread_vars) {
        scopes.declare(v.binding, super::scope::Local::ParVar);
    }
    let cx = super::cexpr::ExprCx {
        m,
        info,
        scopes: &scopes,
    };
    let mut out = HashMap::new();
    let mut conds = Vec::new();
    walk(&cx, &m.kernel.body, &mut conds, &mut out)?;
    Ok(out)
}

/// The `let`s and never-assigned scalars `e` names (through each other, dependencies first),
/// with their C++ values: the names an arrival predicate must declare to be evaluated for any
/// thread.
fn named_values(
    cx: &super::cexpr::ExprCx,
    e: ExprId,
    out: &mut Vec<(String, CExpr)>,
    depth: u32,
) -> Result<(), super::error::LowerError> {
    use crate::check::Binding;
    let m = cx.m;
    let assigned = crate::check::scalars_assigned(m, &cx.info.bindings, &cx.info.idents);
    let mut found: Vec<(String, ExprId)> = Vec::new();
    crate::check::walk_expr(m, e, &mut |x| {
        let Expr::Name(n) = &m.exprs[x] else { return };
        let value = match cx.info.bindings.get(&x) {
            Some(Binding::Let(d)) => match &m.stmts[*d] {
                Stmt::Let { value, .. } => Some(*value),
                _ => None,
            },
            Some(&Binding::Scalar(d)) if !assigned.contains(&d) => match &m.stmts[d] {
                Stmt::ScalarDecl { init: Some(v), .. } => Some(*v),
                _ => None,
            },
            _ => None,
        };
        if let Some(v) = value {
            found.push((n.clone(), v));
        }
    });
    for (n, v) in found {
        if depth < 16 && !out.iter().any(|(o, _)| *o == n) {
            named_values(cx, v, out, depth + 1)?;
            out.push((n, cx.value(v)?.0));
        }
    }
    Ok(())
}

fn walk(
    cx: &super::cexpr::ExprCx,
    b: &[StmtId],
    conds: &mut Vec<(CExpr, ExprId)>,
    out: &mut HashMap<crate::check::Binding, Arrival>,
) -> Result<(), super::error::LowerError> {
    let m = cx.m;
    for &s in b {
        match &m.stmts[s] {
            Stmt::InThreads { cond, body, .. } => {
                conds.push((cx.value(*cond)?.0.paren(), *cond));
                walk(cx, body, conds, out)?;
                conds.pop();
            }
            Stmt::Parallel { body, .. } | Stmt::Foreach { body, .. } => walk(cx, body, conds, out)?,
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                walk(cx, then_body, conds, out)?;
                if let Some(e) = else_body {
                    walk(cx, e, conds, out)?;
                }
            }
            Stmt::Trigger { event, .. }
            | Stmt::Ext(crate::ir::ExtStmt::TriggerAfter { event, .. }) => {
                let Some(binding) = event_binding(m, cx.info, *event) else {
                    continue;
                };
                if out.contains_key(&binding) {
                    continue;
                }
                let mut named = Vec::new();
                for (_, c) in conds.iter() {
                    named_values(cx, *c, &mut named, 0)?;
                }
                let pred = CExpr::join(COp::And, conds.iter().map(|(c, _)| c.clone()))
                    .unwrap_or(CExpr::Lit("true"));
                out.insert(binding, (pred, s, named));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A cyclic event generation `e.at(k)` of `shared event e[N]` (`N` = 1 for a single event):
/// the barrier `e[k % N]`, and the parity of the phase generation `k` completes,
/// `(k / N) % 2` — the language's meaning of `.at`, so a wait needs no per-thread phase state.
pub struct Generation {
    pub array: String,
    pub slot: CExpr,
    pub parity: CExpr,
}

pub fn generation(
    cx: &super::cexpr::ExprCx,
    ev: ExprId,
) -> Result<Option<Generation>, super::error::LowerError> {
    let m = cx.m;
    let Expr::View {
        base,
        op: crate::ir::ViewOp::At,
        args,
    } = &m.exprs[ev]
    else {
        return Ok(None);
    };
    let (Expr::Name(n), [k]) = (&m.exprs[*base], args.as_slice()) else {
        return Err(super::error::LowerError::new(
            m.expr_span(ev),
            "an event generation is `e.at(k)` with one index",
        ));
    };
    let len = match cx.local(*base) {
        Some(super::scope::Local::Event { count: Some(c) }) => c.clone(),
        _ => crate::sym::Sym::Int(1),
    };
    let k = cx.value(*k)?.0.wrap();
    let one = || CExpr::int(1);
    let (slot, parity) = match len {
        crate::sym::Sym::Int(1) => (CExpr::int(0), k.bin(COp::BitAnd, one())),
        l => {
            let l = CExpr::sym_operand(&l);
            let parity = k.clone().div(l.clone()).paren().bin(COp::BitAnd, one());
            (k.rem(l), parity)
        }
    };
    Ok(Some(Generation {
        array: n.clone(),
        slot,
        parity,
    }))
}

/// Whether statement `s` is inside an `if` (then or else branch).
pub fn under_if(m: &Module, s: StmtId) -> bool {
    fn go(m: &Module, b: &[StmtId], s: StmtId, in_if: bool) -> Option<bool> {
        for &x in b {
            if x == s {
                return Some(in_if);
            }
            let inner = in_if || matches!(m.stmts[x], Stmt::If { .. });
            for blk in crate::check::stmt_blocks(&m.stmts[x]) {
                if let Some(r) = go(m, blk, s, inner) {
                    return Some(r);
                }
            }
        }
        None
    }
    go(m, &m.kernel.body, s, false).unwrap_or(false)
}

/// `pingpong;`: the consumer branch — the one `inthreads` branch that needs warpgroup ≥ 1 — and
/// the first warpgroup it runs on (the checker, `check/schedule.rs`, admits only a branch whose
/// condition is `wg >= L`, so it runs on whole warpgroups `L…`).
pub fn pingpong_branch(
    m: &Module,
    info: &crate::check::KernelInfo,
    geo: &Geometry,
) -> Option<(StmtId, i64)> {
    m.pingpong?;
    let wg = geo.thread_vars.iter().find(|v| v.level == Level::Group4)?;
    let mut branches = Vec::new();
    collect_inthreads(m, &m.kernel.body, &mut branches);
    let is_wg = |e: ExprId| info.bindings.get(&e) == Some(&wg.binding);
    let consumers: Vec<(StmtId, i64)> = branches
        .into_iter()
        .filter_map(|s| {
            let Stmt::InThreads { cond, .. } = &m.stmts[s] else {
                return None;
            };
            match wg_range(m, *cond, &is_wg) {
                (Some(lo), None) if lo >= 1 => Some((s, lo)),
                _ => None,
            }
        })
        .collect();
    match consumers.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}
