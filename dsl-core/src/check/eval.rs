//! Integer evaluation of IR expressions with C semantics (`/` and `%` truncate, comparisons
//! and logicals give 0/1, `cdiv`/`min`/`max` built in), and its interval counterpart for the
//! static range check.
//!
//! Names are looked up by spelling in an [`Env`]: exact values first (tunables, constants,
//! problem dims), then ranges (a range of one value counts as a value). `a # b` needs the
//! extent of `b` in [`Env::extents`].

use crate::ir::{BinaryOp, Expr, ExprId, Module, UnaryOp};
use std::collections::HashMap;
use std::fmt;

/// Values, extents and ranges the evaluator may use.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// Exact values: tunables, constants, problem dims.
    pub values: HashMap<String, i64>,
    /// Extents of parallel/foreach variables (for `outer # inner`).
    pub extents: HashMap<String, i64>,
    /// Ranges of loop variables and bindings (for the interval analysis).
    pub ranges: HashMap<String, Interval>,
    /// Ranges of compound expressions a guard bounds (`if (c * 128 + t < N)`), by their
    /// printed form: an expression that prints the same (in an index, or inside one) ranges
    /// within it too.
    pub expr_ranges: Vec<(String, Interval)>,
}

impl Env {
    pub fn new() -> Env {
        Env::default()
    }
    pub fn with_value(mut self, name: &str, v: i64) -> Env {
        self.values.insert(name.to_string(), v);
        self
    }
}

/// Why an expression has no integer value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EvalError {
    #[error("`{name}` has no compile-time value here")]
    NoValue { name: String, expr: ExprId },
    #[error("division by zero")]
    DivByZero { expr: ExprId },
    #[error("integer overflow")]
    Overflow { expr: ExprId },
    #[error("not an integer expression")]
    NotInteger { expr: ExprId },
    #[error("unknown function `{name}` (the built-ins are cdiv, min and max, with 2 arguments)")]
    BadCall { name: String, expr: ExprId },
    #[error("`#` needs a parallel or loop variable with a known extent on its right")]
    NoExtent { expr: ExprId },
}

impl EvalError {
    /// The sub-expression at fault.
    pub fn expr(&self) -> ExprId {
        match self {
            EvalError::NoValue { expr, .. }
            | EvalError::DivByZero { expr }
            | EvalError::Overflow { expr }
            | EvalError::NotInteger { expr }
            | EvalError::BadCall { expr, .. }
            | EvalError::NoExtent { expr } => *expr,
        }
    }
}

/// Evaluates `e` to an integer under `env`.
pub fn eval(m: &Module, e: ExprId, env: &Env) -> Result<i64, EvalError> {
    let ovf = || EvalError::Overflow { expr: e };
    Ok(match &m.exprs[e] {
        Expr::Int(v) => *v,
        Expr::Bool(b) => *b as i64,
        Expr::Float { .. }
        | Expr::Wildcard
        | Expr::Index { .. }
        | Expr::View { .. }
        | Expr::Field { .. } => {
            return Err(EvalError::NotInteger { expr: e });
        }
        Expr::Name(n) => match env.values.get(n) {
            Some(v) => *v,
            None => match env.ranges.get(n).and_then(|r| r.single()) {
                Some(v) => v,
                None => {
                    return Err(EvalError::NoValue {
                        name: n.clone(),
                        expr: e,
                    });
                }
            },
        },
        Expr::Unary { op, expr } => {
            let v = eval(m, *expr, env)?;
            match op {
                UnaryOp::Neg => v.checked_neg().ok_or_else(ovf)?,
                UnaryOp::Not => (v == 0) as i64,
            }
        }
        Expr::Binary { op, lhs, rhs } => {
            let a = eval(m, *lhs, env)?;
            // Short-circuit like C so `x != 0 && y / x` is fine.
            match op {
                BinaryOp::And if a == 0 => return Ok(0),
                BinaryOp::Or if a != 0 => return Ok(1),
                _ => {}
            }
            let b = eval(m, *rhs, env)?;
            binary(*op, a, b).map_err(|k| k.at(e))?
        }
        Expr::Compose { outer, inner } => {
            let ext = extent_of(m, *inner, env).ok_or(EvalError::NoExtent { expr: e })?;
            let o = eval(m, *outer, env)?;
            let i = eval(m, *inner, env)?;
            o.checked_mul(ext)
                .and_then(|x| x.checked_add(i))
                .ok_or_else(ovf)?
        }
        Expr::Call { func, args } => {
            if args.len() != 2 || !matches!(func.name.as_str(), "cdiv" | "min" | "max") {
                return Err(EvalError::BadCall {
                    name: func.name.clone(),
                    expr: e,
                });
            }
            let a = eval(m, args[0], env)?;
            let b = eval(m, args[1], env)?;
            match func.name.as_str() {
                "min" => a.min(b),
                "max" => a.max(b),
                _ => cdiv(a, b).map_err(|k| k.at(e))?,
            }
        }
    })
}

/// The extent of a `#` inner operand: a name with a registered extent.
/// The extent of the right side of `#`: a variable's, or for a composed `i # j` the
/// product of both sides' extents.
fn extent_of(m: &Module, inner: ExprId, env: &Env) -> Option<i64> {
    match &m.exprs[inner] {
        Expr::Name(n) => env.extents.get(n).copied(),
        Expr::Compose { outer, inner } => {
            extent_of(m, *outer, env)?.checked_mul(extent_of(m, *inner, env)?)
        }
        _ => None,
    }
}

#[derive(Clone, Copy)]
enum ArithErr {
    DivByZero,
    Overflow,
}

impl ArithErr {
    fn at(self, expr: ExprId) -> EvalError {
        match self {
            ArithErr::DivByZero => EvalError::DivByZero { expr },
            ArithErr::Overflow => EvalError::Overflow { expr },
        }
    }
}

fn cdiv(a: i64, b: i64) -> Result<i64, ArithErr> {
    if b == 0 {
        return Err(ArithErr::DivByZero);
    }
    let q = a.checked_div(b).ok_or(ArithErr::Overflow)?;
    Ok(if a % b != 0 && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    })
}

fn binary(op: BinaryOp, a: i64, b: i64) -> Result<i64, ArithErr> {
    op.apply(a, b).map_err(|e| match e {
        crate::ir::ArithError::Overflow => ArithErr::Overflow,
        crate::ir::ArithError::DivByZero => ArithErr::DivByZero,
    })
}

/// An interval bound: an integer or ±∞.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ext {
    NegInf,
    Fin(i64),
    PosInf,
}

impl Ext {
    fn from_i128(v: i128) -> Ext {
        if v > i64::MAX as i128 {
            Ext::PosInf
        } else if v < i64::MIN as i128 {
            Ext::NegInf
        } else {
            Ext::Fin(v as i64)
        }
    }
    fn add(self, o: Ext) -> Option<Ext> {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => Some(Ext::from_i128(a as i128 + b as i128)),
            (Ext::PosInf, Ext::NegInf) | (Ext::NegInf, Ext::PosInf) => None,
            (Ext::Fin(_), x) | (x, Ext::Fin(_)) => Some(x),
            (x, _) => Some(x),
        }
    }
    fn neg(self) -> Ext {
        match self {
            Ext::NegInf => Ext::PosInf,
            Ext::PosInf => Ext::NegInf,
            Ext::Fin(v) => Ext::from_i128(-(v as i128)),
        }
    }
    fn sign(self) -> i32 {
        match self {
            Ext::NegInf => -1,
            Ext::PosInf => 1,
            Ext::Fin(v) => v.signum() as i32,
        }
    }
    fn mul(self, o: Ext) -> Ext {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => Ext::from_i128(a as i128 * b as i128),
            _ => match self.sign() * o.sign() {
                0 => Ext::Fin(0),
                s if s > 0 => Ext::PosInf,
                _ => Ext::NegInf,
            },
        }
    }
    /// Truncating division by a non-zero bound.
    fn div(self, o: Ext) -> Ext {
        match (self, o) {
            (Ext::Fin(a), Ext::Fin(b)) => Ext::from_i128(a as i128 / b as i128),
            (Ext::Fin(_), _) => Ext::Fin(0),
            _ => {
                if self.sign() * o.sign() > 0 {
                    Ext::PosInf
                } else {
                    Ext::NegInf
                }
            }
        }
    }
}

impl fmt::Display for Ext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ext::NegInf => f.write_str("-inf"),
            Ext::PosInf => f.write_str("+inf"),
            Ext::Fin(v) => write!(f, "{v}"),
        }
    }
}

/// A closed integer interval `[lo, hi]` (bounds may be infinite).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: Ext,
    pub hi: Ext,
}

impl Interval {
    pub const TOP: Interval = Interval {
        lo: Ext::NegInf,
        hi: Ext::PosInf,
    };
    pub fn new(lo: i64, hi: i64) -> Interval {
        Interval {
            lo: Ext::Fin(lo),
            hi: Ext::Fin(hi),
        }
    }
    pub fn single(self) -> Option<i64> {
        match (self.lo, self.hi) {
            (Ext::Fin(a), Ext::Fin(b)) if a == b => Some(a),
            _ => None,
        }
    }
    pub fn is_empty(self) -> bool {
        self.lo > self.hi
    }
    /// The smallest interval holding both.
    pub fn hull(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }
    pub fn meet(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
        }
    }
    fn from_corners(c: [Ext; 4]) -> Interval {
        Interval {
            lo: *c.iter().min().unwrap_or(&Ext::NegInf),
            hi: *c.iter().max().unwrap_or(&Ext::PosInf),
        }
    }
    fn bool() -> Interval {
        Interval::new(0, 1)
    }
    fn nonneg(self) -> bool {
        self.lo >= Ext::Fin(0)
    }
}

impl fmt::Display for Interval {
    /// Half-open when the upper bound is finite: `[1, 3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.hi {
            Ext::Fin(h) if h < i64::MAX => write!(f, "[{}, {})", self.lo, h + 1),
            _ => write!(f, "[{}, {}]", self.lo, self.hi),
        }
    }
}

/// The range of values `e` can take under `env` (sound over-approximation; `TOP` when unknown).
pub fn eval_interval(m: &Module, e: ExprId, env: &Env) -> Interval {
    if let Ok(v) = eval(m, e, env) {
        return Interval::new(v, v);
    }
    let r = interval_of(m, e, env);
    if env.expr_ranges.is_empty() || matches!(m.exprs[e], Expr::Name(_) | Expr::Int(_)) {
        return r;
    }
    let text = m.expr_to_string(e);
    env.expr_ranges
        .iter()
        .filter(|(t, _)| *t == text)
        .fold(r, |r, (_, g)| {
            let met = r.meet(*g);
            if met.is_empty() { r } else { met }
        })
}

/// [`eval_interval`] from `e`'s operands, before the guards' ranges of `e` itself.
fn interval_of(m: &Module, e: ExprId, env: &Env) -> Interval {
    match &m.exprs[e] {
        Expr::Int(v) => Interval::new(*v, *v),
        Expr::Bool(b) => Interval::new(*b as i64, *b as i64),
        Expr::Name(n) => env.ranges.get(n).copied().unwrap_or(Interval::TOP),
        Expr::Unary {
            op: UnaryOp::Neg,
            expr,
        } => {
            let r = eval_interval(m, *expr, env);
            Interval {
                lo: r.hi.neg(),
                hi: r.lo.neg(),
            }
        }
        Expr::Unary {
            op: UnaryOp::Not, ..
        } => Interval::bool(),
        Expr::Binary { op, lhs, rhs } => {
            let a = eval_interval(m, *lhs, env);
            let b = eval_interval(m, *rhs, env);
            interval_binary(*op, a, b)
        }
        Expr::Compose { outer, inner } => match extent_of(m, *inner, env) {
            Some(ext) => {
                let o = eval_interval(m, *outer, env);
                let i = eval_interval(m, *inner, env);
                let scaled = interval_binary(BinaryOp::Mul, o, Interval::new(ext, ext));
                interval_binary(BinaryOp::Add, scaled, i)
            }
            None => Interval::TOP,
        },
        Expr::Call { func, args } if args.len() == 2 => {
            let a = eval_interval(m, args[0], env);
            let b = eval_interval(m, args[1], env);
            match func.name.as_str() {
                "min" => Interval {
                    lo: a.lo.min(b.lo),
                    hi: a.hi.min(b.hi),
                },
                "max" => Interval {
                    lo: a.lo.max(b.lo),
                    hi: a.hi.max(b.hi),
                },
                "cdiv" if b.lo > Ext::Fin(0) => {
                    // cdiv(a, b) = (a + b - 1) / b for positive b.
                    let num = interval_binary(
                        BinaryOp::Add,
                        a,
                        interval_binary(BinaryOp::Sub, b, Interval::new(1, 1)),
                    );
                    interval_binary(BinaryOp::Div, num, b)
                }
                _ => Interval::TOP,
            }
        }
        _ => Interval::TOP,
    }
}

fn interval_binary(op: BinaryOp, a: Interval, b: Interval) -> Interval {
    use BinaryOp::*;
    if a.is_empty() || b.is_empty() {
        return Interval::TOP;
    }
    match op {
        Add => match (a.lo.add(b.lo), a.hi.add(b.hi)) {
            (Some(lo), Some(hi)) => Interval { lo, hi },
            _ => Interval::TOP,
        },
        Sub => interval_binary(
            Add,
            a,
            Interval {
                lo: b.hi.neg(),
                hi: b.lo.neg(),
            },
        ),
        Mul => Interval::from_corners([
            a.lo.mul(b.lo),
            a.lo.mul(b.hi),
            a.hi.mul(b.lo),
            a.hi.mul(b.hi),
        ]),
        Div if b.lo > Ext::Fin(0) || b.hi < Ext::Fin(0) => Interval::from_corners([
            a.lo.div(b.lo),
            a.lo.div(b.hi),
            a.hi.div(b.lo),
            a.hi.div(b.hi),
        ]),
        Rem if b.lo > Ext::Fin(0) || b.hi < Ext::Fin(0) => {
            // |a % b| < max |b|, with the sign of a.
            let mb = b.lo.neg().max(b.hi);
            let lim = match mb {
                Ext::Fin(v) => Ext::Fin(v - 1),
                x => x,
            };
            let lo = if a.nonneg() {
                Ext::Fin(0)
            } else {
                a.lo.max(lim.neg())
            };
            let hi = if a.hi <= Ext::Fin(0) {
                Ext::Fin(0)
            } else {
                a.hi.min(lim)
            };
            Interval { lo, hi }
        }
        Shr if a.nonneg() && b.nonneg() => match (b.lo, b.hi) {
            (Ext::Fin(l), Ext::Fin(h)) if h < 64 => {
                let hi = match a.hi {
                    Ext::Fin(v) => Ext::Fin(v >> l),
                    x => x,
                };
                let lo = match a.lo {
                    Ext::Fin(v) => Ext::Fin(v >> h),
                    x => x,
                };
                Interval { lo, hi }
            }
            _ => Interval {
                lo: Ext::Fin(0),
                hi: a.hi,
            },
        },
        Shl => match b.single() {
            Some(k) if (0..62).contains(&k) => {
                interval_binary(Mul, a, Interval::new(1 << k, 1 << k))
            }
            _ => Interval::TOP,
        },
        BitAnd if a.nonneg() || b.nonneg() => {
            let hi = if a.nonneg() && b.nonneg() {
                a.hi.min(b.hi)
            } else if a.nonneg() {
                a.hi
            } else {
                b.hi
            };
            Interval {
                lo: Ext::Fin(0),
                hi,
            }
        }
        BitOr | BitXor if a.nonneg() && b.nonneg() => match a.hi.max(b.hi) {
            Ext::Fin(v) => {
                let p = (v as u64 + 1).next_power_of_two();
                Interval {
                    lo: Ext::Fin(0),
                    hi: Ext::Fin((p - 1) as i64),
                }
            }
            _ => Interval {
                lo: Ext::Fin(0),
                hi: Ext::PosInf,
            },
        },
        Lt | Le | Gt | Ge | Eq | Ne | And | Or => Interval::bool(),
        _ => Interval::TOP,
    }
}
