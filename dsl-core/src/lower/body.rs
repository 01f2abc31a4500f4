//! Pass `body`: statements → lines of CUDA C++, each tagged with its DSL line. Control flow and
//! scalar statements are handled here; the Hopper-specific statements (events, TMA, WGMMA) in
//! `super::hopper`, the cooperative copies of the SIMT path in `super::simt`.

use super::cexpr::{Ty, convert, scalar_type};
use super::cxx::{CExpr, COp, CType};
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, KernelPath, Mark, Op};
use super::roles::Role;
use super::scope::{Local, TensorLocal};
use crate::check::Binding;
use crate::ir::{AssignOp, BinaryOp, DType, Expr, Level, MemSpace, Module, Stmt, StmtId};
use crate::sym::Sym;

impl Emitter<'_> {
    /// A block: its statements in a scope of their own.
    pub fn block(&mut self, b: &[StmtId]) {
        self.scopes.push();
        self.statements(b);
        self.scopes.pop();
    }

    /// Statements in the current scope; an error is recorded and the next statement lowered.
    fn statements(&mut self, b: &[StmtId]) {
        for &s in b {
            if let Err(e) = self.stmt(s) {
                self.errors.push(e);
            }
        }
    }

    /// The shape, fixed dimensions and array count the checker recorded for the parameter or
    /// declared tensor `b` (`KernelInfo::tensors`).
    pub(super) fn declared(
        &self,
        b: Binding,
        at: crate::span::Span,
    ) -> Result<Declared, LowerError> {
        let t =
            self.info.tensors.get(&b).ok_or_else(|| {
                LowerError::new(at, "internal: a tensor the checker did not record")
            })?;
        let arith = |e| {
            LowerError::new(
                self.m.expr_span(e),
                "expected integer arithmetic over tunables, constants and dims",
            )
        };
        Ok(Declared {
            shape: t.shape.clone().map_err(arith)?,
            fixed: t.fixed.clone(),
            count: t.count.clone().transpose().map_err(arith)?,
        })
    }

    /// The statements of one branch of an `if`, up to its close.
    fn branch(&mut self, body: &[StmtId]) {
        self.block(body);
        self.flush_sync_tma();
        self.flush_dma();
    }

    pub fn stmt(&mut self, s: StmtId) -> Result<(), LowerError> {
        let m = self.m;
        let line = self.dsl_line(s);
        if !matches!(
            m.stmts[s],
            Stmt::TmaCopy { event: None, .. }
                | Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                    tma: true,
                    is_async: false,
                    ..
                })
        ) {
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
                // Beside another `parallel`, its variables and declarations get a C++ block of
                // their own (the other may declare the same names).
                let own_block = !is_block && beside_a_parallel(m, s);
                if own_block {
                    self.open(Op::Scope, None, line);
                }
                if let (Some(tiles), true) = (&self.geo.persistent_tiles, is_block) {
                    self.emit(
                        const_int("tsl_tiles", CExpr::sym(tiles)),
                        Some("persistent: tiles of the block level, walked by gridDim.x blocks"),
                        line,
                    );
                    if let Some(pp) = super::persistent::pingpong(self) {
                        self.emit(
                            Op::Decl {
                                ty: "constexpr int".into(),
                                name: "tsl_consumers".into(),
                                init: Some(CExpr::sym(&pp.consumers)),
                            },
                            Some("pingpong: consumer warpgroups that take turns on whole tiles"),
                            line,
                        );
                    }
                } else if let (Some(group), true) = (
                    &self.geo.raster,
                    levels
                        .first()
                        .is_some_and(|l| l.level == crate::ir::Level::Block),
                ) {
                    let (bm, bn) = (&self.geo.block_vars[0], &self.geo.block_vars[1]);
                    let note = format!(
                        "grouped rasterization: {group} tiles of `{}` per group, then `{}`",
                        bm.name, bn.name
                    );
                    let names = vec![bm.name.clone(), bn.name.clone()];
                    let decl = Op::Decls {
                        ty: "int".into(),
                        names,
                    };
                    self.emit(decl, Some(&note), line);
                    super::persistent::emit_raster(self, CExpr::builtin("blockIdx", "x"), line);
                    for v in [bm, bn] {
                        self.scopes.declare(v.binding, Local::ParVar);
                    }
                }
                for (li, l) in levels.iter().enumerate() {
                    for (j, v) in l.vars.iter().enumerate() {
                        let b = Binding::ParallelVar {
                            stmt: s,
                            level: li,
                            index: j,
                        };
                        let Some(pv) = self.geo.var_of(b).cloned() else {
                            continue;
                        };
                        if pv.level == crate::ir::Level::Block
                            && (self.geo.raster.is_some() || self.geo.persistent_tiles.is_some())
                        {
                            continue;
                        }
                        self.scopes.declare(b, Local::ParVar);
                        let tid = CExpr::builtin("threadIdx", "x");
                        self.emit(
                            const_int(&v.name, super::emitter::par_index(&pv.index, tid)),
                            None,
                            line,
                        );
                    }
                }
                self.emit(Op::Mark(Mark::ParallelStart), None, line);
                if is_block {
                    super::simt::declare_swapped(self, line)?;
                    super::simt::fill_owned_outputs(self, line)?;
                }
                // Inner levels of a warp (warpgroup) level that hold fewer threads than it: its
                // first threads run them, the rest stay idle (the checker's gate keeps only
                // work a thread does alone under the guard).
                let idle = CExpr::join(
                    COp::And,
                    self.geo.idle_lanes.iter().filter(|x| x.stmt == s).map(|x| {
                        CExpr::builtin("threadIdx", "x")
                            .rem(CExpr::sym_operand(&x.unit))
                            .lt(CExpr::sym_operand(&x.size))
                    }),
                );
                if let Some(cond) = &idle {
                    self.open(
                        Op::If {
                            cond: cond.clone(),
                            constexpr: false,
                        },
                        Some("the threads of the inner levels; the warp's other lanes are idle"),
                        line,
                    );
                }
                self.block(body);
                if idle.is_some() {
                    self.close(line);
                }
                self.flush_sync_tma();
                self.flush_dma();
                self.emit(Op::Mark(Mark::ParallelEnd), None, line);
                if is_block && self.cluster.is_some() {
                    self.call(
                        Call::new("tsl_cluster_sync"),
                        Some("no block exits while its peers may still arrive on its barriers or multicast into it"),
                        line,
                    );
                }
                if own_block {
                    self.close(line);
                }
                self.scopes.pop();
            }
            // `apply {i, j} in acc.span { … }` over an accumulator's elements.
            Stmt::Foreach { body, .. } if super::frag_elem::walked(self, s).is_some() => {
                super::frag_elem::open_apply(self, s, line)?;
                self.block(body);
                super::frag_elem::close_apply(self, s, line)?;
            }
            // A K-tile loop of warp `mma`s whose fragments load one step ahead.
            Stmt::Foreach { .. } if super::warp_pipe::marked(self, s) => {
                super::warp_pipe::lower(self, s, line)?
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
                // (Warp-level `mma.sync` on the Hopper path needs neither fence nor commit.)
                let wgmma = self.path == KernelPath::Hopper && !super::warp::hopper_warp(self);
                if has_mma && wgmma {
                    super::hopper::wgmma_fence(self, line);
                }
                let implicit_commit = wgmma
                    && super::walk::contains(m, body, &|s| matches!(s, Stmt::Mma { .. }))
                    && super::walk::contains(m, body, &|s| {
                        matches!(
                            s,
                            Stmt::TmaCopy { .. }
                                | Stmt::DmaCopy { .. }
                                | Stmt::Ext(crate::ir::ExtStmt::DmaFuture { .. })
                        )
                    })
                    && !super::walk::contains(m, body, &|s| matches!(s, Stmt::MmaCommit));
                let deferred = if self.path == KernelPath::Hopper && exts.len() == 1 {
                    super::pipeline::match_loop(m, self.info, vars, &exts[0], body)
                        .map(|d| super::streamk::segment_deferred(self, s, d))
                } else {
                    None
                };
                let outer_deferred = std::mem::replace(&mut self.deferred, deferred.clone());
                let hoisted = match self.path {
                    KernelPath::Simt => super::simt::hoist_entries(self, body),
                    KernelPath::Hopper => Vec::new(),
                };
                for (entry, name, ty, tensor) in &hoisted {
                    self.emit(
                        Op::Decl {
                            ty: CType::Named(ty).ptr(" const"),
                            name: name.clone(),
                            init: Some(entry.clone()),
                        },
                        Some(&format!("this loop's entry of `{tensor}`")),
                        line,
                    );
                }
                self.scopes.push();
                for (entry, name, ..) in &hoisted {
                    self.scopes.hoist(entry, name);
                }
                let static_trip = exts.iter().all(|e| crate::check::compile_time(m, e));
                // `: unroll(N)` unrolls the innermost variable's loop by N; `: unroll` and a
                // static trip count unroll every loop of the nest whole.
                let factor = match m.unroll_factor(s) {
                    Some(f) => Some(CExpr::sym(&self.cx().sym(f)?)),
                    None => None,
                };
                for (i, (v, e)) in vars.iter().zip(&exts).enumerate() {
                    match &factor {
                        Some(f) if i + 1 == vars.len() => {
                            self.emit(Op::Unroll(Some(f.clone())), None, None)
                        }
                        Some(_) if static_trip => self.emit(Op::Unroll(None), None, None),
                        None if *unroll || static_trip => self.emit(Op::Unroll(None), None, None),
                        _ => {}
                    }
                    // `foreach k(lo:hi)`: the loop runs over part of `k`'s bound.
                    let (init, bound) = match m.loop_range(s, i) {
                        _ if self.sk_loop == Some(s) => super::streamk::segment_range(),
                        Some(r) => (
                            CExpr::sym(&self.cx().sym(r.start)?),
                            CExpr::sym(&self.cx().sym(r.end)?),
                        ),
                        None => (CExpr::int(0), CExpr::sym(e)),
                    };
                    self.open(
                        Op::For {
                            var: v.name.clone(),
                            init,
                            bound,
                            step: None,
                        },
                        None,
                        line,
                    );
                    let b = Binding::LoopVar { stmt: s, index: i };
                    self.scopes.declare(b, Local::LoopVar);
                }
                self.block(body);
                self.flush_sync_tma();
                self.flush_dma();
                // Nothing to wait for when the body's WGMMAs were already committed and waited
                // (an inner loop's tail, an `mma.store`): an empty group after ordinary register
                // reads would make ptxas inject its own warpgroup.arrive (C7519).
                if implicit_commit && self.wgmma_uncommitted {
                    super::wgmma_issue::wgmma_commit_wait(
                        self,
                        line,
                        "the next iteration overwrites the operands",
                    );
                } else if implicit_commit && self.wgmma_pending {
                    super::hopper::wgmma_wait_all(
                        self,
                        line,
                        "the `.async` WGMMAs are done before the next iteration overwrites their operands",
                    );
                }
                for _ in vars {
                    self.close(None);
                }
                self.scopes.pop();
                if let Some(d) = &deferred {
                    super::hopper::emit_tail(self, d, line);
                }
                self.deferred = outer_deferred;
            }
            // `frag` tiles in the accumulator layout (`lower/frag_elem.rs`).
            Stmt::TensorDecl { .. } if super::frag_elem::is_tile_decl(self, s) => {
                super::frag_elem::declare(self, s, line)?
            }
            Stmt::TensorDecl {
                space,
                dtype,
                names,
                ..
            } => {
                for (di, d) in names.iter().enumerate() {
                    // The checker's shape of the declarator.
                    let fact = self.declared(Binding::Tensor(s, di), d.name.span)?;
                    let (shape, dims) = (fact.shape, fact.fixed);
                    // A `frag` read whole as a register-A WGMMA operand (`lower/hopper.rs`).
                    if *space == MemSpace::Local
                        && d.count.is_none()
                        && super::hopper::is_register_a_frag(self, s, di)
                    {
                        super::hopper::afrag_decl(
                            self,
                            s,
                            di,
                            (&d.name.name, *dtype, &shape),
                            line,
                        )?;
                        // Its K/4 f16x2 words are also the f16 [64, K] tile in the accumulator
                        // layout (word 2j + h: row lane/4 + 8h, columns 8j + 2(lane%4) + 0, 1,
                        // the A fragment of K-step j/2), so element-wise work (`apply`, `p.at(i,
                        // j) = …`) addresses it as `lower/frag_elem.rs` addresses a tile.
                        if let (DType::F16, [Some(64), Some(k)]) = (*dtype, dims.as_slice()) {
                            let tile = super::warp_frags::TileFrag {
                                dtype: DType::F16,
                                m: 64,
                                n: Some(*k),
                            };
                            self.warp
                                .tiles
                                .insert(Binding::Tensor(s, di), (d.name.name.clone(), tile));
                        }
                        continue;
                    }
                    let count = fact.count;
                    let t = TensorLocal {
                        name: d.name.name.clone(),
                        space: *space,
                        dtype: *dtype,
                        shape: shape.clone(),
                        count: count.clone(),
                        param: None,
                        squeezed: None,
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
                            self.emit(
                                Op::SharedPtr {
                                    ty: ty.into(),
                                    name: d.name.name.clone(),
                                    offset: CExpr::var(&slot.offset_name),
                                },
                                None,
                                line,
                            );
                        }
                        MemSpace::Local => {
                            let n = Sym::mul(count.clone().unwrap_or(Sym::Int(1)), t.elems());
                            let arr = Op::Array {
                                ty: ty.into(),
                                name: d.name.name.clone(),
                                len: CExpr::sym(&n),
                            };
                            self.emit(arr, None, line);
                        }
                        MemSpace::Global => {
                            return Err(LowerError::new(
                                d.name.span,
                                "global tensors are kernel parameters; declare them in the signature",
                            ));
                        }
                    }
                    if let Some(v) = m.decl_init(s) {
                        super::simt::fill_decl(self, &t, v, line)?;
                    }
                    self.scopes
                        .declare(Binding::Tensor(s, di), Local::Tensor(t));
                }
            }
            Stmt::ScalarDecl {
                dtype, name, init, ..
            } => {
                let init = match init {
                    Some(e) => {
                        // `int old = __atomic_add(…);` keeps the atomic's old value.
                        let (v, t) = match super::atomic::old_value(self, s)? {
                            Some(old) => old,
                            None => self.cx().value(*e)?,
                        };
                        Some(convert(v, t, *dtype))
                    }
                    None => None,
                };
                let decl = Op::Decl {
                    ty: scalar_type(*dtype).into(),
                    name: name.name.clone(),
                    init,
                };
                self.emit(decl, None, line);
                self.scopes
                    .declare(Binding::Scalar(s), Local::Scalar(*dtype));
            }
            // `v = t.subspan(…)…;`: the parser wrote the view in place of each use of `v`.
            Stmt::Let { name, value } if crate::check::is_view_let(m, *value) => self.emit(
                Op::Comment(format!(
                    "`{}` names the view `{}`; each use reads it",
                    name.name,
                    m.expr_to_string(*value)
                )),
                None,
                line,
            ),
            Stmt::Let { name, value } => {
                let (v, t) = self.cx().value(*value)?;
                match t {
                    // `b = bs.at(k, j);`: a named element value, typed like the element.
                    Ty::Float(d) => {
                        let decl = Op::Decl {
                            ty: CType::Named(scalar_type(d)).konst(),
                            name: name.name.clone(),
                            init: Some(v),
                        };
                        self.emit(decl, None, line);
                        self.scopes.declare(Binding::Let(s), Local::Scalar(d));
                    }
                    _ => {
                        self.emit(const_int(&name.name, v), None, line);
                        self.scopes.declare(Binding::Let(s), Local::Let);
                    }
                }
            }
            // `mc op= value;`: every element of an accumulator.
            Stmt::Assign { target, op, value } if super::frag_elem::is_whole(self, *target) => {
                super::frag_elem::whole(self, s, *target, *op, *value, line)?
            }
            // `old = __atomic_add(…);` keeps the atomic's old value.
            Stmt::Assign { target, .. } if crate::check::captured_atomic(m, s).is_some() => {
                let (v, t) = super::atomic::old_value(self, s)?
                    .ok_or_else(|| LowerError::new(m.stmt_span(s), "not an atomic's old value"))?;
                let dtype = match self.cx().local(*target) {
                    Some(Local::Scalar(d)) => *d,
                    _ => {
                        return Err(LowerError::new(
                            m.expr_span(*target),
                            "an atomic's old value is kept in a mutable scalar",
                        ));
                    }
                };
                let place = CExpr::var(&m.expr_to_string(*target));
                let value = convert(v, t, dtype);
                self.emit(Op::Assign { place, value }, None, line);
            }
            Stmt::Assign { target, op, value } => self.assign(*target, *op, *value, line)?,
            Stmt::If {
                cond,
                then_body,
                else_body,
            } => {
                let (c, _) = self.cx().value(*cond)?;
                self.open(
                    Op::If {
                        cond: c,
                        constexpr: false,
                    },
                    None,
                    line,
                );
                self.branch(then_body);
                if let Some(e) = else_body {
                    self.otherwise(None, None);
                    self.branch(e);
                }
                self.close(None);
            }
            Stmt::InThreads { cond, body, .. } => {
                let (c, _) = self.cx().value(*cond)?;
                self.thread_conds.push(c.clone());
                match self.roles.get(&s).cloned() {
                    Some((role, wg_pred)) => {
                        let (what, call) = match role {
                            Role::Producer => (
                                "producer warpgroup: hands registers back",
                                Call::new("tsl_setmaxnreg_dec")
                                    .targs([CExpr::var("tsl_regs_producer")]),
                            ),
                            Role::Consumer => (
                                "consumer warpgroups: take the producer's registers",
                                Call::new("tsl_setmaxnreg_inc")
                                    .targs([CExpr::var("tsl_regs_consumer")]),
                            ),
                        };
                        let same = wg_pred == c;
                        self.open(
                            Op::If {
                                cond: wg_pred,
                                constexpr: false,
                            },
                            Some(what),
                            line,
                        );
                        self.call(call, None, line);
                        if same {
                            self.branch_body(s, body, line);
                        } else {
                            self.open(
                                Op::If {
                                    cond: c.clone(),
                                    constexpr: false,
                                },
                                None,
                                line,
                            );
                            self.branch_body(s, body, line);
                            self.close(None);
                        }
                        self.close(None);
                    }
                    None => {
                        self.open(
                            Op::If {
                                cond: c.clone(),
                                constexpr: false,
                            },
                            None,
                            line,
                        );
                        self.branch_body(s, body, line);
                        self.close(None);
                    }
                }
                self.thread_conds.pop();
            }
            // `sync.barrier [: block]` is `sync.shared`; a warp's barrier is `__syncwarp()`
            // (`check::barrier_scope`; `check/support.rs` gates a warpgroup's).
            Stmt::SyncShared => self.barrier(None, line),
            st if crate::check::barrier_scope(st) == Some(Level::Block) => self.barrier(None, line),
            st if crate::check::barrier_scope(st) == Some(Level::Group) => {
                self.call(Call::new("__syncwarp"), None, line)
            }
            // A fence for the threads of the block (`: thread`, `: group`, `: group-4`), else for
            // every thread of the device.
            Stmt::Ext(crate::ir::ExtStmt::Sync {
                kind: crate::ir::SyncKind::Fence,
                level,
            }) => {
                let fence = match level {
                    Some(Level::Thread | Level::Group | Level::Group4) => "__threadfence_block",
                    Some(Level::Block) | None => "__threadfence",
                };
                self.call(Call::new(fence), None, line)
            }
            Stmt::DmaCopy {
                is_async, src, dst, ..
            } => super::simt::dma_copy(self, s, *is_async, *src, dst, line)?,
            Stmt::DmaWait { pending } => super::simt::dma_wait(self, *pending, line)?,
            Stmt::Reduce {
                op, target, level, ..
            } => super::simt::reduce(self, *op, target, *level, line)?,
            Stmt::Wait { event } if super::hopper::mma_future(m, *event).is_some() => {
                super::hopper::wait_mma(self, s, *event, line)?
            }
            Stmt::Wait { event } if self.waits_a_copy_future(*event) => {
                super::simt::wait_futures(self, s, line)
            }
            Stmt::EventDecl { .. }
            | Stmt::Wait { .. }
            | Stmt::Trigger { .. }
            | Stmt::TmaCopy { .. }
            | Stmt::Ext(crate::ir::ExtStmt::TriggerAfter { .. }) => {
                super::hopper::sync_stmt(self, s, line)?
            }
            // `[f =] dma.transp<…> / dma.pad<…> src => dst;` (`lower/dma_transform.rs`).
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                tma: false,
                bind,
                src,
                dst,
                modifiers,
                ..
            }) if crate::check::Transform::named(modifiers) => {
                super::dma_transform::lower(self, s, bind.as_ref(), modifiers, *src, dst, line)?
            }
            // `f = dma.copy.swiz<N> src => shared;` feeding WGMMAs (`lower/dma_swiz.rs`).
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                tma: false,
                is_async: false,
                bind: Some(f),
                src,
                modifiers,
                ..
            }) if self.path == KernelPath::Hopper
                && (!modifiers.is_empty() || self.info.swizzle_implicit.contains_key(&s)) =>
            {
                super::dma_swiz::future_copy(self, s, f, *src, line)?
            }
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                tma: false,
                is_async,
                bind: Some(f),
                src,
                dst,
                ..
            }) => super::simt::future_copy(self, s, f, *is_async, *src, dst, line)?,
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                tma: true,
                is_async: false,
                bind: Some(f),
                src,
                dst,
                ..
            }) => super::hopper::future_load(self, s, f, *src, dst, line)?,
            // `break`, `continue`, `yield` (`check/jumps.rs` gates where a thread that jumps
            // would skip work its block does together).
            Stmt::Ext(crate::ir::ExtStmt::Jump { kind }) => {
                let op = match *kind {
                    "break" => Op::Break,
                    "continue" => Op::Continue,
                    _ => Op::Return,
                };
                self.emit(op, None, line)
            }
            // A `while` loop of per-thread work (`check/support.rs` gates the rest).
            Stmt::Ext(crate::ir::ExtStmt::While { cond, body }) => {
                let (c, _) = self.cx().value(*cond)?;
                self.open(Op::While { cond: c }, None, line);
                self.scopes.push();
                self.block(body);
                self.scopes.pop();
                self.close(None);
            }
            Stmt::Ext(crate::ir::ExtStmt::Call { func, args, .. })
                if super::atomic::is_atomic(func) =>
            {
                super::atomic::lower(self, func, args, line)?
            }
            // `__bar_sync(id, n)`, `__bar_arrive(id, n)`: PTX `bar.sync` / `bar.arrive`.
            Stmt::Ext(crate::ir::ExtStmt::Call { func, args, .. })
                if crate::check::named_barrier(&func.name) =>
            {
                let mut ops = Vec::new();
                for &a in args {
                    ops.push(self.cx().value(a)?.0);
                }
                let (name, note) = if func.name == "__bar_sync" {
                    (super::lowered::BAR_SYNC, "waits for the barrier's threads")
                } else {
                    (super::lowered::BAR_ARRIVE, "arrives without waiting")
                };
                self.call(Call::new(name).args(ops), Some(note), line);
            }
            // `call f(…)` of a `__device__` function of the source.
            Stmt::Ext(crate::ir::ExtStmt::Call { func, args, .. }) => {
                super::device_call::lower(self, func, args, line)?
            }
            Stmt::Ext(crate::ir::ExtStmt::MmaRefill { .. }) if self.path == KernelPath::Simt => {
                super::warp::mma_stmt(self, s, line)?
            }
            Stmt::MmaFill { .. }
            | Stmt::MmaLoad { .. }
            | Stmt::Mma { .. }
            | Stmt::MmaStore { .. }
            | Stmt::MmaCommit => match self.path {
                KernelPath::Simt => super::warp::mma_stmt(self, s, line)?,
                KernelPath::Hopper if super::warp::hopper_warp(self) => {
                    super::warp::mma_stmt(self, s, line)?
                }
                KernelPath::Hopper => super::hopper::mma_stmt(self, s, line)?,
            },
            Stmt::Ext(crate::ir::ExtStmt::MmaRefill { acc, value })
                if self.path == KernelPath::Hopper =>
            {
                super::hopper::refill(self, s, acc, *value, line)?
            }
            Stmt::Ext(crate::ir::ExtStmt::MmaScaleAcc { acc, .. })
                if self.path == KernelPath::Hopper =>
            {
                super::hopper::scale_acc(self, s, acc, line)?
            }
            Stmt::Ext(crate::ir::ExtStmt::AnyFuture { tma: false, bind }) => {
                super::simt::any_future(self, bind, line)?
            }
            // Decided by the checker or checked at launch (`check/asserts.rs`).
            Stmt::Ext(crate::ir::ExtStmt::Assert { .. }) => {}
            Stmt::Ext(crate::ir::ExtStmt::Asm { .. }) => super::asm::asm(self, s, line)?,
            Stmt::Ext(crate::ir::ExtStmt::Println { args, newline }) => {
                super::simt::println(self, args, *newline, line)?
            }
            Stmt::Ext(crate::ir::ExtStmt::Swap { a, b }) => {
                super::simt::swap_futures(self, a, b, line)?
            }
            Stmt::Ext(crate::ir::ExtStmt::FragOp { .. }) => {
                super::frag_elem::frag_op(self, s, line)?
            }
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
        // An accumulator's element inside its element loop (`lower/frag_elem.rs`).
        if let Some((place, dtype)) = super::frag_elem::elem_target(self, target) {
            return super::frag_elem::assign_elem(self, &place, dtype, op, value, line);
        }
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
                self.emit(Op::Assign { place, value: rhs }, None, line);
                return Ok(());
            }
            let (val, ty) = self.cx().value(value)?;
            let val = convert(val, ty, v.tensor.dtype);
            if v.tensor.space == MemSpace::Global {
                let p = v.tensor.param.unwrap_or(0);
                self.written_params.insert(p);
                self.pointer_params.insert(p);
                let (r, c, rows, cols) = v.global_rc();
                let store =
                    Call::new("tsl_st_guarded").args([v.tensor.ptr(), r, c, rows, cols, val]);
                self.call(store, None, line);
            } else {
                let place = self.cx().element_access(&v);
                self.emit(Op::Assign { place, value: val }, None, line);
            }
            return Ok(());
        }
        let Expr::Name(n) = &m.exprs[target] else {
            return Err(LowerError::new(
                m.expr_span(target),
                "cannot assign to this expression",
            ));
        };
        let dtype = match self.cx().local(target) {
            Some(Local::Scalar(d)) => *d,
            _ => {
                return Err(LowerError::new(
                    m.expr_span(target),
                    format!("`{n}` is not a mutable scalar"),
                ));
            }
        };
        let place = CExpr::var(n);
        let rhs = self.update(&place, dtype, op, value)?;
        self.emit(Op::Assign { place, value: rhs }, None, line);
        Ok(())
    }

    /// The new value of `place` (of `dtype`) after `place op= value`: `acc += a * b` is one
    /// fused multiply-add (FFMA / HFMA2).
    fn update(
        &self,
        place: &CExpr,
        dtype: DType,
        op: AssignOp,
        value: crate::ir::ExprId,
    ) -> Result<CExpr, LowerError> {
        let m = self.m;
        // (Other types' `+= a * b`, an integer's, stays the plain arithmetic below.)
        if op == AssignOp::Add
            && matches!(dtype, DType::F32 | DType::F16 | DType::BF16)
            && let Expr::Binary {
                op: BinaryOp::Mul,
                lhs,
                rhs,
            } = &m.exprs[value]
        {
            let (a, ta) = self.cx().value(*lhs)?;
            let (b, tb) = self.cx().value(*rhs)?;
            let (a, b) = (convert(a, ta, dtype), convert(b, tb, dtype));
            let f = match dtype {
                DType::F32 => "fmaf",
                _ => "tsl_fma",
            };
            return Ok(CExpr::call(f, vec![a, b, place.clone()]));
        }
        let (v, t) = self.cx().value(value)?;
        Ok(match crate::lower::cxx::COp::of_assign(op) {
            None => convert(v, t, dtype),
            // An integer updated by an integer: integer arithmetic (through f32 it would be
            // exact only up to 2^24).
            Some(op) if !dtype.is_float() && matches!(t, Ty::Int) => place.clone().bin(op, v),
            Some(op) => {
                let cur = convert(place.clone(), Ty::Float(dtype), DType::F32);
                let new = cur.bin(op, convert(v, t, DType::F32));
                convert(new, Ty::Float(DType::F32), dtype)
            }
        })
    }

    /// Whether `wait e` waits for a `dma.copy` future: in scope, a future names the tensor it
    /// copied into (an event is an event).
    fn waits_a_copy_future(&self, e: crate::ir::ExprId) -> bool {
        match &self.m.exprs[e] {
            Expr::Name(_) => matches!(self.cx().local(e), Some(Local::Tensor(_))),
            _ => false,
        }
    }

    /// An `inthreads` branch body: plain, or walking the tiles of a persistent grid.
    fn branch_body(&mut self, s: StmtId, body: &[StmtId], line: Option<u32>) {
        let pingpong = super::persistent::pingpong(self).filter(|p| p.branch == s);
        if let (Some(pp), Some(_)) = (pingpong, &self.geo.persistent_tiles) {
            super::persistent::pingpong_body(self, body, &pp, line);
        } else if self.geo.persistent_tiles.is_some() && self.m.streamk.is_some() {
            super::streamk::branch_body(self, body, line);
        } else if self.geo.persistent_tiles.is_some() {
            let split = super::persistent::once_prefix(self, body);
            self.scopes.push();
            self.statements(&body[..split]);
            if split < body.len() {
                super::persistent::open_tile_loop(self, line);
                self.statements(&body[split..]);
                super::persistent::close_tile_loop(self, line);
            }
            self.scopes.pop();
        } else {
            self.block(body);
            self.flush_sync_tma();
            self.flush_dma();
            super::tma_store::end_of_branch(self, line);
        }
    }
}

/// `const int name = value;`
/// A declared tensor's layout, as the checker recorded it.
pub(super) struct Declared {
    pub shape: Vec<Sym>,
    /// Each dimension's value where no tunable changes it.
    pub fixed: Vec<Option<i64>>,
    pub count: Option<Sym>,
}

fn const_int(name: &str, value: CExpr) -> Op {
    Op::Decl {
        ty: "const int".into(),
        name: name.to_string(),
        init: Some(value),
    }
}

/// Whether a size depends on a symbolic problem dim (so a loop over it is not unrolled).

/// Whether statement `s` shares its statement list with another `parallel`.
fn beside_a_parallel(m: &Module, s: StmtId) -> bool {
    fn list<'m>(m: &'m Module, b: &'m [StmtId], s: StmtId) -> Option<&'m [StmtId]> {
        if b.contains(&s) {
            return Some(b);
        }
        b.iter().find_map(|&x| {
            crate::check::stmt_blocks(&m.stmts[x])
                .into_iter()
                .find_map(|inner| list(m, inner, s))
        })
    }
    list(m, &m.kernel.body, s).is_some_and(|b| {
        b.iter()
            .filter(|&&x| matches!(m.stmts[x], Stmt::Parallel { .. }))
            .count()
            > 1
    })
}
