//! Croqtile's default mapping of `parallel` levels written without `: level`, decided once
//! the whole kernel is parsed (a level's meaning depends on the levels nested below it):
//!
//! - the levels of one nest, outermost first, must descend `block` → `group-4` → `group` →
//!   `thread`; an unannotated level takes a free slot between its annotated neighbours, the
//!   grid and thread slots first, then `group`, then `group-4`;
//! - a run of unannotated levels with an annotated level below it takes its free slots in
//!   that order (`parallel r by 5 parallel s by 7 : thread` → `r` is `block`); a run with
//!   none below ends at `thread` (`parallel x by 3` → `thread`; two levels → `block`,
//!   `thread`; three → `block`, `group`, `thread`; four → every slot);
//! - a nest whose outermost level is not `block` runs in one block: its statement gets a
//!   first level `by 1 : block`.
//!
//! The result is ordinary IR (every level explicit), so the checks and the lowering see no
//! difference from the annotated spelling.

use crate::ir::{Arena, Block, Expr, Level, ParallelLevel, Stmt, StmtId};
use crate::span::Span;

/// Slot of a level in the descending order.
fn rank(l: Level) -> usize {
    match l {
        Level::Block => 0,
        Level::Group4 => 1,
        Level::Group => 2,
        Level::Thread => 3,
    }
}

const SLOTS: [Level; 4] = [Level::Block, Level::Group4, Level::Group, Level::Thread];

/// Which free slots a run of unannotated levels takes first: the grid, the threads, then
/// warps, then warpgroups (three levels are block, group, thread; four fill every slot).
const PRIORITY: [Level; 4] = [Level::Block, Level::Thread, Level::Group, Level::Group4];

/// One entry of a nest: explicit level or unannotated.
type Slot = Option<Level>;

pub(crate) fn resolve(
    stmts: &mut Arena<Stmt>,
    exprs: &mut Arena<Expr>,
    body: &mut Block,
    implicit: &[Span],
) {
    if implicit.is_empty() && !has_unblocked_nest(stmts, body) {
        return;
    }
    let top: Vec<StmtId> = body.clone();
    for s in top {
        assign(stmts, s, &[], implicit);
    }
    // A top-level nest that does not start at `block` runs in one block: prepend the level
    // `by 1 : block` to its statement (the core spelling of the same launch).
    for &s in body.iter() {
        let span = stmts.get_span(s);
        if let Stmt::Parallel { levels, .. } = &mut stmts[s]
            && levels.first().is_some_and(|l| l.level != Level::Block)
        {
            let one = exprs.append(Expr::Int(1), span);
            levels.insert(
                0,
                ParallelLevel {
                    vars: Vec::new(),
                    extents: vec![one],
                    level: Level::Block,
                    level_span: span,
                },
            );
        }
    }
}

fn has_unblocked_nest(stmts: &Arena<Stmt>, body: &Block) -> bool {
    body.iter().any(|&s| match &stmts[s] {
        Stmt::Parallel { levels, .. } => levels.first().is_some_and(|l| l.level != Level::Block),
        _ => false,
    })
}

fn is_implicit(l: &ParallelLevel, implicit: &[Span]) -> bool {
    implicit.contains(&l.level_span)
}

/// Resolves the levels of `s` (and below) given the levels above it.
fn assign(stmts: &mut Arena<Stmt>, s: StmtId, above: &[Level], implicit: &[Span]) {
    let (own, children): (Vec<Slot>, Vec<StmtId>) = match &stmts[s] {
        Stmt::Parallel { levels, body } => (
            levels
                .iter()
                .map(|l| (!is_implicit(l, implicit)).then_some(l.level))
                .collect(),
            body.clone(),
        ),
        other => {
            let kids: Vec<StmtId> = crate::check::stmt_blocks(other)
                .into_iter()
                .flatten()
                .copied()
                .collect();
            for k in kids {
                assign(stmts, k, above, implicit);
            }
            return;
        }
    };
    let below = deepest_below(stmts, &children, implicit);
    let mut chain: Vec<Slot> = above.iter().map(|&l| Some(l)).collect();
    let start = chain.len();
    chain.extend(own.iter().copied());
    chain.extend(below);
    let filled = fill(&chain);
    if let Stmt::Parallel { levels, .. } = &mut stmts[s] {
        for (k, l) in levels.iter_mut().enumerate() {
            if own[k].is_none() {
                l.level = filled[start + k];
            }
        }
    }
    let mut now_above = above.to_vec();
    if let Stmt::Parallel { levels, .. } = &stmts[s] {
        now_above.extend(levels.iter().map(|l| l.level));
    }
    for c in children {
        assign(stmts, c, &now_above, implicit);
    }
}

/// The longest chain of levels in the parallel statements under `body`.
fn deepest_below(stmts: &Arena<Stmt>, body: &Block, implicit: &[Span]) -> Vec<Slot> {
    let mut best: Vec<Slot> = Vec::new();
    for &s in body {
        let chain = match &stmts[s] {
            Stmt::Parallel { levels, body } => {
                let mut c: Vec<Slot> = levels
                    .iter()
                    .map(|l| (!is_implicit(l, implicit)).then_some(l.level))
                    .collect();
                c.extend(deepest_below(stmts, body, implicit));
                c
            }
            other => {
                let mut c = Vec::new();
                for b in crate::check::stmt_blocks(other) {
                    let d = deepest_below(stmts, b, implicit);
                    if d.len() > c.len() {
                        c = d;
                    }
                }
                c
            }
        };
        if chain.len() > best.len() {
            best = chain;
        }
    }
    best
}

/// Every slot of `chain` given a level (the explicit ones unchanged).
fn fill(chain: &[Slot]) -> Vec<Level> {
    let mut out: Vec<Level> = chain.iter().map(|s| s.unwrap_or(Level::Thread)).collect();
    let mut i = 0;
    while i < chain.len() {
        if chain[i].is_some() {
            i += 1;
            continue;
        }
        let run_start = i;
        while i < chain.len() && chain[i].is_none() {
            i += 1;
        }
        let k = i - run_start;
        let lo = run_start
            .checked_sub(1)
            .and_then(|p| chain[p])
            .map_or(0, |l| rank(l) + 1);
        let next = chain.get(i).copied().flatten();
        let hi = next.map_or(SLOTS.len(), rank);
        let free: Vec<Level> = SLOTS[lo.min(SLOTS.len())..hi.max(lo).min(SLOTS.len())].to_vec();
        let picks: Vec<Level> = if free.len() <= k {
            // Not enough slots: the geometry check reports the nest; keep it ordered.
            (0..k)
                .map(|j| free.get(j).copied().unwrap_or(Level::Thread))
                .collect()
        } else {
            // A run with no annotated level below ends at `thread`.
            let mut p: Vec<Level> = Vec::with_capacity(k);
            if next.is_none() && free.contains(&Level::Thread) {
                p.push(Level::Thread);
            }
            for l in PRIORITY {
                if p.len() < k && free.contains(&l) && !p.contains(&l) {
                    p.push(l);
                }
            }
            p.sort_by_key(|l| rank(*l));
            p
        };
        for (j, l) in picks.into_iter().enumerate() {
            out[run_start + j] = l;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Level::*;

    #[test]
    fn default_mapping() {
        assert_eq!(fill(&[None]), vec![Thread]);
        assert_eq!(fill(&[None, None]), vec![Block, Thread]);
        assert_eq!(fill(&[None, None, None]), vec![Block, Group, Thread]);
        assert_eq!(fill(&[Some(Block), None]), vec![Block, Thread]);
        assert_eq!(fill(&[None, Some(Thread)]), vec![Block, Thread]);
        assert_eq!(fill(&[Some(Group), None]), vec![Group, Thread]);
        assert_eq!(fill(&[None, Some(Group), None]), vec![Block, Group, Thread]);
        assert_eq!(fill(&[Some(Block), None, None]), vec![Block, Group, Thread]);
        assert_eq!(
            fill(&[None, None, Some(Thread)]),
            vec![Block, Group, Thread]
        );
        assert_eq!(
            fill(&[None, None, None, None]),
            vec![Block, Group4, Group, Thread]
        );
        assert_eq!(
            fill(&[None, Some(Group4), None]),
            vec![Block, Group4, Thread]
        );
        assert_eq!(
            fill(&[None, None, Some(Group), None]),
            vec![Block, Group4, Group, Thread]
        );
        assert_eq!(
            fill(&[Some(Block), None, Some(Thread)]),
            vec![Block, Group, Thread]
        );
        assert_eq!(fill(&[Some(Group4), None]), vec![Group4, Thread]);
    }
}
