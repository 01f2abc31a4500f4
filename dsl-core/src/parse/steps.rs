//! Increments inside expressions: `trigger full.at(order++);`, `int j = ++i;`.
//!
//! C's meaning, kept where it is defined: `x++` reads `x`, then adds one; `++x` adds one, then
//! reads. The parser replaces each by a read of `x` and records a step; once the statement is
//! parsed, `stmt` puts `x += 1;` (or `x -= 1;`) right before it for `++x` and right after it for
//! `x++`. Everything downstream sees ordinary assignments, so an increment of an immutable name
//! is the checker's usual error, and a cyclic event generation `e.at(order++)` is one evaluated
//! value, as in Croqtile.
//!
//! Where the order would not be defined, the statement is rejected (`E0048`): an increment of
//! something other than a name, one in the head of a statement with a body (`if (k++ < n)`,
//! whose body would run between the read and the step), and a name the statement reads again
//! (`a.at(i) = i++;`).

use super::codes;
use super::cursor::{PResult, Parser, Step};
use crate::diag::Diagnostic;
use crate::ir::{AssignOp, Block, Expr, ExprId, Stmt};

impl Parser {
    /// Records the increment of `operand` (already parsed) spanning `first..` to the cursor;
    /// the expression's value is `operand` itself.
    pub(crate) fn expr_step(
        &mut self,
        first: usize,
        operand: ExprId,
        add: bool,
        pre: bool,
    ) -> PResult<ExprId> {
        let span = self.span_from(first);
        let Expr::Name(name) = &self.exprs[operand] else {
            let op = if add { "++" } else { "--" };
            return Err(self.error(
                Diagnostic::new(
                    codes::STEP_IN_EXPR,
                    span,
                    format!("`{op}` inside an expression needs a variable's name"),
                )
                .with_help(format!(
                    "increment an element on a statement of its own: `x.at(i){op};`"
                )),
            ));
        };
        let name = name.clone();
        self.steps.push(Step {
            name,
            add,
            pre,
            span,
        });
        Ok(operand)
    }

    /// The steps recorded by the head of a compound statement (its body's statements placed
    /// their own): each is an error.
    pub(crate) fn steps_in_head(&mut self) -> PResult<()> {
        let Some(s) = self.steps.first() else {
            return Ok(());
        };
        let (name, span) = (s.name.clone(), s.span);
        self.steps.clear();
        Err(self.error(
            Diagnostic::new(
                codes::STEP_IN_EXPR,
                span,
                format!("an increment of `{name}` in the head of a statement with a body"),
            )
            .with_help(format!(
                "the body would run between the read and the step: increment `{name}` on a statement of its own"
            )),
        ))
    }

    /// Puts the steps of the statement whose statements are `out[start..]` (whose expressions
    /// were made from `first_expr` on) around it.
    pub(crate) fn place_steps(
        &mut self,
        out: &mut Block,
        start: usize,
        first_expr: usize,
        steps: Vec<Step>,
    ) -> PResult<()> {
        for s in &steps {
            let reads = self
                .exprs
                .iter()
                .skip(first_expr)
                .filter(|(_, e)| matches!(e, Expr::Name(n) if *n == s.name))
                .count();
            if reads > 1 {
                return Err(self.error(
                    Diagnostic::new(
                        codes::STEP_IN_EXPR,
                        s.span,
                        format!(
                            "`{}` is incremented here and used again in the same statement",
                            s.name
                        ),
                    )
                    .with_help(format!(
                        "which use sees the step is not defined: increment `{}` on a statement of its own",
                        s.name
                    )),
                ));
            }
        }
        let mut pre = Vec::new();
        let mut post = Vec::new();
        for s in steps {
            let target = self.add_expr(Expr::Name(s.name), s.span);
            let value = self.add_expr(Expr::Int(1), s.span);
            let op = if s.add { AssignOp::Add } else { AssignOp::Sub };
            let id = self.add_stmt(Stmt::Assign { target, op, value }, s.span);
            if s.pre { pre.push(id) } else { post.push(id) }
        }
        out.splice(start..start, pre);
        out.extend(post);
        Ok(())
    }
}
