//! Expressions.
//!
//! Expressions are pure: they name values (loop variables, tunables, symbolic dims, scalars,
//! tensors, events) and build index arithmetic and tensor *views* (`.subspan`, `.chunkat`,
//! `.at`). They never write memory; statements do. Each expression is a node in the kernel's
//! expression arena and has a span in the arena's side table.

use super::arena::Handle;
use crate::span::Span;

pub type ExprId = Handle<Expr>;

/// A name as the user wrote it, with where.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Ident {
    pub fn new(name: impl Into<String>, span: Span) -> Self {
        Ident {
            name: name.into(),
            span,
        }
    }
    /// A synthetic identifier (hand-built IR).
    pub fn synth(name: impl Into<String>) -> Self {
        Ident {
            name: name.into(),
            span: Span::DUMMY,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
        }
    }
}

/// C binary operators (with C precedence, see [`BinaryOp::precedence`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
        }
    }
    /// Binding strength; higher binds tighter (C's table). `#` (compose) binds tighter than
    /// every binary operator.
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Le | Gt | Ge => 7,
            Eq | Ne => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            And => 2,
            Or => 1,
        }
    }
    /// C semantics on 64-bit integers (comparisons and logicals give 0/1), with overflow and
    /// division by zero as errors instead of wrapping or trapping.
    pub fn apply(self, a: i64, b: i64) -> Result<i64, ArithError> {
        use BinaryOp::*;
        let o = ArithError::Overflow;
        Ok(match self {
            Add => a.checked_add(b).ok_or(o)?,
            Sub => a.checked_sub(b).ok_or(o)?,
            Mul => a.checked_mul(b).ok_or(o)?,
            Div | Rem if b == 0 => return Err(ArithError::DivByZero),
            Div => a.checked_div(b).ok_or(o)?,
            Rem => a.checked_rem(b).ok_or(o)?,
            Shl | Shr if !(0..64).contains(&b) => return Err(o),
            // `checked_shl` only bounds the shift; a result that loses bits overflows too.
            Shl => match a.checked_shl(b as u32) {
                Some(r) if r >> b == a => r,
                _ => return Err(o),
            },
            Shr => a >> b,
            Lt => (a < b) as i64,
            Le => (a <= b) as i64,
            Gt => (a > b) as i64,
            Ge => (a >= b) as i64,
            Eq => (a == b) as i64,
            Ne => (a != b) as i64,
            BitAnd => a & b,
            BitXor => a ^ b,
            BitOr => a | b,
            And => (a != 0 && b != 0) as i64,
            Or => (a != 0 || b != 0) as i64,
        })
    }

    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Lt | Le | Gt | Ge | Eq | Ne)
    }
    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }
}

/// Why integer arithmetic on constants failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithError {
    Overflow,
    DivByZero,
}

/// Tensor view operations, written as methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewOp {
    /// `t.at(i, j)`: on a tensor, the element (i, j); on a tiled view, the tile (i, j).
    At,
    /// `t.subspan(TM, TK)`: tile the tensor into `[TM, TK]` tiles (use `.at` to pick one).
    Subspan,
    /// `t.chunkat(i, j)`: the (i, j) chunk when each dimension is split evenly among the
    /// enclosing parallel extent (or, for `_`, kept whole / split by the iteration count).
    Chunkat,
    /// `t.transpose()`: the 2-D tensor or tile with its dimensions swapped (element (i, j) of
    /// the view is element (j, i) of `t`). Written last in a view chain; the SIMT path lowers
    /// it as the destination of a `dma.copy` (a transposed store).
    Transpose,
    /// `t.view(A, B)`: a window of `[A, B]` elements (placed with `.from`).
    Window,
    /// `.from(i, j)`: the element offset of a `.view` window.
    From,
    /// The strides of a `.view` window, written `t.view(A, B : SA, SB)`: elements `SA` (`SB`)
    /// apart along each dimension in the viewed tensor's memory. Not a method of its own.
    Strides,
    /// `t.span_as(A, B)` / `t.span_as([A, B])`: the same elements under another shape.
    SpanAs,
    /// `.sqz()` / `.sqz(d)`: drop dimensions of extent 1.
    Sqz,
    /// `.step(s, …)` after `.subspan`: tiles `s` apart instead of adjacent.
    Step,
    /// `t.span(d)`: extent `d` of the shape (a value, not a view).
    SpanOf,
}

impl ViewOp {
    /// Whether a lowering handles the method (the checker's gate rejects the others).
    pub fn is_lowered(self) -> bool {
        matches!(
            self,
            ViewOp::At | ViewOp::Subspan | ViewOp::Chunkat | ViewOp::Transpose
        )
    }
    /// Whether `_` among the method's arguments keeps a dimension whole (`.chunkat(_, k)`,
    /// `.subspan(BM, _)`, `.view(1, _)`).
    pub fn keeps_whole(self) -> bool {
        matches!(self, ViewOp::Chunkat | ViewOp::Subspan | ViewOp::Window)
    }
    pub fn from_name(s: &str) -> Option<ViewOp> {
        Some(match s {
            "at" => ViewOp::At,
            "subspan" => ViewOp::Subspan,
            "chunkat" => ViewOp::Chunkat,
            "transpose" => ViewOp::Transpose,
            "view" => ViewOp::Window,
            "from" => ViewOp::From,
            "span_as" => ViewOp::SpanAs,
            "sqz" => ViewOp::Sqz,
            "step" => ViewOp::Step,
            "span" => ViewOp::SpanOf,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            ViewOp::At => "at",
            ViewOp::Subspan => "subspan",
            ViewOp::Chunkat => "chunkat",
            ViewOp::Transpose => "transpose",
            ViewOp::Window => "view",
            ViewOp::From => "from",
            ViewOp::Strides => "strides",
            ViewOp::SpanAs => "span_as",
            ViewOp::Sqz => "sqz",
            ViewOp::Step => "step",
            ViewOp::SpanOf => "span",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Integer literal.
    Int(i64),
    /// Floating literal; `text` keeps the spelling (`0.0f`).
    Float {
        value: f64,
        text: String,
    },
    Bool(bool),
    /// A name: loop/parallel variable, tunable, constant, symbolic dim, scalar, tensor, event
    /// or binding. Resolved by the checker.
    Name(String),
    /// `_` inside `.chunkat(_, k)`.
    Wildcard,
    Unary {
        op: UnaryOp,
        expr: ExprId,
    },
    Binary {
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `outer # inner`: the flat index `outer * extent(inner) + inner`.
    Compose {
        outer: ExprId,
        inner: ExprId,
    },
    /// `f(a, b)`: built-ins `cdiv`, `min`, `max`.
    Call {
        func: Ident,
        args: Vec<ExprId>,
    },
    /// `base[i]`: an element of a tensor array (`lhs_s[stage]`) or an event array.
    Index {
        base: ExprId,
        index: ExprId,
    },
    /// `base.op(args)`.
    View {
        base: ExprId,
        op: ViewOp,
        args: Vec<ExprId>,
    },
    /// `base.field` (`.data`).
    Field {
        base: ExprId,
        field: Ident,
    },
}

/// Built-in functions and how many arguments each takes: `cdiv`, `min`, `max` (integer or
/// element values) and the element-wise math of today's Croqtile (checked; the lowering gate
/// rejects the math ones until a lowering handles them).
pub fn builtin_arity(name: &str) -> Option<usize> {
    // `__exp` is `exp` (the device intrinsic spelling), `__to<T>` a conversion.
    if name.starts_with("__to<") {
        return Some(1);
    }
    let base = name.strip_prefix("__").unwrap_or(name);
    // `__exp2f`, `__expf`: CUDA's f32 spelling of a math built-in.
    if name.starts_with("__")
        && let Some(f) = base.strip_suffix('f')
        && !matches!(f, "" | "fma" | "erf" | "rcp")
        && let Some(n) = builtin_arity(f)
        && !f.starts_with("__")
        && !matches!(f, "cdiv" | "select")
    {
        return Some(n);
    }
    Some(match base {
        "cdiv" | "min" | "max" if base.len() == name.len() => 2,
        "min" | "max" | "pow" | "fmin" | "fmax" | "atan2" | "hypot" | "fmod" | "copysign" => 2,
        "fma" | "fmaf" | "select" => 3,
        "atomic_add" | "atomic_sub" | "atomic_min" | "atomic_max" | "atomic_exch"
        | "atomic_and" | "atomic_or" | "atomic_xor" => 2,
        "atomic_cas" => 3,
        // `__bar_arrive(id, threads)`, `__bar_sync(id, threads)`: named barriers (PTX `bar`).
        "bar_arrive" | "bar_sync" if base.len() != name.len() => 2,
        "exp" | "exp2" | "exp10" | "expm1" | "log" | "log2" | "log10" | "log1p" | "sqrt"
        | "rsqrt" | "cbrt" | "tanh" | "sinh" | "cosh" | "asinh" | "acosh" | "atanh" | "erf"
        | "erfc" | "abs" | "fabs" | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "floor"
        | "ceil" | "round" | "trunc" | "sigmoid" | "relu" | "gelu" | "silu" | "rcp" | "frcp_rn"
        | "isnan" | "isinf" | "sign" => 1,
        _ => return None,
    })
}
