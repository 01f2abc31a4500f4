//! Shared memory: Σ shared tensor declarations × array counts (+ 8 B per mbarrier event, + 128 B
//! per element type of block-level `reduce`s)
//! must fit the per-block budget; shared and local shapes are positive compile-time values.

use super::{Cx, Limits, SharedBuffer, all_stmts, at_expr, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{CopyDst, ExtStmt, MemSpace, Module, Stmt};
use crate::span::Span;
use crate::sym::{Sym, SymEnv, SymError};

/// The kernel's shared buffers in source order: each declarator of a `shared` tensor
/// declaration, and the fresh buffer of each future `f = dma.copy … => shared;` or
/// `f = tma.copy … => shared;` (one per name, of the source tile's shape, `fresh_tile`: the
/// checker holds every binding of a name to one shape).
pub(crate) fn shared_buffers(
    m: &Module,
    bindings: &std::collections::HashMap<crate::ir::ExprId, super::Binding>,
) -> Vec<SharedBuffer> {
    let mut out: Vec<SharedBuffer> = Vec::new();
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::TensorDecl {
                space: MemSpace::Shared,
                dtype,
                shape,
                names,
                ..
            } => {
                for d in names {
                    out.push(SharedBuffer {
                        name: d.name.name.clone(),
                        stmt: s,
                        dtype: *dtype,
                        shape: shape
                            .iter()
                            .map(|&d| Sym::from_expr(m, d).ok_or(d))
                            .collect(),
                        count: d.count,
                        fresh: false,
                        slots: 1,
                    });
                }
            }
            Stmt::Ext(ExtStmt::DmaFuture {
                bind: Some(f),
                dst: CopyDst::Fresh(MemSpace::Shared),
                src,
                ..
            }) if !out.iter().any(|b| b.name == f.name) => {
                if let Some((shape, dtype)) = super::fresh_shape(m, bindings, s) {
                    out.push(SharedBuffer {
                        name: f.name.clone(),
                        stmt: s,
                        dtype,
                        shape: Ok(shape),
                        count: None,
                        fresh: true,
                        slots: 1,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// [`shared_buffers`], with one slot per thread of the block for each fresh buffer that is
/// each thread's own (`mma_uniform::per_thread_fresh`).
pub(crate) fn kernel_buffers(cx: &Cx, threads_per_block: u32) -> Vec<SharedBuffer> {
    let own = super::mma_uniform::per_thread_fresh(cx);
    let mut out = shared_buffers(cx.m, &cx.res.bindings);
    for b in &mut out {
        if b.fresh && own.contains(&b.name) {
            b.slots = threads_per_block.max(1);
        }
    }
    out
}

/// One declarator's share of shared memory.
struct Contrib {
    span: Span,
    text: String,
    bytes: u64,
}

/// Bytes of one `shared event` (an mbarrier).
const EVENT_BYTES: u64 = 8;

/// The bytes of a shared buffer under the config: its [`SharedBuffer::sym_bytes`] evaluated
/// (saturated when it overflows); `None` when a dimension or the count has no value of at
/// least 1 (reported where it is written).
fn buffer_bytes(cx: &Cx, b: &SharedBuffer, env: &SymEnv) -> Option<u64> {
    let positive = |e| cx.static_value(e).is_some_and(|v| v >= 1);
    let dims_ok = b
        .shape
        .as_ref()
        .is_ok_and(|s| s.iter().all(|d| d.eval(env).is_ok_and(|v| v >= 1)));
    if !dims_ok || !b.count.is_none_or(positive) {
        return None;
    }
    match b.sym_bytes(cx.m).ok()?.eval(env) {
        Ok(v) => u64::try_from(v).ok(),
        Err(SymError::Overflow) => Some(u64::MAX),
        Err(_) => None,
    }
}

fn tally(cx: &Cx, threads_per_block: u32, diags: &mut Diagnostics) -> (u64, Vec<Contrib>) {
    let m = cx.m;
    let mut contribs = Vec::new();
    let buffers = kernel_buffers(cx, threads_per_block);
    let env: SymEnv = cx
        .static_env
        .values
        .iter()
        .map(|(n, &v)| (n.clone(), v))
        .collect();
    // `at_launch`: a shared buffer's dimension, which may be sized at launch.
    let positive = |e, what: &str, at_launch: bool, diags: &mut Diagnostics| -> Option<u64> {
        match cx.static_value(e) {
            Some(v) if v >= 1 => Some(v as u64),
            Some(v) => {
                diags.push(
                    at_expr(
                        m,
                        codes::STATIC_SHAPE,
                        e,
                        format!(
                            "{what} `{}` is {v}; it must be at least 1",
                            m.expr_to_string(e)
                        ),
                    )
                    .with_help("check the tunables and constants it uses"),
                );
                None
            }
            // Sized by problem sizes: a shared buffer's dimension is the launch's to count
            // (`memory` places the buffer at a run-time offset, the runtime sizes and checks the
            // dynamic shared memory of each problem); an array count, a register array or a
            // scalar parameter's value (known only at the launch itself) is not lowered.
            None if at_launch && cx.resolved(e) && launch_sized(cx, e, false) => None,
            None if cx.resolved(e) && launch_sized(cx, e, true) => {
                let help = if at_launch {
                    "a shared buffer may be sized by problem sizes (the names in parameter shapes), tunables and constants; pass the length as a dimension of a tensor parameter"
                } else {
                    "tessel sizes register arrays and array counts by tunables and constants; tile the problem size with a tunable (`[TM]` with `require M % TM == 0;`)"
                };
                diags.push(
                    at_expr(m, codes::NOT_LOWERED_LAUNCH_SIZED, e, format!("not supported yet: a shared or local buffer sized at launch ({what} `{}`)", m.expr_to_string(e)))
                        .with_help(help),
                );
                None
            }
            None if cx.resolved(e) => {
                diags.push(
                    at_expr(m, codes::STATIC_SHAPE, e, format!("{what} `{}` must be a compile-time constant", m.expr_to_string(e)))
                        .with_help("shared and local buffers are sized by tunables and constants, not by problem sizes"),
                );
                None
            }
            None => None,
        }
    };
    for s in all_stmts(m) {
        match &m.stmts[s] {
            Stmt::TensorDecl {
                space,
                dtype,
                shape,
                names,
                ..
            } if *space != MemSpace::Global => {
                for &d in shape {
                    positive(d, "dimension", *space == MemSpace::Shared, diags);
                }
                let dims: Vec<String> = shape.iter().map(|&d| m.expr_to_string(d)).collect();
                let vals: Vec<String> = shape
                    .iter()
                    .map(|&d| {
                        cx.static_value(d)
                            .map(|v| v.to_string())
                            .unwrap_or("?".into())
                    })
                    .collect();
                for d in names {
                    let count = match d.count {
                        Some(c) => positive(c, "array count", false, diags),
                        None => Some(1),
                    };
                    if *space != MemSpace::Shared {
                        continue;
                    }
                    let buffer = buffers
                        .iter()
                        .find(|b| b.stmt == s && !b.fresh && b.name == d.name.name);
                    if let (Some(c), Some(bytes)) =
                        (count, buffer.and_then(|b| buffer_bytes(cx, b, &env)))
                    {
                        let (ct, cv) = match d.count {
                            Some(ce) => (format!("{} × ", m.expr_to_string(ce)), format!("{c} × ")),
                            None => (String::new(), String::new()),
                        };
                        contribs.push(Contrib {
                            span: d.name.span,
                            text: format!(
                                "`{}`: {ct}[{}] {dtype} = {cv}{} × {} B = {bytes} B",
                                d.name.name,
                                dims.join(", "),
                                vals.join(" × "),
                                dtype.size_bytes()
                            ),
                            bytes,
                        });
                    }
                }
            }
            Stmt::EventDecl {
                space: MemSpace::Shared,
                names,
            } => {
                for d in names {
                    let count = match d.count {
                        Some(c) => positive(c, "event array count", false, diags),
                        None => Some(1),
                    };
                    if let Some(c) = count {
                        contribs.push(Contrib {
                            span: d.name.span,
                            text: format!("`{}`: {c} event(s) × {EVENT_BYTES} B", d.name.name),
                            bytes: c.saturating_mul(EVENT_BYTES),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    // The fresh buffers of futures (their shapes are static: `check/fresh.rs`).
    for b in buffers.iter().filter(|b| b.fresh) {
        let Some(bytes) = buffer_bytes(cx, b, &env) else {
            continue;
        };
        let dims: Vec<String> = b
            .shape
            .iter()
            .flatten()
            .map(|d| d.eval(&env).unwrap_or(0).to_string())
            .collect();
        let per_thread = if b.slots > 1 {
            format!(", one for each of {} threads", b.slots)
        } else {
            String::new()
        };
        contribs.push(Contrib {
            span: m.stmt_span(b.stmt),
            text: format!(
                "`{}` (the future's buffer{per_thread}): [{}] {} = {bytes} B",
                b.name,
                dims.join(" × "),
                b.dtype
            ),
            bytes,
        });
    }
    let total = contribs.iter().fold(0u64, |a, c| a.saturating_add(c.bytes));
    (total, contribs)
}

/// The static shared memory of `reduce … : block` (`tsl_warps_meet<THREADS, T>` declares its
/// slots itself, so the launch's dynamic size leaves them out): one 4-byte slot per warp, at
/// most 32, for each element type reduced.
fn reduce_slots(cx: &Cx) -> Vec<Contrib> {
    let m = cx.m;
    let mut contribs = Vec::new();
    let mut kinds = Vec::new();
    for s in all_stmts(m) {
        if let Stmt::Reduce {
            level: crate::ir::Level::Block,
            ..
        } = &m.stmts[s]
        {
            let dtype = super::simt::reduce_dtype(cx, s);
            if !kinds.contains(&dtype) {
                kinds.push(dtype);
                contribs.push(Contrib {
                    span: m.stmt_span(s),
                    text: "a block `reduce`'s slots: 32 × 4 B = 128 B".to_string(),
                    bytes: 128,
                });
            }
        }
    }
    contribs
}

/// Shared-memory bytes, with errors only for shapes that have no value.
pub(crate) fn smem_total(cx: &Cx, threads_per_block: u32, diags: &mut Diagnostics) -> u64 {
    tally(cx, threads_per_block, diags).0
}

pub(crate) fn check_smem(
    cx: &Cx,
    limits: &Limits,
    threads_per_block: u32,
    diags: &mut Diagnostics,
) -> u64 {
    let (total, mut contribs) = tally(cx, threads_per_block, diags);
    let slots = reduce_slots(cx);
    let with_slots = slots.iter().fold(total, |a, c| a.saturating_add(c.bytes));
    contribs.extend(slots);
    if with_slots > limits.max_smem_per_block {
        contribs.sort_by_key(|c| std::cmp::Reverse(c.bytes));
        let big = &contribs[0];
        let mut d = Diagnostic::new(
            codes::SMEM_BUDGET,
            big.span,
            format!(
                "shared memory over budget: {with_slots} bytes ({:.1} KiB) per block, the limit is {} bytes ({} KiB); the biggest is {}",
                with_slots as f64 / 1024.0,
                limits.max_smem_per_block,
                limits.max_smem_per_block / 1024,
                big.text
            ),
        );
        for c in contribs.iter().skip(1).take(3) {
            d = d.with_note(c.span, c.text.clone());
        }
        let over = with_slots - limits.max_smem_per_block;
        d = d.with_help(format!(
            "free at least {over} bytes: fewer pipeline stages or smaller tiles (the tuner skips such configurations)"
        ));
        diags.push(d);
    }
    total
}

/// Whether `e` is an integer known at launch: problem sizes, tunables and constants, and with
/// `scalars` integer scalar parameters (not loop, parallel or local variables, a whole shape
/// `x.span`, or a float).
fn launch_sized(cx: &Cx, e: crate::ir::ExprId, scalars: bool) -> bool {
    let m = cx.m;
    let mut ok = true;
    super::walk_expr(m, e, &mut |x| {
        ok &= match &m.exprs[x] {
            crate::ir::Expr::Name(_) => match cx.res.bindings.get(&x) {
                Some(
                    super::Binding::SymDim { .. }
                    | super::Binding::Tunable
                    | super::Binding::Constant,
                ) => true,
                Some(super::Binding::Param(i)) => {
                    scalars
                        && m.kernel.params.get(*i).is_some_and(|p| {
                            p.shape.is_empty() && matches!(p.dtype, crate::ir::DType::I32)
                        })
                }
                _ => false,
            },
            crate::ir::Expr::Float { .. } | crate::ir::Expr::Field { .. } => false,
            _ => true,
        };
    });
    ok
}
