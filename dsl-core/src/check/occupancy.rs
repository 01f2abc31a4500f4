//! `occupancy N;`: the minimum number of blocks per SM a SIMT kernel is compiled for
//! (`__launch_bounds__(THREADS, N)`). `N` must evaluate, under the configuration and without
//! problem sizes, to an integer in 1..=32 (32 resident blocks is the most any SM holds). On the
//! Hopper path the lowering sizes blocks per SM itself (the warpgroup register split), so the
//! item is refused there.
//!
//! Registers: a WGMMA accumulator lives in its warpgroup's registers for the whole `mma` loop and
//! cannot spill, so a block whose threads cannot each hold their share of it (plus a little for
//! descriptors and loop state) is rejected rather than left for ptxas to refuse.

use super::codes;
use super::eval::{EvalError, eval};
use super::header::report_eval;
use super::{Cx, FragInfo, FragKind, LoweringPath, all_stmts};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::Stmt;

/// Most blocks an SM keeps resident (sm_80 … sm_90).
pub const MAX_BLOCKS_PER_SM: i64 = 32;

/// The statement that puts the kernel on the Hopper path (the lowering's rule), if any.
pub(super) fn hopper_stmt(m: &crate::ir::Module) -> Option<crate::ir::StmtId> {
    all_stmts(m).into_iter().find(|&s| {
        matches!(
            m.stmts[s],
            Stmt::TmaCopy { .. } | Stmt::Mma { .. } | Stmt::MmaLoad { .. } | Stmt::EventDecl { .. }
        )
    })
}

pub(crate) fn check_occupancy(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let Some(o) = m.occupancy else { return };
    let span = m.expr_span(o);
    // A warp-level `mma` kernel is a SIMT kernel (`mma.sync`), whatever its `mma` statements;
    // fed by TMA it sizes its blocks per SM as one (`lower/plan.rs`).
    if let Some(s) = hopper_stmt(m).filter(|_| !cx.warp_kernel() && !cx.tma_warp_kernel()) {
        diags.push(
            Diagnostic::new(
                codes::OCCUPANCY_PATH,
                span,
                "`occupancy` applies to SIMT kernels; this kernel takes the Hopper (TMA/WGMMA) path, whose blocks per SM the lowering sizes from the warpgroup register split",
            )
            .with_note(m.stmt_span(s), "this statement makes it a Hopper kernel")
            .with_help("remove the `occupancy` item"),
        );
        return;
    }
    check_int_item(
        cx,
        o,
        &IntItem {
            keyword: "occupancy",
            unit: "blocks per SM",
            max: MAX_BLOCKS_PER_SM,
            code: codes::OCCUPANCY,
            help: "give at least 1 and at most 32 blocks per SM (e.g. a tunable `MINB in [1, 2]`), or constrain the tunables with a `require`",
            quantity: "block count",
        },
        diags,
    );
}

/// A header item whose expression is a compile-time integer in `1..=max` (`occupancy N;`,
/// `cluster C;`), for the messages.
pub(super) struct IntItem<'a> {
    pub keyword: &'a str,
    /// What the value counts (`blocks per SM`).
    pub unit: &'a str,
    pub max: i64,
    pub code: &'static str,
    /// Help for a value out of range.
    pub help: &'a str,
    /// The value's name in other messages (`block count`).
    pub quantity: &'a str,
}

/// Checks that `e` evaluates, under the configuration and without problem sizes, to an integer
/// in `1..=item.max` (unknown names are `resolve`'s to report).
pub(super) fn check_int_item(
    cx: &Cx,
    e: crate::ir::ExprId,
    item: &IntItem,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    if !cx.resolved(e) {
        return; // an unknown name: `resolve` reported it
    }
    let (kw, max) = (item.keyword, item.max);
    match eval(m, e, &cx.static_env) {
        Ok(v) if (1..=max).contains(&v) => {}
        Ok(v) => diags.push(
            Diagnostic::new(
                item.code,
                m.expr_span(e),
                format!(
                    "`{kw} {}` asks for {v} {}{}; it must be in 1..={max}",
                    m.expr_to_string(e),
                    item.unit,
                    values(cx, e)
                ),
            )
            .with_help(item.help),
        ),
        Err(EvalError::NoValue { name, expr }) if m.symbolic_dims().contains(&name) => diags.push(
            Diagnostic::new(
                item.code,
                m.expr_span(expr),
                format!(
                    "`{kw}` is fixed when the kernel is compiled, but `{name}` is a problem dimension known only at launch"
                ),
            )
            .with_help(format!("write the {} over tunables and constants only", item.quantity)),
        ),
        Err(err) => report_eval(
            m,
            &err,
            &format!("the `{kw}` {}", item.quantity),
            &cx.static_env,
            diags,
        ),
    }
}

/// ` (MINB = 64)`: the values of the names in `e`, for the message (empty if it has none).
pub(super) fn values(cx: &Cx, e: crate::ir::ExprId) -> String {
    let mut vals: Vec<String> = Vec::new();
    super::walk_expr(cx.m, e, &mut |x| {
        if let crate::ir::Expr::Name(n) = &cx.m.exprs[x]
            && let Some(v) = cx.static_env.values.get(n)
        {
            let s = format!("{n} = {v}");
            if !vals.contains(&s) {
                vals.push(s);
            }
        }
    });
    if vals.is_empty() {
        String::new()
    } else {
        format!(" ({})", vals.join(", "))
    }
}

/// Registers a WGMMA kernel needs besides its accumulator fragments: descriptors, addresses,
/// loop counters and barrier phases (ptxas needed 26 for a 64-register accumulator at 72).
const NON_ACC_REGISTERS: u32 = 16;

/// Every WGMMA accumulator fits the registers a thread of a `threads`-thread block can have
/// when one block runs per SM (64K registers shared, in units of 8, at most 255).
pub(crate) fn check_acc_registers(
    cx: &Cx,
    frags: &std::collections::HashMap<crate::ir::StmtId, FragInfo>,
    threads: u32,
    diags: &mut Diagnostics,
) {
    if threads == 0 || cx.lowering_path() != LoweringPath::Hopper {
        return;
    }
    let limit = (65536 / threads / 8 * 8).min(255);
    let mut accs: Vec<&FragInfo> = frags.values().filter(|f| f.kind == FragKind::Acc).collect();
    accs.sort_by_key(|f| f.def);
    for f in accs {
        let name = match &cx.m.stmts[f.def] {
            crate::ir::Stmt::MmaFill { name, .. } | crate::ir::Stmt::MmaLoad { name, .. } => {
                name.name.as_str()
            }
            _ => "?",
        };
        let [Some(rows), Some(cols)] =
            [f.shape.first(), f.shape.get(1)].map(|d| d.and_then(|d| d.value))
        else {
            continue;
        };
        if rows <= 0 || cols <= 0 {
            continue; // the shape checks report it
        }
        // One warpgroup (128 threads) holds the fragment; 32-bit registers.
        let regs = rows
            .saturating_mul(cols)
            .saturating_mul(i64::from(f.dtype.size_bytes()))
            / 4
            / 128;
        if regs.saturating_add(i64::from(NON_ACC_REGISTERS)) > i64::from(limit) {
            diags.push(
                Diagnostic::new(
                    codes::ACC_REGISTERS,
                    cx.m.stmt_span(f.def),
                    format!(
                        "the accumulator `{name}` ([{rows}, {cols}] {}) needs {regs} registers in each thread of its warpgroup, but a block of {threads} threads leaves each thread at most {limit}",
                        f.dtype.name()
                    ),
                )
                .with_help(format!(
                    "use fewer threads per block or a narrower accumulator (at most {} registers of accumulator per thread here)",
                    i64::from(limit) - i64::from(NON_ACC_REGISTERS)
                )),
            );
        }
    }
}
