//! `pingpong;`: the ping-pong schedule (`ir::Module::pingpong`, lowered by
//! `lower/persistent.rs`). The consumer branch's warpgroups take turns on whole tiles, so:
//! the kernel walks its tiles (`persistent`, E1630); it is warp-specialized — a producer
//! branch on warpgroup 0 and ONE consumer branch written `wg >= L` (whole warpgroups `L…`),
//! every other branch on warpgroup 0 (E1631; at most 8 warpgroups in a block leave at most 7 consumers, the named barriers 9–15 of
//! the turns); the consumer branch waits on its events as rings (`wait e[i]`, whose parity
//! bits travel with the turn — not `wait e.at(k)`, whose parity is the user's count, E1632); an
//! event it triggers is triggered nowhere else (one consumer warpgroup makes each phase,
//! E1633); and the shared tile an `mma.store` in it writes is chosen by the warpgroup
//! (`output_s[wg - 1]`): the consumers' epilogues overlap, so one shared tile for all would
//! race (E1634). Under a `: cluster` level the lowering does not handle it yet (E1473); with
//! `cluster C;` the blocks of a cluster walk their tiles in step (their tile counts are equal:
//! tiles and grid are whole clusters), so consumer `c` of each block releases the same stages,
//! each block's `empty` phase collecting one warpgroup's arrivals from every block.

use super::{Binding, Cx, all_stmts, codes, stmt_blocks};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{BinaryOp, Expr, ExprId, Level, Stmt, StmtId};
use std::collections::BTreeSet;

/// The `group-4` variable.
fn group4_var(cx: &Cx) -> Option<Binding> {
    let m = cx.m;
    all_stmts(m).into_iter().find_map(|s| match &m.stmts[s] {
        Stmt::Parallel { levels, .. } => levels.iter().enumerate().find_map(|(li, l)| {
            (l.level == Level::Group4 && l.vars.len() == 1).then_some(Binding::ParallelVar {
                stmt: s,
                level: li,
                index: 0,
            })
        }),
        _ => None,
    })
}

/// `wg >= L` (or `wg > L - 1`) alone: the first warpgroup `L`.
fn consumer_first(cx: &Cx, cond: ExprId, wg: Binding) -> Option<i64> {
    let m = cx.m;
    let Expr::Binary { op, lhs, rhs } = &m.exprs[cond] else {
        return None;
    };
    if cx.res.bindings.get(lhs) != Some(&wg) {
        return None;
    }
    let c = cx.static_value(*rhs)?;
    match op {
        BinaryOp::Ge => Some(c),
        BinaryOp::Gt => Some(c + 1),
        _ => None,
    }
}

/// Whether the condition pins the warpgroup to 0 (`wg == 0`, possibly `&& …`).
fn pins_producer(cx: &Cx, cond: ExprId, wg: Binding) -> bool {
    let m = cx.m;
    match &m.exprs[cond] {
        Expr::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
        } => pins_producer(cx, *lhs, wg) || pins_producer(cx, *rhs, wg),
        Expr::Binary {
            op: BinaryOp::Eq,
            lhs,
            rhs,
        } => cx.res.bindings.get(lhs) == Some(&wg) && cx.static_value(*rhs) == Some(0),
        _ => false,
    }
}

fn nested(m: &crate::ir::Module, b: &[StmtId], out: &mut Vec<StmtId>) {
    for &s in b {
        out.push(s);
        for inner in stmt_blocks(&m.stmts[s]) {
            nested(m, inner, out);
        }
    }
}

pub(crate) fn check_pingpong(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let Some(span) = m.pingpong else { return };
    if m.persistent.is_none() {
        diags.push(
            Diagnostic::new(
                codes::PINGPONG_PERSISTENT,
                span,
                "`pingpong` schedules the tiles a block walks; this kernel is not `persistent`",
            )
            .with_help("add `persistent;` to the header (or drop `pingpong`)"),
        );
        return;
    }
    let split_help = "write a producer `inthreads.async (wg == 0 && t == 0) { … }` and one consumer `inthreads.async (wg >= 1) { … }` under `parallel wg by N : group-4, t by 128 : thread`";
    let Some(wg) = group4_var(cx) else {
        diags.push(
            Diagnostic::new(
                codes::PINGPONG_ROLES,
                span,
                "`pingpong` takes turns between consumer warpgroups; this kernel has no `: group-4` level of one variable",
            )
            .with_help(split_help),
        );
        return;
    };
    let branches: Vec<StmtId> = all_stmts(m)
        .into_iter()
        .filter(|&s| matches!(m.stmts[s], Stmt::InThreads { .. }))
        .collect();
    let cond = |s: StmtId| match &m.stmts[s] {
        Stmt::InThreads { cond, .. } => *cond,
        _ => unreachable!(),
    };
    let producers = branches
        .iter()
        .filter(|&&s| pins_producer(cx, cond(s), wg))
        .count();
    let consumers: Vec<(StmtId, i64)> = branches
        .iter()
        .filter_map(|&s| consumer_first(cx, cond(s), wg).map(|l| (s, l)))
        .collect();
    let branch = match (producers, consumers.as_slice()) {
        (1, [(b, l)]) if *l >= 1 => *b,
        _ => {
            diags.push(
                Diagnostic::new(
                    codes::PINGPONG_ROLES,
                    span,
                    format!(
                        "`pingpong` needs one producer branch on warpgroup 0 and one consumer branch written `wg >= L`; this kernel has {producers} producer and {} consumer branch(es)",
                        consumers.len()
                    ),
                )
                .with_help(split_help),
            );
            return;
        }
    };
    let mut inside = Vec::new();
    nested(m, &[branch], &mut inside);
    // Any other branch outside the consumers' runs on warpgroup 0 (the producer's): a branch
    // on a consumer warpgroup would run cooperatively beside tiles that warpgroup takes alone.
    for &s in &branches {
        if s != branch && !inside.contains(&s) && !pins_producer(cx, cond(s), wg) {
            diags.push(
                Diagnostic::new(
                    codes::PINGPONG_ROLES,
                    m.expr_span(cond(s)),
                    "under `pingpong` the consumer warpgroups run only their branch; this branch may run on one of them",
                )
                .with_help("pin it to the producer's warpgroup (`wg == 0 && …`), or move its work into the consumer branch"),
            );
        }
    }
    per_consumer_stores(cx, wg, &inside, diags);
    let inside_set: BTreeSet<StmtId> = inside.iter().copied().collect();
    let mut triggered = BTreeSet::new();
    for &s in &inside {
        match &m.stmts[s] {
            Stmt::Wait { event } if matches!(m.exprs[*event], Expr::View { .. }) => {
                diags.push(
                    Diagnostic::new(
                        codes::PINGPONG_GENERATION,
                        m.expr_span(*event),
                        "under `pingpong` a consumer waits on the ring's phases the tiles before it left; an event generation `e.at(k)` counts phases itself",
                    )
                    .with_help("wait on the ring's barrier instead: `wait e[k % N];`"),
                );
            }
            Stmt::Trigger { event, .. }
            | Stmt::Ext(crate::ir::ExtStmt::TriggerAfter { event, .. }) => {
                if let Some(r) = super::events::event_ref(m, &cx.res.bindings, *event) {
                    triggered.insert(r);
                }
            }
            _ => {}
        }
    }
    for s in all_stmts(m) {
        if inside_set.contains(&s) {
            continue;
        }
        let (Stmt::Trigger { event, .. }
        | Stmt::Ext(crate::ir::ExtStmt::TriggerAfter { event, .. })) = &m.stmts[s]
        else {
            continue;
        };
        let Some(ev) = super::events::event_ref(m, &cx.res.bindings, *event) else {
            continue;
        };
        if triggered.contains(&ev) {
            let r = &ev.name;
            diags.push(
                Diagnostic::new(
                    codes::PINGPONG_TRIGGER,
                    m.stmt_span(s),
                    format!("`{r}` is triggered by the `pingpong` consumers and here too: one consumer warpgroup makes each of its phases, so its arrivals cannot also come from other threads"),
                )
                .with_help("give the other side an event of its own"),
            );
        }
    }
}

/// Gate: what the lowering of `pingpong` does not handle yet.
pub(crate) fn gate(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let Some(span) = m.pingpong else { return };
    if m.cluster_level.is_some() {
        diags.push(
            Diagnostic::new(
                codes::NOT_LOWERED_PINGPONG_CLUSTER,
                span,
                "not supported yet: `pingpong` under a `: cluster` level",
            )
            .with_help("write the cluster as the header item `cluster C;` (or drop `pingpong`)"),
        );
    }
}

/// E1634: each `mma.store` into shared memory in the consumer branch names a tile that depends
/// on the warpgroup (directly or through `let`s of the branch).
fn per_consumer_stores(cx: &Cx, wg: Binding, inside: &[StmtId], diags: &mut Diagnostics) {
    let m = cx.m;
    let mut per_wg: Vec<Binding> = vec![wg];
    let depends = |e: ExprId, per_wg: &[Binding]| {
        let mut hit = false;
        super::walk_expr(m, e, &mut |x| {
            hit |= cx.res.bindings.get(&x).is_some_and(|b| per_wg.contains(b));
        });
        hit
    };
    for &s in inside {
        match &m.stmts[s] {
            Stmt::Let { value, .. } if depends(*value, &per_wg) => per_wg.push(Binding::Let(s)),
            Stmt::MmaStore { dst, .. } => {
                let mut root = *dst;
                let mut shared = false;
                super::walk_expr(m, root, &mut |x| {
                    if let Some(Binding::Tensor(d, _)) = cx.res.bindings.get(&x)
                        && matches!(
                            m.stmts[*d],
                            Stmt::TensorDecl {
                                space: crate::ir::MemSpace::Shared,
                                ..
                            }
                        )
                    {
                        shared = true;
                        root = x;
                    }
                });
                if shared && !depends(*dst, &per_wg) {
                    diags.push(
                        Diagnostic::new(
                            codes::PINGPONG_SHARED_STORE,
                            m.expr_span(*dst),
                            format!("under `pingpong` the consumers' epilogues overlap; `{}` is one shared tile for all of them", m.expr_to_string(root)),
                        )
                        .with_help("give each consumer its own tile: `shared … out_s[CONSUMERS];` and `out_s[wg - 1]`"),
                    );
                }
            }
            _ => {}
        }
    }
}
