//! Expressions: a precedence-climbing parser over C's binary operators
//! ([`BinaryOp::precedence`]), with `a # b` ([`Expr::Compose`]) binding tighter than `*` and
//! unary `-`/`!` between the two (so `-a # b` is `-(a # b)`, as the IR dump prints it).
//! Postfix forms: calls to the built-ins, `x[i]`, view methods `.at/.subspan/.chunkat(…)`,
//! `.transpose()`
//! and the `.data` field. Inside `.swiz<…>`/`.async<…>` a top-level `>` closes the modifier
//! instead of comparing.

use super::codes;
use super::cursor::{PResult, Parser, Reported};
use super::lexer::{Delim, TokKind};
use super::suggest::{did_you_mean, one_of};
use crate::diag::Diagnostic;
use crate::ir::{BinaryOp, Expr, ExprId, Ident, UnaryOp, ViewOp};
use crate::span::Span;

/// Precedence of `#` (above every binary operator).
const COMPOSE_PREC: u8 = 12;

/// Built-in functions (all take two arguments).
pub(crate) const FUNCTIONS: &[&str] = &["cdiv", "min", "max"];
const METHODS: &[&str] = &[
    "at",
    "subspan",
    "chunkat",
    "transpose",
    "view",
    "from",
    "span_as",
    "sqz",
    "step",
    "span",
];
const FIELDS: &[&str] = &["data", "span"];

fn binary_op(op: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match op {
        "*" => Mul,
        "/" => Div,
        "%" => Rem,
        "+" => Add,
        "-" => Sub,
        "<<" => Shl,
        ">>" => Shr,
        "<" => Lt,
        "<=" => Le,
        ">" => Gt,
        ">=" => Ge,
        "==" => Eq,
        "!=" => Ne,
        "&" => BitAnd,
        "^" => BitXor,
        "|" => BitOr,
        "&&" => And,
        "||" => Or,
        _ => return None,
    })
}

/// A classified number literal.
pub(crate) enum Number {
    Int(i64),
    Float(f64),
}

/// Reads a literal's text: `Ok(number)` or `Err((message, help))`.
pub(crate) fn number(text: &str) -> Result<Number, (String, String)> {
    let quoted = text.starts_with(['"', '\''])
        || ["b'", "b\"", "r\"", "r#", "br", "c\"", "cr"]
            .iter()
            .any(|p| text.starts_with(p));
    if quoted {
        return Err((
            format!("string and character literals are not supported: {text}"),
            "the DSL only has integer, floating and boolean literals".into(),
        ));
    }
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = clean.strip_prefix(prefix) {
            return i64::from_str_radix(digits, radix)
                .map(Number::Int)
                .map_err(|_| {
                    (
                        format!("invalid or too large integer literal `{text}`"),
                        "integers must fit in 64 bits".into(),
                    )
                });
        }
    }
    // Split the numeric part from a suffix; `e`/`E` followed by a digit or sign is an exponent.
    let chars: Vec<char> = clean.chars().collect();
    let mut split = chars.len();
    let mut is_float = false;
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if c == '.' {
            is_float = true;
        } else if (c == 'e' || c == 'E')
            && chars
                .get(k + 1)
                .is_some_and(|n| n.is_ascii_digit() || *n == '+' || *n == '-')
        {
            is_float = true;
            k += 1;
        } else if !c.is_ascii_digit() {
            split = k;
            break;
        }
        k += 1;
    }
    let num: String = chars[..split].iter().collect();
    let suffix: String = chars[split..].iter().collect();
    if is_float {
        if !(suffix.is_empty() || suffix == "f" || suffix == "F") {
            return Err((
                format!("unsupported suffix `{suffix}` on floating literal `{text}`"),
                "write `1.0f` (float) or `1.0`".into(),
            ));
        }
        return num.parse::<f64>().map(Number::Float).map_err(|_| {
            (
                format!("invalid floating literal `{text}`"),
                "write a literal like `0.5f`".into(),
            )
        });
    }
    if suffix == "f" || suffix == "F" {
        return Err((
            format!("`{text}` is not a floating literal"),
            format!("write `{num}.0f` (C needs a decimal point before the `f`)"),
        ));
    }
    if !suffix.is_empty() {
        return Err((
            format!("unsupported suffix `{suffix}` on integer literal `{text}`"),
            "write the plain number".into(),
        ));
    }
    num.parse::<i64>().map(Number::Int).map_err(|_| {
        (
            format!("integer literal `{text}` is too large"),
            "integers must fit in 64 bits".into(),
        )
    })
}

impl Parser {
    pub(crate) fn add_expr(&mut self, e: Expr, span: Span) -> ExprId {
        let h = |p: &Self, id: &ExprId| p.expr_height.get(id.index()).copied().unwrap_or(0);
        let children = match &e {
            Expr::Unary { expr, .. } => h(self, expr),
            Expr::Binary { lhs, rhs, .. } => h(self, lhs).max(h(self, rhs)),
            Expr::Compose { outer, inner } => h(self, outer).max(h(self, inner)),
            Expr::Call { args, .. } => args.iter().map(|a| h(self, a)).max().unwrap_or(0),
            Expr::Index { base, index } => h(self, base).max(h(self, index)),
            Expr::View { base, args, .. } => args
                .iter()
                .map(|a| h(self, a))
                .max()
                .unwrap_or(0)
                .max(h(self, base)),
            Expr::Field { base, .. } => h(self, base),
            Expr::Int(_) | Expr::Float { .. } | Expr::Bool(_) | Expr::Name(_) | Expr::Wildcard => 0,
        };
        self.expr_height.push(children + 1);
        self.exprs.append(e, span)
    }

    /// `add_expr` for nodes that can grow without recursion (operator chains, postfix
    /// chains): fails once the tree gets too tall.
    fn add_bounded(&mut self, e: Expr, span: Span) -> PResult<ExprId> {
        let id = self.add_expr(e, span);
        let height = self.expr_height.last().copied().unwrap_or(0);
        if height > self.max_expr_height() {
            return Err(self.too_deep_at(span));
        }
        Ok(id)
    }

    /// A full expression, with `c ? a : b` (the built-in `select(c, a, b)`: same meaning, one
    /// node for the checks).
    pub(crate) fn expr(&mut self) -> PResult<ExprId> {
        let first = self.pos;
        let cond = self.expr_bp(0, false)?;
        if !self.is_op("?") {
            return Ok(cond);
        }
        let q = self.bump();
        self.enter()?;
        let r = (|| {
            let a = self.expr()?;
            self.expect_op(":", "between the two values of `? :`")?;
            let b = self.expr()?;
            Ok((a, b))
        })();
        self.leave();
        let (a, b) = r?;
        let span = self.span_from(first);
        let func = Ident::new("select", self.span(q, q));
        self.add_bounded(
            Expr::Call {
                func,
                args: vec![cond, a, b],
            },
            span,
        )
    }

    /// The inside of `.swiz<…>`/`.async<…>`: a top-level `>` ends it.
    pub(crate) fn expr_no_gt(&mut self) -> PResult<ExprId> {
        self.expr_bp(0, true)
    }

    fn expr_bp(&mut self, min_prec: u8, no_gt: bool) -> PResult<ExprId> {
        self.enter()?;
        let r = self.expr_bp_inner(min_prec, no_gt);
        self.leave();
        r
    }

    /// The binary operator at the cursor: (op or `None` for `#`, precedence, token count).
    fn peek_binop(&self, no_gt: bool) -> Option<(Option<BinaryOp>, u8, usize)> {
        let (op, n) = self.op_at(self.pos)?;
        if op == "#" {
            // `#define` starts the next header item, it does not compose.
            if self.kw_at(self.pos + 1, "define") {
                return None;
            }
            return Some((None, COMPOSE_PREC, 1));
        }
        if no_gt && op.starts_with('>') {
            return None;
        }
        let b = binary_op(&op)?;
        Some((Some(b), b.precedence(), n))
    }

    fn expr_bp_inner(&mut self, min_prec: u8, no_gt: bool) -> PResult<ExprId> {
        let first = self.pos;
        let mut lhs = self.unary(no_gt)?;
        while let Some((op, prec, n)) = self.peek_binop(no_gt) {
            if prec < min_prec {
                break;
            }
            self.pos += n;
            let rhs = self.expr_bp(prec + 1, no_gt)?;
            let e = match op {
                Some(op) => Expr::Binary { op, lhs, rhs },
                None => Expr::Compose {
                    outer: lhs,
                    inner: rhs,
                },
            };
            lhs = self.add_bounded(e, self.span_from(first))?;
        }
        Ok(lhs)
    }

    fn unary(&mut self, no_gt: bool) -> PResult<ExprId> {
        let first = self.pos;
        if self.op_at(self.pos).is_some_and(|(o, _)| o == "#") {
            return self.bound_of();
        }
        // `|x|`: the element count of a shape.
        if self.op_at(self.pos).is_some_and(|(o, _)| o == "|") {
            return self.element_count();
        }
        // `++x` / `--x` (and `x++` / `x--` below): a read of `x` and a step (`steps.rs`).
        if let Some(add) = self.step_op(self.pos) {
            self.pos += 2;
            let operand = self.postfix()?;
            return self.expr_step(first, operand, add, true);
        }
        let op = match self.op_at(self.pos) {
            Some((o, _)) if o == "-" => UnaryOp::Neg,
            Some((o, _)) if o == "!" => UnaryOp::Not,
            _ => {
                let operand = self.postfix()?;
                let Some(add) = self.step_op(self.pos) else {
                    return Ok(operand);
                };
                self.pos += 2;
                return self.expr_step(first, operand, add, false);
            }
        };
        self.bump();
        let expr = self.expr_bp(COMPOSE_PREC, no_gt)?;
        Ok(self.add_expr(Expr::Unary { op, expr }, self.span_from(first)))
    }

    /// `#x`: the extent of the parallel or loop variable `x` (or of a `with` bound), as
    /// written where `x` is introduced; the extent's expression is copied here (sugar).
    fn bound_of(&mut self) -> PResult<ExprId> {
        let hash = self.bump();
        let name = self.expect_ident("a parallel or loop variable after `#`")?;
        let span = self.span(hash, self.pos - 1);
        let extent = self
            .var_extents
            .iter()
            .rev()
            .find(|(n, _)| *n == name.name)
            .map(|(_, e)| *e)
            .or_else(|| match self.with_bound(&name.name) {
                Some((b, _)) if b.len() == 1 => Some(b[0]),
                _ => None,
            });
        let Some(extent) = extent else {
            let msg = format!(
                "`#{}` needs a parallel or loop variable in scope; `{}` is not one",
                name.name, name.name
            );
            return Err(
                self.error(Diagnostic::new(codes::BOUND_OF, span, msg).with_help(
                    "`#x` is the extent of `x` in `parallel x by N` or `foreach x in [N]`",
                )),
            );
        };
        Ok(self.copy_expr(extent, span))
    }

    /// `sp(i)` with `i` an integer literal: a copy of dimension `i` of the named shape `sp`.
    fn shape_dim(&mut self, name: &str, first: usize) -> PResult<ExprId> {
        let dims = self.shape_value_dims(name).unwrap_or_default();
        let (_, close) = self.open(Delim::Paren).ok_or(Reported)?;
        let index = self.int_literal();
        let span = self.span(first, close);
        let at = match index {
            Some(Ok((i, _))) if self.pos == close && (0..dims.len() as i64).contains(&i) => i,
            _ => {
                self.pos = close + 1;
                return Err(self.error(
                    Diagnostic::new(
                        codes::SHAPE_VALUE,
                        span,
                        format!(
                            "`{name}(i)` takes a dimension index from 0 to {}",
                            dims.len().saturating_sub(1)
                        ),
                    )
                    .with_help(format!("write `{name}(0)`")),
                ));
            }
        };
        self.pos = close + 1;
        Ok(self.copy_expr(dims[at as usize], span))
    }

    /// A copy of the expression tree `e` whose nodes all carry `span`.
    pub(crate) fn copy_expr(&mut self, e: ExprId, span: Span) -> ExprId {
        let node = match self.exprs[e].clone() {
            Expr::Unary { op, expr } => Expr::Unary {
                op,
                expr: self.copy_expr(expr, span),
            },
            Expr::Binary { op, lhs, rhs } => Expr::Binary {
                op,
                lhs: self.copy_expr(lhs, span),
                rhs: self.copy_expr(rhs, span),
            },
            Expr::Compose { outer, inner } => Expr::Compose {
                outer: self.copy_expr(outer, span),
                inner: self.copy_expr(inner, span),
            },
            Expr::Call { func, args } => Expr::Call {
                func,
                args: args.into_iter().map(|a| self.copy_expr(a, span)).collect(),
            },
            Expr::Index { base, index } => Expr::Index {
                base: self.copy_expr(base, span),
                index: self.copy_expr(index, span),
            },
            Expr::View { base, op, args } => Expr::View {
                base: self.copy_expr(base, span),
                op,
                args: args.into_iter().map(|a| self.copy_expr(a, span)).collect(),
            },
            Expr::Field { base, field } => Expr::Field {
                base: self.copy_expr(base, span),
                field,
            },
            leaf @ (Expr::Int(_)
            | Expr::Float { .. }
            | Expr::Bool(_)
            | Expr::Name(_)
            | Expr::Wildcard) => leaf,
        };
        self.add_expr(node, span)
    }

    /// A primary expression followed by `[i]`, `.method(…)` and `.field` suffixes.
    pub(crate) fn postfix(&mut self) -> PResult<ExprId> {
        let first = self.pos;
        let mut base = self.primary()?;
        loop {
            if let Some((_, close)) = self.open(Delim::Bracket) {
                let args = self.comma_list(close, "the index", |p| p.expr())?;
                if args.len() != 1 {
                    let span = self.span_from(first);
                    return Err(self.error(
                        Diagnostic::new(
                            codes::COUNT,
                            span,
                            format!("expected one index, found {}", args.len()),
                        )
                        .with_help("index arrays with one expression: `x[i]`"),
                    ));
                }
                // `s[i][j]` of an array of several dimensions: its flat index (`array.rs`).
                let index = match &self.exprs[base] {
                    Expr::Name(n) => match self.array_of(n) {
                        Some(dims) => {
                            let n = n.clone();
                            self.array_index(&n, &dims, args[0], first)?
                        }
                        None => args[0],
                    },
                    _ => args[0],
                };
                base = self.add_bounded(Expr::Index { base, index }, self.span_from(first))?;
            } else if self.is_op(".") {
                base = self.member(first, base)?;
            } else {
                return Ok(base);
            }
        }
    }

    /// `.name(args)` (a view method) or `.name` (a field), after `base`.
    fn member(&mut self, first: usize, base: ExprId) -> PResult<ExprId> {
        self.bump();
        let name = self.expect_ident("a method or field name after `.`")?;
        if let Some((_, close)) = self.open(Delim::Paren) {
            let Some(op) = ViewOp::from_name(&name.name) else {
                self.pos = close + 1;
                let msg = format!("unknown method `.{}`", name.name);
                let help = format!(
                    "view methods are {}{}",
                    one_of(METHODS),
                    did_you_mean(&name.name, METHODS)
                );
                return Err(self.error(
                    Diagnostic::new(codes::UNKNOWN_METHOD, name.span, msg).with_help(help),
                ));
            };
            // `.view(A, B : SA, SB)`: a window with strides.
            if op == ViewOp::Window {
                let (args, strides) = self.window_args(close)?;
                let window =
                    self.add_bounded(Expr::View { base, op, args }, self.span_from(first))?;
                return match strides {
                    Some(args) => self.add_bounded(
                        Expr::View {
                            base: window,
                            op: ViewOp::Strides,
                            args,
                        },
                        self.span_from(first),
                    ),
                    None => Ok(window),
                };
            }
            // `.span_as([A, B])`: the new shape may be written as a bracketed list.
            let args = if op == ViewOp::SpanAs && self.is_open(Delim::Bracket) {
                let dims = self.extents(true)?;
                self.close(close, "after the shape");
                dims
            } else {
                self.spliced_list(close, "the argument list")?
            };
            // `x.span(d)` of a parameter or declared tensor: a copy of its dimension `d`, as
            // written in `x`'s shape (sugar, like `#x`), so it is a value wherever one is.
            if op == ViewOp::SpanOf
                && !self.counting
                && let Some(dim) = self.declared_dim(base, &args)
            {
                return Ok(self.copy_expr(dim, self.span_from(first)));
            }
            return self.add_bounded(Expr::View { base, op, args }, self.span_from(first));
        }
        if FIELDS.contains(&name.name.as_str()) {
            return self.add_bounded(Expr::Field { base, field: name }, self.span_from(first));
        }
        let help = if METHODS.contains(&name.name.as_str()) {
            format!("`.{}` is a method: write `.{}(…)`", name.name, name.name)
        } else {
            format!(
                "the only field is `.data`; methods are {}{}",
                one_of(METHODS),
                did_you_mean(&name.name, METHODS)
            )
        };
        let msg = format!("unknown field `.{}`", name.name);
        Err(self.error(Diagnostic::new(codes::UNKNOWN_FIELD, name.span, msg).with_help(help)))
    }

    /// Dimension `d` of the shape of `base`, a name with a known shape, for `args` = `[d]`.
    fn declared_dim(&self, base: ExprId, args: &[ExprId]) -> Option<ExprId> {
        let (Expr::Name(n), [d]) = (&self.exprs[base], args) else {
            return None;
        };
        let Expr::Int(d) = self.exprs[*d] else {
            return None;
        };
        let dims = self.shapes.iter().rev().find(|(k, _)| k == n)?;
        dims.1.get(usize::try_from(d).ok()?).copied()
    }

    fn primary(&mut self) -> PResult<ExprId> {
        let first = self.pos;
        match self.kind_at(self.pos).cloned() {
            Some(TokKind::Lit(text)) => {
                self.bump();
                let span = self.span(first, first);
                let e = match number(&text) {
                    Ok(Number::Int(v)) => Expr::Int(v),
                    Ok(Number::Float(value)) => Expr::Float { value, text },
                    Err((msg, help)) => {
                        return Err(self.error(
                            Diagnostic::new(codes::BAD_LITERAL, span, msg).with_help(help),
                        ));
                    }
                };
                Ok(self.add_expr(e, span))
            }
            Some(TokKind::Ident(name)) => {
                self.bump();
                let span = self.span(first, first);
                let e = match name.as_str() {
                    "true" => Expr::Bool(true),
                    "false" => Expr::Bool(false),
                    // `inf` (and `-inf`): the floating-point infinity, as Croqtile writes it.
                    "inf" => Expr::Float {
                        value: f64::INFINITY,
                        text: "inf".into(),
                    },
                    "_" => Expr::Wildcard,
                    // An i-tuple name outside a list that splices it: `index(d)` or an error.
                    _ if self.ituple(&name).is_some() => {
                        let elems = self.ituple(&name).unwrap_or_default();
                        return self.ituple_use(elems, first);
                    }
                    _ if name.starts_with("r#") => {
                        let msg = format!("raw identifier `{name}` is not supported");
                        let help = format!(
                            "to compose `r` with `{}`, put spaces around `#`",
                            &name[2..]
                        );
                        return Err(
                            self.error(Diagnostic::new(codes::EXPECTED, span, msg).with_help(help))
                        );
                    }
                    // `sp(i)`: dimension `i` of the named shape `sp`.
                    _ if self.is_open(Delim::Paren) && self.shape_value_dims(&name).is_some() => {
                        return self.shape_dim(&name, first);
                    }
                    // `k(0)`, `k(-1)`: a value of a bounded name `k` by its position.
                    _ if self.is_open(Delim::Paren)
                        && crate::ir::builtin_arity(&name).is_none()
                        && self.name_bound(&name).is_some() =>
                    {
                        return self.bounded_value(&Ident::new(name, span), first);
                    }
                    _ if self.is_open(Delim::Paren) => return self.call(Ident::new(name, span)),
                    // `k` inside `with k in N { … }` but outside the `foreach k` loops: its
                    // first value, 0 (`f = dma.copy … t.chunkat(k) …` before `foreach k(1:)`).
                    _ if !self.var_extents.iter().any(|(n, _)| *n == name)
                        && self
                            .with_bound(&name)
                            .is_some_and(|(b, e)| b.len() == 1 && e.is_empty()) =>
                    {
                        let bound = self.name_bound(&name).ok_or(Reported)?;
                        let value = self.add_expr(Expr::Int(0), span);
                        self.bounded_values
                            .push(crate::ir::BoundedValue { value, bound });
                        return Ok(value);
                    }
                    // `__to<f32>(x)`: the conversion is named with its type.
                    "__to" if self.is_op("<") => {
                        self.bump();
                        let ty = match self.kind_at(self.pos).cloned() {
                            Some(TokKind::Ident(t)) | Some(TokKind::Lit(t)) => t,
                            _ => {
                                return Err(
                                    self.unexpected(codes::EXPECTED, "a type after `__to<`")
                                );
                            }
                        };
                        self.bump();
                        self.expect_op(">", "to close `__to<…>`")?;
                        if !self.is_open(Delim::Paren) {
                            return Err(
                                self.unexpected(codes::EXPECTED, "`(` and the converted value")
                            );
                        }
                        let func = Ident::new(format!("__to<{ty}>"), self.span_from(first));
                        return self.call(func);
                    }
                    _ if !self.is_bound(&name) => {
                        match self.view_aliases.iter().rev().find(|(n, _)| *n == name) {
                            Some(&(_, view)) => return Ok(self.copy_expr(view, span)),
                            None => Expr::Name(name),
                        }
                    }
                    _ => Expr::Name(name),
                };
                Ok(self.add_expr(e, span))
            }
            // `{a, b, c}`: an i-tuple value (a call of the built-in `ituple`).
            Some(TokKind::Open(Delim::Brace)) => {
                let (open, close) = self.open(Delim::Brace).ok_or(Reported)?;
                let args = self.spliced_list(close, "the i-tuple")?;
                let span = self.span(open, close);
                let func = Ident::new("ituple", span);
                Ok(self.add_expr(Expr::Call { func, args }, span))
            }
            Some(TokKind::Open(Delim::Paren)) => {
                let (open, close) = self.open(Delim::Paren).ok_or(Reported)?;
                // `(i)` in a shape derivation: dimension `i` of the shape derived from.
                if let Some(base) = self.derived_from.clone()
                    && let Some(Ok((i, _))) = self.int_literal()
                    && self.pos == close
                {
                    self.pos = close + 1;
                    let span = self.span(open, close);
                    return match usize::try_from(i).ok().and_then(|i| base.get(i)) {
                        Some(&d) => Ok(self.copy_expr(d, span)),
                        None => Err(self.error(
                            Diagnostic::new(
                                codes::SHAPE_VALUE,
                                span,
                                format!(
                                    "`({i})` names dimension {i} of a shape of {} dimension{}",
                                    base.len(),
                                    if base.len() == 1 { "" } else { "s" }
                                ),
                            )
                            .with_help(format!(
                                "`(0)` … `({})` are its dimensions",
                                base.len().saturating_sub(1)
                            )),
                        )),
                    };
                }
                self.pos = open;
                let (_, close) = self.open(Delim::Paren).ok_or(Reported)?;
                let inner = self.expr();
                self.finish_group(close, "to close the parenthesis", inner)
            }
            _ => Err(self.unexpected(codes::EXPECTED, "an expression")),
        }
    }

    /// `f(a, b)` for the built-ins; the cursor is at `(`.
    fn call(&mut self, func: Ident) -> PResult<ExprId> {
        let (_, close) = self.open(Delim::Paren).ok_or(Reported)?;
        if self.any_call {
            let args = self.comma_list(close, "the argument list", |p| p.expr())?;
            let span = func.span.join(self.span(close, close));
            return Ok(self.add_expr(Expr::Call { func, args }, span));
        }
        let arity = crate::ir::builtin_arity(&func.name);
        if arity.is_none() {
            self.pos = close + 1;
            let msg = format!("unknown function `{}`", func.name);
            let help = format!(
                "built-in functions are {}{}",
                one_of(FUNCTIONS),
                did_you_mean(&func.name, FUNCTIONS)
            );
            return Err(
                self.error(Diagnostic::new(codes::UNKNOWN_FUNC, func.span, msg).with_help(help))
            );
        }
        let args = self.comma_list(close, "the argument list", |p| p.expr())?;
        let span = func.span.join(self.span(close, close));
        // `select(i, a, b, c, …)`: the `i`-th of the values (`select(c, a, b)`: `c ? a : b`).
        let n_ary = func.name == "select" && args.len() > 3;
        if Some(args.len()) != arity && !n_ary {
            let n = arity.unwrap_or(2);
            let msg = format!(
                "`{}` takes {n} argument{}, found {}",
                func.name,
                if n == 1 { "" } else { "s" },
                args.len()
            );
            let help = if n == 1 {
                format!("write `{}(x)`", func.name)
            } else {
                format!("write `{}(a, b)`", func.name)
            };
            return Err(self.error(Diagnostic::new(codes::UNKNOWN_FUNC, span, msg).with_help(help)));
        }
        Ok(self.add_expr(Expr::Call { func, args }, span))
    }

    /// An optional integer literal with an optional leading `-` (tunable domains and
    /// defaults): `Some(Ok(v))`, `Some(Err)` for a bad literal (reported), `None` when the
    /// tokens are not a literal at all (nothing consumed).
    pub(crate) fn int_literal(&mut self) -> Option<PResult<(i64, Span)>> {
        let first = self.pos;
        let neg = self.is_op("-");
        let at = first + usize::from(neg);
        let Some(TokKind::Lit(text)) = self.kind_at(at).cloned() else {
            return None;
        };
        self.pos = at + 1;
        let span = self.span(first, at);
        Some(match number(&text) {
            Ok(Number::Int(v)) => Ok((if neg { v.wrapping_neg() } else { v }, span)),
            Ok(Number::Float(_)) => Err(self.error(
                Diagnostic::new(
                    codes::BAD_LITERAL,
                    span,
                    format!("expected an integer, found `{text}`"),
                )
                .with_help("tunables are integers"),
            )),
            Err((msg, help)) => {
                Err(self.error(Diagnostic::new(codes::BAD_LITERAL, span, msg).with_help(help)))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(t: &str) -> Option<f64> {
        match number(t) {
            Ok(Number::Int(v)) => Some(v as f64),
            Ok(Number::Float(v)) => Some(v),
            Err(_) => None,
        }
    }

    #[test]
    fn literals() {
        assert_eq!(num("0.0f"), Some(0.0));
        assert_eq!(num("1.5"), Some(1.5));
        assert_eq!(num("1e3"), Some(1000.0));
        assert_eq!(num("1_024"), Some(1024.0));
        assert_eq!(num("0x1f"), Some(31.0));
        assert!(matches!(number("7"), Ok(Number::Int(7))));
        assert!(matches!(number("1."), Ok(Number::Float(_))));
        assert_eq!(num("2f"), None);
        assert_eq!(num("1.0f64"), None);
        assert_eq!(num("99999999999999999999"), None);
        assert_eq!(num("\"s\""), None);
        assert_eq!(num("3u8"), None);
    }
}
