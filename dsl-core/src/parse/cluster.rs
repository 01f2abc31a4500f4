//! `parallel {cm, cn} by [CM, CN] : cluster { parallel {bm, bn} by [...] : block { … } }`:
//! thread-block clusters as a parallel level. The level must be the outermost of the kernel's
//! `parallel` nest and sit directly above its `: block` level, either as its own statement whose
//! body is exactly that `parallel … : block` statement, or as the first level of the same
//! statement (`parallel {cm} by [2] : cluster, {bm, bn} by [X, Y] : block { … }`).
//!
//! Once the kernel is parsed, [`extract`] takes the level out of its statement and returns it
//! for `Module::cluster_level`: the nest below is an ordinary `: block` nest, so every later
//! stage sees the same IR as without the cluster, plus the cluster shape.

use crate::check::codes;
use crate::diag::Diagnostic;
use crate::ir::{Arena, Block, ClusterLevel, ExprId, Level, ParallelLevel, Stmt, StmtId};
use crate::span::Span;

const PLACE_HELP: &str = "write `parallel {cm} by [2] : cluster { parallel {block_m, block_n} by [X, Y] : block { … } }`";

/// `.multicast` on a copy that is not a TMA copy.
pub(crate) fn multicast_not_tma(span: Span, stmt: &str) -> Diagnostic {
    Diagnostic::new(
        codes::MULTICAST_NOT_TMA,
        span,
        format!("`.multicast` is a TMA load modifier; `{stmt}` cannot multicast"),
    )
    .with_help("load the tile with `tma.copy.async<event>.multicast src => dst;` (sm_90a)")
}

fn nesting(span: Span, msg: &str) -> Diagnostic {
    Diagnostic::new(codes::CLUSTER_NESTING, span, msg.to_string()).with_help(PLACE_HELP)
}

/// Whether `l` is (or will be resolved to) the `: block` level: written `: block`, or written
/// without a level as the outermost of a top-level nest.
fn is_block(l: &ParallelLevel, implicit: &[Span], clusters: &[Span]) -> bool {
    !clusters.contains(&l.level_span)
        && (l.level == Level::Block || implicit.contains(&l.level_span))
}

/// Takes the `: cluster` level (its `level_span` is in `clusters`) out of the kernel's top-level
/// `parallel` statement; any other `: cluster` level, or one not directly above the `: block`
/// level, is a diagnostic. `header` is the `cluster C;` header item (the two spellings exclude
/// each other).
pub(crate) fn extract(
    stmts: &mut Arena<Stmt>,
    body: &mut Block,
    clusters: &[Span],
    implicit: &[Span],
    header: Option<(ExprId, Span)>,
) -> (Option<ClusterLevel>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    if clusters.is_empty() {
        return (None, diags);
    }
    let mut found: Option<ClusterLevel> = None;
    let mut taken: Vec<Span> = Vec::new();
    for slot in body.iter_mut() {
        let s = *slot;
        let Stmt::Parallel {
            levels,
            body: inner,
        } = &stmts[s]
        else {
            continue;
        };
        let Some(first) = levels.first() else {
            continue;
        };
        if !clusters.contains(&first.level_span) {
            continue;
        }
        let level = first.clone();
        taken.push(level.level_span);
        if found.is_some() {
            diags.push(nesting(
                level.level_span,
                "a kernel has at most one `: cluster` level",
            ));
            continue;
        }
        if levels.len() > 1 {
            if !is_block(&levels[1], implicit, clusters) {
                diags.push(nesting(
                    levels[1].level_span,
                    "the level after `: cluster` must be the `: block` level (a cluster groups blocks)",
                ));
                continue;
            }
            if let Stmt::Parallel { levels, .. } = &mut stmts[s] {
                levels.remove(0);
            }
        } else {
            let below = match inner.as_slice() {
                [one] => match &stmts[*one] {
                    Stmt::Parallel { levels, .. }
                        if levels
                            .first()
                            .is_some_and(|l| is_block(l, implicit, clusters)) =>
                    {
                        Some(*one)
                    }
                    _ => None,
                },
                _ => None,
            };
            let Some(below) = below else {
                diags.push(nesting(
                    level.level_span,
                    "a `: cluster` level groups the blocks of the `: block` level directly inside it: its body must be exactly one `parallel … : block` statement",
                ));
                continue;
            };
            // The statement of the cluster level is left unreachable and empty.
            stmts[s] = Stmt::Parallel {
                levels: Vec::new(),
                body: Vec::new(),
            };
            *slot = below;
        }
        found = Some(ClusterLevel {
            vars: level.vars,
            extents: level.extents,
            span: level.level_span,
        });
    }
    // Every other `: cluster` level is misplaced: under another level, or in a nested statement.
    let ids: Vec<StmtId> = stmts.iter().map(|(id, _)| id).collect();
    for id in ids {
        if let Stmt::Parallel { levels, .. } = &stmts[id] {
            for l in levels {
                if clusters.contains(&l.level_span) && !taken.contains(&l.level_span) {
                    diags.push(nesting(
                        l.level_span,
                        "a `: cluster` level must be the outermost level of the kernel's `parallel` nest, directly above its `: block` level",
                    ));
                }
            }
        }
    }
    if let (Some(c), Some((_, span))) = (&found, header) {
        diags.push(
            Diagnostic::new(
                codes::CLUSTER_NESTING,
                c.span,
                "this kernel has both a `: cluster` level and a `cluster` header item",
            )
            .with_note(span, "the header item")
            .with_help(
                "keep one: the level (`parallel {cm} by [C] : cluster`) is the general form",
            ),
        );
    }
    (found, diags)
}
