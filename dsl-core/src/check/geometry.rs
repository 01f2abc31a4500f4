//! Thread geometry: `parallel` levels nest block ⊃ group-4 ⊃ group ⊃ thread, the outermost
//! one is `: block`, a `group-4` level encloses at most 128 threads and a `group` level at
//! most 32 (a whole warpgroup or warp either way: lanes the inner levels leave are idle),
//! extents are integers (E0108), thread extents are compile-time constants (one known only at
//! launch is legal but not lowered yet, E1698), and a block has at most `max_threads` threads.
//! Produces the threads per block and the grid extents.

use super::resolve::LevelRef;
use super::{Cx, Limits, all_stmts, at_expr, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Block, ExprId, Level, Module, Stmt, StmtId};

pub(crate) struct Geometry {
    pub threads_per_block: u32,
    pub grid: Vec<ExprId>,
    /// The levels of each innermost `parallel`, from `: block` inward.
    pub chains: Vec<Vec<LevelRef>>,
}

pub(crate) fn check_geometry(cx: &Cx, limits: &Limits, diags: &mut Diagnostics) -> Geometry {
    let m = cx.m;
    let mut grid = Vec::new();
    let mut top_seen: Option<StmtId> = None;
    for &s in &m.kernel.body {
        if let Stmt::Parallel { levels, .. } = &m.stmts[s] {
            if let Some(first) = top_seen {
                diags.push(
                    Diagnostic::new(
                        codes::NO_BLOCK,
                        m.stmt_span(s),
                        "a kernel has one top-level `parallel … : block`",
                    )
                    .with_note(m.stmt_span(first), "the first one is here")
                    .with_help("put both bodies inside one `parallel`, one after the other"),
                );
            } else {
                top_seen = Some(s);
                if let Some(l) = levels.iter().find(|l| l.level == Level::Block) {
                    grid = l.extents.clone();
                }
            }
        }
    }

    let mut leaves: Vec<(StmtId, u32)> = Vec::new();
    let mut chains = Vec::new();
    for s in all_stmts(m) {
        let Stmt::Parallel { levels, body } = &m.stmts[s] else {
            continue;
        };
        let mut chain: Vec<LevelRef> = cx.res.chains.get(&s).cloned().unwrap_or_default();
        for (li, l) in levels.iter().enumerate() {
            let prev = chain.last().and_then(|p| cx.level(*p)).map(|p| p.level);
            match prev {
                None if l.level != Level::Block => diags.push(
                    Diagnostic::new(
                        codes::NO_BLOCK,
                        l.level_span,
                        format!(
                            "the outermost parallel level is `: {}`; it must be `: block`",
                            l.level
                        ),
                    )
                    .with_help(
                        "start with `parallel {bm, bn} by [cdiv(M, TM), cdiv(N, TN)] : block, …`",
                    ),
                ),
                Some(p) if p >= l.level => diags.push(
                    Diagnostic::new(
                        codes::LEVEL_ORDER,
                        l.level_span,
                        format!("`: {}` cannot be nested inside `: {p}`", l.level),
                    )
                    .with_help("levels nest block ⊃ group-4 ⊃ group ⊃ thread, each at most once"),
                ),
                _ => {}
            }
            if !l.vars.is_empty() && l.vars.len() != l.extents.len() {
                diags.push(
                    Diagnostic::new(
                        codes::EXTENT,
                        l.level_span,
                        format!(
                            "{} variables but {} extents at this level",
                            l.vars.len(),
                            l.extents.len()
                        ),
                    )
                    .with_help("give one extent per variable: `{i, j} by [X, Y]`"),
                );
            }
            for &e in &l.extents {
                if let Some((x, what)) = not_integer(cx, e) {
                    diags.push(
                        at_expr(
                            m,
                            codes::EXTENT_NOT_INTEGER,
                            x,
                            format!(
                                "a parallel extent counts threads or blocks: an integer, but `{}` is {what}",
                                m.expr_to_string(x)
                            ),
                        )
                        .with_help("write the extent with integers, `int` parameters, tunables, constants and dims; convert a value with `__to<s32>(…)` if it must come from one"),
                    );
                    continue;
                }
                let v = if l.level == Level::Block {
                    cx.value(e)
                } else {
                    cx.static_value(e)
                };
                match v {
                    Some(v) if v < 1 => diags.push(
                        at_expr(
                            m,
                            codes::EXTENT,
                            e,
                            format!(
                                "parallel extent `{}` is {v}; it must be at least 1",
                                m.expr_to_string(e)
                            ),
                        )
                        .with_help("check the tunables and constants it uses"),
                    ),
                    // Legal Croqtile (the launch sets the block's shape), but the lowering
                    // sizes the block at compile time (`__launch_bounds__`, cooperative copies).
                    None if l.level != Level::Block && cx.resolved(e) => diags.push(
                        at_expr(
                            m,
                            codes::NOT_LOWERED_LAUNCH_THREADS,
                            e,
                            format!(
                                "not supported yet: the `: {}` extent `{}`, known only at launch",
                                l.level,
                                m.expr_to_string(e)
                            ),
                        )
                        .with_help(
                            "tessel lowers thread counts of tunables and constants: make it a `tunable` or a `const`",
                        ),
                    ),
                    _ => {}
                }
            }
            chain.push(LevelRef { stmt: s, level: li });
        }
        // Thread counts of a mis-nested chain mean nothing: its order error is enough.
        if !contains_parallel(m, body) && ordered(cx, &chain) {
            chains.push(chain.clone());
            check_groups(cx, &chain, diags);
            if let Some(t) = threads_of(cx, &chain) {
                if t > limits.max_threads as u64 {
                    let (at, text) = describe_threads(cx, &chain);
                    let mut d = Diagnostic::new(
                        codes::THREADS,
                        at.map(|e| m.expr_span(e)).unwrap_or(m.stmt_span(s)),
                        format!(
                            "{t} threads per block ({text}) exceeds the limit of {}",
                            limits.max_threads
                        ),
                    );
                    d = d.with_help(format!(
                        "use at most {} threads per block: shrink the thread-level extents",
                        limits.max_threads
                    ));
                    diags.push(d);
                }
                leaves.push((s, t.min(u32::MAX as u64) as u32));
            }
        }
    }
    if let Some(&(first, t0)) = leaves.first() {
        for &(s, t) in &leaves[1..] {
            if t != t0 {
                diags.push(
                    Diagnostic::new(
                        codes::THREAD_MISMATCH,
                        m.stmt_span(s),
                        format!("this parallel runs {t} threads per block, an earlier one {t0}"),
                    )
                    .with_note(m.stmt_span(first), format!("{t0} threads here"))
                    .with_help("every thread-level parallel of a block must span the same threads"),
                );
            }
        }
    }
    let threads_per_block = leaves.iter().map(|l| l.1).max().unwrap_or(1);
    Geometry {
        threads_per_block,
        grid,
        chains,
    }
}

/// The first part of `e` that is no integer — a float or `bool` literal, or a name bound to a
/// float or `bool` scalar — with what it is. Arithmetic and calls are looked into, except a
/// `__to<…>(…)` conversion and a `select`'s condition; views and indexing are not.
pub(crate) fn not_integer(cx: &Cx, e: ExprId) -> Option<(ExprId, &'static str)> {
    use super::Binding;
    use crate::ir::{DType, Expr};
    let m = cx.m;
    let kind = |d: DType| {
        if d == DType::Bool {
            Some("a `bool`")
        } else if d.is_float() {
            Some("a floating-point value")
        } else {
            None
        }
    };
    let what = match &m.exprs[e] {
        Expr::Float { .. } => Some("a floating-point value"),
        Expr::Bool(_) => Some("a `bool`"),
        Expr::Name(_) => match cx.res.bindings.get(&e) {
            Some(Binding::Param(i)) => m
                .kernel
                .params
                .get(*i)
                .filter(|p| p.shape.is_empty())
                .and_then(|p| kind(p.dtype)),
            Some(Binding::Scalar(s)) => match &m.stmts[*s] {
                Stmt::ScalarDecl { dtype, .. } => kind(*dtype),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    if let Some(w) = what {
        return Some((e, w));
    }
    // The operands whose values the extent takes (a `select`'s condition is not one).
    let parts: Vec<ExprId> = match &m.exprs[e] {
        Expr::Unary { expr, .. } => vec![*expr],
        Expr::Binary { lhs, rhs, .. } => vec![*lhs, *rhs],
        Expr::Compose { outer, inner } => vec![*outer, *inner],
        Expr::Call { func, args } if func.name == "select" => {
            args.iter().skip(1).copied().collect()
        }
        Expr::Call { func, args } if !func.name.starts_with("__to<") => args.clone(),
        _ => Vec::new(),
    };
    parts.into_iter().find_map(|p| not_integer(cx, p))
}

/// Levels strictly increasing, starting with `: block`.
fn ordered(cx: &Cx, chain: &[LevelRef]) -> bool {
    let levels: Vec<Level> = chain
        .iter()
        .filter_map(|l| cx.level(*l).map(|p| p.level))
        .collect();
    levels.first() == Some(&Level::Block) && levels.windows(2).all(|w| w[0] < w[1])
}

fn contains_parallel(m: &Module, b: &Block) -> bool {
    b.iter().any(|&s| {
        matches!(m.stmts[s], Stmt::Parallel { .. })
            || super::stmt_blocks(&m.stmts[s])
                .iter()
                .any(|inner| contains_parallel(m, inner))
    })
}

/// Product of the extents of one level (`None` if one is unknown).
fn level_count(cx: &Cx, l: LevelRef) -> Option<u64> {
    let pl = cx.level(l)?;
    pl.extents.iter().try_fold(1u64, |acc, &e| {
        let v = cx.static_value(e)?;
        if v < 1 {
            None
        } else {
            acc.checked_mul(v as u64)
        }
    })
}

/// Threads spanned by the levels of `chain` from index `from` on, innermost first: a thread
/// level multiplies by its extents; a `group` (`group-4`) level holds its count of whole warps
/// (warpgroups) whatever the levels inside span, so a partial warp still takes 32 lanes.
fn threads_from(cx: &Cx, chain: &[LevelRef], from: usize) -> Option<u64> {
    chain[from..].iter().rev().try_fold(1u64, |acc, l| {
        let pl = cx.level(*l)?;
        match pl.level {
            Level::Block => Some(acc),
            Level::Thread => acc.checked_mul(level_count(cx, *l)?),
            g => {
                let unit = g.threads().unwrap_or(1) as u64;
                acc.max(unit).checked_mul(level_count(cx, *l)?)
            }
        }
    })
}

/// Threads the levels inside level `p` of `chain` use (before padding to `p`'s unit).
fn threads_inside(cx: &Cx, chain: &[LevelRef], p: usize) -> Option<u64> {
    if p + 1 == chain.len() {
        return None;
    }
    threads_from(cx, chain, p + 1)
}

/// The `: group` / `: group-4` levels whose inner levels span fewer threads than the warp
/// (warpgroup): Croqtile runs them on a whole one with the remaining lanes idle, and so does
/// the lowering (`geometry_sym::IdleLanes`). Each level's span, with the `parallel` statement
/// that holds its outermost inner level: the work only the first lanes do.
pub(crate) fn partial_groups(cx: &Cx) -> Vec<(crate::span::Span, StmtId)> {
    let m = cx.m;
    let mut out = Vec::new();
    for s in all_stmts(m) {
        let Stmt::Parallel { levels, body } = &m.stmts[s] else {
            continue;
        };
        if contains_parallel(m, body) {
            continue;
        }
        let mut chain: Vec<LevelRef> = cx.res.chains.get(&s).cloned().unwrap_or_default();
        chain.extend((0..levels.len()).map(|li| LevelRef { stmt: s, level: li }));
        for (p, l) in chain.iter().enumerate() {
            let Some(pl) = cx.level(*l) else { continue };
            let Some(want) = pl.level.threads().filter(|u| *u > 1) else {
                continue;
            };
            if threads_inside(cx, &chain, p).is_some_and(|got| got < want as u64)
                && !out.iter().any(|(at, _)| *at == pl.level_span)
            {
                out.push((pl.level_span, chain[p + 1].stmt));
            }
        }
    }
    out
}

fn threads_of(cx: &Cx, chain: &[LevelRef]) -> Option<u64> {
    threads_from(cx, chain, 0)
}

/// Where to point a thread-count error (the innermost non-block extent) and how the count
/// is made (`TILE_M × TILE_N = 64 × 32`).
fn describe_threads(cx: &Cx, chain: &[LevelRef]) -> (Option<ExprId>, String) {
    let mut texts = Vec::new();
    let mut vals = Vec::new();
    let mut at = None;
    for l in chain {
        let Some(pl) = cx.level(*l) else { continue };
        if pl.level == Level::Block {
            continue;
        }
        for &e in &pl.extents {
            texts.push(cx.m.expr_to_string(e));
            vals.push(
                cx.static_value(e)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "?".into()),
            );
            at = Some(e);
        }
    }
    if let Some(inner) = chain.last().and_then(|l| cx.level(*l))
        && let Some(u) = inner.level.threads().filter(|u| *u > 1)
    {
        texts.push(format!("{u} per {}", inner.level));
        vals.push(u.to_string());
    }
    let (texts, vals) = (texts.join(" × "), vals.join(" × "));
    // Literal extents say their values already.
    if texts == vals {
        return (at, texts);
    }
    (at, format!("{texts} = {vals}"))
}

/// `group-4` encloses at most 128 threads, `group` 32 (fewer leave lanes idle).
fn check_groups(cx: &Cx, chain: &[LevelRef], diags: &mut Diagnostics) {
    let m = cx.m;
    for (p, l) in chain.iter().enumerate() {
        let Some(pl) = cx.level(*l) else { continue };
        let (want, code, unit) = match pl.level {
            Level::Group4 => (128, codes::GROUP4, "warpgroup"),
            Level::Group => (32, codes::GROUP, "warp"),
            _ => continue,
        };
        let Some(got) = threads_inside(cx, chain, p) else {
            continue;
        };
        // Tensor-core `mma` runs on every lane of its warp (warpgroup): no idle lanes there.
        let mma = got < want
            && matches!(&m.stmts[l.stmt], Stmt::Parallel { body, .. } if contains_mma(m, body));
        if got == want || (got < want && !mma) {
            continue;
        }
        let inner = chain[p + 1];
        let Some(ipl) = cx.level(inner) else { continue };
        let at = ipl
            .extents
            .first()
            .map(|e| m.expr_span(*e))
            .unwrap_or(ipl.level_span);
        diags.push(
            Diagnostic::new(
                code,
                at,
                format!("a `: {}` level is one {unit} of {want} threads, but the levels inside it span {got}", pl.level),
            )
            .with_note(pl.level_span, format!("the `: {}` level", pl.level))
            .with_help(if mma {
                format!("its `mma` needs every thread of the {unit}: make the levels inside span exactly {want} threads, e.g. `t by {want} : thread`")
            } else {
                format!("make the levels inside span at most {want} threads, e.g. `t by {want} : thread`")
            }),
        );
    }
}

fn contains_mma(m: &Module, b: &Block) -> bool {
    b.iter().any(|&s| {
        matches!(m.stmts[s], Stmt::Mma { .. })
            || super::stmt_blocks(&m.stmts[s])
                .iter()
                .any(|inner| contains_mma(m, inner))
    })
}
