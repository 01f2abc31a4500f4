//! The lowering's state while it walks the statements ([`Emitter`]), and the primitives that
//! append body nodes. The statements themselves are lowered in `super::body` and the
//! per-path modules (`simt`, `regtile`, `hopper`, `tma_store`, `persistent`), which all build
//! on these primitives and never call back into `body`.

use super::cexpr::{ExprCx, View};
use super::cluster::Cluster;
use super::cxx::CExpr;
use super::error::LowerError;
use super::kernel::{Call, KernelPath, Line, Op};
use super::lowered::Stage;
use super::memory::Memory;
use super::pipeline::Deferred;
use super::roles::Role;
use super::scope::{FragKind, Local, Scopes};
use crate::check::Geometry;
use crate::check::{IdentRole, KernelInfo};
use crate::ir::{Module, StmtId};
use crate::sym::Sym;
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

pub struct Emitter<'a> {
    pub m: &'a Module,
    /// The checker's facts about the module.
    pub info: &'a KernelInfo,
    pub geo: &'a Geometry,
    pub mem: &'a Memory,
    pub path: KernelPath,
    /// The swizzle (bytes, as a C++/host expression) of every `tma.copy` and `mma.load`.
    pub swizzle: HashMap<StmtId, Sym>,
    pub roles: HashMap<StmtId, (Role, CExpr)>,
    /// First trigger site of each event: the C++ predicate of the threads that reach it.
    pub arrivals: HashMap<crate::check::Binding, super::roles::Arrival>,
    /// TMA loads that complete on the event of the `trigger … after` naming their future
    /// (`KernelInfo::bound_copies`): copy → event expression.
    pub bound_copies: &'a HashMap<StmtId, crate::ir::ExprId>,
    pub scopes: Scopes,
    pub lines: Vec<Line>,
    pub indent: usize,
    pub tma_maps: Vec<TmaMap>,
    pub pointer_params: BTreeSet<usize>,
    pub written_params: BTreeSet<usize>,
    pub wgmma_types: Vec<(String, String)>,
    pub wgmma_ns: Vec<Sym>,
    /// Enclosing `inthreads` predicates, innermost last.
    pub thread_conds: Vec<CExpr>,
    /// Synchronous TMA loads issued but not yet waited on.
    pub pending_sync_tma: bool,
    /// Synchronous `dma.copy`s into shared memory issued but not yet made visible to the block.
    pub pending_dma: bool,
    /// Some of them are `cp.async` copies (the cooperative ones), which the flush waits for;
    /// the others (per-thread copies) are plain stores that need the barrier only.
    pub pending_cp_async: bool,
    pub uses_sync_tma: bool,
    /// WGMMAs issued and not yet committed.
    pub wgmma_uncommitted: bool,
    /// WGMMA groups committed (`mma….async`) that no wait has covered yet.
    pub wgmma_pending: bool,
    /// The pipelined loop tail being lowered, if any.
    pub deferred: Option<Deferred>,
    /// Calls to make when a pipelined k-loop lowered at this indent closes, before its tail
    /// waits for the last WGMMAs (the ping-pong turn, handed on while they finish).
    pub before_tail: Option<(usize, Vec<(Call, Option<&'static str>)>)>,
    /// `streamk;`: the main k-loop being lowered runs over this segment's `[tsl_kb, tsl_ke)`.
    pub sk_loop: Option<StmtId>,
    /// Shared tiles whose TMA stores wait for their read lazily (see `tma_store`).
    pub lazy_store_tiles: BTreeSet<String>,
    /// Shared tiles that `mma.store` may write again after a TMA store read them.
    pub rewritten_store_tiles: BTreeSet<String>,
    /// A lazy TMA store was issued in the current branch and not yet waited for.
    pub pending_store_read: bool,
    /// `cluster C;`: the multicast loads and cluster-scope events.
    pub cluster: Option<Cluster>,
    /// Async tile copies that may take their branch-free form in a versioned loop: the emitted
    /// line and the C++ conditions under which the tile grid divides the tensor (`super::even`).
    pub even_copies: Vec<(Call, Vec<CExpr>)>,
    /// The register stages of the async transposed copies, in the order of their first issue.
    pub stages: Vec<Stage>,
    /// The async copies of tiles sized at launch ([`super::lowered::G2S_N`], which the
    /// synchronous ones call too).
    pub async_launch_sized: Vec<Call>,
    pub errors: Vec<LowerError>,
    /// The warp-level `mma` fragments (`super::warp`).
    pub warp: super::warp_frags::WarpState,
}

impl<'a> Emitter<'a> {
    pub fn cx(&self) -> ExprCx<'_> {
        ExprCx {
            m: self.m,
            info: self.info,
            scopes: &self.scopes,
        }
    }

    /// Appends a node.
    pub fn emit(&mut self, op: Op, note: Option<&str>, dsl_line: Option<u32>) {
        self.lines.push(Line {
            indent: self.indent,
            op,
            dsl_line,
            note: note.map(str::to_string),
        });
    }

    /// Helper calls that only the threads for which `cond` holds make (one line).
    pub fn guarded(
        &mut self,
        cond: CExpr,
        calls: Vec<Call>,
        note: Option<&str>,
        dsl_line: Option<u32>,
    ) {
        self.emit(Op::Guarded { cond, calls }, note, dsl_line);
    }

    /// Appends a node that opens a block (`for`, `if`) and enters it.
    pub fn open(&mut self, op: Op, note: Option<&str>, dsl_line: Option<u32>) {
        debug_assert!(op.opens());
        self.emit(op, note, dsl_line);
        self.indent += 1;
    }

    /// Leaves the innermost block (`} else {`) for its second branch.
    pub fn otherwise(&mut self, note: Option<&str>, dsl_line: Option<u32>) {
        self.indent -= 1;
        self.emit(Op::Else, note, dsl_line);
        self.indent += 1;
    }

    /// Closes the innermost block.
    pub fn close(&mut self, dsl_line: Option<u32>) {
        self.indent -= 1;
        self.emit(Op::End, None, dsl_line);
    }

    /// `__syncthreads();`
    pub fn barrier(&mut self, note: Option<&str>, dsl_line: Option<u32>) {
        self.emit(Op::Barrier, note, dsl_line);
    }

    /// A barrier, unless the node just emitted is one (which already orders the block).
    pub fn barrier_unless_last(&mut self, note: Option<&str>, dsl_line: Option<u32>) {
        if !self
            .lines
            .last()
            .is_some_and(|l| matches!(l.op, Op::Barrier))
        {
            self.barrier(note, dsl_line);
        }
    }

    /// The barrier before threads write a shared tile (`note`: why), unless no thread can have
    /// read shared memory yet: every node emitted so far is a shared tensor's pointer or names
    /// none of them (nor `tsl_smem`), and none is a loop (whose next iteration comes back here).
    pub fn barrier_before_shared_writes(&mut self, note: Option<&str>, dsl_line: Option<u32>) {
        let mut shared: BTreeSet<String> = BTreeSet::from(["tsl_smem".to_string()]);
        let untouched = self.lines.iter().all(|l| match &l.op {
            Op::SharedPtr { name, .. } => {
                shared.insert(name.clone());
                true
            }
            Op::For { .. } | Op::While { .. } | Op::ForCall { .. } => false,
            op => {
                let mut names = BTreeSet::new();
                op.names(&mut names);
                names.is_disjoint(&shared)
            }
        });
        if !untouched {
            self.barrier(note, dsl_line);
        }
    }

    /// A helper call.
    pub fn call(&mut self, c: Call, note: Option<&str>, dsl_line: Option<u32>) {
        self.emit(Op::Call(c), note, dsl_line);
    }

    pub fn dsl_line(&self, s: StmtId) -> Option<u32> {
        let l = self.m.stmt_span(s).start.line;
        (l > 0).then_some(l)
    }

    /// Waits for the cooperative copies issued so far and makes them visible to every thread.
    pub fn flush_dma(&mut self) {
        if self.pending_dma {
            self.pending_dma = false;
            if std::mem::take(&mut self.pending_cp_async) {
                self.call(Call::new("tsl_cp_async_wait_all"), None, None);
            }
            self.barrier(Some("the tiles are visible to every thread"), None);
        }
    }

    /// Waits for synchronous TMA loads issued so far (all threads).
    pub fn flush_sync_tma(&mut self) {
        if self.pending_sync_tma {
            self.pending_sync_tma = false;
            let bar = || CExpr::var("tsl_tma_bar").addr();
            let arrive = Call::new("tsl_mbar_arrive").args([bar()]);
            let first = CExpr::builtin("threadIdx", "x").eq(CExpr::int(0));
            self.guarded(first, vec![arrive], None, None);
            self.call(
                Call::new("tsl_mbar_wait_ring").args([
                    bar(),
                    CExpr::int(0),
                    CExpr::var("tsl_tma_phase"),
                ]),
                Some("all threads: the tiles have landed"),
                None,
            );
        }
    }

    /// The fragment the identifier `role` of statement `s` names (an `mma`'s operand).
    pub fn frag(&self, s: StmtId, role: IdentRole) -> Option<FragKind> {
        let b = self.info.idents.get(&(s, role))?;
        match self.scopes.decl(b) {
            Some(Local::Frag(f)) => Some(f.clone()),
            _ => None,
        }
    }

    /// The tensor map (a kernel parameter) for TMA copies of `v`'s tiles with `swizzle`: one per
    /// distinct box over a parameter.
    pub fn tma_map(&mut self, v: &View, swizzle: Sym) -> Result<String, LowerError> {
        let e = self;
        let p = v.tensor.param.unwrap_or(0);
        let (r, c) = (v.tile[0].clone(), v.tile[1].clone());
        if let Some(t) = e
            .tma_maps
            .iter()
            .find(|t| t.param == p && t.box_rows == r && t.box_cols == c && t.swizzle == swizzle)
        {
            return Ok(t.cpp_name.clone());
        }
        let k = e.tma_maps.iter().filter(|t| t.param == p).count();
        let cpp_name = if k == 0 {
            format!("tsl_tm_{}", v.tensor.name)
        } else {
            format!("tsl_tm_{}_{k}", v.tensor.name)
        };
        e.tma_maps.push(TmaMap {
            cpp_name: cpp_name.clone(),
            param: p,
            box_rows: r,
            box_cols: c,
            swizzle,
        });
        Ok(cpp_name)
    }
}

/// A parallel variable's value: its block index, or its place in the thread index `tid`.
pub fn par_index(index: &crate::check::Index, tid: CExpr) -> CExpr {
    use crate::check::Index;
    // A term of one token prints bare, any other in parentheses.
    let paren = |s: &Sym| match s {
        Sym::Int(_) | Sym::Name(_) => CExpr::sym(s),
        _ => CExpr::sym(s).paren(),
    };
    let (inner, level, stride, extent) = match index {
        Index::Block(axis) => return CExpr::builtin("blockIdx", axis),
        Index::Thread {
            inner,
            level,
            stride,
            extent,
        } => (inner, level, stride, extent),
    };
    let one = Sym::Int(1);
    let mut linear = if *inner == one {
        tid.clone()
    } else {
        tid.clone().div(paren(inner))
    };
    if let Some(total) = level {
        linear = linear.rem(paren(total));
    }
    let mut f = if *stride == one {
        linear
    } else if *inner == one && level.is_none() {
        tid.div(paren(stride))
    } else {
        linear.paren().div(paren(stride))
    };
    if let Some(e) = extent {
        f = f.rem(paren(e));
    }
    f
}
