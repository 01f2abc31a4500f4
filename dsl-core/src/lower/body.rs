//! Pass `body`: statements → lines of CUDA C++, each tagged with its DSL line. Control flow and
//! scalar statements are handled here; the Hopper-specific statements (events, TMA, WGMMA) in
//! [`super::hopper`], the cooperative copies of the SIMT path in [`super::simt`].

use super::LowerError;
use super::cexpr::{ExprCx, Ty, convert};
use super::geometry::Geometry;
use super::kernel::{KernelPath, Line};
use super::memory::Memory;
use super::scope::{FragKind, Local, Scopes, TensorLocal};
use super::sym::Sym;
use crate::ir::{AssignOp, BinaryOp, DType, Expr, MemSpace, Module, Stmt, StmtId};
use std::collections::{BTreeSet, HashMap};

/// A tensor map the kernel takes as a `__grid_constant__` parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct TmaMap {
    pub cpp_name: String,
    pub param: usize,
    pub box_rows: Sym,
    pub box_cols: Sym,
    pub swizzle: Sym,
}

/// Warp-specialization role of an `inthreads` branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Producer,
    Consumer,
}

pub struct Emitter<'a> {
    pub m: &'a Module,
    pub geo: &'a Geometry,
    pub mem: &'a Memory,
    pub path: KernelPath,
    /// The swizzle (bytes, as a C++/host expression) of every `tma.copy` and `mma.load`.
    pub swizzle: HashMap<StmtId, Sym>,
    pub roles: HashMap<StmtId, (Role, String)>,
    /// First trigger site of each event: the C++ predicate of the threads that reach it.
    pub arrivals: HashMap<String, String>,
    pub scopes: Scopes,
    pub lines: Vec<Line>,
    pub indent: usize,
    pub tma_maps: Vec<TmaMap>,
    pub pointer_params: BTreeSet<usize>,
    pub written_params: BTreeSet<usize>,
    pub wgmma_types: Vec<(String, String)>,
    pub wgmma_ns: Vec<Sym>,
    /// Enclosing `inthreads` predicates (C++), innermost last.
    pub thread_conds: Vec<String>,
    /// Synchronous TMA loads issued but not yet waited on.
    pub pending_sync_tma: bool,
    /// Cooperative `dma.copy`s issued but not yet waited on.
    pub pending_dma: bool,
    pub uses_sync_tma: bool,
    /// WGMMAs issued and not yet committed.
    pub wgmma_uncommitted: bool,
    /// The pipelined loop tail being lowered, if any.
    pub deferred: Option<super::pipeline::Deferred>,
    /// Shared tiles whose TMA stores wait for their read lazily (see `tma_store`).
    pub lazy_store_tiles: BTreeSet<String>,
    /// Shared tiles that `mma.store` may write again after a TMA store read them.
    pub rewritten_store_tiles: BTreeSet<String>,
    /// A lazy TMA store was issued in the current branch and not yet waited for.
    pub pending_store_read: bool,
    /// `cluster C;`: the multicast loads and cluster-scope events.
    pub cluster: Option<super::cluster::Cluster>,
    /// Async tile copies that may take their branch-free form in a versioned loop: the emitted
    /// line and the C++ conditions under which the tile grid divides the tensor ([`super::even`]).
    pub even_copies: Vec<(String, Vec<String>)>,
    pub errors: Vec<LowerError>,
}

impl<'a> Emitter<'a> {
    pub fn cx(&self) -> ExprCx<'_> {
        ExprCx {
            m: self.m,
            scopes: &self.scopes,
        }
    }

    pub fn line(&mut self, code: impl Into<String>, dsl_line: Option<u32>) {
        self.lines.push(Line {
            indent: self.indent,
            code: code.into(),
            dsl_line,
        });
    }

    pub fn dsl_line(&self, s: StmtId) -> Option<u32> {
        let l = self.m.stmt_span(s).start.line;
        (l > 0).then_some(l)
    }

    pub fn block(&mut self, b: &[StmtId]) {
        self.scopes.push();
        for &s in b {
            if let Err(e) = self.stmt(s) {
                self.errors.push(e);
            }
        }
        self.scopes.pop();
    }

    fn braced(&mut self, head: String, line: Option<u32>, body: &[StmtId]) {
        self.line(format!("{head} {{"), line);
        self.indent += 1;
        self.block(body);
        self.flush_sync_tma();
        self.flush_dma();
        self.indent -= 1;
        self.line("}", None);
    }

    pub fn stmt(&mut self, s: StmtId) -> Result<(), LowerError> {
        let m = self.m;
        let line = self.dsl_line(s);
        if !matches!(m.stmts[s], Stmt::TmaCopy { event: None, .. }) {
            self.flush_sync_tma();
        }
        if !matches!(
            m.stmts[s],
            Stmt::DmaCopy {
                is_async: false,
                ..
            }
        ) {
            self.flush_dma();
        }
        match &m.stmts[s] {
            Stmt::Parallel { levels, body } => {
                self.scopes.push();
                let is_block = levels
                    .first()
                    .is_some_and(|l| l.level == crate::ir::Level::Block);
                if let (Some(tiles), true) = (&self.geo.persistent_tiles, is_block) {
                    self.line(format!("const int tsl_tiles = {};  // persistent: tiles of the block level, walked by gridDim.x blocks", tiles.to_cpp()), line);
                } else if let (Some(group), true) = (
                    &self.geo.raster,
                    levels
                        .first()
                        .is_some_and(|l| l.level == crate::ir::Level::Block),
                ) {
                    let (bm, bn) = (&self.geo.block_vars[0], &self.geo.block_vars[1]);
                    self.line(format!("int {}, {};  // grouped rasterization: {} tiles of `{}` per group, then `{}`", bm.name, bn.name, group, bm.name, bn.name), line);
                    self.line(super::cluster::raster_call(self.geo, "blockIdx.x"), line);
                    for v in [bm, bn] {
                        self.scopes.insert(&v.name, Local::ParVar(v.extent.clone()));
                    }
                }
                for l in levels {
                    for v in &l.vars {
                        let pv = self.geo.var(&v.name).cloned();
                        let Some(pv) = pv else { continue };
                        if pv.level == crate::ir::Level::Block
                            && (self.geo.raster.is_some() || self.geo.persistent_tiles.is_some())
                        {
                            continue;
                        }
                        self.scopes
                            .insert(&v.name, Local::ParVar(pv.extent.clone()));
                        self.line(format!("const int {} = {};", v.name, pv.formula), line);
                    }
                }
                let start = self.lines.len();
                self.block(body);
                self.flush_sync_tma();
                self.flush_dma();
                super::simt::finish_async_copies(self, start);
                super::even::version_loops(self, start);
                if is_block && self.cluster.is_some() {
                    self.line("tsl_cluster_sync();  // no block exits while its peers may still arrive on its barriers or multicast into it", line);
                }
                self.scopes.pop();
            }
            Stmt::Foreach {
                vars,
                extents,
                unroll,
                body,
            } => {
                let exts: Vec<Sym> = extents
                    .iter()
                    .map(|&e| self.cx().sym(e))
                    .collect::<Result<_, _>>()?;
                let has_mma = body.iter().any(|&b| matches!(m.stmts[b], Stmt::Mma { .. }));
                if has_mma {
                    super::hopper::wgmma_fence(self, line);
                }
                let implicit_commit = self.path == KernelPath::Hopper
                    && super::walk::contains(m, body, &|s| matches!(s, Stmt::Mma { .. }))
                    && super::walk::contains(m, body, &|s| {
                        matches!(s, Stmt::TmaCopy { .. } | Stmt::DmaCopy { .. })
                    })
                    && !super::walk::contains(m, body, &|s| matches!(s, Stmt::MmaCommit));
                let deferred = if self.path == KernelPath::Hopper && exts.len() == 1 {
                    super::pipeline::match_loop(m, vars, &exts[0], body)
                } else {
                    None
                };
                let outer_deferred = std::mem::replace(&mut self.deferred, deferred.clone());
                let hoisted = match self.path {
                    KernelPath::Simt => super::simt::hoist_entries(self, vars, body),
                    KernelPath::Hopper => Vec::new(),
                };
                for (text, name, ty, tensor) in &hoisted {
                    self.line(
                        format!("{ty}* const {name} = {text};  // this loop's entry of `{tensor}`"),
                        line,
                    );
                }
                let loop_start = self.lines.len();
                self.scopes.push();
                for (text, ..) in &hoisted {
                    self.scopes
                        .insert(&super::simt::hoist_marker(text), Local::Let);
                }
                let static_trip = exts.iter().all(|e| !mentions_dim(m, e));
                for (v, e) in vars.iter().zip(&exts) {
                    if *unroll || static_trip {
                        self.line("#pragma unroll", None);
                    }
                    self.line(
                        format!("for (int {0} = 0; {0} < {1}; ++{0}) {{", v.name, e.to_cpp()),
                        line,
                    );
                    self.indent += 1;
                    self.scopes.insert(&v.name, Local::LoopVar(e.clone()));
                }
                self.block(body);
                self.flush_sync_tma();
                self.flush_dma();
                if implicit_commit {
                    super::hopper::wgmma_commit_wait(
                        self,
                        line,
                        "the next iteration overwrites the operands",
                    );
                }
                for _ in vars {
                    self.indent -= 1;
                    self.line("}", None);
                }
                for l in &mut self.lines[loop_start..] {
                    for (text, name, ..) in &hoisted {
                        if l.code.contains(text.as_str()) {
                            l.code = l.code.replace(text.as_str(), name);
                        }
                    }
                }
                self.scopes.pop();
                if let Some(d) = &deferred {
                    super::pipeline::emit_tail(self, d, line);
                }
                self.deferred = outer_deferred;
            }
            Stmt::TensorDecl {
                space,
                dtype,
                shape,
                names,
                ..
            } => {
                let shape: Vec<Sym> = shape
                    .iter()
                    .map(|&e| self.cx().sym(e))
                    .collect::<Result<_, _>>()?;
                for d in names {
                    let count = d.count.map(|c| self.cx().sym(c)).transpose()?;
                    let t = TensorLocal {
                        name: d.name.name.clone(),
                        space: *space,
                        dtype: *dtype,
                        shape: shape.clone(),
                        count: count.clone(),
                        param: None,
                    };
                    let ty = scalar_type(*dtype);
                    match space {
                        MemSpace::Shared => {
                            let slot = self.mem.slot(&d.name.name).cloned().ok_or_else(|| {
                                LowerError::new(
                                    d.name.span,
                                    "internal: shared tensor without a slot",
                                )
                            })?;
                            self.line(
                                format!(
                                    "{ty}* {} = reinterpret_cast<{ty}*>(tsl_smem + {});",
                                    d.name.name, slot.offset_name
                                ),
                                line,
                            );
                        }
                        MemSpace::Local => {
                            let n = Sym::mul(count.clone().unwrap_or(Sym::Int(1)), t.elems());
                            self.line(format!("{ty} {}[{}];", d.name.name, n.to_cpp()), line);
                        }
                        MemSpace::Global => {
                            return Err(LowerError::new(
                                d.name.span,
                                "global tensors are kernel parameters; declare them in the signature",
                            ));
                        }
                    }
                    self.scopes.insert(&d.name.name, Local::Tensor(t));
                }
            }
            Stmt::ScalarDecl { dtype, name, init } => {
                let init = match init {
                    Some(e) => {
                        let (v, t) = self.cx().value(*e)?;
                        format!(" = {}", convert(&v, t, *dtype))
                    }
                    None => String::new(),
                };
                self.line(
                    format!("{} {}{init};", scalar_type(*dtype), name.name),
                    line,
                );
                self.scopes.insert(&name.name, Local::Scalar(*dtype));
            }
            Stmt::Let { name, value } => {
                let (v, t) = self.cx().value(*value)?;
                match t {
                    // `b = bs.at(k, j);`: a named element value, typed like the element.
                    Ty::Float(d) => {
                        self.line(
                            format!("const {} {} = {v};", scalar_type(d), name.name),
                            line,
                        );
                        self.scopes.insert(&name.name, Local::Scalar(d));
                    }
                    _ => {
                        self.line(format!("const int {} = {v};", name.name), line);
                        self.scopes.insert(&name.name, Local::Let);
                    }
                }
            }
            Stmt::Assign { target, op, value } => self.assign(*target, *op, *value, line)?,
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                let (c, _) = self.cx().value(*cond)?;
                self.braced(format!("if ({c})"), line, then_body);
                if let Some(e) = else_body {
                    self.lines.pop();
                    self.braced("} else".to_string(), None, e);
                }
            }
            Stmt::InThreads { cond, body, .. } => {
                let (c, _) = self.cx().value(*cond)?;
                self.thread_conds.push(c.clone());
                match self.roles.get(&s).cloned() {
                    Some((role, wg_pred)) => {
                        let (what, call) = match role {
                            Role::Producer => (
                                "producer warpgroup: hands registers back",
                                "tsl_setmaxnreg_dec<tsl_regs_producer>();",
                            ),
                            Role::Consumer => (
                                "consumer warpgroups: take the producer's registers",
                                "tsl_setmaxnreg_inc<tsl_regs_consumer>();",
                            ),
                        };
                        self.line(format!("if ({wg_pred}) {{  // {what}"), line);
                        self.indent += 1;
                        self.line(call, line);
                        if wg_pred == c {
                            self.branch_body(body, line);
                        } else {
                            self.line(format!("if ({c}) {{"), line);
                            self.indent += 1;
                            self.branch_body(body, line);
                            self.indent -= 1;
                            self.line("}", None);
                        }
                        self.indent -= 1;
                        self.line("}", None);
                    }
                    None => {
                        self.line(format!("if ({c}) {{"), line);
                        self.indent += 1;
                        self.branch_body(body, line);
                        self.indent -= 1;
                        self.line("}", None);
                    }
                }
                self.thread_conds.pop();
            }
            Stmt::SyncShared => self.line("__syncthreads();", line),
            Stmt::DmaCopy { is_async, src, dst } => {
                super::simt::dma_copy(self, s, *is_async, *src, dst, line)?
            }
            Stmt::DmaWait { pending } => super::simt::dma_wait(self, *pending, line)?,
            Stmt::Reduce { op, target, .. } => super::simt::reduce(self, *op, target, line)?,
            Stmt::EventDecl { .. }
            | Stmt::Wait { .. }
            | Stmt::Trigger { .. }
            | Stmt::TmaCopy { .. } => super::hopper::sync_stmt(self, s, line)?,
            Stmt::MmaFill { .. }
            | Stmt::MmaLoad { .. }
            | Stmt::Mma { .. }
            | Stmt::MmaStore { .. }
            | Stmt::MmaCommit => super::hopper::mma_stmt(self, s, line)?,
            // The checker's lowering gate rejects these first; this arm only keeps the match total.
            Stmt::Ext(x) => {
                return Err(LowerError::new(
                    m.stmt_span(s),
                    format!("not supported yet: {}", x.construct()),
                ));
            }
        }
        Ok(())
    }

    fn assign(
        &mut self,
        target: crate::ir::ExprId,
        op: AssignOp,
        value: crate::ir::ExprId,
        line: Option<u32>,
    ) -> Result<(), LowerError> {
        let m = self.m;
        // Element store into a global tensor: guarded.
        if let Expr::View { .. } = &m.exprs[target] {
            let v = self.cx().view(target)?;
            if !v.element {
                return Err(LowerError::new(
                    m.expr_span(target),
                    "only single elements (`.at(i, j)`) can be assigned; copy tiles with `dma.copy`",
                ));
            }
            if op != AssignOp::Set {
                if v.tensor.space == MemSpace::Global {
                    return Err(LowerError::new(
                        m.expr_span(target),
                        "compound assignment to a global element is not supported; accumulate in a register tile (`local`) and store it",
                    ));
                }
                let place = self.cx().element_access(&v);
                let rhs = self.update(&place, v.tensor.dtype, op, value)?;
                self.line(format!("{place} = {rhs};"), line);
                return Ok(());
            }
            let (val, ty) = self.cx().value(value)?;
            let val = convert(&val, ty, v.tensor.dtype);
            if v.tensor.space == MemSpace::Global {
                let p = v.tensor.param.unwrap_or(0);
                self.written_params.insert(p);
                self.pointer_params.insert(p);
                let t = &v.tensor;
                let cols = t
                    .shape
                    .get(1)
                    .map(|s| s.to_cpp())
                    .unwrap_or_else(|| "1".into());
                let c = v.origin.get(1).cloned().unwrap_or_else(|| "0".into());
                self.line(
                    format!(
                        "tsl_st_guarded({}, {}, {c}, {}, {cols}, {val});",
                        t.name,
                        v.origin[0],
                        t.shape[0].to_cpp()
                    ),
                    line,
                );
            } else {
                self.line(format!("{} = {val};", self.cx().element_access(&v)), line);
            }
            return Ok(());
        }
        let Expr::Name(n) = &m.exprs[target] else {
            return Err(LowerError::new(
                m.expr_span(target),
                "cannot assign to this expression",
            ));
        };
        let dtype = match self.scopes.get(n) {
            Some(Local::Scalar(d)) => *d,
            _ => {
                return Err(LowerError::new(
                    m.expr_span(target),
                    format!("`{n}` is not a mutable scalar"),
                ));
            }
        };
        let rhs = self.update(n, dtype, op, value)?;
        self.line(format!("{n} = {rhs};"), line);
        Ok(())
    }

    /// The new value of `place` (of `dtype`) after `place op= value`: `acc += a * b` is one
    /// fused multiply-add (FFMA / HFMA2).
    fn update(
        &self,
        place: &str,
        dtype: DType,
        op: AssignOp,
        value: crate::ir::ExprId,
    ) -> Result<String, LowerError> {
        let m = self.m;
        if op == AssignOp::Add
            && let Expr::Binary {
                op: BinaryOp::Mul,
                lhs,
                rhs,
            } = &m.exprs[value]
        {
            let (a, ta) = self.cx().value(*lhs)?;
            let (b, tb) = self.cx().value(*rhs)?;
            let (a, b) = (convert(&a, ta, dtype), convert(&b, tb, dtype));
            let f = match dtype {
                DType::F32 => "fmaf",
                DType::F16 => "tsl_fma",
                DType::BF16 => "tsl_fma",
                _ => "tsl_ifma",
            };
            return Ok(format!("{f}({a}, {b}, {place})"));
        }
        let (v, t) = self.cx().value(value)?;
        Ok(match op {
            AssignOp::Set => convert(&v, t, dtype),
            _ => {
                let sym = &op.symbol()[..1];
                let cur = convert(place, Ty::Float(dtype), DType::F32);
                convert(
                    &format!("{cur} {sym} {}", convert(&v, t, DType::F32)),
                    Ty::Float(DType::F32),
                    dtype,
                )
            }
        })
    }

    /// An `inthreads` branch body: plain, or walking the tiles of a persistent grid.
    fn branch_body(&mut self, body: &[StmtId], line: Option<u32>) {
        if self.geo.persistent_tiles.is_some() {
            super::persistent::branch_body(self, body, line);
        } else {
            self.block(body);
            self.flush_sync_tma();
            self.flush_dma();
            super::tma_store::end_of_branch(self, line);
        }
    }

    /// Waits for the cooperative copies issued so far and makes them visible to every thread.
    pub fn flush_dma(&mut self) {
        if self.pending_dma {
            self.pending_dma = false;
            self.line("tsl_cp_async_wait_all();", None);
            self.line(
                "__syncthreads();  // the tiles are visible to every thread",
                None,
            );
        }
    }

    /// Waits for synchronous TMA loads issued so far (all threads).
    pub fn flush_sync_tma(&mut self) {
        if self.pending_sync_tma {
            self.pending_sync_tma = false;
            self.line("if (threadIdx.x == 0) tsl_mbar_arrive(&tsl_tma_bar);", None);
            self.line("tsl_mbar_wait_ring(&tsl_tma_bar, 0, tsl_tma_phase);  // all threads: the tiles have landed", None);
        }
    }

    /// Registers a kernel parameter tensor in the outermost scope.
    pub fn declare_param(&mut self, idx: usize, t: TensorLocal) {
        let name = t.name.clone();
        self.scopes.insert(
            &name,
            Local::Tensor(TensorLocal {
                param: Some(idx),
                ..t
            }),
        );
    }

    pub fn frag(&self, name: &str) -> Option<FragKind> {
        match self.scopes.get(name) {
            Some(Local::Frag(f)) => Some(f.clone()),
            _ => None,
        }
    }
}

pub fn scalar_type(d: DType) -> &'static str {
    match d {
        DType::F16 => "tsl_f16",
        DType::BF16 => "tsl_bf16",
        DType::F32 => "float",
        DType::I32 => "int",
        DType::F8E4M3 | DType::F8E5M2 => "unsigned char",
        // Not lowered yet (the checker's gate rejects them); their C++ spelling keeps this total.
        DType::S8 => "signed char",
        DType::U8 => "unsigned char",
        DType::S16 => "short",
        DType::U16 => "unsigned short",
        DType::U32 => "unsigned",
        DType::S64 => "long long",
        DType::U64 => "unsigned long long",
        DType::F64 => "double",
        DType::TF32 => "float",
        DType::Bool => "bool",
        DType::F6E2M3 | DType::F6E3M2 | DType::F4E2M1 => "unsigned char",
    }
}

/// Whether a size depends on a symbolic problem dim (so a loop over it is not unrolled).
fn mentions_dim(m: &Module, e: &Sym) -> bool {
    let mut names = Vec::new();
    e.names(&mut names);
    names
        .iter()
        .any(|n| m.tunable(n).is_none() && m.constant(n).is_none())
}
