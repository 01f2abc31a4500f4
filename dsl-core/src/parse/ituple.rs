//! I-tuple names: one name for several indices.
//!
//! `foreach index in [A, B]` (also `in t.span`, and `foreach index` over `with index in
//! [A, B]`) iterates a tuple of indices, outer to inner; `parallel p = {x, y} by [A, B]` and
//! `with index = {x, y} in …` name the tuple and its elements. The parser expresses the tuple
//! as what it means: a loop (or level) variable per dimension — the element names the user
//! gave, or fresh ones `index_0`, `index_1`, … — and each use of the tuple as its elements:
//! an argument of a view method (`t.at(index)`, `t.chunkat(p, index)`) or of an i-tuple
//! value (`{index, k}`) stands for all of them in order, and `index(d)` for element `d`. The
//! IR therefore has nested loops over plain variables, and the checker and the lowering
//! need nothing new. The tuple used as one value anywhere else is an error (`E1681`).

use super::codes;
use super::cursor::{PResult, Parser};
use super::lexer::{Delim, TokKind};
use crate::diag::Diagnostic;
use crate::ir::{Expr, ExprId, Ident};

impl Parser {
    /// Fresh element names for tuple `var` over `n` dimensions: `var_0`, `var_1`, …, each a
    /// name no token of the source spells and no earlier tuple took (so neither a user's
    /// name nor an enclosing tuple's element is captured).
    pub(crate) fn ituple_elements(&mut self, var: &Ident, n: usize) -> Vec<Ident> {
        let taken = |p: &Parser, s: &str| {
            p.ituple_names.iter().any(|g| g == s)
                || p.toks
                    .iter()
                    .any(|t| matches!(&t.kind, TokKind::Ident(i) if i == s))
        };
        let mut sep = "_".to_string();
        let names = loop {
            let names: Vec<String> = (0..n).map(|d| format!("{}{sep}{d}", var.name)).collect();
            if names.iter().all(|s| !taken(self, s)) {
                break names;
            }
            sep.push('_');
        };
        self.ituple_names.extend(names.iter().cloned());
        names.into_iter().map(|s| Ident::new(s, var.span)).collect()
    }

    /// The elements of the i-tuple `name` in scope, innermost first.
    pub(crate) fn ituple(&self, name: &str) -> Option<Vec<Ident>> {
        self.ituples
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e.clone())
    }

    /// One argument of a list that splices i-tuples (view-method arguments, i-tuple values):
    /// a bare tuple name before `,` or `close` is its elements; anything else one expression.
    pub(crate) fn spliced_arg(&mut self, close: usize) -> PResult<Vec<ExprId>> {
        if let Some(name) = self.peek_ident().map(str::to_string)
            && let Some(elems) = self.ituple(&name)
            && (self.pos + 1 == close || self.punct_at(self.pos + 1, ','))
        {
            let span = self.span(self.pos, self.pos);
            self.bump();
            return elems
                .iter()
                .map(|e| self.element_expr(&e.name, span))
                .collect();
        }
        Ok(vec![self.expr()?])
    }

    /// A comma list whose bare i-tuple names stand for their elements.
    pub(crate) fn spliced_list(&mut self, close: usize, context: &str) -> PResult<Vec<ExprId>> {
        let lists = self.comma_list(close, context, |p| p.spliced_arg(close))?;
        Ok(lists.into_iter().flatten().collect())
    }

    /// A use of the i-tuple `name` (the cursor is past it, `first` at it) outside a spliced
    /// list: `name(d)` is element `d`; the tuple as one value is `E1681`.
    pub(crate) fn ituple_use(&mut self, elems: Vec<Ident>, first: usize) -> PResult<ExprId> {
        let name = self.ident_at(first).unwrap_or_default().to_string();
        let n = elems.len();
        if let Some((_, close)) = self.open(Delim::Paren) {
            let index = self.int_literal();
            let span = self.span(first, close);
            let at = match index {
                Some(Ok((i, _))) if self.pos == close && (0..n as i64).contains(&i) => i as usize,
                _ => {
                    self.pos = close + 1;
                    return Err(self.error(
                        Diagnostic::new(
                            codes::ITUPLE_VALUE,
                            span,
                            format!(
                                "`{name}(d)` takes an element index from 0 to {}: `{name}` is an i-tuple of {n} indices",
                                n - 1
                            ),
                        )
                        .with_help(format!("write `{name}(0)`")),
                    ));
                }
            };
            self.pos = close + 1;
            return self.element_expr(&elems[at].name, span);
        }
        let span = self.span(first, first);
        Err(self.error(
            Diagnostic::new(
                codes::ITUPLE_VALUE,
                span,
                format!("`{name}` is an i-tuple of {n} indices, used here as one value"),
            )
            .with_help(format!(
                "index a tensor with all of them (`t.at({name})`, `t.chunkat(p, {name})`) or take one: `{name}(0)`"
            )),
        ))
    }

    /// An element of a tuple as a value: the loop or level variable, or — for the element of
    /// a `with` tuple outside its `foreach` — its first value, 0.
    fn element_expr(&mut self, name: &str, span: crate::span::Span) -> PResult<ExprId> {
        let looping = self.var_extents.iter().any(|(n, _)| n == name);
        if !looping
            && self
                .with_bound(name)
                .is_some_and(|(b, e)| b.len() == 1 && e.is_empty())
        {
            let bound = self.name_bound(name).ok_or(super::cursor::Reported)?;
            let value = self.add_expr(Expr::Int(0), span);
            self.bounded_values
                .push(crate::ir::BoundedValue { value, bound });
            return Ok(value);
        }
        Ok(self.add_expr(Expr::Name(name.to_string()), span))
    }

    /// Runs `f` with the tuples `tuples` in scope.
    pub(crate) fn with_ituples<T>(
        &mut self,
        tuples: Vec<(String, Vec<Ident>)>,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let mark = self.ituples.len();
        self.ituples.extend(tuples);
        let r = f(self);
        self.ituples.truncate(mark);
        r
    }
}
