//! Where C++ takes integers only: an index (`.at`, `.chunkat`, `.from`, `.view`, `.step`; an
//! array entry is `lowerable.rs`'s `E1116`), and the operands of `&`, `|`, `^`, `<<`, `>>` (a
//! floating-point `%` lowers as `fmodf`). A floating-point (or `bool`) value there would either
//! not compile (`s[float]`, `f ^ 1`) or be truncated in silence (an argument converted to
//! `int`): `E0112`, pointing at the value.

use super::{Cx, at_expr, codes, stmt_exprs, walk_expr};
use crate::diag::Diagnostics;
use crate::ir::{BinaryOp, Expr, ExprId, ViewOp};

pub(crate) fn check_integer_operands(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut reported: Vec<ExprId> = Vec::new();
    for s in super::all_stmts(m) {
        for e in stmt_exprs(&m.stmts[s]) {
            walk_expr(m, e, &mut |x| {
                let (operands, role): (Vec<ExprId>, String) = match &m.exprs[x] {
                    Expr::View { op, args, .. }
                        if matches!(
                            op,
                            ViewOp::At
                                | ViewOp::Chunkat
                                | ViewOp::From
                                | ViewOp::Window
                                | ViewOp::Step
                        ) =>
                    {
                        (args.clone(), format!("an argument of `.{}`", op.name()))
                    }
                    Expr::Binary {
                        op:
                            op @ (BinaryOp::BitAnd
                            | BinaryOp::BitOr
                            | BinaryOp::BitXor
                            | BinaryOp::Shl
                            | BinaryOp::Shr),
                        lhs,
                        rhs,
                    } => (vec![*lhs, *rhs], format!("an operand of `{}`", op.symbol())),
                    _ => return,
                };
                for a in operands {
                    if matches!(m.exprs[a], Expr::Wildcard) {
                        continue;
                    }
                    let Some((at, what)) = not_integer(cx, a) else {
                        continue;
                    };
                    if reported.contains(&at) {
                        continue;
                    }
                    reported.push(at);
                    diags.push(
                        at_expr(
                            m,
                            codes::NOT_INTEGER_OPERAND,
                            at,
                            format!(
                                "`{}` is {what}, but {role} is an integer",
                                m.expr_to_string(at)
                            ),
                        )
                        .with_help(
                            "compute it with integers, or convert it explicitly: `__to<s32>(…)`",
                        ),
                    );
                }
            });
        }
    }
}

/// The floating-point (or `bool`) part of `e` that gives it its value, if any: what
/// `geometry::not_integer` finds, and elements of floating-point tensors.
fn not_integer(cx: &Cx, e: ExprId) -> Option<(ExprId, &'static str)> {
    let m = cx.m;
    if let Some(found) = super::geometry::not_integer(cx, e) {
        return Some(found);
    }
    let mut found = None;
    walk_values(m, e, &mut |x| {
        if found.is_none() && float_element(cx, x) {
            found = Some((x, "a floating-point value"));
        }
    });
    found
}

/// The subexpressions whose values `e` takes: not an index inside it, a `select`'s condition
/// or a conversion's operand.
fn walk_values(m: &crate::ir::Module, e: ExprId, f: &mut impl FnMut(ExprId)) {
    f(e);
    match &m.exprs[e] {
        Expr::Unary { expr, .. } => walk_values(m, *expr, f),
        Expr::Binary { op, lhs, rhs } if !op.is_comparison() => {
            walk_values(m, *lhs, f);
            walk_values(m, *rhs, f);
        }
        Expr::Call { func, args } if func.name == "select" => {
            for &a in args.iter().skip(1) {
                walk_values(m, a, f);
            }
        }
        Expr::Call { func, args } if !func.name.starts_with("__to<") => {
            for &a in args {
                walk_values(m, a, f);
            }
        }
        _ => {}
    }
}

/// An element (`x.at(i)`) of a floating-point tensor.
fn float_element(cx: &Cx, e: ExprId) -> bool {
    matches!(cx.m.exprs[e], Expr::View { op: ViewOp::At, .. })
        && super::sparse::operand_dtype(cx, e).is_some_and(|d| d.is_float())
}
