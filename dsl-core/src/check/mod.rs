//! Semantic checks: turn a parsed [`Module`] plus a configuration into the facts the lowering
//! needs ([`KernelInfo`]), or into every error found ([`Diagnostics`]), each pinned to the DSL
//! token at fault with a stable code (the table is [`codes::TABLE`]).
//!
//! Passes, in order (each collects all of its errors; later passes skip what earlier ones
//! could not establish), one private module each:
//! 1. `header`: tunables, constants and `require`s evaluated under the config;
//! 2. `resolve`: every name bound to its declaration (scopes, suggestions for typos);
//! 3. `geometry`: `parallel` nesting, threads per block, grid;
//! 4. `view`: the shape of every tensor view (`subspan`/`at`/`chunkat`/arrays);
//! 5. `shape`, `wgmma` (with `mma_store`), `swizzle`, `smem`, `events`, `placement`, `range`:
//!    the individual legality checks;
//! 6. `simt`: register tiles, warp reductions, transposed stores, `dma.wait`;
//! 7. `occupancy`: the `occupancy N;` header item (SIMT only, 1..=32 blocks per SM).
//! 8. `cluster`: the `cluster C;` header item (Hopper with `raster` only, 1..=8 blocks).
//! 9. `hazard`: kernels that would run wrong, hang or race (tile coverage, uninitialised
//!    tiles, extents, division by zero and overflow, event protocols; race warnings), once
//!    everything above passed.
//!
//! The facts hold numbers under the configuration (for the checks) and, for what the
//! lowering prints, symbolic forms over tunables, constants and problem sizes: every view's
//! tile and origin (`view_sym`, [`KernelInfo::sym_views`]), the launch geometry (`geometry_sym`,
//! [`KernelInfo::sym_geometry`]) and each shared buffer's shape ([`SharedBuffer::sym_shape`]).
//! The lowering's restrictions are checks too (`lowerable`, codes E1101–E1119, and the
//! "not supported yet" gate `support`, E1300–E1317), so check ok ⇒ lower ok; a lowering error
//! after a passing check is reported as E1199, a bug.
//!
//! [`check`] runs them under the default configuration; [`check_config`] is the tuner's
//! legality filter and the launcher's check (with problem sizes, `require`s over `M`/`N`/`K`
//! are evaluated too, and loops over problem sizes get finite ranges).

mod asserts;
mod async_reads;
mod attrs;
mod bounded;
mod cluster;
pub mod codes;
mod control;
mod eval;
pub(crate) mod events;
pub(crate) mod frag_elem;
mod frag_load;
mod fresh;
mod futures;
mod geometry;
mod geometry_sym;
mod hazard;
mod header;
mod integers;
mod jumps;
pub mod kernel_scope;
mod launch_attrs;
mod launch_sized;
mod lowerable;
mod mma_store;
mod mma_uniform;
mod occupancy;
mod out_init;
mod pad;
mod placement;
mod race;
mod range;
mod resolve;
mod schedule;
mod shape;
mod simt;
mod smem;
mod sparse;
mod squeeze;
pub mod streamk;
mod streams;
mod suggest;
mod support;
mod swizzle;
mod tensors;
mod transform;
mod view;
mod view_state;
mod view_sym;
mod views_ext;
mod warp_mma;
pub(crate) mod warp_pipe;
mod wgmma;

pub(crate) use bounded::{ChunkIndex, chunk_index};
pub use eval::{Env, EvalError, Ext, Interval, eval, eval_interval};
pub use events::scalars_assigned;
pub(crate) use fresh::{fresh_shape, fresh_tile};
pub use geometry_sym::{Geometry, GeometryError, Index, ParVar};
pub use out_init::{
    BlockFill, Owned, block_owned, fill_value, header_outputs, host_fill, unobservable,
};
pub use resolve::Role as IdentRole;
pub use simt::{Atomic, atomic, atomic_sites, barrier_scope, captured_atomic, named_barrier};
pub use support::LOWERED_MATH;
pub use tensors::DeclaredTensor;
pub use transform::Transform;
pub(crate) use view_state::var_extent_in;
pub use view_sym::{
    OriginTerm, Root, Squeezed, SymView, TermForm, ViewError, fold_rows, root_of, sym_view,
};
pub(crate) use views_ext::{is_view_let, tile_pick};

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{DType, ExprId, MemSpace, Module, StmtId};
use std::collections::{BTreeMap, HashMap};

/// Values for every tunable (defaults unless set).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    pub values: BTreeMap<String, i64>,
}

impl std::fmt::Display for Config {
    /// `A=1 B=2` ([`crate::tunable::config_text`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::tunable::config_text(&self.values))
    }
}

impl Config {
    /// Every tunable at its declared default.
    pub fn defaults(m: &Module) -> Config {
        Config {
            values: m
                .tunables
                .iter()
                .map(|t| (t.name.name.clone(), t.default))
                .collect(),
        }
    }
    /// This config with `name` set to `v`.
    pub fn with(mut self, name: &str, v: i64) -> Config {
        self.values.insert(name.to_string(), v);
        self
    }
    pub fn get(&self, n: &str) -> Option<i64> {
        self.values.get(n).copied()
    }
}

/// Problem sizes bound at launch (`M`, `N`, `K` …), optional at compile time.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    pub dims: BTreeMap<String, i64>,
}

impl Problem {
    pub fn with(mut self, name: &str, v: i64) -> Problem {
        self.dims.insert(name.to_string(), v);
        self
    }
}

/// Hardware limits the kernel must fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Dynamic shared memory one block may use (227 KiB on sm_90).
    pub max_smem_per_block: u64,
    /// Threads per block (1024).
    pub max_threads: u32,
}

impl Limits {
    /// Hopper (sm_90a): 227 KiB of shared memory per block, 1024 threads.
    pub const SM90: Limits = Limits {
        max_smem_per_block: 227 * 1024,
        max_threads: 1024,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::SM90
    }
}

/// What a name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    Tunable,
    Constant,
    /// A symbolic dimension (`M`), first seen as dimension `dim` of parameter `param`.
    SymDim {
        param: usize,
        dim: usize,
    },
    /// Kernel parameter `i`.
    Param(usize),
    /// Declarator `usize` of a `TensorDecl`.
    Tensor(StmtId, usize),
    Scalar(StmtId),
    /// Declarator `usize` of an `EventDecl`.
    Event(StmtId, usize),
    /// Variable `index` of a `Foreach`.
    LoopVar {
        stmt: StmtId,
        index: usize,
    },
    /// Variable `index` of level `level` of a `Parallel`.
    ParallelVar {
        stmt: StmtId,
        level: usize,
        index: usize,
    },
    Let(StmtId),
    /// An mma fragment (`MmaFill` or `MmaLoad`).
    Frag(StmtId),
    /// `f = tma.load …`: the copy's completion (and, with `.data`, its destination).
    Future(StmtId),
}

/// How a symbolic extent is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimExpr {
    /// The IR expression that computes it (print it as C++).
    Expr(ExprId),
    /// A value the checker computed (e.g. `dim / extent` in `chunkat`).
    Const(i64),
}

/// A symbolic extent and its value under the config when it does not depend on problem dims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim {
    pub expr: DimExpr,
    pub value: Option<i64>,
}

/// The resolved shape of a tensor view.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewInfo {
    /// The tensor viewed: `Binding::Param`, `Binding::Tensor` or `Binding::Future`.
    pub root: Binding,
    /// `lhs_s[stage]`: the index into a tensor array.
    pub array_index: Option<ExprId>,
    pub dtype: DType,
    pub space: MemSpace,
    /// The view's shape.
    pub tile: Vec<Dim>,
    /// Tile coordinate per dim; `None` for `_` or a whole tensor.
    pub coords: Vec<Option<ExprId>>,
    /// `.at(i, j)` on a plain tensor: one element (then `tile` is all ones).
    pub element: bool,
}

/// Role of an mma fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FragKind {
    /// Accumulator (`mma.fill`), shape `[M, N]`.
    Acc,
    /// Left operand, shape `[M, K]`.
    A,
    /// Right operand, shape `[N, K]`.
    B,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FragInfo {
    pub kind: FragKind,
    pub dtype: DType,
    /// `[M, N]` (Acc), `[M, K]` (A) or `[N, K]` (B), whatever majorness the mma names.
    pub shape: Vec<Dim>,
    /// The `mma.fill` / `mma.load` that defines it.
    pub def: StmtId,
}

/// A declared event (one per declarator; an array counts as one event).
#[derive(Clone, Debug, PartialEq)]
pub struct EventInfo {
    pub name: String,
    pub decl: StmtId,
    pub declarator: usize,
    pub space: MemSpace,
    /// Array count (`full[STAGES]`) under the config; `None` for a single event.
    pub count: Option<i64>,
    /// `wait` statements on it.
    pub waits: Vec<StmtId>,
    /// `trigger` statements and `tma.copy.async<ev>` copies completing on it.
    pub triggers: Vec<StmtId>,
}

/// The lowering a kernel takes; the checker decides it once (the lowering's restrictions
/// differ by path) and the lowering follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoweringPath {
    /// Scalar code on CUDA cores, `cp.async` copies.
    Simt,
    /// The SIMT path with warp-level `mma`s (`mma.sync`): `mma`s under a `: group` level, and
    /// no TMA copy, event or `: group-4` level.
    WarpMma,
    /// TMA, WGMMA and mbarriers: a TMA copy, an `mma`, an `mma.load` or an event otherwise.
    Hopper,
}

/// A buffer of the kernel's shared memory.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedBuffer {
    pub name: String,
    /// The declaration, or the `dma.copy` that first binds a fresh buffer.
    pub stmt: StmtId,
    pub dtype: DType,
    /// The shape of one array entry in symbolic form (a future's buffer: its source's tile,
    /// `check/fresh.rs`), or the dimension that is not integer arithmetic.
    pub shape: Result<Vec<crate::sym::Sym>, ExprId>,
    /// The array count (`lhs_s[STAGES]`).
    pub count: Option<ExprId>,
    /// The fresh buffer of a future (`f = dma.copy … => shared;`, `f = tma.copy … => shared;`).
    pub fresh: bool,
    /// Copies of the buffer: one per thread of the block for a fresh buffer that is each
    /// thread's own (`mma_uniform::per_thread_fresh`), else 1. Thread `threadIdx.x` uses the
    /// copy at `threadIdx.x` × the bytes of one.
    pub slots: u32,
}

impl SharedBuffer {
    /// The shape of one entry in symbolic form, or the dimension expression that is not
    /// arithmetic over tunables and constants.
    pub fn sym_shape(&self) -> Result<Vec<crate::sym::Sym>, ExprId> {
        self.shape.clone()
    }

    /// The bytes of all its entries (array count × elements × element size) in symbolic form:
    /// the one formula the budget check evaluates and the lowering's `memory` pass places.
    pub fn sym_bytes(&self, m: &Module) -> Result<crate::sym::Sym, ExprId> {
        use crate::sym::Sym;
        let elems = self.sym_shape()?.into_iter().fold(Sym::Int(1), Sym::mul);
        let count = match self.count {
            Some(c) => Sym::from_expr(m, c).ok_or(c)?,
            None => Sym::Int(1),
        };
        Ok(Sym::mul(
            Sym::mul(Sym::mul(count, elems), Sym::Int(self.slots as i64)),
            Sym::Int(self.dtype.size_bytes() as i64),
        ))
    }

    /// Whether the buffer is sized by problem sizes (`check/launch_sized.rs`): a dimension
    /// names more than integers, tunables and constants.
    pub fn sized_at_launch(&self, m: &Module) -> bool {
        self.shape
            .as_ref()
            .is_ok_and(|s| !s.iter().all(|d| compile_time(m, d)))
    }

    /// The bytes of one slot (see [`SharedBuffer::slots`]).
    pub fn slot_bytes(&self, m: &Module) -> Result<crate::sym::Sym, ExprId> {
        Ok(Self {
            slots: 1,
            ..self.clone()
        }
        .sym_bytes(m)?)
    }
}

impl KernelInfo {
    /// The bytes of the shared buffers sized by problem sizes (`check/launch_sized.rs`), which
    /// [`KernelInfo::smem_bytes`] leaves out: the launch counts them. `None` when there are
    /// none.
    pub fn launch_sized_smem(&self, m: &Module) -> Option<crate::sym::Sym> {
        self.shared
            .iter()
            .filter(|b| b.sized_at_launch(m))
            .filter_map(|b| b.sym_bytes(m).ok())
            .reduce(crate::sym::Sym::add)
    }

    /// The fresh shared buffer `name` when it is each thread's own (a slot per thread).
    pub fn own_buffer(&self, name: &str) -> Option<&SharedBuffer> {
        self.shared
            .iter()
            .find(|b| b.fresh && b.slots > 1 && b.name == name)
    }
}

/// Everything later passes need, established by the checks.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// The synchronous `dma.copy`s between a global and a shared tile whose tiles differ
    /// between the block's threads: each thread makes its own (the lowering's per-thread copy).
    pub per_thread_copies: Vec<StmtId>,
    /// The `assert`s over problem sizes, checked at launch: the condition and the assertion's
    /// text (`check/asserts.rs`).
    pub launch_asserts: Vec<(crate::sym::Sym, String)>,
    pub config: Config,
    pub path: LoweringPath,
    /// On the Hopper path: the `mma`s are warp-level `mma.sync`s fed by TMA
    /// (the checker's `tma_warp_kernel` rule), not WGMMAs.
    pub warp_mma_on_hopper: bool,
    /// Every constant evaluated under the config.
    pub constants: BTreeMap<String, i64>,
    /// Resolution of every `Expr::Name` (including names in `Index` bases).
    pub bindings: HashMap<ExprId, Binding>,
    /// Resolution of the names a statement holds as identifiers (an `mma`'s operands, the
    /// futures of `swap` and `trigger … after`, a `reduce`'s target).
    pub idents: HashMap<(StmtId, IdentRole), Binding>,
    pub threads_per_block: u32,
    /// Extents of the `: block` level, outermost first.
    pub grid: Vec<ExprId>,
    /// The `parallel` levels enclosing each innermost `parallel` body, from `: block` inward,
    /// as (statement, index of the level in it): every chain starts at the kernel's one
    /// `: block` level, and chains share the levels of the `parallel`s they are nested in.
    pub parallel_chains: Vec<Vec<(StmtId, usize)>>,
    /// The launch geometry in symbolic form — grid, threads per block, each parallel
    /// variable's formula over `blockIdx` / `threadIdx` — or why it has none
    /// (`check/geometry_sym.rs`).
    pub sym_geometry: Result<Geometry, GeometryError>,
    /// Σ [`SharedBuffer::sym_bytes`] (+ 8 B per event), evaluated: the budget the checks
    /// hold the kernel to (the `memory` pass adds the alignment between buffers). Buffers
    /// sized by problem sizes are left out ([`KernelInfo::launch_sized_smem`]).
    pub smem_bytes: u64,
    /// The shared buffers, in source order (the order the lowering places them in).
    pub shared: Vec<SharedBuffer>,
    /// Each parameter and declared tensor by its binding: shape and array count in symbolic
    /// form, the dimensions no tunable changes (`check/tensors.rs`).
    pub tensors: HashMap<Binding, DeclaredTensor>,
    /// Resolved swizzle in bytes (0 = none) for every `TmaCopy` and `MmaLoad`.
    pub swizzle: HashMap<StmtId, u32>,
    /// The expression each swizzled `TmaCopy` and `MmaLoad` takes its swizzle from: its own
    /// `.swiz<…>`, else the one stated on the other side of its shared tensor.
    pub swizzle_source: HashMap<StmtId, ExprId>,
    /// The swizzle tessel chose for the sites of a WGMMA operand tile no statement states one
    /// for (`check/swizzle.rs`'s `implicit`): the width of the tile's rows.
    pub swizzle_implicit: HashMap<StmtId, u32>,
    /// Every copy src/dst, `mma.load` src, `mma.store` dst and element access.
    pub views: HashMap<ExprId, ViewInfo>,
    /// Every view-like expression (a tensor's name, `t[i]`, a view method, `f.data`) in
    /// symbolic form — tile shape and origin over tunables, constants and problem sizes, what
    /// the lowering prints — or why it has none (`check/view_sym.rs`).
    pub sym_views: HashMap<ExprId, Result<SymView, ViewError>>,
    /// WGMMA fragments by their defining statement (the `mma.fill` / `mma.load` the checker
    /// binds each operand to): two fragments of one name in different scopes are two entries.
    pub frags: HashMap<StmtId, FragInfo>,
    pub events: Vec<EventInfo>,
    /// The TMA loads that complete on the event of the `trigger … after` naming their future
    /// (`tma.copy.async<e>` in effect): copy → the event expression.
    pub bound_copies: HashMap<StmtId, ExprId>,
    /// Warnings (`W12xx`): accepted, but probably not what was meant.
    pub warnings: Vec<crate::diag::Diagnostic>,
}

/// Compile-time check: default config, no problem sizes, sm_90 limits.
pub fn check(m: &Module) -> Result<KernelInfo, Diagnostics> {
    check_config(m, &Config::defaults(m), None, &Limits::SM90)
}

/// The tuner's legality filter and the launcher's check: every check under `cfg`; with a
/// `problem`, `require`s over problem dims are evaluated too.
pub fn check_config(
    m: &Module,
    cfg: &Config,
    problem: Option<&Problem>,
    limits: &Limits,
) -> Result<KernelInfo, Diagnostics> {
    run_checks(m, cfg, problem, limits, Mode::Lowering).map(|(info, _)| info)
}

/// The language checks alone, without the lowering gate: what `tessel check` reports. On
/// success also returns what the gate would reject ("not supported yet: …"), for the caller
/// to show as notes; a module with none of those passes [`check_config`] too.
pub fn check_language(
    m: &Module,
    cfg: &Config,
    problem: Option<&Problem>,
    limits: &Limits,
) -> Result<(KernelInfo, Diagnostics), Diagnostics> {
    run_checks(m, cfg, problem, limits, Mode::Language)
}

#[derive(Clone, Copy)]
enum Mode {
    /// Every check and the lowering gate.
    Lowering,
    /// The language checks; the gate's findings are returned beside the facts.
    Language,
}

fn run_checks(
    m: &Module,
    cfg: &Config,
    problem: Option<&Problem>,
    limits: &Limits,
    mode: Mode,
) -> Result<(KernelInfo, Diagnostics), Diagnostics> {
    let mut diags = Diagnostics::default();
    let hdr = header::check_header(m, cfg, problem, &mut diags);
    let res = resolve::resolve(m, &mut diags);
    let cx = Cx {
        m,
        env: hdr.env,
        static_env: hdr.static_env,
        res,
    };

    let geo = geometry::check_geometry(&cx, limits, &mut diags);
    let mut views = view::compute_views(&cx, &mut diags);
    shape::check_copies(&cx, &views, &mut diags);
    integers::check_integer_operands(&cx, &mut diags);
    wgmma::check_f8(&cx, &views, &mut diags);
    let frags = wgmma::check_mma(&cx, &mut views, &mut diags);
    let swizzle::Swizzles {
        bytes: swizzle,
        source: swizzle_source,
        implicit: swizzle_implicit,
    } = swizzle::check_swizzle(&cx, &views, &frags, &mut diags);
    wgmma::check_operand_swizzle(&cx, &frags, &swizzle, &mut diags);
    wgmma::check_frag_loads(&cx, &mut diags);
    wgmma::check_scale_mix(&cx, &frags, &mut diags);
    sparse::check_sparse(&cx, &views, &swizzle, &mut diags);
    wgmma::check_promote(&cx, &frags, &mut diags);
    wgmma::check_scales(&cx, &views, &frags, &mut diags);
    occupancy::check_acc_registers(&cx, &frags, geo.threads_per_block, &mut diags);
    let smem = smem::check_smem(&cx, limits, geo.threads_per_block, &mut diags);
    let events = events::check_events(&cx, &mut diags);
    futures::check_futures(&cx, &mut diags);
    let warp_shapes = warp_mma::check_warp_mma(&cx, &views, &mut diags);
    mma_uniform::check(&cx, &mut diags);
    frag_elem::check_frag_elem(&cx, &mut diags);
    frag_elem::check_tiles(
        &cx,
        &frag_elem::acc_shapes(&frags, &warp_shapes),
        &mut diags,
    );
    control::check_control(&cx, &mut diags);
    streams::check_streams(&cx, &mut diags);
    header::check_param_dims(&cx, &mut diags);
    views_ext::check_tma_boxes(&cx, &views, &mut diags);
    views_ext::check_ext_copies(&cx, &views, &mut diags);
    pad::check_pad(&cx, &views, &mut diags);
    frag_load::check_frag_loads(&cx, &views, &mut diags);
    attrs::check_attributes(&cx, geo.threads_per_block, &mut diags);
    placement::check_placement(&cx, &views, &mut diags);
    let mut range_warnings = Vec::new();
    range::check_ranges(&cx, &views, &mut diags, &mut range_warnings);
    simt::check_simt(&cx, &views, geo.threads_per_block, &mut diags);
    occupancy::check_occupancy(&cx, &mut diags);
    launch_attrs::check_launch_attrs(&cx, geo.threads_per_block, &mut diags);
    cluster::check_cluster(&cx, &mut diags);
    cluster::check_cluster_level(&cx, &views, &mut diags);
    schedule::check_pingpong(&cx, &mut diags);
    streamk::check_streamk(&cx, &mut diags);
    lowerable::check_lowerable(&cx, &views, &mut diags);
    let launch_asserts = asserts::check_asserts(&cx, &mut diags);
    let mut gate = Diagnostics::default();
    support::lowering_gate(&cx, &swizzle_implicit, &mut gate);
    jumps::gate(&cx, &mut gate);
    let per_thread_copies = lowerable::per_thread_copies(&cx, &views);
    launch_sized::gate(&cx, &views, &per_thread_copies, &mut gate);
    warp_mma::warp_gate(&cx, &views, &swizzle, &mut gate);
    frag_elem::gate(&cx, &mut gate);
    frag_elem::tile_gate(&cx, &mut gate);
    sparse::gate(&cx, &mut gate);
    schedule::gate(&cx, &mut gate);
    match mode {
        // "Not supported yet" matters for a valid program only: with language errors, those
        // come alone.
        Mode::Lowering if diags.is_empty() => diags.extend(gate.clone()),
        Mode::Lowering => {}
        // Restrictions of the lowering, not of the language: notes here.
        Mode::Language => {
            let (lowering, language): (Vec<_>, Vec<_>) = std::mem::take(&mut diags.0)
                .into_iter()
                .partition(|d| support::lowering_only(d.code));
            diags.0 = language;
            gate.0.extend(lowering);
        }
    }
    // Hazards are looked for in kernels that pass every other check (their analyses assume
    // resolved names, consistent shapes, a well-formed geometry and constructs the lowering
    // supports).
    let mut warnings = Vec::new();
    if diags.is_empty() {
        warnings.append(&mut range_warnings);
        hazard::check_program_hazards(&cx, &mut diags);
        race::check(&cx, &geo, &mut warnings);
        async_reads::check(&cx, &mut warnings);
        simt::named_barrier_counts(&cx, &mut warnings);
    }
    if diags.is_empty() && gate.is_empty() {
        hazard::check_hazards(&cx, &mut diags, &mut warnings);
    }

    let path = cx.lowering_path();
    let shared = smem::kernel_buffers(&cx, geo.threads_per_block);
    let parallel_chains: Vec<Vec<(StmtId, usize)>> = geo
        .chains
        .iter()
        .map(|c| c.iter().map(|l| (l.stmt, l.level)).collect())
        .collect();
    let info = KernelInfo {
        per_thread_copies,
        launch_asserts,
        config: cfg.clone(),
        path,
        warp_mma_on_hopper: path == LoweringPath::Hopper && cx.tma_warp_kernel(),
        constants: hdr.constants,
        bindings: cx.res.bindings.clone(),
        idents: cx.res.idents.clone(),
        threads_per_block: geo.threads_per_block,
        grid: geo.grid,
        // Worked out for a kernel whose levels and extents are well formed.
        sym_geometry: if diags.is_empty() {
            geometry_sym::sym_geometry(m, &parallel_chains)
                .map(|g| geometry_sym::idle_under(g, &cx.static_env.values))
        } else {
            Err(GeometryError {
                span: m.kernel.name.span,
                msg: "the kernel does not check".into(),
            })
        },
        parallel_chains,
        smem_bytes: smem,
        sym_views: view_sym::sym_views(m, &cx.res.bindings, &shared),
        shared,
        tensors: tensors::declared_tensors(m),
        swizzle,
        swizzle_source,
        swizzle_implicit,
        views: views.public_views(),
        frags,
        events,
        bound_copies: events::bound_copies(m),
        warnings,
    };
    diags.into_result((info, gate))
}

/// Shared-memory bytes of `m` under `cfg` (for the tuner's quick filter): Σ shared tensor
/// decls × array counts + 8 B per event. Buffers sized by problem sizes are the launch's to
/// count: left out here.
pub fn smem_bytes(m: &Module, cfg: &Config) -> Result<u64, Diagnostics> {
    let mut diags = Diagnostics::default();
    let hdr = header::check_header(m, cfg, None, &mut diags);
    let res = resolve::resolve(m, &mut diags);
    let cx = Cx {
        m,
        env: hdr.env,
        static_env: hdr.static_env,
        res,
    };
    // The block's thread count sizes per-thread fresh buffers; its errors are check_config's.
    let threads =
        geometry::check_geometry(&cx, &Limits::SM90, &mut Diagnostics::default()).threads_per_block;
    let total = smem::smem_total(&cx, threads, &mut diags);
    diags.into_result(total)
}

/// What every pass reads.
pub(crate) struct Cx<'a> {
    pub m: &'a Module,
    /// Tunables, constants and (when given) problem dims.
    pub env: Env,
    /// Tunables and constants only: the values a [`Dim`] records.
    pub static_env: Env,
    pub res: resolve::Resolved,
}

impl Cx<'_> {
    /// Whether the kernel lowers on the warp-level `mma` path: `mma`s under a `: group` level
    /// and no Hopper construct. The one rule the checks and [`KernelInfo::path`] follow.
    pub fn warp_kernel(&self) -> bool {
        warp_mma::has_warp_mma(self) && warp_mma::hopper_constructs(self).is_none()
    }

    /// Whether the kernel's `mma`s are warp-level ones fed by TMA: a warp `mma`, TMA copies or
    /// events, no WGMMA (the Hopper path lowers them as `mma.sync`; a `: group-4` level may
    /// split the block into a producer and consumer warpgroups around them).
    pub fn tma_warp_kernel(&self) -> bool {
        warp_mma::has_warp_mma(self)
            && warp_mma::first_wgmma(self).is_none()
            && warp_mma::tma_or_event(self).is_some()
    }

    /// The path the lowering takes ([`KernelInfo::path`]).
    pub fn lowering_path(&self) -> LoweringPath {
        if self.warp_kernel() {
            LoweringPath::WarpMma
        } else if occupancy::hopper_stmt(self.m).is_some() {
            LoweringPath::Hopper
        } else {
            LoweringPath::Simt
        }
    }

    /// Evaluates `e` under the config (and problem dims when given); `None` if it has no value.
    pub fn value(&self, e: ExprId) -> Option<i64> {
        eval(self.m, e, &self.env).ok()
    }
    /// Evaluates a symbolic value (a fresh buffer's dimension) as [`Cx::value`] does.
    pub fn sym_value(&self, s: &crate::sym::Sym) -> Option<i64> {
        let env: crate::sym::SymEnv = self
            .env
            .values
            .iter()
            .map(|(n, &v)| (n.clone(), v))
            .collect();
        s.eval(&env).ok()
    }
    /// Evaluates `e` without problem dims.
    pub fn static_value(&self, e: ExprId) -> Option<i64> {
        eval(self.m, e, &self.static_env).ok()
    }
    pub fn dim(&self, e: ExprId) -> Dim {
        Dim {
            expr: DimExpr::Expr(e),
            value: self.static_value(e),
        }
    }
    /// The size `e` of a `.subspan` / `.view` over a dimension `full`: `_` is all of it.
    pub fn size_or_whole(&self, e: ExprId, full: &Dim) -> Dim {
        match self.m.exprs[e] {
            crate::ir::Expr::Wildcard => full.clone(),
            _ => self.dim(e),
        }
    }
    /// A dim's value with problem dims (for comparisons at launch).
    pub fn dim_value(&self, d: &Dim) -> Option<i64> {
        match d.expr {
            DimExpr::Const(v) => Some(v),
            DimExpr::Expr(e) => d.value.or_else(|| self.value(e)),
        }
    }
    /// `WARP_N = 180` or `180`: how a dim reads in a message.
    pub fn describe_dim(&self, d: &Dim) -> String {
        let v = self.dim_value(d);
        match (d.expr, v) {
            (DimExpr::Expr(e), Some(v)) => {
                let text = self.m.expr_to_string(e);
                if text == v.to_string() {
                    text
                } else {
                    format!("{text} = {v}")
                }
            }
            (DimExpr::Expr(e), None) => self.m.expr_to_string(e),
            (DimExpr::Const(v), _) => v.to_string(),
        }
    }
    /// `SWIZ = 96` or `96`: an expression and its value, for messages.
    pub fn describe_value(&self, e: ExprId, v: i64) -> String {
        let text = self.m.expr_to_string(e);
        if text == v.to_string() {
            text
        } else {
            format!("{text} = {v}")
        }
    }
    /// The name a binding declares, for messages.
    pub fn binding_name(&self, b: Binding) -> String {
        use crate::ir::Stmt;
        match b {
            Binding::Param(i) => self
                .m
                .kernel
                .params
                .get(i)
                .map(|p| p.name.name.clone())
                .unwrap_or_default(),
            Binding::Tensor(s, d) => match &self.m.stmts[s] {
                Stmt::TensorDecl { names, .. } => names
                    .get(d)
                    .map(|n| n.name.name.clone())
                    .unwrap_or_default(),
                _ => String::new(),
            },
            Binding::Event(s, d) => match &self.m.stmts[s] {
                Stmt::EventDecl { names, .. } => names
                    .get(d)
                    .map(|n| n.name.name.clone())
                    .unwrap_or_default(),
                _ => String::new(),
            },
            Binding::Future(s) => match &self.m.stmts[s] {
                Stmt::TmaCopy { bind: Some(b), .. }
                | Stmt::Ext(crate::ir::ExtStmt::DmaFuture { bind: Some(b), .. })
                | Stmt::Ext(crate::ir::ExtStmt::AnyFuture { bind: b, .. }) => b.name.clone(),
                _ => String::new(),
            },
            Binding::Frag(s) => match &self.m.stmts[s] {
                Stmt::MmaFill { name, .. } | Stmt::MmaLoad { name, .. } => name.name.clone(),
                _ => String::new(),
            },
            _ => String::new(),
        }
    }
}

/// A diagnostic with the module's span for an expression.
pub(crate) fn at_expr(
    m: &Module,
    code: &'static str,
    e: ExprId,
    msg: impl Into<String>,
) -> Diagnostic {
    Diagnostic::new(code, m.expr_span(e), msg)
}

/// Calls `f` on `e` and every sub-expression, pre-order.
/// The first name in `e` whose binding `known` does not accept, following lets to their values
/// (16 deep): the name that makes `e` a run-time value where only the accepted kinds may appear.
/// Unresolved names are `resolve`'s to report, so they pass.
/// Whether `x` is arithmetic over integers, tunables and constants only (no problem dimension).
pub(crate) fn compile_time(m: &Module, x: &crate::sym::Sym) -> bool {
    let mut names = Vec::new();
    x.names(&mut names);
    names
        .iter()
        .all(|n| m.tunable(n).is_some() || m.constant(n).is_some())
}

/// Whether variable `var` of `foreach` statement `s` has a compile-time value in each copy of
/// the body once the lowering unrolls the loop: under `: unroll`, or when every extent of the
/// nest is [`compile_time`] (the lowering unrolls such a nest whole) — but for the innermost
/// variable under `: unroll(N)`, whose loop unrolls by `N` only.
pub(crate) fn unrolled_whole(m: &Module, s: StmtId, var: usize) -> bool {
    let crate::ir::Stmt::Foreach {
        vars,
        extents,
        unroll,
        ..
    } = &m.stmts[s]
    else {
        return false;
    };
    if m.unroll_factor(s).is_some() && var + 1 == vars.len() {
        return false;
    }
    *unroll
        || extents
            .iter()
            .all(|&e| crate::sym::Sym::from_expr(m, e).is_some_and(|x| compile_time(m, &x)))
}

pub(crate) fn first_unknown_name(
    cx: &Cx,
    e: ExprId,
    known: &dyn Fn(&Binding) -> bool,
) -> Option<String> {
    fn go(cx: &Cx, e: ExprId, known: &dyn Fn(&Binding) -> bool, depth: u32) -> Option<String> {
        use crate::ir::{Expr, Stmt};
        let m = cx.m;
        let mut bad = None;
        walk_expr(m, e, &mut |x| {
            if bad.is_some() {
                return;
            }
            let Expr::Name(n) = &m.exprs[x] else { return };
            let ok = match cx.res.bindings.get(&x) {
                Some(Binding::Let(s)) if depth < 16 => match &m.stmts[*s] {
                    Stmt::Let { value, .. } => go(cx, *value, known, depth + 1).is_none(),
                    _ => false,
                },
                Some(b) => known(b),
                None => true,
            };
            if !ok {
                bad = Some(n.clone());
            }
        });
        bad
    }
    go(cx, e, known, 0)
}

pub(crate) fn walk_expr(m: &Module, e: ExprId, f: &mut impl FnMut(ExprId)) {
    use crate::ir::Expr;
    f(e);
    match &m.exprs[e] {
        Expr::Int(_) | Expr::Float { .. } | Expr::Bool(_) | Expr::Name(_) | Expr::Wildcard => {}
        Expr::Unary { expr, .. } => walk_expr(m, *expr, f),
        Expr::Binary { lhs, rhs, .. } => {
            walk_expr(m, *lhs, f);
            walk_expr(m, *rhs, f);
        }
        Expr::Compose { outer, inner } => {
            walk_expr(m, *outer, f);
            walk_expr(m, *inner, f);
        }
        Expr::Call { args, .. } => {
            for &a in args {
                walk_expr(m, a, f);
            }
        }
        Expr::Index { base, index } => {
            walk_expr(m, *base, f);
            walk_expr(m, *index, f);
        }
        Expr::View { base, args, .. } => {
            walk_expr(m, *base, f);
            for &a in args {
                walk_expr(m, a, f);
            }
        }
        Expr::Field { base, .. } => walk_expr(m, *base, f),
    }
}

/// The expressions a statement holds directly (not those of nested statements).
pub(crate) fn stmt_exprs(s: &crate::ir::Stmt) -> Vec<ExprId> {
    use crate::ir::{CopyDst, Stmt};
    let dst = |d: &CopyDst| match d {
        CopyDst::Expr(e) => Some(*e),
        CopyDst::Fresh(_) => None,
    };
    match s {
        Stmt::Parallel { levels, .. } => levels
            .iter()
            .flat_map(|l| l.extents.iter().copied())
            .collect(),
        Stmt::Foreach { extents, .. } => extents.clone(),
        Stmt::TensorDecl { shape, names, .. } => shape
            .iter()
            .copied()
            .chain(names.iter().filter_map(|d| d.count))
            .collect(),
        Stmt::ScalarDecl { init, .. } => init.iter().copied().collect(),
        Stmt::EventDecl { names, .. } => names.iter().filter_map(|d| d.count).collect(),
        Stmt::Let { value, .. } => vec![*value],
        Stmt::Assign { target, value, .. } => vec![*target, *value],
        Stmt::If { cond, .. } | Stmt::InThreads { cond, .. } => vec![*cond],
        Stmt::DmaCopy { src, dst: d, .. } => std::iter::once(*src).chain(dst(d)).collect(),
        Stmt::TmaCopy {
            event,
            swizzle,
            src,
            dst: d,
            ..
        } => event
            .iter()
            .chain(swizzle.iter())
            .copied()
            .chain(std::iter::once(*src))
            .chain(dst(d))
            .collect(),
        Stmt::MmaFill { value, .. } => vec![*value],
        Stmt::MmaLoad { swizzle, src, .. } => swizzle
            .iter()
            .copied()
            .chain(std::iter::once(*src))
            .collect(),
        Stmt::MmaStore {
            view, dst: d, mods, ..
        } => view
            .iter()
            .copied()
            .chain([*d])
            .chain(
                mods.mask
                    .iter()
                    .flat_map(|(r, c)| std::iter::once(*r).chain(*c)),
            )
            .collect(),
        Stmt::Wait { event } | Stmt::Trigger { event, .. } => vec![*event],
        Stmt::DmaWait { pending } => vec![*pending],
        Stmt::Mma { .. } | Stmt::MmaCommit | Stmt::SyncShared | Stmt::Reduce { .. } => Vec::new(),
        Stmt::Ext(x) => ext_exprs(x),
    }
}

/// The expressions an extension statement holds directly.
fn ext_exprs(x: &crate::ir::ExtStmt) -> Vec<ExprId> {
    use crate::ir::{CopyDst, ExtStmt, PrintArg};
    match x {
        ExtStmt::Return { value } => value.iter().copied().collect(),
        ExtStmt::Call { targs, args, .. } => targs.iter().chain(args).copied().collect(),
        ExtStmt::Println { args, .. } => args
            .iter()
            .filter_map(|a| match a {
                PrintArg::Expr(e) => Some(*e),
                PrintArg::Str(_) => None,
            })
            .collect(),
        ExtStmt::Assert { cond, .. } | ExtStmt::While { cond, .. } => vec![*cond],
        ExtStmt::Sync { .. } => Vec::new(),
        ExtStmt::DmaFuture {
            src,
            dst,
            after,
            modifiers,
            ..
        } => std::iter::once(*src)
            .chain(modifiers.iter().flat_map(|(_, a)| a.iter().copied()))
            .chain(match dst {
                CopyDst::Expr(e) => Some(*e),
                CopyDst::Fresh(_) => None,
            })
            .chain(after.iter().copied())
            .collect(),
        ExtStmt::TriggerAfter { event, after } => std::iter::once(*event)
            .chain(after.iter().copied())
            .collect(),
        ExtStmt::MmaRefill { value, .. } => vec![*value],
        ExtStmt::MmaScaleAcc { lhs, rhs, .. } => vec![*lhs, *rhs],
        ExtStmt::FragOp { args, .. } => args.clone(),
        ExtStmt::LoadInto { src, dst } => vec![*src, *dst],
        ExtStmt::Asm {
            outputs, inputs, ..
        } => outputs.iter().chain(inputs).map(|o| o.expr).collect(),
        ExtStmt::Jump { .. } | ExtStmt::AnyFuture { .. } | ExtStmt::Swap { .. } => Vec::new(),
    }
}

/// The nested blocks of a statement.
pub(crate) fn stmt_blocks(s: &crate::ir::Stmt) -> Vec<&crate::ir::Block> {
    use crate::ir::Stmt;
    match s {
        Stmt::Ext(crate::ir::ExtStmt::While { body, .. }) => vec![body],
        Stmt::Parallel { body, .. } | Stmt::Foreach { body, .. } | Stmt::InThreads { body, .. } => {
            vec![body]
        }
        Stmt::If {
            then_body,
            else_body,
            ..
        } => std::iter::once(then_body).chain(else_body.iter()).collect(),
        _ => Vec::new(),
    }
}

/// Every statement of the kernel, pre-order.
pub(crate) fn all_stmts(m: &Module) -> Vec<StmtId> {
    stmts_within(m, &m.kernel.body)
}

/// The statements of `b` and of the blocks nested in it, in order.
pub(crate) fn stmts_within(m: &Module, b: &[StmtId]) -> Vec<StmtId> {
    fn go(m: &Module, b: &[StmtId], out: &mut Vec<StmtId>) {
        for &s in b {
            out.push(s);
            for inner in stmt_blocks(&m.stmts[s]) {
                go(m, inner, out);
            }
        }
    }
    let mut out = Vec::new();
    go(m, b, &mut out);
    out
}

impl Cx<'_> {
    /// The `parallel` level a [`resolve::LevelRef`] names.
    pub fn level(&self, l: resolve::LevelRef) -> Option<&crate::ir::ParallelLevel> {
        match &self.m.stmts[l.stmt] {
            crate::ir::Stmt::Parallel { levels, .. } => levels.get(l.level),
            _ => None,
        }
    }
    /// The innermost `: group` or `: group-4` level `s` runs under: it decides what an `mma`
    /// there is — a warp-level `mma.sync` (`: group`, one warp) or a WGMMA (`: group-4`, one
    /// warpgroup). A `: group` level nested in a `: group-4` one makes warp-level `mma`s.
    fn collective_level(&self, s: StmtId) -> Option<crate::ir::Level> {
        use crate::ir::Level;
        self.res.chains.get(&s)?.iter().rev().find_map(|l| {
            self.level(*l)
                .map(|pl| pl.level)
                .filter(|lv| matches!(lv, Level::Group | Level::Group4))
        })
    }
    /// Whether `s` runs under a `: group` level (one warp) nested in no `: group-4` level of its
    /// own: an `mma` there is a warp-level tensor-core instruction (`mma.sync`).
    pub fn in_warp_mma(&self, s: StmtId) -> bool {
        self.collective_level(s) == Some(crate::ir::Level::Group)
    }
    /// Whether `s` runs under a `: group-4` level with no `: group` level inside it (the WGMMA
    /// path).
    pub fn in_group4(&self, s: StmtId) -> bool {
        self.collective_level(s) == Some(crate::ir::Level::Group4)
    }
}

impl Cx<'_> {
    /// Whether every name in `e` resolved (so a failed evaluation is not a follow-on error).
    pub fn resolved(&self, e: ExprId) -> bool {
        let mut ok = true;
        walk_expr(self.m, e, &mut |x| {
            if matches!(self.m.exprs[x], crate::ir::Expr::Name(_))
                && !self.res.bindings.contains_key(&x)
            {
                ok = false;
            }
        });
        ok
    }
}

/// The accumulator type of `def` when it is a warp accumulator loaded from a tensor
/// (`mc = mma.load c;` then `mma.row.row mc, a, b;` in a warp kernel): f32 for floating-point
/// tensors (converted exactly), s32 for s32 ones; `None` for anything else.
pub(crate) fn loaded_acc_dtype(cx: &Cx, views: &view::Views, def: StmtId) -> Option<DType> {
    let m = cx.m;
    let crate::ir::Stmt::MmaLoad { name, src, .. } = &m.stmts[def] else {
        return None;
    };
    if !cx.warp_kernel() {
        return None;
    }
    let is_acc = all_stmts(m).into_iter().any(|s| {
        matches!(&m.stmts[s], crate::ir::Stmt::Mma { acc, .. } if acc.name == name.name)
            && frag_def(cx, s, resolve::Role::Acc) == Some(def)
    });
    if !is_acc {
        return None;
    }
    match views.get(*src)?.dtype {
        DType::F16 | DType::BF16 | DType::F32 | DType::TF32 => Some(DType::F32),
        DType::I32 => Some(DType::I32),
        _ => None,
    }
}

/// The definition of a fragment name used by statement `s` in `role` (the WGMMA and
/// `mma.store` checks share it).
fn frag_def(cx: &Cx, s: StmtId, role: resolve::Role) -> Option<StmtId> {
    match cx.res.idents.get(&(s, role))? {
        Binding::Frag(d) => Some(*d),
        _ => None,
    }
}

/// `def` (the definition of operand `id`, the `which` operand of an `mma`) when it is an
/// `mma.load`; otherwise the operand is an accumulator, reported here (the WGMMA and warp-level
/// checks share it).
fn loaded_operand(
    m: &Module,
    id: &crate::ir::Ident,
    def: StmtId,
    which: &str,
    diags: &mut Diagnostics,
) -> Option<StmtId> {
    if matches!(m.stmts[def], crate::ir::Stmt::MmaLoad { .. }) {
        return Some(def);
    }
    diags.push(
        Diagnostic::new(
            codes::MMA_OPERAND,
            id.span,
            format!(
                "`{}` is an accumulator, not a loaded {which} operand",
                id.name
            ),
        )
        .with_help(format!("load the {which} operand with `mma.load`")),
    );
    None
}

/// Where a fragment dimension was written (`fallback` for a constant one).
fn dim_span(cx: &Cx, d: &Dim, fallback: crate::span::Span) -> crate::span::Span {
    match d.expr {
        DimExpr::Expr(e) => cx.m.expr_span(e),
        DimExpr::Const(_) => fallback,
    }
}
