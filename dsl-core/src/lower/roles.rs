//! Pass `roles`: warp specialization and event arrival counts.
//!
//! - An `inthreads` branch whose condition pins the `group-4` variable to warpgroup 0 is the
//!   *producer*; branches that need warpgroup ≥ 1 are *consumers*. When both exist, the body
//!   pass wraps each in a warpgroup-uniform `if` that rebalances registers with `setmaxnreg`.
//! - Each event's arrival count is the number of threads that reach its first `trigger`: the
//!   conjunction of the enclosing `inthreads` conditions, counted at C++ compile time.

use super::geometry::Geometry;
use crate::ir::{BinaryOp, Expr, ExprId, Level, Module, Stmt, StmtId};
use std::collections::HashMap;

/// Warp-specialization role of an `inthreads` branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Producer,
    Consumer,
}

pub fn warp_roles(m: &Module, geo: &Geometry) -> HashMap<StmtId, (Role, String)> {
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
        let (lo, hi) = wg_range(m, *cond, &wg.name);
        if lo == Some(0) && hi == Some(0) {
            out.insert(s, (Role::Producer, format!("{} == 0", wg.name)));
        } else if let Some(l) = lo.filter(|&l| l >= 1) {
            out.insert(s, (Role::Consumer, format!("{} >= {l}", wg.name)));
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

/// Inclusive bounds the condition puts on `var` (conjunctions of comparisons with literals).
fn wg_range(m: &Module, cond: ExprId, var: &str) -> (Option<i64>, Option<i64>) {
    match &m.exprs[cond] {
        Expr::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
        } => {
            let (a, b) = wg_range(m, *lhs, var);
            let (c, d) = wg_range(m, *rhs, var);
            (
                a.max(c),
                match (b, d) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                },
            )
        }
        Expr::Binary { op, lhs, rhs } => {
            let (Expr::Name(n), Expr::Int(c)) = (&m.exprs[*lhs], &m.exprs[*rhs]) else {
                return (None, None);
            };
            if n != var {
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

/// Event name → C++ predicate of the threads that reach its first `trigger`: the enclosing
/// `inthreads` conditions. An `if` around a `trigger` does not enter it: the checker admits
/// only conditions with one value per block there (`check/lowerable.rs`, E1112), under which
/// the same threads reach the trigger or none do.
pub fn arrivals(m: &Module) -> Result<HashMap<String, String>, super::error::LowerError> {
    let mut out = HashMap::new();
    let mut conds = Vec::new();
    walk(m, &m.kernel.body, &mut conds, &mut out);
    Ok(out)
}

fn walk(m: &Module, b: &[StmtId], conds: &mut Vec<String>, out: &mut HashMap<String, String>) {
    for &s in b {
        match &m.stmts[s] {
            Stmt::InThreads { cond, body, .. } => {
                conds.push(format!("({})", m.expr_to_string(*cond).replace(" # ", "#")));
                walk(m, body, conds, out);
                conds.pop();
            }
            Stmt::Parallel { body, .. } | Stmt::Foreach { body, .. } => walk(m, body, conds, out),
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                walk(m, then_body, conds, out);
                if let Some(e) = else_body {
                    walk(m, e, conds, out);
                }
            }
            Stmt::Trigger { event, .. }
            | Stmt::Ext(crate::ir::ExtStmt::TriggerAfter { event, .. }) => {
                let Some(name) = crate::check::events::event_root(m, *event) else {
                    continue;
                };
                out.entry(name.to_string()).or_insert_with(|| {
                    if conds.is_empty() {
                        "true".to_string()
                    } else {
                        conds.join(" && ")
                    }
                });
            }
            _ => {}
        }
    }
}

/// The swizzle expression of every `tma.copy` and `mma.load`: its own `.swiz<…>`, else the one
/// stated on the other side of the same shared tensor (the checker verified they agree), else 0.
pub fn swizzles(m: &Module) -> HashMap<StmtId, super::sym::Sym> {
    use super::sym::Sym;
    let mut stated: HashMap<String, Sym> = HashMap::new();
    let mut sites: Vec<(StmtId, String, Option<ExprId>)> = Vec::new();
    for (s, st) in m.stmts.iter() {
        let (swz, view) = match st {
            Stmt::TmaCopy {
                swizzle, src, dst, ..
            } => {
                let shared = match dst {
                    crate::ir::CopyDst::Expr(d)
                        if root_name(m, *src).is_some_and(|n| is_param(m, &n)) =>
                    {
                        *d
                    }
                    _ => *src,
                };
                (*swizzle, shared)
            }
            Stmt::MmaLoad { swizzle, src, .. } => (*swizzle, *src),
            // `f = tma.copy.swiz<N> … => shared;`: the fresh buffer `f` has the swizzle.
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                tma: true,
                bind: Some(f),
                modifiers,
                dst: crate::ir::CopyDst::Fresh(crate::ir::MemSpace::Shared),
                ..
            }) => {
                let swz = modifiers
                    .iter()
                    .find(|(n, _)| n.name == "swiz")
                    .and_then(|(_, a)| a.first().copied());
                if let Some(z) = swz.and_then(|z| Sym::from_expr(m, z)) {
                    stated.entry(f.name.clone()).or_insert(z);
                }
                sites.push((s, f.name.clone(), swz));
                continue;
            }
            _ => continue,
        };
        let Some(root) = root_name(m, view) else {
            continue;
        };
        if let Some(z) = swz.and_then(|z| Sym::from_expr(m, z)) {
            stated.entry(root.clone()).or_insert(z);
        }
        sites.push((s, root, swz));
    }
    sites
        .into_iter()
        .map(|(s, root, own)| {
            let z = own
                .and_then(|z| Sym::from_expr(m, z))
                .or_else(|| stated.get(&root).cloned())
                .unwrap_or(Sym::Int(0));
            (s, z)
        })
        .collect()
}

fn is_param(m: &Module, n: &str) -> bool {
    m.param(n).is_some()
}

/// The tensor a view starts from.
fn root_name(m: &Module, e: ExprId) -> Option<String> {
    match &m.exprs[e] {
        Expr::Name(n) => Some(n.clone()),
        Expr::Index { base, .. } | Expr::View { base, .. } | Expr::Field { base, .. } => {
            root_name(m, *base)
        }
        _ => None,
    }
}

/// A cyclic event generation `e.at(k)` of `shared event e[N]` (`N` = 1 for a single event):
/// the barrier `e[k % N]`, and the parity of the phase generation `k` completes,
/// `(k / N) % 2` — the language's meaning of `.at`, so a wait needs no per-thread phase state.
pub struct Generation {
    pub array: String,
    pub slot: String,
    pub parity: String,
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
    let len = match cx.scopes.get(n) {
        Some(super::scope::Local::Event { count: Some(c) }) => c.clone(),
        _ => super::sym::Sym::Int(1),
    };
    let (k, _) = cx.value(*k)?;
    let k = if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        k
    } else {
        format!("({k})")
    };
    let (slot, parity) = match len {
        super::sym::Sym::Int(1) => ("0".to_string(), format!("{k} & 1")),
        l => {
            let l = super::cexpr::cpp_paren(&l);
            (format!("{k} % {l}"), format!("({k} / {l}) & 1"))
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
