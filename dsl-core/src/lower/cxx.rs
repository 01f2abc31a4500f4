//! Typed C++ expressions: the operands of the kernel IR's nodes (call arguments, template
//! arguments, initialisers, conditions, loop bounds, places). [`CExpr`] prints itself as C++
//! (`Display`) exactly as written: an operator prints no parentheses of its own, so a producer
//! says where they go with [`CExpr::Paren`] (or [`CExpr::wrap`], which adds them unless the
//! operand is one token). The names an expression uses are found by walking it
//! ([`CExpr::names`]), never by scanning text.

use crate::sym::Sym;
use std::collections::BTreeSet;
use std::fmt;

/// A C++ binary operator (with `+=` for a loop's step).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum COp {
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
    AddAssign,
}

impl COp {
    pub fn symbol(self) -> &'static str {
        use COp::*;
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
            AddAssign => "+=",
        }
    }
}

impl COp {
    /// The operator of a compound assignment (`+=` → `+`); `None` for `=`.
    pub fn of_assign(op: crate::ir::AssignOp) -> Option<COp> {
        use crate::ir::AssignOp as A;
        match op {
            A::Set => None,
            A::Add => Some(COp::Add),
            A::Sub => Some(COp::Sub),
            A::Mul => Some(COp::Mul),
            A::Div => Some(COp::Div),
        }
    }
}

impl From<crate::ir::BinaryOp> for COp {
    fn from(op: crate::ir::BinaryOp) -> COp {
        use crate::ir::BinaryOp as B;
        match op {
            B::Mul => COp::Mul,
            B::Div => COp::Div,
            B::Rem => COp::Rem,
            B::Add => COp::Add,
            B::Sub => COp::Sub,
            B::Shl => COp::Shl,
            B::Shr => COp::Shr,
            B::Lt => COp::Lt,
            B::Le => COp::Le,
            B::Gt => COp::Gt,
            B::Ge => COp::Ge,
            B::Eq => COp::Eq,
            B::Ne => COp::Ne,
            B::BitAnd => COp::BitAnd,
            B::BitXor => COp::BitXor,
            B::BitOr => COp::BitOr,
            B::And => COp::And,
            B::Or => COp::Or,
        }
    }
}

/// A C++ prefix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CUn {
    Neg,
    Not,
    BitNot,
    AddrOf,
    Deref,
    PreInc,
}

impl CUn {
    pub fn symbol(self) -> &'static str {
        match self {
            CUn::Neg => "-",
            CUn::Not => "!",
            CUn::BitNot => "~",
            CUn::AddrOf => "&",
            CUn::Deref => "*",
            CUn::PreInc => "++",
        }
    }
}

/// An `f32` literal (`0.0f`, `1e-6f`), kept as the bits of the DSL's `f64` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatLit(u64);

impl FloatLit {
    pub fn new(v: f64) -> Self {
        FloatLit(v.to_bits())
    }
}

impl fmt::Display for FloatLit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = f64::from_bits(self.0);
        // `inf`: no C++ literal spells it without a header; the bit pattern does.
        if v.is_infinite() {
            let bits = if v > 0.0 { "0x7f800000" } else { "0xff800000" };
            return write!(f, "__int_as_float({bits})");
        }
        let s = format!("{v:?}");
        if s.contains('.') || s.contains('e') {
            write!(f, "{s}f")
        } else {
            write!(f, "{s}.0f")
        }
    }
}

/// The thread variables as functions of `tsl_tid` (`const int wg = tsl_tid / 128; (void)wg;`),
/// then what the lambda computes from them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ThreadLambda {
    /// `[](int tsl_tid) { lets return value; }`: a predicate of thread `tsl_tid`.
    OfThread {
        lets: Vec<(String, CExpr)>,
        value: CExpr,
    },
    /// `[] { for (int tsl_tid = 0; tsl_tid < tsl_threads; ++tsl_tid) { lets if (cond) return
    /// tsl_tid; } return 0; }()`: the first thread for which `cond` holds.
    FirstThread {
        lets: Vec<(String, CExpr)>,
        cond: CExpr,
    },
}

impl ThreadLambda {
    fn lets(&self) -> &[(String, CExpr)] {
        match self {
            ThreadLambda::OfThread { lets, .. } | ThreadLambda::FirstThread { lets, .. } => lets,
        }
    }
}

impl fmt::Display for ThreadLambda {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lets = |f: &mut fmt::Formatter<'_>| {
            for (i, (n, v)) in self.lets().iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "const int {n} = {v}; (void){n};")?;
            }
            Ok(())
        };
        match self {
            ThreadLambda::OfThread { value, .. } => {
                f.write_str("[](int tsl_tid) { ")?;
                lets(f)?;
                write!(f, " return {value}; }}")
            }
            ThreadLambda::FirstThread { cond, .. } => {
                f.write_str("[] { for (int tsl_tid = 0; tsl_tid < tsl_threads; ++tsl_tid) { ")?;
                lets(f)?;
                write!(f, " if ({cond}) return tsl_tid; }} return 0; }}()")
            }
        }
    }
}

/// A C++ type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    /// A type of the lowering's fixed vocabulary, with its qualifiers (`int`, `const int`,
    /// `tsl_u32`, `__shared__ alignas(8) unsigned long long`).
    Named(&'static str),
    /// `const T`.
    Const(Box<CType>),
    /// `T*`, followed by `suffix` (` const`, ` __restrict__`, or nothing).
    Ptr(Box<CType>, &'static str),
    /// `name<targs…>` (`tsl_stage_t<BM, BK, ld, tsl_threads, float>`).
    Template {
        name: &'static str,
        targs: Vec<CExpr>,
    },
}

impl CType {
    pub fn konst(self) -> CType {
        CType::Const(Box::new(self))
    }
    pub fn ptr(self, suffix: &'static str) -> CType {
        CType::Ptr(Box::new(self), suffix)
    }
    /// The names the type mentions (a template's arguments).
    pub fn names(&self, out: &mut BTreeSet<String>) {
        match self {
            CType::Named(_) => {}
            CType::Const(t) | CType::Ptr(t, _) => t.names(out),
            CType::Template { name, targs } => {
                out.insert((*name).to_string());
                for a in targs {
                    a.names(out);
                }
            }
        }
    }
}

impl From<&'static str> for CType {
    fn from(s: &'static str) -> CType {
        CType::Named(s)
    }
}

impl fmt::Display for CType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CType::Named(s) => f.write_str(s),
            CType::Const(t) => write!(f, "const {t}"),
            CType::Ptr(t, suffix) => write!(f, "{t}*{suffix}"),
            CType::Template { name, targs } => {
                write!(f, "{name}<")?;
                comma(f, targs)?;
                f.write_str(">")
            }
        }
    }
}

/// A C++ expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CExpr {
    /// A variable, parameter, constant or function name the kernel declares or the prelude
    /// defines (`tsl_acc`, `BM`, `lhs`).
    Var(String),
    Int(i64),
    /// A keyword literal or a value the CUDA headers name (`true`, `nullptr`, `0u`).
    Lit(&'static str),
    Float(FloatLit),
    /// A C string literal, its escapes already C's (`"%d\n"` holds `%d\n`).
    Str(String),
    /// A C++ type in a template argument or a cast (`tsl_f16`, `unsigned char`).
    Type(&'static str),
    /// `a op b`, without parentheses of its own.
    Bin(COp, Box<CExpr>, Box<CExpr>),
    /// `op a`.
    Un(CUn, Box<CExpr>),
    /// `name<targs…>(args…)`.
    Call {
        name: String,
        targs: Vec<CExpr>,
        args: Vec<CExpr>,
    },
    /// `name<targs…>`: a class or variable template as a template argument
    /// (`tsl_wgmma_f32_f16<128>`).
    Template {
        name: String,
        targs: Vec<CExpr>,
    },
    /// `obj.name(args…)`: a member function call (`tsl_sk.tile(tsl_seg)`).
    Method {
        obj: Box<CExpr>,
        name: &'static str,
        args: Vec<CExpr>,
    },
    /// `a[i]`.
    Index(Box<CExpr>, Box<CExpr>),
    /// `a.field` (`threadIdx.x`).
    Member(Box<CExpr>, &'static str),
    /// `(ty)a`: a C-style cast (`a` is usually a [`CExpr::Paren`]).
    Cast(&'static str, Box<CExpr>),
    /// `c ? a : b`.
    Ternary(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    /// `(a)`.
    Paren(Box<CExpr>),
    /// The checker's symbolic integer (tunables, constants, problem sizes), printed as C++.
    Sym(Sym),
    /// A lambda the C++ compiler evaluates over the block's threads (arrival counts, the
    /// thread that issues a load).
    Lambda(Box<ThreadLambda>),
}

impl CExpr {
    pub fn var(n: impl Into<String>) -> CExpr {
        CExpr::Var(n.into())
    }
    pub fn int(v: i64) -> CExpr {
        CExpr::Int(v)
    }
    pub fn float(v: f64) -> CExpr {
        CExpr::Float(FloatLit::new(v))
    }
    /// A symbolic integer as a whole expression (`BM * 2`).
    pub fn sym(s: &Sym) -> CExpr {
        CExpr::Sym(s.clone())
    }
    /// A symbolic integer as an operand: parenthesised unless it is one term
    /// ([`Sym::to_cpp_operand`]).
    pub fn sym_operand(s: &Sym) -> CExpr {
        match s {
            Sym::Int(_) | Sym::Name(_) | Sym::Cdiv(..) | Sym::Min(..) | Sym::Max(..) => {
                CExpr::Sym(s.clone())
            }
            _ => CExpr::Sym(s.clone()).paren(),
        }
    }
    pub fn call(name: impl Into<String>, args: Vec<CExpr>) -> CExpr {
        CExpr::Call {
            name: name.into(),
            targs: Vec::new(),
            args,
        }
    }
    pub fn call_t(name: impl Into<String>, targs: Vec<CExpr>, args: Vec<CExpr>) -> CExpr {
        CExpr::Call {
            name: name.into(),
            targs,
            args,
        }
    }
    /// `threadIdx.x`, `blockIdx.y`, …
    pub fn builtin(base: &'static str, field: &'static str) -> CExpr {
        CExpr::Member(Box::new(CExpr::Var(base.into())), field)
    }

    pub fn bin(self, op: COp, b: CExpr) -> CExpr {
        CExpr::Bin(op, Box::new(self), Box::new(b))
    }
    pub fn add(self, b: CExpr) -> CExpr {
        self.bin(COp::Add, b)
    }
    pub fn sub(self, b: CExpr) -> CExpr {
        self.bin(COp::Sub, b)
    }
    pub fn mul(self, b: CExpr) -> CExpr {
        self.bin(COp::Mul, b)
    }
    pub fn div(self, b: CExpr) -> CExpr {
        self.bin(COp::Div, b)
    }
    pub fn rem(self, b: CExpr) -> CExpr {
        self.bin(COp::Rem, b)
    }
    pub fn lt(self, b: CExpr) -> CExpr {
        self.bin(COp::Lt, b)
    }
    /// `(unsigned)(self) < (unsigned)(bound)`: an index inside `[0, bound)` — a negative one
    /// compares as a large unsigned value, so one test covers both ends.
    pub fn below(self, bound: CExpr) -> CExpr {
        let unsigned = |x: CExpr| CExpr::Cast("unsigned", Box::new(x.paren()));
        unsigned(self).lt(unsigned(bound))
    }
    /// `(long long)(self)`: an element offset that may pass 2³¹.
    pub fn wide(self) -> CExpr {
        CExpr::Cast("long long", Box::new(self.paren()))
    }
    pub fn eq(self, b: CExpr) -> CExpr {
        self.bin(COp::Eq, b)
    }
    pub fn and(self, b: CExpr) -> CExpr {
        self.bin(COp::And, b)
    }
    pub fn un(self, op: CUn) -> CExpr {
        CExpr::Un(op, Box::new(self))
    }
    /// `&a`.
    pub fn addr(self) -> CExpr {
        self.un(CUn::AddrOf)
    }
    pub fn index(self, i: CExpr) -> CExpr {
        CExpr::Index(Box::new(self), Box::new(i))
    }
    pub fn member(self, field: &'static str) -> CExpr {
        CExpr::Member(Box::new(self), field)
    }
    pub fn method(self, name: &'static str, args: Vec<CExpr>) -> CExpr {
        CExpr::Method {
            obj: Box::new(self),
            name,
            args,
        }
    }
    pub fn ternary(self, a: CExpr, b: CExpr) -> CExpr {
        CExpr::Ternary(Box::new(self), Box::new(a), Box::new(b))
    }
    pub fn paren(self) -> CExpr {
        CExpr::Paren(Box::new(self))
    }
    /// The expression as an operand: in parentheses unless it is one token.
    pub fn wrap(self) -> CExpr {
        if self.is_token() { self } else { self.paren() }
    }
    /// `a op b` joined left to right (`a && b && c`), or `None` for no operands.
    pub fn join(op: COp, items: impl IntoIterator<Item = CExpr>) -> Option<CExpr> {
        items.into_iter().reduce(|a, b| a.bin(op, b))
    }

    /// Whether the expression prints as one token (an identifier or a non-negative integer).
    pub fn is_token(&self) -> bool {
        let word = |s: &str| s.chars().all(|c| c.is_alphanumeric() || c == '_');
        match self {
            CExpr::Var(n) => word(n),
            CExpr::Int(v) => *v >= 0,
            CExpr::Lit(s) | CExpr::Type(s) => word(s),
            CExpr::Sym(Sym::Int(v)) => *v >= 0,
            CExpr::Sym(Sym::Name(_)) => true,
            _ => false,
        }
    }
    /// The value of an integer literal.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            CExpr::Int(v) | CExpr::Sym(Sym::Int(v)) => Some(*v),
            _ => None,
        }
    }
    /// Whether the expression is the literal `0`.
    pub fn is_zero(&self) -> bool {
        match self {
            CExpr::Int(0) | CExpr::Sym(Sym::Int(0)) => true,
            _ => false,
        }
    }
    /// `a + b`, or the other one when either is `0`.
    pub fn plus(self, b: CExpr) -> CExpr {
        if self.is_zero() {
            b
        } else if b.is_zero() {
            self
        } else {
            self.add(b)
        }
    }

    /// The names the expression uses: variables, functions, the symbols' names.
    pub fn names(&self, out: &mut BTreeSet<String>) {
        match self {
            CExpr::Var(n) => {
                out.insert(n.clone());
            }
            CExpr::Int(_) | CExpr::Lit(_) | CExpr::Float(_) | CExpr::Type(_) | CExpr::Str(_) => {}
            CExpr::Bin(_, a, b) | CExpr::Index(a, b) => {
                a.names(out);
                b.names(out);
            }
            CExpr::Un(_, a) | CExpr::Member(a, _) | CExpr::Cast(_, a) | CExpr::Paren(a) => {
                a.names(out)
            }
            CExpr::Call { name, targs, args } => {
                out.insert(name.clone());
                for a in targs.iter().chain(args) {
                    a.names(out);
                }
            }
            CExpr::Template { name, targs } => {
                out.insert(name.clone());
                for a in targs {
                    a.names(out);
                }
            }
            CExpr::Method { obj, args, .. } => {
                obj.names(out);
                for a in args {
                    a.names(out);
                }
            }
            CExpr::Ternary(c, a, b) => {
                c.names(out);
                a.names(out);
                b.names(out);
            }
            CExpr::Sym(s) => {
                let mut v = Vec::new();
                s.names(&mut v);
                out.extend(v);
            }
            CExpr::Lambda(l) => {
                for (n, v) in l.lets() {
                    out.insert(n.clone());
                    v.names(out);
                }
                out.insert("tsl_tid".into());
                match &**l {
                    ThreadLambda::OfThread { value, .. } => value.names(out),
                    ThreadLambda::FirstThread { cond, .. } => {
                        out.insert("tsl_threads".into());
                        cond.names(out)
                    }
                }
            }
        }
    }
}

/// `a, b, c` as text, for a type's template arguments (types are spelled as text).
pub fn comma_list(items: &[CExpr]) -> String {
    struct List<'a>(&'a [CExpr]);
    impl fmt::Display for List<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            comma(f, self.0)
        }
    }
    List(items).to_string()
}

/// `a, b, c`.
pub fn comma(f: &mut fmt::Formatter<'_>, items: &[CExpr]) -> fmt::Result {
    for (i, a) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    Ok(())
}

impl fmt::Display for CExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CExpr::Var(n) => f.write_str(n),
            CExpr::Int(v) => write!(f, "{v}"),
            CExpr::Lit(s) | CExpr::Type(s) => f.write_str(s),
            CExpr::Float(x) => write!(f, "{x}"),
            CExpr::Str(s) => write!(f, "\"{s}\""),
            CExpr::Bin(op, a, b) => write!(f, "{a} {} {b}", op.symbol()),
            CExpr::Un(op, a) => write!(f, "{}{a}", op.symbol()),
            CExpr::Call { name, targs, args } => {
                f.write_str(name)?;
                if !targs.is_empty() {
                    f.write_str("<")?;
                    comma(f, targs)?;
                    f.write_str(">")?;
                }
                f.write_str("(")?;
                comma(f, args)?;
                f.write_str(")")
            }
            CExpr::Template { name, targs } => {
                write!(f, "{name}<")?;
                comma(f, targs)?;
                f.write_str(">")
            }
            CExpr::Method { obj, name, args } => {
                write!(f, "{obj}.{name}(")?;
                comma(f, args)?;
                f.write_str(")")
            }
            CExpr::Index(a, i) => write!(f, "{a}[{i}]"),
            CExpr::Member(a, m) => write!(f, "{a}.{m}"),
            CExpr::Cast(ty, a) => write!(f, "({ty}){a}"),
            CExpr::Ternary(c, a, b) => write!(f, "{c} ? {a} : {b}"),
            CExpr::Paren(a) => write!(f, "({a})"),
            CExpr::Sym(s) => f.write_str(&s.to_cpp()),
            CExpr::Lambda(l) => write!(f, "{l}"),
        }
    }
}

impl From<&Sym> for CExpr {
    fn from(s: &Sym) -> CExpr {
        CExpr::sym(s)
    }
}

impl From<i64> for CExpr {
    fn from(v: i64) -> CExpr {
        CExpr::Int(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_print_as_written_and_name_what_they_use() {
        let tid = CExpr::builtin("threadIdx", "x");
        let e = tid
            .clone()
            .div(CExpr::int(32))
            .paren()
            .rem(CExpr::var("WARPS"));
        assert_eq!(e.to_string(), "(threadIdx.x / 32) % WARPS");
        let c = CExpr::call_t(
            "tsl_from_f32",
            vec![CExpr::Type("tsl_f16")],
            vec![CExpr::var("acc").index(CExpr::var("i"))],
        );
        assert_eq!(c.to_string(), "tsl_from_f32<tsl_f16>(acc[i])");
        let t = CExpr::var("p")
            .ternary(CExpr::float(0.5), CExpr::float(f64::INFINITY))
            .paren();
        assert_eq!(t.to_string(), "(p ? 0.5f : __int_as_float(0x7f800000))");
        let s = Sym::mul(Sym::name("BM"), Sym::int(2));
        assert_eq!(CExpr::sym_operand(&s).to_string(), "(BM * 2)");
        assert_eq!(CExpr::sym_operand(&Sym::int(-1)).to_string(), "-1");
        assert_eq!(CExpr::var("x").wrap().to_string(), "x");
        assert_eq!(CExpr::int(-1).wrap().to_string(), "(-1)");
        assert_eq!(
            CExpr::Cast("int", Box::new(e.clone().paren())).to_string(),
            "(int)((threadIdx.x / 32) % WARPS)"
        );
        assert_eq!(CExpr::int(0).plus(CExpr::var("k")).to_string(), "k");
        let mut names = BTreeSet::new();
        c.names(&mut names);
        e.names(&mut names);
        CExpr::sym(&s).names(&mut names);
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            ["BM", "WARPS", "acc", "i", "threadIdx", "tsl_from_f32"]
        );
    }
}
