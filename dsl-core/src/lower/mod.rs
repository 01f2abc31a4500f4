//! Lowering: checked IR → a [`CudaKernel`] that `codegen-cuda` renders as CUDA C++.
//!
//! The stages run in the order of [`STAGES`] (the passes over the body nodes:
//! [`passes::PASSES`]); set `TESSEL_DUMP_PASSES=1` to print the state after each one on stderr.
//! Lowering requires the checker's facts ([`KernelInfo`]): it cannot run on unchecked IR, and
//! it does no analysis of its own that the checker has done.
//!
//! 1. The analyses: `path` and `geometry` are the checker's (`KernelInfo::path`,
//!    `KernelInfo::sym_geometry`); `memory` places the checker's shared buffers
//!    (`KernelInfo::shared`, in its order, each [`crate::check::SharedBuffer::sym_shape`]) at
//!    aligned offsets; `roles` finds the warp-specialised branches and each event's arrival
//!    predicate. Names are the checker's: what the lowering learns of a declaration is keyed by
//!    its binding (`KernelInfo::bindings`, `idents`) and found with [`cexpr::ExprCx::local`];
//!    `scope.rs` scopes only the C++ names the lowering declares itself (futures' buffer
//!    pointers, hoisted array entries). A view is the checker's symbolic one
//!    (`KernelInfo::sym_views`), which [`cexpr::ExprCx::view`] prints as C++.
//! 2. `body`: `body.rs` dispatches each statement to its family — `simt.rs` (copies, register
//!    tiles through `regtile.rs`), `warp.rs` (warp-level `mma` → `mma.sync`), `hopper.rs`
//!    (TMA, WGMMA, mbarriers), `sparse.rs`, `frag_elem.rs` (element-wise work on
//!    accumulators), `tma_store.rs`, `persistent.rs` — which emit typed nodes
//!    ([`kernel::Op`]) through the primitives of `emitter.rs` (`emit`, `open`, `otherwise`,
//!    `close`, `barrier`, `call`, `guarded`). A loop-invariant array entry (`b_s[kt % 2]` in
//!    `foreach {k}`) is hoisted where its loop is lowered: the loop declares the pointer and
//!    records it in the scope, and every view inside resolves the entry to it.
//! 3. The passes over the nodes, with [`kernel::verify`] before the first and after each
//!    ([`passes`]).
//! 4. `plan` (parameters, constants, launch bounds, grid, WGMMA shapes) and `constants` (drop
//!    the constants no node names).
//!
//! The files of `lower/` import each other without a cycle, and no code reads back the text of
//! a node (`dsl-core/tests/lower_imports.rs`).

mod asm;
mod atomic;
pub mod body;
pub mod cexpr;
mod cluster;
pub mod cxx;
mod device_call;
mod dma_swiz;
mod dma_transform;
mod domain;
pub mod emitter;
mod error;
mod even;
mod frag_elem;
mod hopper;
pub mod kernel;
pub mod launch;
pub mod lowered;
pub mod memory;
mod mn_major;
pub mod passes;
mod persistent;
mod pipeline;
mod plan;
mod regtile;
mod roles;
mod rows;
pub mod scope;
mod simt;
mod sparse;
mod squeeze;
mod streamk;
mod tma_store;
mod walk;
mod warp;
mod warp_frags;
mod warp_pipe;
mod wgmma_issue;

pub use crate::sym::{Sym, SymEnv};
pub use dma_swiz::SWIZZLED_G2S;
pub use error::LowerError;
pub use frag_elem::{HELPERS as FRAG_ELEM_HELPERS, ROWS_HELPERS as FRAG_ROWS_HELPERS};
pub use kernel::{
    CExpr, COp, CUn, Call, ConstValue, CudaKernel, KernelArg, KernelPath, LaunchBounds, LaunchPlan,
    Line, Op, OutputFill, ParamDecl,
};
pub use launch::launch_form;
pub use lowered::{
    BLOCK_REDUCE as SIMT_BLOCK_REDUCE, G2S_ASYNC as SIMT_G2S_ASYNC,
    LAUNCH_SIZED as SIMT_LAUNCH_SIZED, NAMED_BARRIERS, S2G as SIMT_S2G,
    TILE_HELPERS as SIMT_TILE_HELPERS,
};
pub use warp::HELPERS as WARP_MMA_HELPERS;
pub use warp::SWZ_HELPERS as WARP_SWZ_HELPERS;

use crate::check::KernelInfo;
use crate::diag::Diagnostics;
use crate::ir::Module;

/// The stages of lowering, in order: analyses (`path` … `roles`), `body` (statements → nodes),
/// the passes over the nodes ([`passes::PASSES`]), `plan` (signature, constants, launch) and
/// `constants`.
pub const STAGES: [&str; 11] = [
    "path",
    "geometry",
    "memory",
    "roles",
    "body",
    "async-copies",
    "helpers",
    "versioning",
    "regions",
    "plan",
    "constants",
];

fn dump(pass: &str, what: &dyn std::fmt::Debug) {
    if std::env::var_os("TESSEL_DUMP_PASSES").is_some() {
        eprintln!("== after pass `{pass}`:\n{what:#?}");
    }
}

/// Lowers a checked module.
pub fn lower(m: &Module, info: &KernelInfo) -> Result<CudaKernel, Diagnostics> {
    lower_impl(m, info).map_err(|errs| {
        let mut d = Diagnostics::default();
        for e in errs {
            d.push(e.into_diagnostic());
        }
        d
    })
}

fn lower_impl(m: &Module, info: &KernelInfo) -> Result<CudaKernel, Vec<LowerError>> {
    // The checker's path; warp-level `mma`s (mma.sync) are on the SIMT path (cp.async, sm_80+).
    let path = match info.path {
        crate::check::LoweringPath::Hopper => KernelPath::Hopper,
        crate::check::LoweringPath::Simt | crate::check::LoweringPath::WarpMma => KernelPath::Simt,
    };
    dump("path", &path);
    let geo = info
        .sym_geometry
        .clone()
        .map_err(|e| vec![LowerError::new(e.span, e.msg)])?;
    dump("geometry", &geo);
    let mem = memory::run(m, info, path).map_err(|e| vec![e])?;
    dump("memory", &mem);
    let roles = if path == KernelPath::Hopper {
        roles::warp_roles(m, info, &geo)
    } else {
        Default::default()
    };
    let arrivals = roles::arrivals(m, info, &geo).map_err(|e| vec![e])?;
    dump("roles", &(&roles, &arrivals));
    let mut e = emitter::Emitter {
        m,
        info,
        geo: &geo,
        mem: &mem,
        path,
        swizzle: info
            .swizzle_source
            .iter()
            .filter_map(|(&s, &z)| Some((s, Sym::from_expr(m, z)?)))
            .chain(
                info.swizzle_implicit
                    .iter()
                    .map(|(&s, &v)| (s, Sym::Int(v as i64))),
            )
            .collect(),
        roles,
        arrivals,
        bound_copies: &info.bound_copies,
        scopes: Default::default(),
        lines: Vec::new(),
        indent: 0,
        tma_maps: Vec::new(),
        pointer_params: Default::default(),
        written_params: Default::default(),
        wgmma_types: Vec::new(),
        wgmma_ns: Vec::new(),
        thread_conds: Vec::new(),
        pending_sync_tma: false,
        pending_dma: false,
        pending_cp_async: false,
        uses_sync_tma: false,
        wgmma_uncommitted: false,
        wgmma_pending: false,
        deferred: None,
        before_tail: None,
        sk_loop: None,
        lazy_store_tiles: tma_store::lazy_tiles(m),
        rewritten_store_tiles: tma_store::rewritten_tiles(m),
        even_copies: Vec::new(),
        stages: Vec::new(),
        async_launch_sized: Vec::new(),
        pending_store_read: false,
        cluster: geo
            .cluster
            .clone()
            .map(|c| {
                let vars: Vec<_> = geo.block_vars.iter().map(|v| v.binding).collect();
                cluster::plan(m, info, c, &vars, geo.cluster_shape.clone())
            })
            .transpose()
            .map_err(|e| vec![e])?,
        errors: Vec::new(),
        warp: Default::default(),
    };
    e.scopes.push();
    for (i, p) in m.kernel.params.iter().enumerate() {
        // A scalar parameter is a value: a `float` (floating types) or an `int`.
        if p.shape.is_empty() {
            let d = if p.dtype.is_float() {
                crate::ir::DType::F32
            } else {
                crate::ir::DType::I32
            };
            let b = crate::check::Binding::Param(i);
            e.scopes.declare(b, scope::Local::Scalar(d));
            continue;
        }
        let shape = e
            .declared(crate::check::Binding::Param(i), p.name.span)
            .map_err(|x| vec![x])?
            .shape;
        let t = scope::TensorLocal {
            name: p.name.name.clone(),
            space: p.space,
            dtype: p.dtype,
            shape,
            count: None,
            param: Some(i),
            squeezed: None,
        };
        e.scopes
            .declare(crate::check::Binding::Param(i), scope::Local::Tensor(t));
    }
    e.block(&m.kernel.body);
    warp::finish(&mut e);
    if !e.errors.is_empty() {
        return Err(e.errors);
    }
    passes::dump("body", &e.lines);
    let mut body = lowered::Body {
        lines: std::mem::take(&mut e.lines),
        even_copies: std::mem::take(&mut e.even_copies),
        stages: std::mem::take(&mut e.stages),
        async_launch_sized: std::mem::take(&mut e.async_launch_sized),
    };
    passes::run(&mut body).map_err(|msg| {
        vec![LowerError::new(
            m.kernel.name.span,
            format!("internal: {msg}"),
        )]
    })?;
    e.lines = body.lines;
    let mut k = plan::finish(m, info, &geo, &mem, e);
    dump("plan", &k.plan);
    plan::drop_unused_constants(&mut k);
    passes::dump_text(
        "constants",
        &k.constants
            .iter()
            .map(|(n, v)| format!("constexpr int {n} = {v};"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    Ok(k)
}
