//! Arrays of warp accumulators: `frag[.s32] mc[2][3] {0.0};` declares `mc[0][0]` … `mc[1][2]`,
//! each as if by `mc[i][j] = mma.fill[.s32] 0.0;` at the declaration, and `mc[0][1]` names one
//! in `mma.fill`, `mma.<a>.<b>` and `mma.store`. A register array has no run-time index: a
//! statement that indexes one with a run-time value (`mma.store mc[0][i], t;`) is written once
//! per element it may name, each behind `if (i == v)`. An element's name ends in `]`, which no
//! other name does: the checks and the lowering skip the elements no statement uses.

use super::codes;
use super::cursor::{PResult, Parser};
use super::lexer::Delim;
use crate::diag::Diagnostic;
use crate::ir::{DType, Expr, ExprId, Ident, Stmt, StmtId};

impl Parser {
    /// Whether the cursor is at `frag mc[…]` or `frag.<dtype> mc[…]` (an accumulator array,
    /// not a `frag f32 [M, N] t` register tile).
    pub(crate) fn at_frag_array(&self) -> bool {
        let name_at = if self.punct_at(self.pos + 1, '.') {
            self.pos + 3
        } else {
            self.pos + 1
        };
        self.ident_at(name_at)
            .is_some_and(|n| DType::from_name(n).is_none())
            && self.open_at(name_at + 1, Delim::Bracket)
    }

    /// `frag[.<dtype>] name[A][B]… {v};` (the cursor is at `frag`).
    pub(crate) fn frag_array(&mut self) -> PResult<StmtId> {
        let first = self.bump();
        // Without a type the accumulators are f32 (as `mma.fill v`).
        let dtype = if self.eat_op(".").is_some() {
            self.dtype()?.0
        } else {
            DType::F32
        };
        let name = self.expect_ident("the accumulator array's name")?;
        let mut dims = Vec::new();
        while let Some((_, close)) = self.open(Delim::Bracket) {
            let e = self.expr();
            let e = self.finish_group(close, "to close the array extent", e)?;
            match self.exprs[e] {
                Expr::Int(n) if n > 0 && n <= 64 => dims.push(n),
                _ => {
                    let span = self.exprs.get_span(e);
                    return Err(self.error(
                        Diagnostic::new(
                            codes::BAD_MMA,
                            span,
                            "an accumulator array's extent is an integer literal from 1 to 64",
                        )
                        .with_help("write `frag mc[2][2] {0.0f};`"),
                    ));
                }
            }
        }
        let Some((_, close)) = self.open(Delim::Brace) else {
            return Err(self.unexpected_help(
                codes::EXPECTED,
                "`{` and the accumulators' initial value",
                &format!("write `frag {}[…] {{0.0f}};`", name.name),
            ));
        };
        let v = self.expr();
        let value = self.finish_group(close, "to end the initial value", v)?;
        self.expect_semi("the accumulator array")?;
        let span = self.span_from(first);
        if dims.iter().product::<i64>() > 64 {
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_MMA,
                    span,
                    "an accumulator array holds at most 64 accumulators",
                )
                .with_help("each accumulator lives in registers"),
            ));
        }
        self.frag_arrays.push((name.name.clone(), dims.clone()));
        let mut fills = Vec::new();
        let mut index = vec![0i64; dims.len()];
        loop {
            let elem = Ident::new(element_name(&name.name, &index), name.span);
            self.bind(&elem.name);
            let s = self.add_stmt(
                Stmt::MmaFill {
                    name: elem,
                    dtype,
                    value,
                },
                span,
            );
            fills.push(s);
            // The next index, last dimension fastest.
            let mut d = dims.len();
            loop {
                if d == 0 {
                    break;
                }
                d -= 1;
                index[d] += 1;
                if index[d] < dims[d] {
                    break;
                }
                index[d] = 0;
            }
            if index.iter().all(|&i| i == 0) {
                break;
            }
        }
        let last = fills.pop().expect("an array has an element");
        self.pre_stmts.extend(fills);
        Ok(last)
    }

    /// An accumulator's name: `mc`, or an element `mc[0][1]` of an accumulator array.
    pub(crate) fn acc_ref(&mut self, what: &str) -> PResult<Ident> {
        let id = self.expect_ident(what)?;
        let Some(dims) = self
            .frag_arrays
            .iter()
            .rev()
            .find(|(n, _)| *n == id.name)
            .map(|(_, d)| d.clone())
        else {
            return Ok(id);
        };
        let mut index: Vec<Result<i64, (ExprId, i64)>> = Vec::new();
        let mut span = id.span;
        while let Some((open, close)) = self.open(Delim::Bracket) {
            let e = self.expr();
            let e = self.finish_group(close, "to close the index", e)?;
            span = span.join(self.span(open, close));
            let at = self.exprs.get_span(e);
            let extent = dims.get(index.len()).copied();
            match (self.exprs[e].clone(), extent) {
                (Expr::Int(i), Some(n)) if (0..n).contains(&i) => index.push(Ok(i)),
                (Expr::Int(i), _) => {
                    let extent = extent.unwrap_or(0);
                    return Err(self.error(
                        Diagnostic::new(
                            codes::BAD_MMA,
                            at,
                            format!(
                                "index {i} is outside the accumulator array `{}` (extent {extent})",
                                id.name
                            ),
                        )
                        .with_help(format!("its extents are {dims:?}")),
                    ));
                }
                // A run-time index: the statement is written once per element it may name.
                (_, Some(n)) => index.push(Err((e, n))),
                (_, None) => break,
            }
        }
        if index.len() != dims.len() {
            return Err(self.error(
                Diagnostic::new(
                    codes::BAD_MMA,
                    span,
                    format!(
                        "`{}` is an array of {} dimension(s): name one accumulator, e.g. `{}`",
                        id.name,
                        dims.len(),
                        element_name(&id.name, &vec![0; dims.len()])
                    ),
                )
                .with_help("index every dimension"),
            ));
        }
        let first: Vec<i64> = index.iter().map(|x| *x.as_ref().unwrap_or(&0)).collect();
        if index.iter().any(|x| x.is_err()) {
            self.dyn_acc = Some((id.name.clone(), index));
        }
        Ok(Ident::new(element_name(&id.name, &first), span))
    }

    /// After parsing statement `s` that names `mc[…][i]` with run-time indices: `s` becomes a
    /// chain `if (i == 0) { s for mc[…][0] } else if (i == 1) { … }` over the elements the
    /// indices may name (accumulators live in registers, which have no run-time index; an index
    /// outside the array names none and the statement does nothing). Returns the statement
    /// that takes `s`'s place.
    pub(crate) fn expand_dyn_acc(&mut self, s: StmtId) -> PResult<StmtId> {
        let Some((array, index)) = self.dyn_acc.take() else {
            return Ok(s);
        };
        let span = self.stmts.get_span(s);
        let renamed = |st: &Stmt, name: &str| -> Option<Stmt> {
            let mut st = st.clone();
            match &mut st {
                Stmt::Mma { acc, .. } | Stmt::MmaStore { acc, .. } => acc.name = name.to_string(),
                Stmt::Ext(crate::ir::ExtStmt::MmaRefill { acc, .. }) => acc.name = name.to_string(),
                _ => return None,
            }
            Some(st)
        };
        // Every element the indices may name, with the condition that names it.
        let mut cases: Vec<(Vec<i64>, Vec<(ExprId, i64)>)> = vec![(Vec::new(), Vec::new())];
        for part in &index {
            let mut next = Vec::new();
            for (at, conds) in &cases {
                match part {
                    Ok(i) => next.push((at.iter().copied().chain([*i]).collect(), conds.clone())),
                    Err((e, n)) => {
                        for v in 0..*n {
                            let mut c = conds.clone();
                            c.push((*e, v));
                            next.push((at.iter().copied().chain([v]).collect(), c));
                        }
                    }
                }
            }
            cases = next;
        }
        let template = self.stmts[s].clone();
        let mut chain: Option<StmtId> = None;
        for (i, (at, conds)) in cases.into_iter().enumerate().rev() {
            let name = element_name(&array, &at);
            let body = match renamed(&template, &name) {
                Some(st) if i == 0 => {
                    self.stmts[s] = st;
                    s
                }
                Some(st) => self.add_stmt(st, span),
                None => {
                    return Err(self.error(
                        Diagnostic::new(
                            codes::BAD_MMA,
                            span,
                            format!("a run-time index into the accumulator array `{array}` here"),
                        )
                        .with_help("index accumulators with integer literals"),
                    ));
                }
            };
            let mut cond: Option<ExprId> = None;
            for (e, v) in conds {
                let es = self.exprs.get_span(e);
                let lit = self.add_expr(Expr::Int(v), es);
                let eq = self.add_expr(
                    Expr::Binary {
                        op: crate::ir::BinaryOp::Eq,
                        lhs: e,
                        rhs: lit,
                    },
                    es,
                );
                cond = Some(match cond {
                    None => eq,
                    Some(c) => self.add_expr(
                        Expr::Binary {
                            op: crate::ir::BinaryOp::And,
                            lhs: c,
                            rhs: eq,
                        },
                        es,
                    ),
                });
            }
            let Some(cond) = cond else {
                return Ok(s);
            };
            chain = Some(self.add_stmt(
                Stmt::If {
                    cond,
                    then_body: vec![body],
                    else_body: chain.map(|c| vec![c]),
                },
                span,
            ));
        }
        Ok(chain.unwrap_or(s))
    }

    /// Whether the cursor is at an element of an accumulator array (`mc[`).
    pub(crate) fn at_acc_element(&self, at: usize) -> bool {
        self.ident_at(at)
            .is_some_and(|n| self.frag_arrays.iter().any(|(a, _)| a == n))
            && self.open_at(at + 1, Delim::Bracket)
    }
}

/// `mc[0][1]`: the element's name, as diagnostics and IR dumps show it.
pub(crate) fn element_name(array: &str, index: &[i64]) -> String {
    let mut s = array.to_string();
    for i in index {
        s.push_str(&format!("[{i}]"));
    }
    s
}
