//! Arithmetic in kernel expressions: a divisor (`/`, `%`, `cdiv`) that is zero under the
//! configuration (or the problem sizes at launch) — even when the dividend has no value yet,
//! as in `cdiv(K, 0)` — and any operation whose exact value does not fit in 64 bits. The
//! header's constants and `require`s are evaluated (and reported) by the header pass.

use super::super::eval::{EvalError, eval};
use super::super::{Cx, at_expr, codes, stmt_exprs, walk_expr};
use crate::diag::Diagnostics;
use crate::ir::{BinaryOp, Expr, ExprId};

pub(super) fn check(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut roots: Vec<ExprId> = Vec::new();
    for s in super::super::all_stmts(m) {
        roots.extend(stmt_exprs(&m.stmts[s]));
    }
    for p in &m.kernel.params {
        roots.extend(p.shape.iter().copied());
    }
    for root in roots {
        walk_expr(m, root, &mut |x| node(cx, x, diags));
    }
}

fn node(cx: &Cx, x: ExprId, diags: &mut Diagnostics) {
    let m = cx.m;
    let divisor = match &m.exprs[x] {
        Expr::Binary {
            op: BinaryOp::Div | BinaryOp::Rem,
            rhs,
            ..
        } => Some(*rhs),
        Expr::Call { func, args } if func.name == "cdiv" && args.len() == 2 => Some(args[1]),
        _ => None,
    };
    if let Some(d) = divisor
        && cx.value(d) == Some(0)
    {
        diags.push(
            at_expr(
                m,
                codes::DIV_ZERO,
                d,
                match m.exprs[d] {
                    Expr::Int(_) => "division by zero: the divisor is 0".to_string(),
                    _ => format!(
                        "division by zero: `{}` is 0 under this configuration",
                        m.expr_to_string(d)
                    ),
                },
            )
            .with_help("divide by a value that is at least 1 for every configuration (e.g. `max(T, 1)`), or constrain it with `require`"),
        );
        return;
    }
    let arith = matches!(
        m.exprs[x],
        Expr::Binary { .. } | Expr::Unary { .. } | Expr::Call { .. } | Expr::Compose { .. }
    );
    if !arith {
        return;
    }
    if let Err(EvalError::Overflow { expr }) = eval(m, x, &cx.env)
        && expr == x
    {
        diags.push(
            at_expr(
                m,
                codes::OVERFLOW,
                x,
                format!(
                    "`{}` overflows 64-bit integers under this configuration{}",
                    m.expr_to_string(x),
                    if cx.env.values.len() > cx.static_env.values.len() {
                        " and problem size"
                    } else {
                        ""
                    }
                ),
            )
            .with_help("use smaller tunables or problem sizes, or reorder the expression (divide before multiplying)"),
        );
    }
}
