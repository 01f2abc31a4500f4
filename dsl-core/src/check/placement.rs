//! Placement: what may appear where. Shared/local buffers and events are declared inside a
//! `parallel` (global tensors only as parameters); every statement runs inside the top-level
//! `parallel`; a WGMMA `mma.load` reads shared memory; `tma.copy` moves between global and
//! shared memory and `dma.copy` has at least one on-chip side.

use super::view::Views;
use super::{Cx, all_stmts, at_expr, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{CopyDst, MemSpace, Stmt};

pub(crate) fn check_placement(cx: &Cx, views: &Views, diags: &mut Diagnostics) {
    let m = cx.m;
    let hoisted = super::kernel_scope::hoistable(m);
    for &s in &m.kernel.body {
        let span = m.stmt_span(s);
        match &m.stmts[s] {
            Stmt::Parallel { .. } => {}
            Stmt::TensorDecl { space, names, .. } if *space != MemSpace::Global => {
                let at = names.first().map(|d| d.name.span).unwrap_or(span);
                diags.push(
                    Diagnostic::new(codes::DECL_PLACE, at, format!("a {space} tensor must be declared inside a `parallel`"))
                        .with_help(format!("move it into the `parallel … : block` body ({space} memory belongs to a block or thread)")),
                );
            }
            Stmt::EventDecl { names, .. } => {
                let at = names.first().map(|d| d.name.span).unwrap_or(span);
                diags.push(
                    Diagnostic::new(
                        codes::DECL_PLACE,
                        at,
                        "events must be declared inside a `parallel`",
                    )
                    .with_help("move the declaration into the `parallel … : block` body"),
                );
            }
            Stmt::TensorDecl { .. } => {}
            // The function's result: the launch form drops a returned tensor, and the gate
            // reports a returned scalar (E1302).
            Stmt::Ext(crate::ir::ExtStmt::Return { .. }) => {}
            // Checked at launch (`check/asserts.rs`), wherever it is written.
            Stmt::Ext(crate::ir::ExtStmt::Assert { .. }) => {}
            // Kernel-scope scalars: every thread computes them (`check/kernel_scope.rs`).
            _ if hoisted.contains(&s) => {}
            // `v = t.span_as(…);`: a name for a view, which each use reads; nothing runs.
            Stmt::Let { value, .. } if super::is_view_let(m, *value) => {}
            _ if let Some(what) = super::kernel_scope::effect(m, s) => diags.push(
                Diagnostic::new(
                    codes::KERNEL_SCOPE_EFFECT,
                    span,
                    format!("not supported yet: {what} outside every `parallel`"),
                )
                .with_help("Croqtile runs this once on the host; tessel computes only scalar values outside a `parallel` (every thread alike): move it into the `parallel`, under a condition that picks one thread if it must happen once"),
            ),
            _ => diags.push(
                Diagnostic::new(
                    codes::OUTSIDE_PARALLEL,
                    span,
                    "statement outside any `parallel`: it would run on no thread",
                )
                .with_help("put the kernel body inside `parallel {bm, bn} by [...] : block { … }`"),
            ),
        }
    }
    for s in all_stmts(m) {
        match &m.stmts[s] {
            // At the top of the body (outside every `parallel`) a global tensor is an output
            // the launch allocates: legal, though not lowered yet (the gate says so).
            Stmt::TensorDecl {
                space: MemSpace::Global,
                names,
                ..
            } if !m.kernel.body.contains(&s) => {
                let at = names.first().map(|d| d.name.span).unwrap_or(m.stmt_span(s));
                diags.push(
                    Diagnostic::new(codes::DECL_PLACE, at, "global tensors cannot be declared in a kernel body")
                        .with_help("pass it as a kernel parameter (`global f16 [M, N] name`), or declare it `shared`/`local`"),
                );
            }
            // A whole `frag` register tile is a register-A operand (`check/wgmma.rs`).
            Stmt::MmaLoad { src, .. }
                if cx.in_group4(s) && super::wgmma::frag_decl_operand(cx, s).is_none() =>
            {
                if let Some(v) = views.get(*src)
                    && v.space != MemSpace::Shared
                {
                    diags.push(
                            at_expr(
                                m,
                                codes::MMA_LOAD_SPACE,
                                *src,
                                format!("WGMMA reads its operands from shared memory, but `{}` is {}", m.expr_to_string(*src), v.space),
                            )
                            .with_help("copy the tile into a shared buffer first (`tma.copy … => lhs_s;`), then `mma.load` from it"),
                        );
                }
            }
            Stmt::TmaCopy { src, dst, .. } => {
                let sp = views.get(*src).map(|v| v.space);
                let dp = match dst {
                    CopyDst::Expr(d) => views.get(*d).map(|v| v.space),
                    CopyDst::Fresh(sp) => Some(*sp),
                };
                if let (Some(a), Some(b)) = (sp, dp) {
                    let ok = matches!(
                        (a, b),
                        (MemSpace::Global, MemSpace::Shared) | (MemSpace::Shared, MemSpace::Global)
                    );
                    if !ok {
                        diags.push(
                            Diagnostic::new(codes::COPY_SPACE, m.stmt_span(s), format!("`tma.copy` from {a} to {b} memory: TMA moves tiles between global and shared memory"))
                                .with_help("use `dma.copy` for other copies"),
                        );
                    }
                }
            }
            Stmt::DmaCopy { src, dst, .. } => {
                let sp = views.get(*src).map(|v| v.space);
                let dp = match dst {
                    CopyDst::Expr(d) => views.get(*d).map(|v| v.space),
                    CopyDst::Fresh(sp) => Some(*sp),
                };
                if sp == Some(MemSpace::Global) && dp == Some(MemSpace::Global) {
                    diags.push(
                        Diagnostic::new(
                            codes::COPY_SPACE,
                            m.stmt_span(s),
                            "`dma.copy` from global to global memory",
                        )
                        .with_help("copy into a shared or local buffer"),
                    );
                }
            }
            _ => {}
        }
    }
    divergent_events(cx, &m.kernel.body, None, diags);
}

/// Events declared where only some threads of the block run (under `inthreads`, or an `if`
/// whose condition may differ between threads, `super::events::block_uniform`): an event is a
/// barrier in shared memory that the lowering initialises from one thread and then publishes
/// with a barrier over the whole block, which the threads outside the condition never reach.
fn divergent_events(
    cx: &Cx,
    b: &[crate::ir::StmtId],
    guard: Option<crate::ir::StmtId>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    for &s in b {
        let st = &m.stmts[s];
        if let (Stmt::EventDecl { names, .. }, Some(g)) = (st, guard) {
            let at = names.first().map(|d| d.name.span).unwrap_or(m.stmt_span(s));
            let cond = match &m.stmts[g] {
                Stmt::InThreads { cond, .. } | Stmt::If { cond, .. } => m.expr_span(*cond),
                _ => m.stmt_span(g),
            };
            diags.push(
                Diagnostic::new(
                    codes::EVENT_DIVERGENT_DECL,
                    at,
                    "an event declared under a condition that may differ between the threads of the block: its barrier is initialised and published with a synchronisation of the whole block, which the threads that skip the declaration never reach",
                )
                .with_note(cond, "the condition")
                .with_help("declare the event beside the block's shared buffers, before the `inthreads` / `if` (the threads that do not use it still share it)"),
            );
        }
        let inner = match st {
            Stmt::InThreads { .. } => Some(s),
            Stmt::If { cond, .. } if !super::events::block_uniform(cx, *cond) => Some(s),
            _ => guard,
        };
        for blk in super::stmt_blocks(st) {
            divergent_events(cx, blk, inner, diags);
        }
    }
}
