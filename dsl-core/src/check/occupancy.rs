//! `occupancy N;`: the minimum number of blocks per SM a SIMT kernel is compiled for
//! (`__launch_bounds__(THREADS, N)`). `N` must evaluate, under the configuration and without
//! problem sizes, to an integer in 1..=32 (32 resident blocks is the most any SM holds). On the
//! Hopper path the lowering sizes blocks per SM itself (the warpgroup register split), so the
//! item is refused there.

use super::codes;
use super::eval::{EvalError, eval};
use super::header::report_eval;
use super::{Cx, all_stmts};
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
    if let Some(s) = hopper_stmt(m) {
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
    if !cx.resolved(o) {
        return; // an unknown name: `resolve` reported it
    }
    let dims = m.symbolic_dims();
    match eval(m, o, &cx.static_env) {
        Ok(v) if (1..=MAX_BLOCKS_PER_SM).contains(&v) => {}
        Ok(v) => diags.push(
            Diagnostic::new(
                codes::OCCUPANCY,
                span,
                format!(
                    "`occupancy {}` asks for {v} blocks per SM{}; it must be in 1..={MAX_BLOCKS_PER_SM}",
                    m.expr_to_string(o),
                    values(cx, o)
                ),
            )
            .with_help(
                "give at least 1 and at most 32 blocks per SM (e.g. a tunable `MINB in [1, 2]`), or constrain the tunables with a `require`",
            ),
        ),
        Err(EvalError::NoValue { name, expr }) if dims.contains(&name) => diags.push(
            Diagnostic::new(
                codes::OCCUPANCY,
                m.expr_span(expr),
                format!(
                    "`occupancy` is fixed when the kernel is compiled, but `{name}` is a problem dimension known only at launch"
                ),
            )
            .with_help("write the block count over tunables and constants only"),
        ),
        Err(err) => report_eval(m, &err, "the `occupancy` block count", &cx.static_env, diags),
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
