//! `assert(cond, "message");` — Croqtile's one assertion, decided as early as it can be:
//!
//! - over tunables, constants and static extents (`a.span(0)` of a `[128, 512]` tensor, a
//!   shared tile's extents): here, for the configuration — false is `E1010` with the message,
//!   true leaves nothing in the kernel;
//! - over problem sizes too (`M % 16 == 0`, `b.span(1) > 0` of an `[M, K]` tensor): at every
//!   launch, before the kernel runs, like a `require` (the launch plan's checks, a typed error
//!   that quotes the assertion), and here as well when the problem is given;
//! - over values the kernel computes (thread and loop variables, scalars, elements): not
//!   supported yet (`E1123`). Croqtile checks those on the device only when asked to.
//!
//! Wherever it is written, an assertion tests values every thread sees alike, so tessel
//! checks it once, at launch (Croqtile's default "entry" level).

use super::{Binding, Cx, codes, walk_expr};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Expr, ExprId, ExtStmt, Stmt};
use crate::sym::{Sym, SymEnv};

/// The assertions over problem sizes, as the launch checks them: the condition, and the text
/// a failure quotes (`assert(M % 16 == 0, "…")`).
pub(crate) fn check_asserts(cx: &Cx, diags: &mut Diagnostics) -> Vec<(Sym, String)> {
    let m = cx.m;
    let env: SymEnv = cx.env.values.iter().map(|(n, &v)| (n.clone(), v)).collect();
    let dims = m.symbolic_dims();
    let mut launch = Vec::new();
    for s in super::all_stmts(m) {
        let Stmt::Ext(ExtStmt::Assert { cond, message }) = &m.stmts[s] else {
            continue;
        };
        let text = match message {
            Some(msg) => format!("assert({}, {msg:?})", m.expr_to_string(*cond)),
            None => format!("assert({})", m.expr_to_string(*cond)),
        };
        let sym = match host_value(cx, *cond) {
            Ok(sym) => sym,
            Err(at) => {
                diags.push(
                    Diagnostic::new(
                        codes::NOT_LOWERED_DEVICE_ASSERT,
                        m.expr_span(at),
                        format!(
                            "not supported yet: an `assert` over `{}`, a value the kernel computes",
                            m.expr_to_string(at)
                        ),
                    )
                    .with_help("tessel checks assertions at launch, over tunables, constants, problem sizes and extents (`x.span(0)`); test a value the kernel computes with an `if`"),
                );
                continue;
            }
        };
        let mut names = Vec::new();
        sym.names(&mut names);
        if names.iter().any(|n| dims.contains(n)) {
            launch.push((sym.clone(), text.clone()));
        }
        if sym.eval(&env) == Ok(0) {
            let vals: Vec<String> = names
                .iter()
                .filter_map(|n| env.get(n).map(|v| format!("{n} = {v}")))
                .collect();
            let what = match message {
                Some(msg) => format!("assertion failed: {msg}"),
                None => "assertion failed".to_string(),
            };
            let given = if vals.is_empty() {
                String::new()
            } else {
                format!(" ({})", vals.join(", "))
            };
            diags.push(
                Diagnostic::new(
                    codes::ASSERT_FAILED,
                    m.stmt_span(s),
                    format!("{what}: `{}` is false{given}", m.expr_to_string(*cond)),
                )
                .with_help(if names.iter().any(|n| dims.contains(n)) {
                    "the problem's sizes do not meet the assertion: launch it on sizes that do, or change the condition"
                } else {
                    "the condition holds for no launch of this configuration: change the configuration, the shapes or the condition"
                }),
            );
        }
    }
    launch
}

/// `e` as an integer formula over tunables, constants and problem sizes (`x.span(d)` of a
/// declared shape is already its dimension: the parser's sugar), or the first sub-expression
/// that is none of these (a value the kernel computes).
fn host_value(cx: &Cx, e: ExprId) -> Result<Sym, ExprId> {
    let m = cx.m;
    let mut kernel_value = None;
    // Outermost first: an element (`x.at(i)`) is reported whole, not by its tensor's name.
    walk_expr(m, e, &mut |x| {
        let kernel = match &m.exprs[x] {
            Expr::View { .. } | Expr::Field { .. } | Expr::Index { .. } => true,
            Expr::Name(_) => !matches!(
                cx.res.bindings.get(&x),
                Some(Binding::Tunable | Binding::Constant | Binding::SymDim { .. })
            ),
            _ => false,
        };
        if kernel && kernel_value.is_none() {
            kernel_value = Some(x);
        }
    });
    match kernel_value {
        Some(x) => Err(x),
        // Anything else that is no integer arithmetic (an element, a float) is the kernel's.
        None => Sym::from_expr(m, e).ok_or(e),
    }
}
