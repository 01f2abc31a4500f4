//! The typed IR of one `gemm_kernel!` invocation (or one `.co` file).
//!
//! Rules:
//! - A [`Module`] is a header (tunables, constants, restrictions) and one kernel.
//! - Expressions and statements live in two arenas owned by the module and are referenced by
//!   typed handles ([`ExprId`], [`StmtId`]); every node has a span in its arena's side table.
//! - Names are strings until the checker resolves them; the checker never mutates the IR, it
//!   returns facts (`check::KernelInfo`) that later passes require.
//! - Tunables are compile-time integers chosen per configuration; constants are expressions
//!   over tunables; symbolic dims (`M`, `N`, `K`) are bound at launch from tensor shapes.
//! - `Display` prints a stable, span-free dump, identical whichever way the module was parsed.

pub mod arena;
mod display;
pub mod expr;
pub mod ext;
pub mod stmt;
pub mod types;

pub use arena::{Arena, Handle};
pub use expr::{ArithError, BinaryOp, Expr, ExprId, Ident, UnaryOp, ViewOp, builtin_arity};
pub use ext::{
    ArrayIndex, AsmOperand, Attribute, BoundedValue, DeclExt, ExtStmt, LoopRange, ParallelExt,
    PrintArg, StreamParam, SyncKind, UnrollFactor,
};
pub use stmt::{AssignOp, Declarator, ParallelLevel, ReduceOp, Stmt, StoreMods};
pub use types::{DType, Level, Major, MemSpace};

use crate::span::Span;

/// A statement handle. Defined here, beside [`Block`] and [`CopyDst`], so that the core
/// statements (`stmt.rs`) and the extension statements (`ext.rs`) both import them from the
/// module root and neither file imports the other's items back.
pub type StmtId = Handle<Stmt>;

/// A sequence of statements.
pub type Block = Vec<StmtId>;

/// Destination of a copy.
#[derive(Clone, Debug, PartialEq)]
pub enum CopyDst {
    /// An existing tensor or view.
    Expr(ExprId),
    /// `=> shared` / `=> local`: a fresh buffer of the source view's shape.
    Fresh(MemSpace),
}

/// `tunable NAME in [a, b, …] = default;` — a template parameter of the emitted kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Tunable {
    pub name: Ident,
    pub domain: Vec<i64>,
    pub default: i64,
    pub domain_span: Span,
    pub default_span: Span,
}

/// `const NAME = expr;` (or `#define NAME expr` in a `.co` file): derived from tunables.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    pub name: Ident,
    pub value: ExprId,
}

/// `require expr;` — a restriction over tunables and symbolic dims.
#[derive(Clone, Debug, PartialEq)]
pub struct Require {
    pub cond: ExprId,
    pub span: Span,
}

/// A kernel parameter: `global f16 [M, K] lhs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub space: MemSpace,
    pub dtype: DType,
    pub dtype_span: Span,
    /// Each dimension is an expression, usually a symbolic dim name.
    pub shape: Vec<ExprId>,
}

/// The `__co__ void name(params) { body }` function.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: Block,
    /// What the function returns (`void` for a kernel that writes its parameters).
    pub returns: Returns,
}

/// The declared result of a `__co__` function.
#[derive(Clone, Debug, PartialEq)]
pub enum Returns {
    /// `__co__ void`: results are written into parameters.
    Void,
    /// `__co__ auto`: the type of the value its `return` statement names (a tensor declared
    /// in the body becomes an output of the launch).
    Auto,
    /// `__co__ f32 [N]` or `__co__ int`: an element type and, for a tensor, its shape.
    Value {
        dtype: DType,
        shape: Vec<ExprId>,
        span: Span,
    },
}

/// Where the module came from (for diagnostics).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Source {
    /// The `.co` path in file mode; `None` inside a macro invocation.
    pub file: Option<String>,
}

/// A structured-sparse `mma` (`mma.row.row.sp acc, a, b, meta;`): A holds the two kept values
/// of every group of four along K (K/2 columns), `meta` names the fragment loaded from the
/// metadata tile that says where in the group each kept value sits.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseMma {
    /// The `Stmt::Mma`.
    pub stmt: StmtId,
    /// The metadata fragment (bound by `mma.load`).
    pub meta: Ident,
    /// The `.sp` modifier.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Module {
    pub tunables: Vec<Tunable>,
    pub constants: Vec<Constant>,
    pub requires: Vec<Require>,
    /// `raster G;`: launch the `: block` grid in groups of `G` tiles along its first variable
    /// (grouped rasterization, for L2 reuse of the operands); `None` = plain row-major grid.
    pub raster: Option<ExprId>,
    /// `persistent;` (or `persistent COND;`, a switch over tunables): launch one block per SM
    /// (per occupancy slot) and let each walk the tiles of the `: block` level in turn. Events persist across a block's tiles: in each `inthreads`
    /// branch the leading `let`s and trigger-only statements (a fresh ring's initial credits)
    /// run once, the rest once per tile.
    pub persistent: Option<ExprId>,
    /// `pingpong;`: the ping-pong schedule of a persistent warp-specialized kernel. The
    /// `inthreads` branch run by several whole warpgroups (the consumers) is run for each tile
    /// by ONE of them: consumer `c` of `C` takes tiles `c, c + C, …` of the block's walk, the
    /// others meanwhile run their own tiles' epilogues. Its once-per-block triggers (a ring's
    /// initial credits) are made by consumer 0, and its events' arrivals count one warpgroup.
    /// Without it, every consumer warpgroup runs every tile ("cooperative").
    pub pingpong: Option<crate::span::Span>,
    /// `streamk;`: a persistent kernel's last tiles are shared out by k-iterations. The grid
    /// walks whole tiles in full waves (as `persistent`); the k-iterations of the tiles left
    /// over (fewer than one per walking unit) are split evenly over every unit, and the
    /// partial sums of a tile meet in an f32 workspace before its epilogue (`lower/streamk.rs`).
    pub streamk: Option<crate::span::Span>,
    /// `cluster C;`: launch the `: block` grid in thread-block clusters of `C` blocks along its
    /// first variable; a TMA load whose tile does not depend on that variable (the operand the
    /// cluster's blocks share) is multicast: each block loads 1/C of its rows for all of them.
    pub cluster: Option<ExprId>,
    /// `parallel {cm, cn} by [CM, CN] : cluster { … }`: the `: block` level below it runs in
    /// thread-block clusters of `CM × CN` blocks (see [`ClusterLevel`]).
    pub cluster_level: Option<ClusterLevel>,
    /// `cluster nonportable;`: clusters of up to 16 blocks (the portable limit is 8; the
    /// launch opts the kernel in to non-portable cluster sizes).
    pub cluster_nonportable: Option<crate::span::Span>,
    /// `tma.copy….multicast`: the loads written with `.multicast` (the statement and the
    /// modifier's span). Under a cluster each is loaded once per group of blocks that need the
    /// same tile and multicast to all of them.
    pub multicast: Vec<(StmtId, crate::span::Span)>,
    /// `mma.<a>.<b>.sp acc, a, b, meta;`: the structured-sparse (2:4) `mma`s and their
    /// metadata operands (see [`SparseMma`]).
    pub sparse: Vec<SparseMma>,
    /// `trigger.cluster e;`: triggers whose arrival goes to `e` in every block of the cluster.
    pub cluster_triggers: Vec<StmtId>,
    /// `mma.row.row.scale acc, a, b, sl, sr;`: the `mma`s written with per-block scales (the
    /// statement, the A-side scale: a `[M, 1]` column of per-row values or one value, and the
    /// B-side scale: one value). Each such `mma` adds `sl[row] · sr · (a · bᵀ)` to `acc`.
    pub mma_scales: Vec<MmaScale>,
    /// `[f =] mma.<a>.<b>.async acc, a, b;`: the `mma`s issued without waiting (one WGMMA
    /// commit group each) and the future a `wait f;` completes them by.
    pub mma_async: Vec<(StmtId, Option<Ident>)>,
    /// `name = mma.load.frag src;`: the `mma.load`s that read a shared tile into registers in
    /// the WGMMA A-fragment layout (a register-A `mma` operand) instead of describing it.
    pub frag_loads: Vec<StmtId>,
    /// `occupancy N;` (an integer over tunables and constants): at least `N` blocks per SM
    /// (SIMT kernels: `__launch_bounds__(THREADS, N)`, which caps registers per thread at
    /// 65536 / (THREADS × N)); `None` = threads per block only.
    pub occupancy: Option<ExprId>,
    /// `promote P;` (an integer over tunables and constants, 0 = off): two-level accumulation
    /// for `mma`s with 8-bit float operands and an f32 accumulator. The WGMMAs accumulate into a
    /// partial fragment; after every `P` k-tiles (`mma` statements on that accumulator) the
    /// warpgroup waits for them and adds the partial into the accumulator in f32, so the tensor
    /// cores' narrower fp8 accumulation spans P k-tiles, not all of K.
    pub promote: Option<ExprId>,
    pub kernel: Kernel,
    /// Initializers, `= ready` and `frag` of declarations (parsed and checked, not lowered).
    pub decl_ext: Vec<DeclExt>,
    /// `shared event<N> e;`: the event declarations that state how many threads take part in
    /// them (checked against the threads that wait on or trigger each: a warning; the lowering
    /// counts arrivals itself).
    pub event_participants: Vec<(StmtId, ExprId)>,
    /// `[[…]]` attributes of statements (checked, not lowered).
    pub attributes: Vec<Attribute>,
    /// `stream` parameters (checked, not lowered).
    pub streams: Vec<StreamParam>,
    /// `parallel.async` / `parallel<s>` of `parallel` statements (checked, not lowered).
    pub parallel_ext: Vec<ParallelExt>,
    /// `: unroll(N)` factors of `foreach` loops (checked, not lowered).
    pub unroll_factors: Vec<UnrollFactor>,
    /// `foreach k(lo:hi)`: loops that start or end inside their variable's bound.
    pub loop_ranges: Vec<LoopRange>,
    /// `k(-1)`: values of bounded names (their arithmetic, and the bound).
    pub bounded_values: Vec<BoundedValue>,
    /// The bounds `with … in` gave its names (`with` is sugar: its body joins the enclosing
    /// block, and only a `foreach` over a name makes a loop of its bound).
    pub with_extents: Vec<ExprId>,
    /// Indices into arrays of several dimensions (`s[i][j]`), flattened.
    pub array_indices: Vec<ArrayIndex>,
    /// `b = s[i];` of an array of buffers `s`: the values of the `let`s that name one buffer
    /// of it (a view, like `v = t.span_as(…)`: the parser wrote `s[i]` at each use of `b`).
    pub buffer_aliases: Vec<ExprId>,
    /// The `__device__` functions of the source file, which `call f(…)` invokes: C++ that
    /// tessel copies into the emitted `.cu` as written.
    pub device_fns: Vec<DeviceFn>,
    pub exprs: Arena<Expr>,
    pub stmts: Arena<Stmt>,
    pub source: Source,
}

/// A `__device__` function of the source file (file mode), as written.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceFn {
    pub name: String,
    /// Its text, from the first word of the item to its closing brace.
    pub text: String,
    /// The line it starts on (1-based).
    pub line: u32,
}

/// `parallel {cm, cn} by [CM, CN] : cluster`: the outermost level of the kernel's `parallel`
/// nest, directly above its `: block` level. Extent `i` is the number of blocks per cluster
/// along block variable `i` (one extent: along the first); the variables name a block's
/// coordinates inside its cluster. The parser takes the level out of the statement (the
/// nest below it is an ordinary `: block` nest) and keeps it here.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterLevel {
    pub vars: Vec<Ident>,
    pub extents: Vec<ExprId>,
    /// Span of the `cluster` keyword.
    pub span: crate::span::Span,
}

/// The scales of one `mma.<a>.<b>.scale` statement (see [`Module::mma_scales`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmaScale {
    pub stmt: StmtId,
    pub lhs: ExprId,
    pub rhs: ExprId,
}

impl Module {
    /// The scales of `mma` statement `s`, when it was written `.scale`.
    pub fn mma_scale(&self, s: StmtId) -> Option<MmaScale> {
        self.mma_scales.iter().copied().find(|x| x.stmt == s)
    }

    /// The scales statement `s` applies: those of an `mma….scale`, or of a standalone
    /// `mma.scale acc, sl, sr;`.
    pub fn scales_of(&self, s: StmtId) -> Option<MmaScale> {
        self.mma_scale(s).or_else(|| match &self.stmts[s] {
            Stmt::Ext(ExtStmt::MmaScaleAcc { lhs, rhs, .. }) => Some(MmaScale {
                stmt: s,
                lhs: *lhs,
                rhs: *rhs,
            }),
            _ => None,
        })
    }

    /// Every statement that scales an accumulator (`mma….scale` and `mma.scale`), in order.
    pub fn all_scales(&self) -> Vec<MmaScale> {
        let mut out = self.mma_scales.clone();
        for (s, st) in self.stmts.iter() {
            if let Stmt::Ext(ExtStmt::MmaScaleAcc { lhs, rhs, .. }) = st {
                out.push(MmaScale {
                    stmt: s,
                    lhs: *lhs,
                    rhs: *rhs,
                });
            }
        }
        out
    }

    /// Whether `mma.load` statement `s` was written `.frag` (into registers).
    pub fn is_frag_load(&self, s: StmtId) -> bool {
        self.frag_loads.contains(&s)
    }

    /// Whether `mma` statement `s` was written `.async`, and its future.
    pub fn mma_async(&self, s: StmtId) -> Option<Option<&Ident>> {
        self.mma_async
            .iter()
            .find(|(x, _)| *x == s)
            .map(|(_, f)| f.as_ref())
    }

    /// Whether the event declaration `decl` is `= ready`: generation 0 of each of its barriers
    /// has completed when the kernel starts.
    pub fn is_ready(&self, decl: StmtId) -> bool {
        self.decl_ext
            .iter()
            .any(|x| matches!(x, DeclExt::Ready { decl: d } if *d == decl))
    }

    /// Whether statement `s` was written with `.multicast`.
    pub fn is_multicast(&self, s: StmtId) -> bool {
        self.multicast.iter().any(|&(m, _)| m == s)
    }

    /// The metadata operand of statement `s` when it is a sparse `mma` (`mma.row.row.sp`).
    pub fn sparse_meta(&self, s: StmtId) -> Option<&Ident> {
        self.sparse.iter().find(|x| x.stmt == s).map(|x| &x.meta)
    }

    /// The `{v}` initializer of declaration `s`, if it has one.
    pub fn decl_init(&self, s: StmtId) -> Option<ExprId> {
        self.decl_ext.iter().find_map(|x| match x {
            DeclExt::Init { decl, value } if *decl == s => Some(*value),
            _ => None,
        })
    }

    /// The range of loop variable `var` of `foreach` statement `s` (`foreach k(lo:hi)`).
    /// The factor of `foreach … : unroll(N)` at statement `s`, if it was written with one.
    pub fn unroll_factor(&self, s: StmtId) -> Option<ExprId> {
        self.unroll_factors
            .iter()
            .find(|u| u.stmt == s)
            .map(|u| u.factor)
    }

    pub fn loop_range(&self, s: StmtId, var: usize) -> Option<&LoopRange> {
        self.loop_ranges
            .iter()
            .find(|r| r.stmt == s && r.var == var)
    }

    /// The bound of `e` when `e` is a value `k(c)` of a bounded name.
    pub fn bounded_value(&self, e: ExprId) -> Option<ExprId> {
        self.bounded_values
            .iter()
            .find(|b| b.value == e)
            .map(|b| b.bound)
    }

    /// The fragment an `apply` walks: extents that are all `f.span(d)` (or `f.span`) of one
    /// name.
    pub fn walked_fragment(&self, extents: &[ExprId]) -> Option<String> {
        let mut name: Option<String> = None;
        for &e in extents {
            let base = match &self.exprs[e] {
                Expr::View {
                    base,
                    op: ViewOp::SpanOf,
                    ..
                } => *base,
                Expr::Field { base, field } if field.name == "span" => *base,
                _ => return None,
            };
            let Expr::Name(n) = &self.exprs[base] else {
                return None;
            };
            match &name {
                Some(prev) if prev != n => return None,
                _ => name = Some(n.clone()),
            }
        }
        name
    }

    /// An empty module with the given kernel name (for hand-built IR).
    pub fn new(kernel_name: &str) -> Self {
        Module {
            tunables: Vec::new(),
            constants: Vec::new(),
            requires: Vec::new(),
            raster: None,
            cluster: None,
            cluster_level: None,
            cluster_nonportable: None,
            multicast: Vec::new(),
            sparse: Vec::new(),
            cluster_triggers: Vec::new(),
            mma_scales: Vec::new(),
            mma_async: Vec::new(),
            frag_loads: Vec::new(),
            persistent: None,
            pingpong: None,
            streamk: None,
            occupancy: None,
            promote: None,
            kernel: Kernel {
                name: Ident::synth(kernel_name),
                params: Vec::new(),
                body: Vec::new(),
                returns: Returns::Void,
            },
            decl_ext: Vec::new(),
            event_participants: Vec::new(),
            attributes: Vec::new(),
            streams: Vec::new(),
            parallel_ext: Vec::new(),
            unroll_factors: Vec::new(),
            loop_ranges: Vec::new(),
            bounded_values: Vec::new(),
            with_extents: Vec::new(),
            array_indices: Vec::new(),
            buffer_aliases: Vec::new(),
            device_fns: Vec::new(),
            exprs: Arena::new(),
            stmts: Arena::new(),
            source: Source::default(),
        }
    }
    pub fn expr_span(&self, e: ExprId) -> Span {
        self.exprs.get_span(e)
    }
    pub fn stmt_span(&self, s: StmtId) -> Span {
        self.stmts.get_span(s)
    }
    pub fn tunable(&self, name: &str) -> Option<&Tunable> {
        self.tunables.iter().find(|t| t.name.name == name)
    }
    pub fn constant(&self, name: &str) -> Option<&Constant> {
        self.constants.iter().find(|c| c.name.name == name)
    }
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.kernel.params.iter().find(|p| p.name.name == name)
    }
    /// Symbolic dims in order of first appearance in the parameter shapes.
    pub fn symbolic_dims(&self) -> Vec<String> {
        let mut dims: Vec<String> = Vec::new();
        for p in &self.kernel.params {
            for &d in &p.shape {
                if let Expr::Name(n) = &self.exprs[d]
                    && self.tunable(n).is_none()
                    && self.constant(n).is_none()
                    && !dims.contains(n)
                {
                    dims.push(n.clone());
                }
            }
        }
        dims
    }
}
