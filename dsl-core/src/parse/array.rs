//! Arrays of several dimensions: `shared f32 [32] s[4][2];` is an array of `4 * 2` buffers
//! (events likewise), and `s[i][j]` its element `i * 2 + j`. The parser writes the flat count
//! and index (the IR shows what they mean) and records each written index with its
//! dimension ([`ArrayIndex`]) for the range check. An index of fewer dimensions than the array
//! (`s[1]`, the second row of buffers) is not supported yet (`E1687`).

use super::codes;
use super::cursor::{PResult, Parser, Reported};
use super::lexer::Delim;
use crate::diag::Diagnostic;
use crate::ir::{ArrayIndex, BinaryOp, Expr, ExprId};

impl Parser {
    /// The element count of declarator `name` with array dimensions `dims` (none: not an
    /// array), recording the dimensions of a multi-dimensional one.
    pub(crate) fn array_count(&mut self, name: &str, dims: &[ExprId]) -> Option<ExprId> {
        self.array_dims.retain(|(n, _)| n != name);
        match dims {
            [] => None,
            [d] => Some(*d),
            _ => {
                self.array_dims.push((name.to_string(), dims.to_vec()));
                let span = self
                    .exprs
                    .get_span(dims[0])
                    .join(self.exprs.get_span(dims[dims.len() - 1]));
                Some(self.product(dims, span))
            }
        }
    }

    /// The dimensions of the multi-dimensional array `name`, if it is one.
    pub(crate) fn array_of(&self, name: &str) -> Option<Vec<ExprId>> {
        self.array_dims
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.clone())
    }

    /// `s[i][j]…` of a multi-dimensional array (the cursor is past the first index `first`,
    /// `start` at the array's name): the flat index.
    pub(crate) fn array_index(
        &mut self,
        name: &str,
        dims: &[ExprId],
        first: ExprId,
        start: usize,
    ) -> PResult<ExprId> {
        let mut parts = vec![first];
        while parts.len() < dims.len() {
            let Some((_, close)) = self.open(Delim::Bracket) else {
                let span = self.span_from(start);
                return Err(self.error(
                    Diagnostic::new(
                        codes::PARTIAL_ARRAY_INDEX,
                        span,
                        format!(
                            "not supported yet: `{name}` has {} array dimensions, indexed here with {}",
                            dims.len(),
                            parts.len()
                        ),
                    )
                    .with_help(format!(
                        "index every dimension: `{name}{}`",
                        (0..dims.len()).map(|d| format!("[i{d}]")).collect::<String>()
                    )),
                ));
            };
            let i = self.expr();
            parts.push(self.finish_group(close, "after the index", i)?);
        }
        let span = self.span_from(start);
        let mut flat = parts[0];
        for (&i, &d) in parts[1..].iter().zip(&dims[1..]) {
            let d = self.copy_expr(d, span);
            let scaled = self.add_expr(
                Expr::Binary {
                    op: BinaryOp::Mul,
                    lhs: flat,
                    rhs: d,
                },
                span,
            );
            flat = self.add_expr(
                Expr::Binary {
                    op: BinaryOp::Add,
                    lhs: scaled,
                    rhs: i,
                },
                span,
            );
        }
        let parts = parts
            .into_iter()
            .zip(dims)
            .map(|(i, &d)| (i, self.copy_expr(d, span)))
            .collect();
        self.array_indices.push(ArrayIndex { index: flat, parts });
        if self.is_open(Delim::Bracket) {
            let span = self.here();
            self.error(
                Diagnostic::new(
                    codes::COUNT,
                    span,
                    format!("`{name}` has {} array dimensions", dims.len()),
                )
                .with_help("give one index per dimension"),
            );
            return Err(Reported);
        }
        Ok(flat)
    }
}
