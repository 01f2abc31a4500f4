//! Symbolic integer expressions: the form of the checker's view shapes and offsets, and what the
//! lowering computes sizes, offsets and launch dimensions with. A [`Sym`] prints as C++ (tunables and constants are template parameters or
//! `constexpr`s there, symbolic dims are kernel arguments) and evaluates on the host (the
//! runtime's launch plan) from the same value.

use crate::ir::{BinaryOp, Expr, ExprId, Module, UnaryOp};
use std::collections::BTreeMap;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sym {
    Int(i64),
    /// A tunable, constant or symbolic dim (or a C++ local in kernel code).
    Name(String),
    Neg(Box<Sym>),
    Not(Box<Sym>),
    Bin(BinaryOp, Box<Sym>, Box<Sym>),
    /// Ceiling division.
    Cdiv(Box<Sym>, Box<Sym>),
    Min(Box<Sym>, Box<Sym>),
    Max(Box<Sym>, Box<Sym>),
}

/// Name → value, for host-side evaluation.
pub type SymEnv = BTreeMap<String, i64>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymError {
    Unbound(String),
    DivByZero,
    Overflow,
}

impl fmt::Display for SymError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymError::Unbound(n) => write!(f, "`{n}` has no value here"),
            SymError::DivByZero => write!(f, "division by zero"),
            SymError::Overflow => write!(f, "integer overflow"),
        }
    }
}

impl Sym {
    pub fn int(v: i64) -> Sym {
        Sym::Int(v)
    }
    pub fn name(n: impl Into<String>) -> Sym {
        Sym::Name(n.into())
    }
    pub fn bin(op: BinaryOp, a: Sym, b: Sym) -> Sym {
        // Fold the identities that keep emitted code readable.
        match (op, &a, &b) {
            (BinaryOp::Mul, Sym::Int(1), _) => b,
            (BinaryOp::Mul | BinaryOp::Div, _, Sym::Int(1)) => a,
            (BinaryOp::Mul, Sym::Int(0), _) | (BinaryOp::Mul, _, Sym::Int(0)) => Sym::Int(0),
            (BinaryOp::Add, Sym::Int(0), _) => b,
            (BinaryOp::Add | BinaryOp::Sub, _, Sym::Int(0)) => a,
            (_, Sym::Int(x), Sym::Int(y)) => match eval_bin(op, *x, *y) {
                Ok(v) => Sym::Int(v),
                Err(_) => Sym::Bin(op, Box::new(a), Box::new(b)),
            },
            _ => Sym::Bin(op, Box::new(a), Box::new(b)),
        }
    }
    pub fn mul(a: Sym, b: Sym) -> Sym {
        Sym::bin(BinaryOp::Mul, a, b)
    }
    pub fn add(a: Sym, b: Sym) -> Sym {
        Sym::bin(BinaryOp::Add, a, b)
    }
    pub fn cdiv(a: Sym, b: Sym) -> Sym {
        Sym::Cdiv(Box::new(a), Box::new(b))
    }

    /// Converts an IR expression (integer arithmetic over names and literals).
    pub fn from_expr(m: &Module, e: ExprId) -> Option<Sym> {
        Some(match &m.exprs[e] {
            Expr::Int(v) => Sym::Int(*v),
            Expr::Bool(b) => Sym::Int(*b as i64),
            Expr::Name(n) => Sym::Name(n.clone()),
            Expr::Unary {
                op: UnaryOp::Neg,
                expr,
            } => Sym::Neg(Box::new(Sym::from_expr(m, *expr)?)),
            Expr::Unary {
                op: UnaryOp::Not,
                expr,
            } => Sym::Not(Box::new(Sym::from_expr(m, *expr)?)),
            Expr::Binary { op, lhs, rhs } => Sym::Bin(
                *op,
                Box::new(Sym::from_expr(m, *lhs)?),
                Box::new(Sym::from_expr(m, *rhs)?),
            ),
            Expr::Call { func, args } if args.len() == 2 => {
                let a = Box::new(Sym::from_expr(m, args[0])?);
                let b = Box::new(Sym::from_expr(m, args[1])?);
                match func.name.as_str() {
                    "cdiv" => Sym::Cdiv(a, b),
                    "min" => Sym::Min(a, b),
                    "max" => Sym::Max(a, b),
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    pub fn eval(&self, env: &SymEnv) -> Result<i64, SymError> {
        Ok(match self {
            Sym::Int(v) => *v,
            Sym::Name(n) => *env.get(n).ok_or_else(|| SymError::Unbound(n.clone()))?,
            Sym::Neg(a) => a.eval(env)?.checked_neg().ok_or(SymError::Overflow)?,
            Sym::Not(a) => (a.eval(env)? == 0) as i64,
            Sym::Bin(op, a, b) => eval_bin(*op, a.eval(env)?, b.eval(env)?)?,
            Sym::Cdiv(a, b) => {
                let (a, b) = (a.eval(env)?, b.eval(env)?);
                if b == 0 {
                    return Err(SymError::DivByZero);
                }
                // In 128 bits: `a + b - 1` may not fit in 64.
                i64::try_from((a as i128 + b as i128 - 1).div_euclid(b as i128))
                    .map_err(|_| SymError::Overflow)?
            }
            Sym::Min(a, b) => a.eval(env)?.min(b.eval(env)?),
            Sym::Max(a, b) => a.eval(env)?.max(b.eval(env)?),
        })
    }

    /// Names this expression mentions.
    pub fn names(&self, out: &mut Vec<String>) {
        match self {
            Sym::Int(_) => {}
            Sym::Name(n) => {
                if !out.contains(n) {
                    out.push(n.clone())
                }
            }
            Sym::Neg(a) | Sym::Not(a) => a.names(out),
            Sym::Bin(_, a, b) | Sym::Cdiv(a, b) | Sym::Min(a, b) | Sym::Max(a, b) => {
                a.names(out);
                b.names(out)
            }
        }
    }

    /// C++ text; `rename` maps a name to its C++ spelling (e.g. a loop variable's register).
    pub fn to_cpp_with(&self, rename: &dyn Fn(&str) -> String) -> String {
        let mut s = String::new();
        self.write(&mut s, 0, rename);
        s
    }

    pub fn to_cpp(&self) -> String {
        self.to_cpp_with(&|n| n.to_string())
    }

    /// C++ text to stand as an operand of any operator: parenthesised unless it is a number,
    /// a name or a call.
    pub fn to_cpp_operand(&self) -> String {
        match self {
            Sym::Int(_) | Sym::Name(_) | Sym::Cdiv(..) | Sym::Min(..) | Sym::Max(..) => {
                self.to_cpp()
            }
            _ => format!("({})", self.to_cpp()),
        }
    }

    fn write(&self, s: &mut String, min_prec: u8, rename: &dyn Fn(&str) -> String) {
        match self {
            Sym::Int(v) => s.push_str(&v.to_string()),
            Sym::Name(n) => s.push_str(&rename(n)),
            Sym::Neg(a) => {
                s.push('-');
                a.write(s, 11, rename)
            }
            Sym::Not(a) => {
                s.push('!');
                a.write(s, 11, rename)
            }
            Sym::Bin(op, a, b) => {
                let p = op.precedence();
                if p < min_prec {
                    s.push('(');
                }
                a.write(s, p, rename);
                s.push(' ');
                s.push_str(op.symbol());
                s.push(' ');
                b.write(s, p + 1, rename);
                if p < min_prec {
                    s.push(')');
                }
            }
            Sym::Cdiv(a, b) | Sym::Min(a, b) | Sym::Max(a, b) => {
                s.push_str(match self {
                    Sym::Cdiv(..) => "tsl_cdiv(",
                    Sym::Min(..) => "tsl_min(",
                    _ => "tsl_max(",
                });
                a.write(s, 0, rename);
                s.push_str(", ");
                b.write(s, 0, rename);
                s.push(')');
            }
        }
    }
}

/// The neutral extent: a product's unit (one block, one thread).
impl Default for Sym {
    fn default() -> Self {
        Sym::Int(1)
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_cpp())
    }
}

pub fn eval_bin(op: BinaryOp, a: i64, b: i64) -> Result<i64, SymError> {
    op.apply(a, b).map_err(|e| match e {
        crate::ir::ArithError::Overflow => SymError::Overflow,
        crate::ir::ArithError::DivByZero => SymError::DivByZero,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_with_minimal_parentheses_and_evaluates() {
        let e = Sym::mul(Sym::add(Sym::name("a"), Sym::int(1)), Sym::name("b"));
        assert_eq!(e.to_cpp(), "(a + 1) * b");
        let env: SymEnv = [("a".to_string(), 3), ("b".to_string(), 4)].into();
        assert_eq!(e.eval(&env), Ok(16));
        assert_eq!(Sym::cdiv(Sym::int(10), Sym::int(4)).eval(&env), Ok(3));
        assert_eq!(
            Sym::name("z").eval(&env),
            Err(SymError::Unbound("z".into()))
        );
    }

    #[test]
    fn folds_identities() {
        assert_eq!(Sym::mul(Sym::int(1), Sym::name("x")), Sym::name("x"));
        assert_eq!(Sym::add(Sym::name("x"), Sym::int(0)), Sym::name("x"));
        assert_eq!(Sym::mul(Sym::int(6), Sym::int(7)), Sym::int(42));
    }
}
