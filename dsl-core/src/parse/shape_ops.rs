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
    /// `d0 * d1 * …` over fresh copies of `dims` (at least one), spanning `span`.
    pub(super) fn product(&mut self, dims: &[ExprId], span: crate::Span) -> ExprId {
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
        count
    }

    /// `|x|` (the cursor is at the first `|`).
    pub(crate) fn element_count(&mut self) -> PResult<ExprId> {
        let first = self.bump();
        let outer = std::mem::replace(&mut self.counting, true);
        let inner = self.postfix();
        self.counting = outer;
        let inner = inner?;
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
        Ok(self.product(&dims, span))
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

/// A term of shape arithmetic: one value, or one value per dimension.
enum Term {
    Scalar(ExprId),
    Shape(Vec<ExprId>),
}

/// Why shape arithmetic cannot be written per dimension.
enum ShapeErr {
    /// A whole shape whose dimensions the parser does not know.
    Unknown(ExprId),
    /// Two shapes of different ranks.
    Rank(usize, usize),
}

impl Parser {
    /// Arithmetic on whole shapes, element-wise (`[t.span / {2, 4}]`, `[t.span + 1]`,
    /// `[a.span / sp]`): the dimensions it stands for, each written out (sugar). `None` when
    /// `e` is no such arithmetic (a plain entry, or arithmetic on single values).
    pub(crate) fn shape_arithmetic(&mut self, e: ExprId) -> Option<PResult<Vec<ExprId>>> {
        if !matches!(self.exprs[e], Expr::Binary { .. } | Expr::Unary { .. }) {
            return None;
        }
        let span = self.exprs.get_span(e);
        match self.shape_term(e) {
            Ok(Term::Scalar(_)) => None,
            Ok(Term::Shape(dims)) => Some(Ok(dims)),
            Err(err) => {
                let msg = match err {
                    ShapeErr::Unknown(x) => format!(
                        "arithmetic on the whole shape `{}`, whose dimensions are not known here",
                        self.exprs_text(x)
                    ),
                    ShapeErr::Rank(a, b) => {
                        format!("shape arithmetic on a shape of {a} dimensions and one of {b}")
                    }
                };
                Some(Err(self.error(
                    Diagnostic::new(codes::SHAPE_VALUE, span, msg).with_help(
                        "shapes combine element-wise with shapes of their rank, i-tuples `{a, b}` and single values; or write each dimension, e.g. `[t.span(0) / 2, t.span(1)]`",
                    ),
                )))
            }
        }
    }

    fn shape_term(&mut self, e: ExprId) -> Result<Term, ShapeErr> {
        let span = self.exprs.get_span(e);
        match self.exprs[e].clone() {
            Expr::Field { ref field, .. } if field.name == "span" => match self.shape_dims_of(e) {
                Some(dims) => Ok(Term::Shape(
                    dims.iter().map(|&d| self.copy_expr(d, span)).collect(),
                )),
                None => Err(ShapeErr::Unknown(e)),
            },
            Expr::Name(ref n) if self.shape_value_dims(n).is_some() => {
                let dims = self.shape_value_dims(n).unwrap_or_default();
                Ok(Term::Shape(
                    dims.iter().map(|&d| self.copy_expr(d, span)).collect(),
                ))
            }
            Expr::Call { ref func, ref args } if func.name == "ituple" => Ok(Term::Shape(
                args.iter().map(|&a| self.copy_expr(a, span)).collect(),
            )),
            Expr::Unary { op, expr } => match self.shape_term(expr)? {
                Term::Scalar(_) => Ok(Term::Scalar(e)),
                Term::Shape(dims) => Ok(Term::Shape(
                    dims.into_iter()
                        .map(|d| self.add_expr(Expr::Unary { op, expr: d }, span))
                        .collect(),
                )),
            },
            Expr::Binary { op, lhs, rhs } => {
                let (l, r) = (self.shape_term(lhs)?, self.shape_term(rhs)?);
                let pairs: Vec<(ExprId, ExprId)> = match (l, r) {
                    (Term::Scalar(_), Term::Scalar(_)) => return Ok(Term::Scalar(e)),
                    (Term::Shape(a), Term::Scalar(s)) => a
                        .into_iter()
                        .map(|x| (x, self.copy_expr(s, span)))
                        .collect(),
                    (Term::Scalar(s), Term::Shape(b)) => b
                        .into_iter()
                        .map(|x| (self.copy_expr(s, span), x))
                        .collect(),
                    (Term::Shape(a), Term::Shape(b)) if a.len() == b.len() => {
                        a.into_iter().zip(b).collect()
                    }
                    (Term::Shape(a), Term::Shape(b)) => {
                        return Err(ShapeErr::Rank(a.len(), b.len()));
                    }
                };
                Ok(Term::Shape(
                    pairs
                        .into_iter()
                        .map(|(lhs, rhs)| self.add_expr(Expr::Binary { op, lhs, rhs }, span))
                        .collect(),
                ))
            }
            _ => Ok(Term::Scalar(e)),
        }
    }
}
