//! Statements of today's Croqtile that the front end parses, resolves and dumps, but that no
//! lowering handles yet. They hang off one statement variant ([`Stmt::Ext`](super::Stmt)) so
//! that a pass which does not know them matches them in one arm; the checker's lowering gate
//! (`check::support`) rejects each with "not supported yet: …" before any lowering runs.

use super::expr::{ExprId, Ident};
use super::{Block, CopyDst, StmtId};

/// A piece of a `println` argument list.
#[derive(Clone, Debug, PartialEq)]
pub enum PrintArg {
    /// A string literal, as written (without quotes).
    Str(String),
    Expr(ExprId),
}

/// Barrier kinds beyond `sync.shared`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncKind {
    /// `sync.barrier`: a block-wide barrier (named-barrier flavour in Croqtile).
    Barrier,
    /// `sync.global`: a grid-wide barrier (cooperative launch).
    Global,
    /// `sync.fence`: a memory fence.
    Fence,
}

impl SyncKind {
    pub fn from_name(s: &str) -> Option<SyncKind> {
        Some(match s {
            "barrier" => SyncKind::Barrier,
            "global" => SyncKind::Global,
            "fence" => SyncKind::Fence,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            SyncKind::Barrier => "barrier",
            SyncKind::Global => "global",
            SyncKind::Fence => "fence",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExtStmt {
    /// `return e;` (or `return;`).
    Return { value: Option<ExprId> },
    /// `call f(args);` / `call f<T>(args);`: a `__co_device__` or native device function.
    Call {
        func: Ident,
        targs: Vec<ExprId>,
        args: Vec<ExprId>,
    },
    /// `println("x = ", x);`: device printf.
    /// `print(…)` has no trailing newline (`newline` false).
    Println { args: Vec<PrintArg>, newline: bool },
    /// `assert(cond, "message");`
    Assert {
        cond: ExprId,
        message: Option<String>,
    },
    /// `sync.barrier [: level];`, `sync.global;`, `sync.fence [: level];`
    Sync {
        kind: SyncKind,
        level: Option<super::types::Level>,
    },
    /// `while (cond) body`
    While { cond: ExprId, body: Block },
    /// `[f =] dma.copy[.async] src => dst;` with the copy's future bound to `bind`, and
    /// modifiers the core dialect did not have (`.swiz<N>`, `.zfill`, …) kept by name.
    DmaFuture {
        /// `tma.copy` (a synchronous TMA copy with a future) rather than `dma.copy`.
        tma: bool,
        bind: Option<Ident>,
        is_async: bool,
        /// Modifiers after the operation (`.swiz<128>`, `.zfill`) or the operation itself
        /// when it is not `copy` (`pad<…>`, `transp<…>`), with their `<…>` arguments.
        modifiers: Vec<(Ident, Vec<ExprId>)>,
        src: ExprId,
        dst: CopyDst,
        /// `… after f`: the copy starts once future `f` has completed.
        after: Option<ExprId>,
    },
    /// `trigger e after f1, f2;`: `e` fires when all the futures have completed.
    TriggerAfter { event: ExprId, after: Vec<ExprId> },
    /// `mma.fill mc, v;`: re-initialize an existing accumulator.
    MmaRefill { acc: Ident, value: ExprId },
    /// `mma.scale acc, sl, sr;`: the products the `mma`s have summed into `acc` since its fill
    /// (or the previous `mma.scale` of it) are added into it scaled by `sl[row] · sr` — `sl` one
    /// value or an f32 `[M, 1]` column of per-row scales, `sr` one value (block-scaled GEMMs
    /// whose scales change along K: one `mma.scale` per block of K).
    MmaScaleAcc {
        acc: Ident,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `__asm__ [volatile] ("template" : outputs : inputs : clobbers);`: inline PTX, kept as
    /// its template text (operands are not modelled).
    Asm {
        volatile: bool,
        /// The template as written between the quotes (adjacent literals joined).
        template: String,
        outputs: Vec<AsmOperand>,
        inputs: Vec<AsmOperand>,
        /// `"memory"`, `"cc"`, … as written between the quotes.
        clobbers: Vec<String>,
    },
    /// `break;`, `continue;`, `yield;`
    Jump { kind: &'static str },
    /// `f = dma.any;` / `f = tma.any;`: a future that names no copy yet (a placeholder a later
    /// copy or a `swap` gives its buffer).
    AnyFuture { tma: bool, bind: Ident },
    /// `copy(dst, src);` between register tiles (fragments), `reduce_max(dst, src, axis);`
    /// (also `reduce_sum`, `reduce_min`): `dst` gets `src` reduced along dimension `axis`.
    FragOp { op: &'static str, args: Vec<ExprId> },
    /// `swap(a, b);`: the two futures exchange what they name (their buffers), without
    /// copying data — double buffering by renaming.
    Swap { a: Ident, b: Ident },
    /// `mma.load src, t;`: the tile `src` loaded into the registers of the declared `frag`
    /// tile `t` (a register-A operand written in place, rather than bound by
    /// `ma = mma.load.frag src;`).
    LoadInto { src: ExprId, dst: ExprId },
}

/// How many `:` sections an `__asm__` statement prints: up to its last non-empty one (the
/// outputs, the inputs, the clobbers).
pub fn asm_sections(outputs: usize, inputs: usize, clobbers: usize) -> usize {
    [outputs, inputs, clobbers]
        .iter()
        .rposition(|&n| n > 0)
        .map_or(0, |i| i + 1)
}

/// One operand of inline assembly: `[name] "constraint" (expr)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AsmOperand {
    pub name: Option<Ident>,
    /// The constraint as written between the quotes (`=r`, `+f`, `l`).
    pub constraint: String,
    pub expr: ExprId,
}

impl ExtStmt {
    /// The construct's name, for "not supported yet: …" and the dump.
    pub fn construct(&self) -> &'static str {
        match self {
            ExtStmt::Return { .. } => "`return`",
            ExtStmt::Call { func, .. } if func.name.starts_with("__bar_") => {
                "a named barrier (`__bar_arrive`, `__bar_sync`)"
            }
            ExtStmt::Call { func, .. } if func.name.starts_with("__atomic_") => {
                "an atomic update (`__atomic_add`, …)"
            }
            ExtStmt::Call { .. } => "`call` of a device function",
            ExtStmt::Println { .. } => "`println` (device printf)",
            ExtStmt::Assert { .. } => "`assert`",
            ExtStmt::Sync { kind, .. } => match kind {
                SyncKind::Barrier => "`sync.barrier`",
                SyncKind::Global => "`sync.global`",
                SyncKind::Fence => "`sync.fence`",
            },
            ExtStmt::While { .. } => "`while` loops",
            ExtStmt::DmaFuture { tma: false, .. } => "`dma.copy` with a future or extra modifiers",
            ExtStmt::DmaFuture { tma: true, .. } => "a synchronous `tma.copy` bound to a future",
            ExtStmt::TriggerAfter { .. } => "`trigger … after` several futures",
            ExtStmt::MmaRefill { .. } => "`mma.fill acc, v` (re-initialization)",
            ExtStmt::MmaScaleAcc { .. } => "`mma.scale acc, sl, sr` of a warp-level accumulator",
            ExtStmt::Asm { .. } => "inline `__asm__`",
            ExtStmt::Jump { kind: "break" } => "`break`",
            ExtStmt::Jump { kind: "continue" } => "`continue`",
            ExtStmt::Jump { .. } => "`yield`",
            ExtStmt::AnyFuture { tma: false, .. } => "`dma.any` futures",
            ExtStmt::AnyFuture { tma: true, .. } => "`tma.any` futures",
            ExtStmt::Swap { .. } => "`swap` of futures",
            ExtStmt::LoadInto { .. } => "`mma.load src, t;` into a declared `frag` tile",
            ExtStmt::FragOp { op: "copy", .. } => "`copy` between fragments",
            ExtStmt::FragOp { .. } => {
                "fragment reductions (`reduce_max`, `reduce_sum`, `reduce_min`)"
            }
        }
    }
}

/// What a declaration carries beyond the core form, kept beside the statement.
#[derive(Clone, Debug, PartialEq)]
pub enum DeclExt {
    /// `shared s32 [8] b {0};`: every element starts at the value.
    Init { decl: StmtId, value: ExprId },
    /// `shared event e[N] = ready;`: the events start signalled.
    Ready { decl: StmtId },
    /// `frag f16 [M, K] a;`: a register tile spread over the threads of the enclosing level.
    Frag { decl: StmtId },
}

impl DeclExt {
    pub fn decl(&self) -> StmtId {
        match self {
            DeclExt::Init { decl, .. } | DeclExt::Ready { decl } | DeclExt::Frag { decl } => *decl,
        }
    }
    pub fn construct(&self) -> &'static str {
        match self {
            DeclExt::Init { .. } => "a declaration initializer `{v}`",
            DeclExt::Ready { .. } => "events declared `= ready`",
            DeclExt::Frag { .. } => "`frag` register tiles",
        }
    }
}

/// `stream s` among a function's parameters: a CUDA stream the caller passes for the
/// launches of the `parallel` statements bound to it.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamParam {
    pub name: Ident,
    /// How many other parameters precede it (its place in the signature).
    pub position: usize,
}

/// What a `parallel` statement carries beyond the core form: `parallel.async` (the launch
/// does not wait for the device) and `parallel<s>` (launched on stream `s`).
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelExt {
    pub stmt: StmtId,
    pub is_async: bool,
    pub stream: Option<Ident>,
    /// `: block<cooperative>`: a cooperative launch (every block resident, so the grid may
    /// synchronize).
    pub cooperative: bool,
}

/// `foreach … : unroll(N)`: unroll the loop by a factor of `N` (the loop's `unroll` flag is
/// set too).
#[derive(Clone, Debug, PartialEq)]
pub struct UnrollFactor {
    pub stmt: StmtId,
    pub factor: ExprId,
}

/// `[[name(args)]]` before a statement: a hint for it (`launch_bounds`, `maxnreg`, `schedule`).
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: Ident,
    /// The arguments; `_` stays a wildcard, nested calls (`k_tiles(3, 2)`) stay calls.
    pub args: Vec<ExprId>,
    /// The statement it annotates.
    pub target: StmtId,
    pub span: crate::span::Span,
}

/// `foreach k(lo:hi)`: the loop over variable `var` of a `foreach` runs from `start` up to
/// (not including) `end`; the variable keeps its bound (the extent the `foreach` names, the
/// chunk count of `.chunkat(k)`). The parser writes ends counted from the bound (`k(1:-1)`) as
/// `bound - n`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopRange {
    pub stmt: StmtId,
    pub var: usize,
    pub start: ExprId,
    pub end: ExprId,
}

/// `k(c)` of a bounded name `k` (a `with` or loop bound): the value `c` (`c >= 0`) or
/// `bound + c` (`c < 0`, so `k(-1)` is the last value), kept as that arithmetic in `value`;
/// `bound` is the chunk count when the value indexes a `.chunkat`.
/// `s[i][j]` of an array declared `s[A][B]`: the parser writes the element's place in the
/// array's flat storage, `index` = `i * B + j` (an array of several dimensions is an array of
/// `A * B` elements), and keeps each written index with its dimension in `parts`, so the
/// range check holds each index within its own dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayIndex {
    pub index: ExprId,
    pub parts: Vec<(ExprId, ExprId)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BoundedValue {
    pub value: ExprId,
    pub bound: ExprId,
}
