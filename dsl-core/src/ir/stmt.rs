//! Statements.
//!
//! A kernel body is a [`Block`]: an ordered list of statement handles executed in order by
//! every thread that reaches it (the set of threads is fixed by the enclosing `parallel` and
//! `inthreads` statements). Statements that introduce names (`Let`, declarations, `MmaFill`,
//! `MmaLoad`, loop variables) scope them to the rest of the enclosing block.

use super::expr::{ExprId, Ident};
use super::types::{DType, Level, Major, MemSpace};
use super::{Block, CopyDst};

/// One `{vars} by [extents] : level` clause of a `parallel` statement. A single variable may
/// be written without braces (`wg by 2 : group-4`), and the variables may be omitted
/// (`by 1 : group-4`).
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelLevel {
    pub vars: Vec<Ident>,
    pub extents: Vec<ExprId>,
    pub level: Level,
    /// Span of the level keyword (`block`, `group-4`, …).
    pub level_span: crate::span::Span,
}

/// Modifiers of `mma.store`: `.transp` writes the accumulator's transpose (a `[N, M]`
/// destination), `.mask acc, dst, rows[, cols]` writes only the first `rows` rows (and
/// `cols` columns) of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoreMods {
    pub transpose: bool,
    /// `.mask`: the row guard and the optional column guard.
    pub mask: Option<(ExprId, Option<ExprId>)>,
}

/// Assignment operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
}

impl AssignOp {
    pub fn symbol(self) -> &'static str {
        match self {
            AssignOp::Set => "=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
        }
    }
}

/// The combining operation of a `reduce` statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Max,
}

impl ReduceOp {
    pub fn from_name(s: &str) -> Option<ReduceOp> {
        match s {
            "sum" => Some(ReduceOp::Sum),
            "max" => Some(ReduceOp::Max),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
        }
    }
}

/// A declared name with an optional array count (`lhs_s[STAGES]`, `full[STAGES]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Ident,
    pub count: Option<ExprId>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `parallel L1, L2, … { body }`: levels from outermost to innermost.
    Parallel {
        levels: Vec<ParallelLevel>,
        body: Block,
    },
    /// `foreach {i, j} in [A, B] [: unroll] body`.
    Foreach {
        vars: Vec<Ident>,
        extents: Vec<ExprId>,
        unroll: bool,
        body: Block,
    },
    /// `shared f16 [TM, TK] a, b[S];`
    TensorDecl {
        space: MemSpace,
        dtype: DType,
        dtype_span: crate::span::Span,
        shape: Vec<ExprId>,
        names: Vec<Declarator>,
    },
    /// `f16 acc = 0.0f;`, `mutable int n = 0;`
    ScalarDecl {
        dtype: DType,
        name: Ident,
        init: Option<ExprId>,
        /// Whether statements may assign it: written `mutable`, or of a data type (`s32`,
        /// `f32`, …). `int` and `bool` without `mutable` are immutable, as in Croqtile.
        mutable: bool,
    },
    /// `shared event full[S], empty[S];`
    EventDecl {
        space: MemSpace,
        names: Vec<Declarator>,
    },
    /// `name = expr;` where `name` was not bound before: an immutable integer binding.
    Let { name: Ident, value: ExprId },
    /// `target op value;` (element stores, accumulations, scalar updates).
    Assign {
        target: ExprId,
        op: AssignOp,
        value: ExprId,
    },
    If {
        cond: ExprId,
        then_body: Block,
        else_body: Option<Block>,
    },
    /// `dma.copy[.async][.zfill] src => dst;`. With `.zfill` a global source tile smaller than
    /// its shared destination fills the rest of it with zeros (`check::zero_filled`).
    DmaCopy {
        is_async: bool,
        zfill: bool,
        src: ExprId,
        dst: CopyDst,
    },
    /// `tma.copy[.async<ev>][.swiz<N>] src => dst;` and the later spelling
    /// `[f =] tma.load[.async][.swiz<N>] src => dst;`.
    TmaCopy {
        event: Option<ExprId>,
        swizzle: Option<ExprId>,
        src: ExprId,
        dst: CopyDst,
        bind: Option<Ident>,
    },
    /// `mc = mma.fill.<dtype> v;`
    MmaFill {
        name: Ident,
        dtype: DType,
        value: ExprId,
    },
    /// `ma = mma.load[.swiz<N>] view;`
    MmaLoad {
        name: Ident,
        swizzle: Option<ExprId>,
        src: ExprId,
    },
    /// `mma.<a>.<b> acc, a, b;`
    Mma {
        a_major: Major,
        b_major: Major,
        acc: Ident,
        a: Ident,
        b: Ident,
    },
    /// `mma.store acc, dst;`, or `mma.store acc.subspan(M, W).at(0, j), dst;` (also
    /// `acc.chunkat(_, j)`) to store a column slice of the accumulator. `view` is that whole
    /// view expression, whose innermost base is `Expr::Name(acc)`; `None` stores all of `acc`.
    MmaStore {
        acc: Ident,
        view: Option<ExprId>,
        dst: ExprId,
        mods: StoreMods,
    },
    /// `mma.commit;`
    MmaCommit,
    /// `wait e;`
    Wait { event: ExprId },
    /// `trigger e [after f];`
    Trigger { event: ExprId, after: Option<Ident> },
    /// `inthreads[.async] (cond) { body }`
    InThreads {
        is_async: bool,
        cond: ExprId,
        body: Block,
    },
    /// `sync.shared;`
    SyncShared,
    /// `dma.wait N;`: wait until at most `N` of this thread's asynchronous `dma.copy.async`
    /// copies are still in flight, then make the finished ones visible to the block.
    DmaWait { pending: ExprId },
    /// `reduce.sum acc : group;`: every thread of the enclosing `level` (a warp for `group`)
    /// replaces its scalar `target` by the combination of all of theirs.
    Reduce {
        op: ReduceOp,
        target: Ident,
        level: Level,
        level_span: crate::span::Span,
    },
    /// A construct of today's Croqtile that is parsed and checked but not lowered yet.
    Ext(super::ext::ExtStmt),
}
