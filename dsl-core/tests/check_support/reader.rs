//! A tiny Pratt reader for Croqtile expressions, so tests can write `"cdiv(M, TM)"`. Every
//! node's span is its tokens' columns on the statement's line.

use super::{B, span};
use dsl_core::ir::*;

/// Reads `src` (starting at column `col` of `line`) into `b`'s expression arena.
pub(super) fn read(b: &mut B, src: &str, line: u32, col: u32) -> ExprId {
    let toks = lex(src, col);
    let mut p = P {
        b,
        toks,
        pos: 0,
        line,
    };
    let e = p.expr(0);
    assert!(p.pos == p.toks.len(), "trailing tokens in `{src}`");
    e
}

#[derive(Clone, Debug, PartialEq)]
enum T {
    Id(String),
    Int(i64),
    Float(String),
    Op(&'static str),
}

const OPS: [&str; 27] = [
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "&", "^",
    "|", "!", "(", ")", "[", "]", ",", ".", "#", "_",
];

fn lex(src: &str, base: u32) -> Vec<(T, u32, u32)> {
    let cs: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '.') {
                i += 1;
            }
            let t: String = cs[start..i].iter().collect();
            let tok = match t.parse::<i64>() {
                Ok(v) => T::Int(v),
                Err(_) => T::Float(t),
            };
            out.push((tok, base + start as u32, base + i as u32));
            continue;
        }
        if c.is_alphabetic()
            || (c == '_' && i + 1 < cs.len() && (cs[i + 1].is_alphanumeric() || cs[i + 1] == '_'))
        {
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push((
                T::Id(cs[start..i].iter().collect()),
                base + start as u32,
                base + i as u32,
            ));
            continue;
        }
        let rest: String = cs[i..].iter().collect();
        let op = OPS
            .iter()
            .find(|o| rest.starts_with(**o))
            .unwrap_or_else(|| panic!("bad char `{c}` in `{src}`"));
        i += op.len();
        out.push((T::Op(op), base + start as u32, base + i as u32));
    }
    out
}

struct P<'a> {
    b: &'a mut B,
    toks: Vec<(T, u32, u32)>,
    pos: usize,
    line: u32,
}

fn binop(s: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match s {
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

impl P<'_> {
    fn peek(&self) -> Option<&T> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(T::Op(o)) if *o == op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, op: &str) {
        assert!(self.eat(op), "expected `{op}`");
    }
    fn node(&mut self, e: Expr, c0: u32, c1: u32) -> ExprId {
        self.b.m.exprs.append(e, span(self.line, c0, c1))
    }
    fn start(&self, e: ExprId) -> u32 {
        self.b.m.expr_span(e).start.col
    }
    fn end(&self, e: ExprId) -> u32 {
        self.b.m.expr_span(e).end.col
    }

    fn expr(&mut self, min: u8) -> ExprId {
        let mut lhs = self.unary();
        while let Some(T::Op(o)) = self.peek().cloned() {
            let (prec, op) = if o == "#" {
                (12, None)
            } else if let Some(op) = binop(o) {
                (op.precedence(), Some(op))
            } else {
                break;
            };
            if prec < min {
                break;
            }
            self.pos += 1;
            let rhs = self.expr(prec + 1);
            let (c0, c1) = (self.start(lhs), self.end(rhs));
            lhs = match op {
                Some(op) => self.node(Expr::Binary { op, lhs, rhs }, c0, c1),
                None => self.node(
                    Expr::Compose {
                        outer: lhs,
                        inner: rhs,
                    },
                    c0,
                    c1,
                ),
            };
        }
        lhs
    }

    fn unary(&mut self) -> ExprId {
        let c0 = self.toks[self.pos].1;
        if self.eat("-") || self.eat("!") {
            let op = if matches!(self.toks[self.pos - 1].0, T::Op("-")) {
                UnaryOp::Neg
            } else {
                UnaryOp::Not
            };
            let e = self.unary();
            let c1 = self.end(e);
            return self.node(Expr::Unary { op, expr: e }, c0, c1);
        }
        let e = self.primary();
        self.postfix(e)
    }

    fn primary(&mut self) -> ExprId {
        let (t, c0, c1) = self.toks[self.pos].clone();
        self.pos += 1;
        match t {
            T::Int(v) => self.node(Expr::Int(v), c0, c1),
            T::Float(text) => {
                let value = text.trim_end_matches('f').parse().unwrap_or(0.0);
                self.node(Expr::Float { value, text }, c0, c1)
            }
            T::Op("_") => self.node(Expr::Wildcard, c0, c1),
            T::Op("(") => {
                let e = self.expr(0);
                self.expect(")");
                e
            }
            T::Id(n) if n == "true" || n == "false" => self.node(Expr::Bool(n == "true"), c0, c1),
            T::Id(n) => {
                if self.eat("(") {
                    let args = self.args(")");
                    let c1 = self.toks[self.pos - 1].2;
                    let func = Ident::new(n, span(self.line, c0, c0 + 4));
                    self.node(Expr::Call { func, args }, c0, c1)
                } else {
                    self.node(Expr::Name(n), c0, c1)
                }
            }
            t => panic!("unexpected {t:?}"),
        }
    }

    fn args(&mut self, close: &str) -> Vec<ExprId> {
        let mut v = Vec::new();
        if self.eat(close) {
            return v;
        }
        loop {
            v.push(self.expr(0));
            if self.eat(close) {
                return v;
            }
            self.expect(",");
        }
    }

    fn postfix(&mut self, mut e: ExprId) -> ExprId {
        loop {
            let c0 = self.start(e);
            if self.eat("[") {
                let index = self.expr(0);
                self.expect("]");
                let c1 = self.toks[self.pos - 1].2;
                e = self.node(Expr::Index { base: e, index }, c0, c1);
            } else if self.eat(".") {
                let (T::Id(n), f0, f1) = self.toks[self.pos].clone() else {
                    panic!("field name")
                };
                self.pos += 1;
                match ViewOp::from_name(&n) {
                    Some(op) if self.eat("(") => {
                        let args = self.args(")");
                        let c1 = self.toks[self.pos - 1].2;
                        e = self.node(Expr::View { base: e, op, args }, c0, c1);
                    }
                    _ => {
                        let field = Ident::new(n, span(self.line, f0, f1));
                        e = self.node(Expr::Field { base: e, field }, c0, f1);
                    }
                }
            } else {
                return e;
            }
        }
    }
}
