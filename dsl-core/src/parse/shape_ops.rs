//! Two spellings of shapes inside expressions:
//!
//! - `|x|`, Croqtile's element count: the product of the dimensions of `x` — a named shape
//!   (`sp : [6, 10];`), a tensor or a future of a shape the parser knows, `x.span`, or one
//!   dimension `x.span(d)`. The parser writes the product (sugar); a shape it does not know is
//!   `E1684`, spanned at the operand.
//! - `t.view(A, B : SA, SB)`: a window of `[A, B]` elements whose rows and columns are `SA`
//!   and `SB` elements apart in `t`'s memory; the strides are a [`ViewOp::Strides`] applied to
//!   the window (`t.view(A, B).strides(SA, SB)` in the IR, printed as written).

use super::codes;
use super::cursor::{PResult, Parser, Reported};
use crate::diag::Diagnostic;
use crate::ir::{BinaryOp, Expr, ExprId, ViewOp};

impl Parser {
    /// `|x|` (the cursor is at the first `|`).
    pub(crate) fn element_count(&mut self) -> PResult<ExprId> {
        let first = self.bump();
        let inner = self.postfix()?;
        if self.eat_op("|").is_none() {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "`|` to close the element count",
                "write `|x.span|`",
            ));
        }
        let span = self.span_from(first);
        let Some(dims) = self.shape_dims_of(inner) else {
            let what = self.exprs_text(inner);
            return Err(self.error(
                Diagnostic::new(
                    codes::ELEMENT_COUNT,
                    self.exprs.get_span(inner),
                    format!("not supported yet: the element count of `{what}`, whose shape is not known where it is written"),
                )
                .with_help("count a named shape, a parameter, a declared tensor or a future of a whole tensor or a `.subspan(…).at(…)` / `.chunkat(…)` tile (`|t.span|`), or write the product of the dimensions"),
            ));
        };
        let mut count = self.copy_expr(dims[0], span);
        for &d in &dims[1..] {
            let rhs = self.copy_expr(d, span);
            count = self.add_expr(
                Expr::Binary {
                    op: BinaryOp::Mul,
                    lhs: count,
                    rhs,
                },
                span,
            );
        }
        Ok(count)
    }

    /// The dimensions `x` stands for in `|x|`, when the parser knows them.
    fn shape_dims_of(&self, x: ExprId) -> Option<Vec<ExprId>> {
        let known = |n: &str| {
            self.shape_value_dims(n).or_else(|| {
                self.shapes
                    .iter()
                    .rev()
                    .find(|(k, _)| k == n)
                    .map(|(_, d)| d.clone())
            })
        };
        let dims = match &self.exprs[x] {
            Expr::Name(n) => known(n)?,
            Expr::Field { base, field } if field.name == "span" => match &self.exprs[*base] {
                Expr::Name(n) => known(n)?,
                _ => return None,
            },
            Expr::View {
                base,
                op: ViewOp::SpanOf,
                args,
            } => match (&self.exprs[*base], args.as_slice()) {
                (Expr::Name(n), [d]) => match self.exprs[*d] {
                    Expr::Int(d) => vec![*known(n)?.get(usize::try_from(d).ok()?)?],
                    _ => return None,
                },
                _ => return None,
            },
            _ => return None,
        };
        (!dims.is_empty()).then_some(dims)
    }

    /// The text of an expression, as the IR prints it.
    fn exprs_text(&self, e: ExprId) -> String {
        match &self.exprs[e] {
            Expr::Name(n) => n.clone(),
            Expr::Field { base, field } => format!("{}.{}", self.exprs_text(*base), field.name),
            Expr::View { base, op, .. } => format!("{}.{}(…)", self.exprs_text(*base), op.name()),
            _ => "…".to_string(),
        }
    }

    /// The arguments of `.view(…)` (the cursor is past `(`, `close` at `)`): the extents,
    /// and after a `:` the strides, one per extent.
    pub(crate) fn window_args(
        &mut self,
        close: usize,
    ) -> PResult<(Vec<ExprId>, Option<Vec<ExprId>>)> {
        let mut extents = Vec::new();
        while self.pos < close && !self.is_op(":") {
            extents.extend(self.spliced_arg(close)?);
            if self.eat_op(",").is_none() {
                break;
            }
        }
        if self.eat_op(":").is_none() {
            self.close(close, "to end the argument list");
            return Ok((extents, None));
        }
        let strides = self.spliced_list(close, "the strides")?;
        if strides.len() != extents.len() {
            let span = self.span_from(close.saturating_sub(1));
            self.error(
                Diagnostic::new(
                    codes::COUNT,
                    span,
                    format!("{} extents but {} strides", extents.len(), strides.len()),
                )
                .with_help("give one stride per extent: `t.view(A, B : SA, SB)`"),
            );
            return Err(Reported);
        }
        Ok((extents, Some(strides)))
    }
}
