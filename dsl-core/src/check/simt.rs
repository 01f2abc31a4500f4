//! The SIMT extensions' rules: register tiles, warp reductions, transposed stores and
//! `dma.wait`.
//!
//! - A `local` tensor is a register tile: every coordinate (and array index) of a view of it
//!   must be known once the loops around it are unrolled — literals, tunables, constants,
//!   variables of loops the lowering unrolls whole (`: unroll`, or a static trip count) and
//!   bindings of those. A run-time index would put
//!   the tile in local memory (the DRAM-backed stack). Croqtile allows it: a restriction of
//!   the lowering (a note for `tessel check`).
//! - An 8-bit float is moved, never computed with (`f8_moves`): the SIMT path has no f8
//!   arithmetic, and a conversion would read the byte as an integer.
//! - `reduce.sum x : group` combines a scalar across the 32 threads of a warp, `reduce.sum x :
//!   block` across every thread of the block (whole warps only): it needs an enclosing `: group`
//!   level (`: thread` for a block), every thread of the warp (block) must reach it (no
//!   enclosing `if` on a value that differs between threads, no `inthreads`), and it works on
//!   `f32` or `int` scalars.
//! - `.transpose()` is lowered as the destination of a `dma.copy` (a transposed store).
//! - `dma.wait N` takes a compile-time `N` in `0..=7` (the range of `cp.async.wait_group`).
//! - `__atomic_add(t.at(i), v)` and its kin update an element of a global or shared tensor of
//!   a type its CUDA atomic takes ([`atomic`]).
//! - A named barrier `__bar_sync(id, n)` / `__bar_arrive(id, n)` (PTX `bar.sync` /
//!   `bar.arrive`) takes a compile-time id in 1..=15 (0 is the block's barrier) and a
//!   compile-time thread count that is a positive multiple of 32, at most the block's threads.

use super::view::Views;
use super::{Binding, Cx, all_stmts, at_expr, codes, first_unknown_name, walk_expr};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{
    Block, CopyDst, DType, Expr, ExprId, ExtStmt, Level, MemSpace, Stmt, StmtId, ViewOp,
};
use std::collections::HashSet;

pub(crate) fn check_simt(cx: &Cx, views: &Views, threads: u32, diags: &mut Diagnostics) {
    local_indices(cx, views, diags);
    reductions(cx, threads, diags);
    barriers(cx, diags);
    transposes(cx, diags);
    waits(cx, diags);
    atomics(cx, views, diags);
    named_barriers(cx, threads, diags);
}

/// Warning `W1215`: uses of one named barrier with different thread counts. The hardware
/// barrier completes when the arrivals reach the count of the instance under way, so arrivals
/// counted against another count complete it early or never — unless every use of one count
/// completes before the other's start.
pub(crate) fn named_barrier_counts(cx: &Cx, warnings: &mut Vec<Diagnostic>) {
    let m = cx.m;
    let mut first: std::collections::HashMap<i64, (i64, ExprId)> = Default::default();
    for s in all_stmts(m) {
        let Stmt::Ext(ExtStmt::Call { func, args, .. }) = &m.stmts[s] else {
            continue;
        };
        let (true, Some(&id), Some(&n)) = (named_barrier(&func.name), args.first(), args.get(1))
        else {
            continue;
        };
        let (Some(i), Some(v)) = (cx.value(id), cx.value(n)) else {
            continue;
        };
        match first.get(&i) {
            Some(&(w, at)) if w != v => warnings.push(
                Diagnostic::warning(
                    codes::NAMED_BARRIER_COUNTS,
                    m.expr_span(n),
                    format!("named barrier {i} counts {v} threads here and {w} elsewhere"),
                )
                .with_note(m.expr_span(at), format!("barrier {i} counts {w} threads here"))
                .with_help("arrivals counted against another count complete the barrier early or never: give each group of threads its own id"),
            ),
            Some(_) => {}
            None => {
                first.insert(i, (v, n));
            }
        }
    }
}

/// Whether `func` is a named barrier (`__bar_sync`, `__bar_arrive`).
pub fn named_barrier(func: &str) -> bool {
    matches!(func, "__bar_sync" | "__bar_arrive")
}

/// The operands of each named barrier: see the module comment.
fn named_barriers(cx: &Cx, threads: u32, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in all_stmts(m) {
        let Stmt::Ext(ExtStmt::Call { func, args, .. }) = &m.stmts[s] else {
            continue;
        };
        if !named_barrier(&func.name) {
            continue;
        }
        let (Some(&id), Some(&n)) = (args.first(), args.get(1)) else {
            continue;
        };
        if !matches!(cx.value(id), Some(1..=15)) {
            diags.push(
                at_expr(
                    m,
                    codes::NAMED_BARRIER,
                    id,
                    format!(
                        "a named barrier's id is a compile-time integer in 1..=15; `{}` is not",
                        m.expr_to_string(id)
                    ),
                )
                .with_help("barrier 0 is the block's (`sync.shared`); pick another id for each group of threads that meets"),
            );
        }
        let t = i64::from(threads);
        if !cx.value(n).is_some_and(|v| v > 0 && v % 32 == 0 && v <= t) {
            diags.push(
                at_expr(
                    m,
                    codes::NAMED_BARRIER,
                    n,
                    format!(
                        "a named barrier counts whole warps: `{}` must be a compile-time positive multiple of 32, at most the block's {t} threads",
                        m.expr_to_string(n)
                    ),
                )
                .with_help("count every thread that arrives at or waits on the barrier, warp by warp"),
            );
        }
    }
}

/// An atomic update `__atomic_<op>(t.at(…), …)`: the CUDA function it lowers to and the element
/// types that function takes, of those tessel lowers: s32 and u32 (`atomicAdd` / `atomicExch`
/// also f32).
pub struct Atomic {
    pub cuda: &'static str,
    pub types: &'static [DType],
}

/// The atomic `func` names, or `None` for a name that is no atomic.
pub fn atomic(func: &str) -> Option<Atomic> {
    const BOTH: &[DType] = &[DType::F32, DType::I32, DType::U32];
    const INT: &[DType] = &[DType::I32, DType::U32];
    let (cuda, types) = match func.strip_prefix("__atomic_")? {
        "add" => ("atomicAdd", BOTH),
        "exch" => ("atomicExch", BOTH),
        "sub" => ("atomicSub", INT),
        "min" => ("atomicMin", INT),
        "max" => ("atomicMax", INT),
        "and" => ("atomicAnd", INT),
        "or" => ("atomicOr", INT),
        "xor" => ("atomicXor", INT),
        "cas" => ("atomicCAS", INT),
        _ => return None,
    };
    Some(Atomic { cuda, types })
}

/// The element type of the scalar a `reduce` statement `s` updates, when it is one.
pub(crate) fn reduce_dtype(cx: &Cx, s: StmtId) -> Option<DType> {
    match cx.res.reduce_target(s) {
        Some(Binding::Scalar(d)) => match &cx.m.stmts[*d] {
            Stmt::ScalarDecl { dtype, .. } => Some(*dtype),
            _ => None,
        },
        _ => None,
    }
}

/// The atomic call whose old value statement `s` keeps: the whole initializer of a scalar
/// (`int old = __atomic_add(t.at(i), 1);`) or the whole right side of a plain assignment to one
/// (`old = __atomic_add(…);`). Those captures lower; an atomic deeper inside an expression does
/// not.
pub fn captured_atomic(m: &crate::ir::Module, s: StmtId) -> Option<ExprId> {
    let v = match &m.stmts[s] {
        Stmt::ScalarDecl { init: Some(v), .. } => *v,
        Stmt::Assign {
            target,
            op: crate::ir::AssignOp::Set,
            value,
        } if matches!(m.exprs[*target], Expr::Name(_)) => *value,
        _ => return None,
    };
    matches!(&m.exprs[v], Expr::Call { func, .. } if atomic(&func.name).is_some()).then_some(v)
}

/// Every atomic update of a kernel, as a statement or a captured value ([`captured_atomic`]):
/// the atomic's name and its arguments (the element first).
pub fn atomic_sites(m: &crate::ir::Module) -> Vec<(StmtId, &crate::ir::Ident, &[ExprId])> {
    all_stmts(m)
        .into_iter()
        .filter_map(|s| {
            let (func, args) = match &m.stmts[s] {
                Stmt::Ext(ExtStmt::Call { func, args, .. }) => (func, args),
                _ => match captured_atomic(m, s).map(|v| &m.exprs[v]) {
                    Some(Expr::Call { func, args }) => (func, args),
                    _ => return None,
                },
            };
            atomic(&func.name).map(|_| (s, func, args.as_slice()))
        })
        .collect()
}

/// Atomic updates: an element of global or shared memory, of a type the atomic takes.
fn atomics(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    for (_, func, args) in atomic_sites(m) {
        let (Some(Atomic { types, .. }), Some(&target)) = (atomic(&func.name), args.first()) else {
            continue;
        };
        let Some(v) = views.get(target) else { continue };
        if v.space == MemSpace::Local {
            diags.push(
                at_expr(
                    m,
                    codes::ATOMIC,
                    target,
                    format!(
                        "`{}` updates global or shared memory; `{}` is a register tile, which no other thread can reach",
                        func.name,
                        m.expr_to_string(target)
                    ),
                )
                .with_help("update the register tile with a plain assignment (`t.at(i) += v;`)"),
            );
        } else if !types.contains(&v.dtype) {
            let names: Vec<String> = types.iter().map(|t| t.to_string()).collect();
            diags.push(
                at_expr(
                    m,
                    codes::ATOMIC,
                    target,
                    format!(
                        "`{}` takes {} elements; `{}` is {}",
                        func.name,
                        names.join(" or "),
                        m.expr_to_string(target),
                        v.dtype
                    ),
                )
                .with_help("keep the counters or sums in an s32 or u32 (or, for `__atomic_add` and `__atomic_exch`, f32) tensor"),
            );
        }
    }
}

/// Register tiles are indexed by compile-time values only: constants and the variables of
/// loops the lowering unrolls whole (`unrolled_whole`).
fn local_indices(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut reported: HashSet<ExprId> = HashSet::new();
    let mut sites: Vec<ExprId> = views.all.keys().copied().collect();
    sites.sort();
    for x in sites {
        let Some(v) = views.get(x) else { continue };
        if v.space != MemSpace::Local {
            continue;
        }
        let name = cx.binding_name(v.root);
        for c in v.coords.iter().flatten().chain(v.array_index.iter()) {
            if !reported.insert(*c) {
                continue;
            }
            if let Some(bad) = runtime_name(cx, *c) {
                let index = m.expr_to_string(*c);
                let why = if index == bad {
                    String::new()
                } else {
                    format!(" depends on `{bad}`, which")
                };
                diags.push(
                    at_expr(
                        m,
                        codes::LOCAL_INDEX,
                        *c,
                        format!(
                            "`{name}` is a register tile, but the index `{index}`{why} is only known at run time"
                        ),
                    )
                    .with_help(format!(
                        "index register tiles with constants and variables of loops that unroll whole (`: unroll`, or extents over integers, tunables and constants); a run-time index puts `{name}` in local memory"
                    )),
                );
            }
        }
    }
}

/// The first name in `e` whose value is not known after unrolling, if any.
fn runtime_name(cx: &Cx, e: ExprId) -> Option<String> {
    let m = cx.m;
    first_unknown_name(cx, e, &|b| match b {
        Binding::Tunable | Binding::Constant => true,
        Binding::LoopVar { stmt, index } => super::unrolled_whole(m, *stmt, *index),
        _ => false,
    })
}

/// `reduce` placement, level and type.
fn reductions(cx: &Cx, threads: u32, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut divergent = Vec::new();
    collect_divergent(cx, &m.kernel.body, None, &mut divergent);
    for s in all_stmts(m) {
        let Stmt::Reduce {
            op,
            target,
            level,
            level_span,
        } = &m.stmts[s]
        else {
            continue;
        };
        // The level the statement must sit inside: a warp for `: group`, any thread of the
        // block for `: block`.
        let inside = match level {
            Level::Group => Level::Group,
            Level::Block => Level::Thread,
            _ => {
                diags.push(
                    Diagnostic::new(
                        codes::REDUCE,
                        *level_span,
                        format!("`reduce` across a `: {level}` level is not supported"),
                    )
                    .with_help(format!(
                        "reduce across a warp (`reduce.{0} {1} : group;`) or the whole block (`reduce.{0} {1} : block;`)",
                        op.name(),
                        target.name
                    )),
                );
                continue;
            }
        };
        let placed = cx.res.chains.get(&s).is_some_and(|c| {
            c.iter()
                .any(|l| cx.level(*l).is_some_and(|pl| pl.level == inside))
        });
        if !placed {
            let (what, help) = match level {
                Level::Group => (
                    "`reduce … : group` outside a `: group` level: the statement has no warp to reduce across",
                    "put it inside `parallel {w} by [W] : group, {lane} by [32] : thread { … }`",
                ),
                _ => (
                    "`reduce … : block` outside a `: thread` level: every thread of the block contributes its own value",
                    "put it inside the block's threads: `parallel {b} by [B] : block, {t} by [T] : thread { … }`",
                ),
            };
            diags.push(Diagnostic::new(codes::REDUCE, m.stmt_span(s), what).with_help(help));
        }
        if *level == Level::Block && threads % 32 != 0 {
            diags.push(
                Diagnostic::new(
                    codes::REDUCE,
                    *level_span,
                    format!(
                        "`reduce … : block` combines whole warps, but the block has {threads} threads, not a multiple of 32"
                    ),
                )
                .with_help("give the block a multiple of 32 threads, or reduce across each warp (`: group`)"),
            );
        }
        if let Some((_, guard)) = divergent.iter().find(|(x, _)| *x == s) {
            diags.push(
                Diagnostic::new(
                    codes::REDUCE,
                    m.stmt_span(s),
                    format!(
                        "`reduce` inside a condition that may differ between threads: every thread of the {} must reach it",
                        if *level == Level::Block { "block" } else { "warp" }
                    ),
                )
                .with_note(m.stmt_span(*guard), "the condition")
                .with_help("move the `reduce` before the `if` / `inthreads` and branch after it, or branch on values every thread of the block shares (`: block` and loop variables, tunables, sizes)"),
            );
        }
        if let Some(d) = reduce_dtype(cx, s)
            && !matches!(d, DType::F32 | DType::I32)
        {
            diags.push(
                Diagnostic::new(
                    codes::REDUCE,
                    target.span,
                    format!(
                        "`reduce` works on f32 and int scalars; `{}` is {d}",
                        target.name
                    ),
                )
                .with_help(format!("accumulate in f32: `f32 {} = 0.0f;`", target.name)),
            );
        }
    }
}

/// The threads a barrier statement waits for: `Block` for `sync.shared`, `sync.barrier` and
/// `sync.barrier : block` (`__syncthreads()`), `Group` for `sync.barrier : group` and
/// `sync.barrier : thread` (`__syncwarp()`: the lanes of one warp); `None` for any other
/// statement and for a warpgroup's `sync.barrier : group-4`, which is not lowered yet.
pub fn barrier_scope(st: &Stmt) -> Option<Level> {
    use crate::ir::SyncKind;
    match st {
        Stmt::SyncShared => Some(Level::Block),
        Stmt::Ext(ExtStmt::Sync {
            kind: SyncKind::Barrier,
            level,
        }) => match level {
            None | Some(Level::Block) => Some(Level::Block),
            Some(Level::Group | Level::Thread) => Some(Level::Group),
            Some(Level::Group4) => None,
        },
        _ => None,
    }
}

/// A block barrier (`__syncthreads()`) must be reached by every thread of the block, a warp
/// barrier (`__syncwarp()`) by every lane of the warp. Under an `if` whose condition may differ
/// between those threads (`super::events::uniform_within`), or under `inthreads` (a block
/// barrier always; a warp barrier when its condition may differ within a warp), the threads
/// that skip it never arrive (undefined behaviour, in practice a hang).
fn barriers(cx: &Cx, diags: &mut Diagnostics) {
    /// The innermost statement that may split the threads of a block, and of a warp.
    #[derive(Clone, Copy)]
    struct Guards {
        block: Option<StmtId>,
        warp: Option<StmtId>,
    }
    fn walk(cx: &Cx, b: &[StmtId], g: Guards, diags: &mut Diagnostics) {
        use super::events::uniform_within;
        let m = cx.m;
        for &s in b {
            let st = &m.stmts[s];
            let (guard, who, one, shares) = match barrier_scope(st) {
                Some(Level::Block) => (
                    g.block,
                    "threads of the block",
                    "threads",
                    "every thread of the block shares (`: block` and loop variables, tunables, sizes)",
                ),
                Some(_) => (
                    g.warp,
                    "lanes of a warp",
                    "lanes",
                    "every lane of the warp shares (`: block`, `: group-4` and `: group` variables, loop variables, tunables, sizes)",
                ),
                None => (None, "", "", ""),
            };
            if let Some(at) = guard {
                let what = match st {
                    Stmt::Ext(ExtStmt::Sync {
                        kind,
                        level: Some(l),
                    }) => format!("sync.{} : {}", kind.name(), l.name()),
                    Stmt::Ext(ExtStmt::Sync { kind, level: None }) => {
                        format!("sync.{}", kind.name())
                    }
                    _ => "sync.shared".to_string(),
                };
                diags.push(
                    Diagnostic::new(
                        codes::BARRIER_DIVERGENT,
                        m.stmt_span(s),
                        format!("`{what}` under a condition that may differ between the {who}: the {one} that skip it never reach the barrier"),
                    )
                    .with_note(m.stmt_span(at), if matches!(m.stmts[at], Stmt::Foreach { .. }) { "a loop whose trip count may differ between them" } else { "the condition" })
                    .with_help(format!("move `{what}` out of the `if` / `inthreads` / loop, or branch and loop on values {shares}")),
                );
            }
            let inner = match st {
                Stmt::InThreads { cond, .. } => Guards {
                    block: Some(s),
                    warp: if uniform_within(cx, *cond, Level::Group) {
                        g.warp
                    } else {
                        Some(s)
                    },
                },
                Stmt::If { cond, .. } => Guards {
                    block: if uniform_within(cx, *cond, Level::Block) {
                        g.block
                    } else {
                        Some(s)
                    },
                    warp: if uniform_within(cx, *cond, Level::Group) {
                        g.warp
                    } else {
                        Some(s)
                    },
                },
                // A loop whose trip count differs between threads: those with fewer trips
                // stop arriving while the others wait.
                Stmt::Foreach { extents, .. } => Guards {
                    block: if extents.iter().all(|&e| uniform_within(cx, e, Level::Block)) {
                        g.block
                    } else {
                        Some(s)
                    },
                    warp: if extents.iter().all(|&e| uniform_within(cx, e, Level::Group)) {
                        g.warp
                    } else {
                        Some(s)
                    },
                },
                _ => g,
            };
            for blk in super::stmt_blocks(st) {
                walk(cx, blk, inner, diags);
            }
        }
    }
    walk(
        cx,
        &cx.m.kernel.body,
        Guards {
            block: None,
            warp: None,
        },
        diags,
    );
}

/// Statements under an `inthreads`, under an `if` whose condition may differ between the
/// threads of a block, or in a loop whose trip count may, with the innermost such statement. (A condition every thread of the
/// block shares, `super::events::block_uniform`, keeps whole warps together.)
fn collect_divergent(cx: &Cx, b: &Block, guard: Option<StmtId>, out: &mut Vec<(StmtId, StmtId)>) {
    let m = cx.m;
    for &s in b {
        if let Some(g) = guard {
            out.push((s, g));
        }
        let inner = match &m.stmts[s] {
            Stmt::InThreads { .. } => Some(s),
            Stmt::If { cond, .. } if !super::events::block_uniform(cx, *cond) => Some(s),
            Stmt::Foreach { extents, .. }
                if !extents.iter().all(|&e| super::events::block_uniform(cx, e)) =>
            {
                Some(s)
            }
            _ => guard,
        };
        for blk in super::stmt_blocks(&m.stmts[s]) {
            collect_divergent(cx, blk, inner, out);
        }
    }
}

/// `.transpose()` only as a `dma.copy` destination (or a warp accumulator's `mma.store`
/// destination: `mma.store.transp`).
fn transposes(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut allowed = HashSet::new();
    let warp_kernel = cx.warp_kernel();
    for s in all_stmts(m) {
        if let Stmt::MmaStore { dst, .. } = &m.stmts[s]
            && warp_kernel
            && matches!(
                m.exprs[*dst],
                Expr::View {
                    op: ViewOp::Transpose,
                    ..
                }
            )
        {
            allowed.insert(*dst);
        }
        if let Stmt::DmaCopy {
            dst: CopyDst::Expr(d),
            ..
        } = &m.stmts[s]
        {
            allowed.insert(*d);
        }
    }
    for s in all_stmts(m) {
        for e in super::stmt_exprs(&m.stmts[s]) {
            walk_expr(m, e, &mut |x| {
                if matches!(
                    m.exprs[x],
                    Expr::View {
                        op: ViewOp::Transpose,
                        ..
                    }
                ) && !allowed.contains(&x)
                {
                    diags.push(
                        at_expr(
                            m,
                            codes::TRANSPOSE,
                            x,
                            "`.transpose()` is supported as the destination of a `dma.copy`",
                        )
                        .with_help("store a tile transposed: `dma.copy a.subspan(BM, BK).at(bm, k) => a_s.transpose();`"),
                    );
                }
            });
        }
    }
}

/// `dma.wait N`: a compile-time `N` in `0..=7`.
fn waits(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    for s in all_stmts(m) {
        let Stmt::DmaWait { pending } = &m.stmts[s] else {
            continue;
        };
        match cx.static_value(*pending) {
            Some(v) if (0..=7).contains(&v) => {}
            Some(v) => diags.push(
                at_expr(
                    m,
                    codes::DMA_WAIT,
                    *pending,
                    format!(
                        "`dma.wait {}` leaves {v} copies in flight; the hardware counts 0 to 7",
                        m.expr_to_string(*pending)
                    ),
                )
                .with_help("use a pipeline depth of at most 8 stages"),
            ),
            None if cx.resolved(*pending) => diags.push(
                at_expr(
                    m,
                    codes::DMA_WAIT,
                    *pending,
                    format!(
                        "`dma.wait {}` needs a compile-time count",
                        m.expr_to_string(*pending)
                    ),
                )
                .with_help(
                    "write the count with tunables and constants, e.g. `dma.wait STAGES - 1;`",
                ),
            ),
            None => {}
        }
    }
}

/// On the SIMT path an 8-bit float is moved, never computed with: copies of f8 tiles move
/// bytes, and an f8 element may be read or written only by `=` between elements of one f8
/// type. Anything else would convert the byte as an integer (no f8 arithmetic is lowered).
pub(super) fn f8_moves(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    let f8_element = |x: ExprId| views.get(x).filter(|v| v.element && v.dtype.is_f8());
    for s in all_stmts(m) {
        let moved: Vec<ExprId> = match &m.stmts[s] {
            Stmt::Assign {
                target,
                op: crate::ir::AssignOp::Set,
                value,
            } => match (f8_element(*target), f8_element(*value)) {
                (Some(t), Some(v)) if t.dtype == v.dtype => vec![*target, *value],
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        let mut bad: Option<(ExprId, DType)> = None;
        for e in super::stmt_exprs(&m.stmts[s]) {
            super::walk_expr(m, e, &mut |x| {
                if bad.is_none()
                    && !moved.contains(&x)
                    && let Some(v) = f8_element(x)
                {
                    bad = Some((x, v.dtype));
                }
            });
        }
        if let Some((x, d)) = bad {
            diags.push(
                at_expr(
                    m,
                    codes::F8,
                    x,
                    format!(
                        "`{}` is an {d} element: on the SIMT path tessel moves 8-bit float values (copies of tiles, `y.at(i) = x.at(i)` between elements of one type) but does not compute with them yet",
                        m.expr_to_string(x)
                    ),
                )
                .with_help("convert on the host, or read the tile with `mma.row.row` under a `: group-4` level (a WGMMA operand)"),
            );
        }
    }
}
