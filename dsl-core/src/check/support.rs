//! The lowering gate: constructs the front end parses and checks but no lowering handles
//! yet, each reported as "not supported yet: …" with its own code. [`check_config`] (the
//! check every emit, launch and tuning goes through) runs it, so a module it accepts always
//! lowers; [`check_language`] (what `tessel check` reports) leaves it out and returns its
//! findings as notes, so a kernel written in today's Croqtile can be checked before tessel
//! lowers all of it.
//!
//! [`check_config`]: super::check_config
//! [`check_language`]: super::check_language

use super::codes;
use super::{Cx, all_stmts, stmt_exprs, walk_expr};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{CopyDst, DType, Expr, ExtStmt, MemSpace, Returns, Stmt};

/// Codes of the other passes that state a limit of the lowering rather than a rule of the
/// language (statements outside any `parallel` — host code of a `__co__` function —, several
/// top-level `parallel`s — several launches —, f8 element types, a register tile indexed at
/// run time, a swizzle wider or narrower than the tile's rows — Croqtile leaves the swizzle
/// configuration to the target): `check_language` reports them as notes.
pub(crate) const LOWERING_ONLY: &[&str] = &[
    codes::OUTSIDE_PARALLEL,
    codes::SWIZZLE_ROW,
    codes::LOCAL_INDEX,
    codes::NOT_LOWERED_LAUNCH_SIZED,
    codes::NOT_LOWERED_LAUNCH_THREADS,
    codes::NOT_LOWERED_HEADER_SHADOW,
    codes::KERNEL_SCOPE_EFFECT,
    codes::F8,
    codes::NO_BLOCK,
    codes::NOT_LOWERED_MN_MAJOR,
    codes::WGMMA_K_SPLIT,
];

/// Whether a finding is a restriction of the lowering rather than of the language: the
/// [`LOWERING_ONLY`] codes and every rule of `check/lowerable.rs` (`E1101`–`E1199`,
/// `E1460`–`E1479`).
pub(crate) fn lowering_only(code: &str) -> bool {
    LOWERING_ONLY.contains(&code)
        // An accumulator no `mma` uses has no shape: the language cannot type it.
        || (code.starts_with("E11") && code != codes::ACC_UNUSED)
        || code.starts_with("E146")
        || code.starts_with("E147")
}

/// Integer built-ins the lowering handles (`min`/`max`/`abs` also on element values).
const LOWERED_FUNCS: &[&str] = &["cdiv", "min", "max"];

/// Math built-ins the lowering handles on element values, as f32 (`lower::cexpr::math_call`),
/// also in their `__name` spelling (CUDA's fast intrinsic where it has one).
pub const LOWERED_MATH: &[&str] = &[
    "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "cbrt",
    "tanh", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "sin", "cos", "tan", "asin",
    "acos", "atan", "floor", "ceil", "round", "trunc", "abs", "fabs", "relu", "sigmoid", "silu",
    "gelu", "rcp", "fmin", "fmax", "pow", "atan2", "hypot", "fmod", "copysign", "fma", "fmaf",
];

/// Element types whose bits the runtime's fill writes (`cuMemsetD8/16/32`).
fn host_fillable(d: crate::ir::DType) -> bool {
    use crate::ir::DType::*;
    matches!(d, F16 | BF16 | F32 | F8E4M3 | F8E5M2 | I32 | S8 | U8)
}

/// The checker's integer constants by name (for a fill's value).
fn constants(cx: &Cx) -> std::collections::BTreeMap<String, i64> {
    cx.m.constants
        .iter()
        .filter_map(|c| Some((c.name.name.clone(), cx.static_value(c.value)?)))
        .collect()
}

fn lowered_func(name: &str) -> bool {
    // `__exp2f`: CUDA's f32 spelling of `exp2`; `__to<T>`: a conversion to a lowered type.
    if let Some(b) = name.strip_prefix("__").and_then(|b| b.strip_suffix('f'))
        && LOWERED_MATH.contains(&b)
    {
        return true;
    }
    if let Some(t) = name.strip_prefix("__to<").and_then(|t| t.strip_suffix('>')) {
        return matches!(t, "f32" | "f16" | "bf16" | "s32" | "int" | "float");
    }
    LOWERED_FUNCS.contains(&name)
        || LOWERED_MATH.contains(&name)
        || name
            .strip_prefix("__")
            .is_some_and(|b| LOWERED_MATH.contains(&b) || b == "min" || b == "max")
}

/// `swizzled`: the plain `f = dma.copy … => shared;` futures the swizzle check gave the
/// swizzle of their rows (`check/swizzle.rs`'s `implicit`), which lower as `.swiz` copies.
pub(crate) fn lowering_gate(
    cx: &Cx,
    swizzled: &std::collections::HashMap<crate::ir::StmtId, u32>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    // A warp-MMA kernel (`lower/warp.rs`) also lowers s8 and tf32 tensors (its operands), and
    // `.chunkat` with composed indices in its `mma.load` / `mma.store`.
    let warp_kernel = cx.warp_kernel();
    let warp_dtype = |d: DType| warp_kernel && matches!(d, DType::S8 | DType::TF32);
    let not_lowered = |code, span, what: &str| {
        Diagnostic::new(code, span, format!("not supported yet: {what}"))
            .with_help("`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet")
    };
    super::cluster::gate(cx, diags);
    super::events::cluster_triggers(cx, true, diags);
    if cx.lowering_path() == super::LoweringPath::Hopper {
        frag_rebinds(m, &m.kernel.body, diags);
    }
    parallel_shadows(m, &m.kernel.body, &mut Vec::new(), 0, diags);
    divergent_sync_loads(cx, &m.kernel.body, None, diags);
    if let Returns::Value { span, .. } = &m.kernel.returns {
        diags.push(not_lowered(
            codes::NOT_LOWERED_RETURN,
            *span,
            "a `__co__` function that returns a value",
        ));
    }
    // `__co__ auto` returning what the launch form keeps (a scalar): one E1302, at its first
    // `return` (the function's other returns say nothing more).
    let mut value_returned = matches!(m.kernel.returns, Returns::Value { .. });
    for p in &m.kernel.params {
        for &d in p
            .shape
            .iter()
            .filter(|&&d| matches!(&m.exprs[d], Expr::Name(n) if n.starts_with('?')))
        {
            diags.push(not_lowered(
                codes::NOT_LOWERED_UNNAMED_DIM,
                m.expr_span(d),
                "unnamed dimensions (`?`, `mdspan<N>`)",
            ));
        }
        // Scalar parameters of the lowered value types are passed by value (`float`, `int`;
        // a `bool` as an `int`, 0 or 1).
        let scalar_bool = p.shape.is_empty() && p.dtype == DType::Bool;
        if p.shape.is_empty()
            && !matches!(
                p.dtype,
                DType::F16 | DType::BF16 | DType::F32 | DType::I32 | DType::Bool
            )
        {
            diags.push(not_lowered(
                codes::NOT_LOWERED_SCALAR_PARAM,
                p.name.span,
                &format!("scalar parameters of type `{}`", p.dtype),
            ));
        } else if p.shape.is_empty() && p.name.name == "_" {
            diags.push(not_lowered(
                codes::NOT_LOWERED_SCALAR_PARAM,
                p.name.span,
                "unnamed scalar parameters",
            ));
        }
        if !p.dtype.is_lowered() && !warp_dtype(p.dtype) && !scalar_bool {
            diags.push(dtype_not_lowered(p.dtype, p.dtype_span));
        }
    }
    // The first lanes of such a level run its inner levels under a guard: work a thread does
    // alone lowers there; a barrier or anything its threads do together would wait for lanes
    // that never come.
    let partial = super::geometry::partial_groups(cx);
    // The kernel's CUDA is written once, for the default configuration's geometry (the
    // tunables are template parameters): a level that leaves lanes idle only under another
    // configuration would run without its guard there.
    let by_default = if partial.is_empty() {
        Vec::new()
    } else {
        let hdr = super::header::check_header(
            m,
            &super::Config::defaults(m),
            None,
            &mut Diagnostics::default(),
        );
        let dcx = Cx {
            m,
            env: hdr.env,
            static_env: hdr.static_env,
            res: cx.res.clone(),
        };
        super::geometry::partial_groups(&dcx)
    };
    for (at, region) in partial {
        if !by_default.iter().any(|(d, _)| *d == at) {
            diags.push(not_lowered(
                codes::NOT_LOWERED_PARTIAL_GROUP,
                at,
                "a `group`/`group-4` level that leaves lanes idle under this configuration but fills its warp under the default one (the kernel's CUDA follows the default's geometry)",
            ));
            continue;
        }
        let alone = match &m.stmts[region] {
            Stmt::Parallel { body, .. } => idle_lanes_allowed(cx, body),
            _ => false,
        };
        if !alone {
            diags.push(not_lowered(
                codes::NOT_LOWERED_PARTIAL_GROUP,
                at,
                "a `group`/`group-4` level whose inner levels leave lanes idle, around work its threads do together (a barrier, a cooperative copy, a reduction)",
            ));
        }
    }
    for s in &m.streams {
        diags.push(not_lowered(
            codes::NOT_LOWERED_STREAM,
            s.name.span,
            "`stream` parameters",
        ));
    }
    for x in &m.parallel_ext {
        diags.push(not_lowered(
            codes::NOT_LOWERED_STREAM,
            m.stmt_span(x.stmt),
            "`parallel.async` / `parallel<s>` / cooperative launches",
        ));
    }
    // `[[frag_prefetch]]` is lowered (`lower/warp_pipe.rs`), `[[launch_bounds]]` and
    // `[[maxnreg]]` on SIMT kernels (`lower/plan.rs`); the other attributes are hints.
    let simt = cx.lowering_path() != super::LoweringPath::Hopper;
    for a in m.attributes.iter().filter(|a| {
        a.name.name != "frag_prefetch"
            && !(simt && matches!(a.name.name.as_str(), "launch_bounds" | "maxnreg"))
    }) {
        diags.push(not_lowered(
            codes::NOT_LOWERED_ATTRIBUTE,
            a.span,
            &format!("the attribute `[[{}]]`", a.name.name),
        ));
    }
    let reg_a = super::wgmma::register_a_frags(cx);
    for x in &m.decl_ext {
        // An output's initializer no read or unwritten element can observe, or that each block
        // applies to the chunk it owns.
        if super::out_init::unobservable(m, Some(&cx.res.bindings), x)
            || super::out_init::block_owned(m, Some(&cx.res.bindings), x)
                .is_some_and(|f| super::out_init::covers(cx, &f))
        {
            continue;
        }
        // Any other output initializer of a known number: the runtime fills the output before
        // each launch.
        if let Some((p, value)) = super::out_init::host_fill(m, Some(&cx.res.bindings), x)
            && host_fillable(m.kernel.params[p].dtype)
            && super::out_init::fill_value(m, value, &constants(cx)).is_some()
        {
            continue;
        }
        // `frag` tiles in an accumulator layout (`lower/frag_elem.rs`), and their `{v}`.
        if matches!(
            x,
            crate::ir::DeclExt::Frag { .. } | crate::ir::DeclExt::Init { .. }
        ) && super::frag_elem::lowered_tile_decl(cx, x.decl())
        {
            continue;
        }
        // A `frag` read whole as a register-A WGMMA operand, and its `{v}` fill, lower
        // (`lower/hopper.rs`).
        if reg_a.contains(&x.decl()) {
            continue;
        }
        // `{v}` of a plain `local` or `shared` tensor on the SIMT path (`lower/simt.rs`
        // `fill_decl`).
        if let crate::ir::DeclExt::Init { decl, .. } = x {
            match init_lowers(cx, *decl) {
                Some(true) => continue,
                Some(false) => {
                    diags.push(
                        Diagnostic::new(
                            codes::NOT_LOWERED_DECL,
                            m.stmt_span(*decl),
                            "not supported yet: the initializer `{v}` of a shared buffer that not every thread of the block declares",
                        )
                        .with_help("the block's threads fill the buffer together: declare it outside `if`s, `inthreads` and loops whose extents differ between threads"),
                    );
                    continue;
                }
                None => {}
            }
        }
        // `= ready` events: their waits start from the other parity (`lower/hopper.rs`).
        if matches!(x, crate::ir::DeclExt::Ready { .. }) {
            continue;
        }
        diags.push(not_lowered(
            codes::NOT_LOWERED_DECL,
            m.stmt_span(x.decl()),
            x.construct(),
        ));
    }
    for s in all_stmts(m) {
        let span = m.stmt_span(s);
        match &m.stmts[s] {
            // The WGMMA path lowers `.transp` and `.mask` (`lower/hopper.rs`); a warp-level
            // kernel (`lower/warp.rs`) lowers `.transp` only.
            Stmt::MmaStore { mods, .. }
                if (warp_kernel || cx.in_warp_mma(s)) && mods.mask.is_some() =>
            {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_STORE_MODS,
                    span,
                    "`mma.store.mask` of a warp-level accumulator",
                ));
            }
            // `f = tma.copy[.swiz<N>] t.chunkat(…) => shared;`: a synchronous TMA load of a 2-D
            // tile into the fresh buffer (`lower/hopper.rs`).
            Stmt::Ext(ExtStmt::DmaFuture {
                tma: true,
                bind: Some(_),
                is_async: false,
                modifiers,
                after: None,
                dst: CopyDst::Fresh(MemSpace::Shared),
                src,
            }) if !warp_kernel
                && modifiers.iter().all(|(n, _)| n.name == "swiz")
                && block_uniform(cx, s)
                && super::fresh_tile(m, &cx.res.bindings, *src).is_some_and(|(t, _)| t.len() == 2) => {}
            // `f = dma.copy.swiz<N> src => shared;` on the TMA/WGMMA path: a cooperative copy
            // of a 2-D global tile into the fresh buffer in the swizzled layout WGMMA reads
            // (`lower/dma_swiz.rs`).
            Stmt::Ext(ExtStmt::DmaFuture {
                tma: false,
                bind: Some(_),
                is_async: false,
                modifiers,
                after: None,
                dst: CopyDst::Fresh(MemSpace::Shared),
                src,
            }) if !warp_kernel
                && on_tma_path(m)
                && (swizzled_future_lowers(cx, s, modifiers, *src)
                    || modifiers.is_empty() && swizzled.contains_key(&s)) => {}
            Stmt::Ext(ExtStmt::DmaFuture {
                tma: false,
                bind,
                modifiers,
                after,
                dst,
                is_async,
                src,
            }) => {
                let why = if transform_lowers(cx, s) {
                    None
                } else if !modifiers.is_empty() {
                    Some("modifiers on a `dma.copy` (`.swiz`, `.zfill`, …)")
                } else if after.is_some() {
                    Some("`dma.copy … after f`")
                } else if bind.is_none() {
                    Some("this form of `dma.copy`")
                } else if matches!(dst, CopyDst::Fresh(MemSpace::Local)) {
                    // A per-thread copy into a register array of the source tile's shape, on
                    // either path (`lower/simt.rs`); `lowerable.rs` checks the copy itself.
                    None
                } else if matches!(dst, CopyDst::Expr(d) if !matches!(m.exprs[*d], Expr::Name(_)) && !first_tile(m, *d)) {
                    Some("a future of a copy into a view other than a tensor's first tile (bind copies into a whole shared tensor)")
                } else if !warp_kernel
                    && on_tma_path(m)
                    && !(!*is_async
                        && block_uniform(cx, s)
                        && matches!(dst, CopyDst::Fresh(MemSpace::Shared))
                        && super::fresh_tile(m, &cx.res.bindings, *src)
                            .is_some_and(|(_, d)| d == DType::U8))
                {
                    // The TMA path copies u8 tiles (sparsity metadata) with plain loads and
                    // stores (`lower/sparse.rs`); other tiles it reads go through TMA.
                    Some("a `dma.copy` future in a kernel on the TMA/WGMMA path, which lowers two kinds: a synchronous copy of a u8 tile (sparsity metadata) into a fresh `=> shared` buffer, and one of a 2-D global tile the whole block runs into a WGMMA operand whose rows are 32, 64 or 128 bytes (laid out in their swizzle)")
                } else {
                    None
                };
                if let Some(what) = why {
                    diags.push(not_lowered(codes::NOT_LOWERED_FUTURE, span, what));
                }
            }
            // Arrays of accumulators (`frag mc[2][2] {0};`, elements `mc[i][j]`) lower on the
            // warp path only.
            Stmt::MmaFill { name, .. } if name.name.ends_with(']') && !warp_kernel => {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_FRAG_ARRAY,
                    name.span,
                    "an accumulator array in a kernel whose `mma`s are not warp-level (`: group`)",
                ));
            }
            // `mma.scale acc, sl, sr;` of a WGMMA accumulator lowers (`lower/hopper.rs`)
            // unless the accumulator is also fed another way (`check/wgmma.rs`, E1472).
            Stmt::Ext(ExtStmt::MmaScaleAcc { .. })
                if !warp_kernel && !cx.in_warp_mma(s) && cx.in_group4(s) => {}
            // Re-initializing a warp accumulator lowers (`lower/warp.rs`).
            Stmt::Ext(ExtStmt::MmaRefill { .. }) if warp_kernel => {}
            Stmt::Mma { .. } if m.mma_scale(s).is_some() && (warp_kernel || cx.in_warp_mma(s)) => {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_WARP_SCALE,
                    span,
                    "`mma….scale` of a warp-level `mma`",
                ));
            }
            Stmt::Mma { .. } if m.mma_async(s).is_some() && (warp_kernel || cx.in_warp_mma(s)) => {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_WARP_ASYNC,
                    span,
                    "`mma….async` of a warp-level `mma` (it completes in order)",
                ));
            }
            // Re-filling a WGMMA accumulator lowers (`lower/hopper.rs`).
            Stmt::Ext(ExtStmt::MmaRefill { .. })
                if !warp_kernel
                    && !cx.in_warp_mma(s)
                    && super::frag_def(cx, s, super::resolve::Role::Acc)
                        .is_some_and(|d| matches!(m.stmts[d], Stmt::MmaFill { .. })) => {}
            // `trigger e after f1, f2`: each TMA load completes on `e` (`lower/hopper.rs`).
            Stmt::Ext(ExtStmt::TriggerAfter { after, .. })
                if after.iter().all(|&a| {
                    matches!(
                        cx.res.bindings.get(&a),
                        Some(super::Binding::Future(d)) if matches!(m.stmts[*d], Stmt::TmaCopy { .. })
                    )
                }) => {}
            Stmt::Ext(ExtStmt::AnyFuture { tma: false, bind })
                if fresh_future_shape(cx, &bind.name).is_some()
                    && (warp_kernel || !on_tma_path(m)) => {}
            Stmt::Ext(ExtStmt::Swap { a, b })
                if (warp_kernel || !on_tma_path(m))
                    && fresh_future_shape(cx, &a.name).is_some_and(|sa| {
                        fresh_future_shape(cx, &b.name).is_some_and(|sb| sa == sb)
                    }) => {}
            // Checked at launch, or decided here (`check/asserts.rs`).
            Stmt::Ext(ExtStmt::Assert { .. }) => {}
            // Device printf of values (a tensor, event or fragment as a whole is not one).
            Stmt::Ext(ExtStmt::Println { args, .. })
                if args.iter().all(|a| match a {
                    crate::ir::PrintArg::Str(_) => true,
                    crate::ir::PrintArg::Expr(e) => match cx.res.bindings.get(e) {
                        Some(super::Binding::Param(i)) => {
                            m.kernel.params.get(*i).is_some_and(|p| p.shape.is_empty())
                        }
                        Some(
                            super::Binding::Tensor(..)
                            | super::Binding::Event(..)
                            | super::Binding::Frag(_)
                            | super::Binding::Future(_),
                        ) => false,
                        _ => !matches!(m.exprs[*e], Expr::View { op, .. } if op != crate::ir::ViewOp::At),
                    },
                }) => {}
            Stmt::Ext(x @ (ExtStmt::AnyFuture { .. } | ExtStmt::Swap { .. })) => diags.push(
                not_lowered(codes::NOT_LOWERED_SWAP, span, x.construct()).with_help(
                    "tessel lowers placeholders and `swap` of `dma.copy` futures into fresh shared buffers of one static shape (`f = dma.copy.async t.subspan(R, C).at(i, j) => shared;`) on the SIMT path",
                ),
            ),
            // `copy` and row reductions of lowered fragments (`lower/frag_elem.rs`).
            Stmt::Ext(ExtStmt::FragOp { .. }) if super::frag_elem::lowered_frag_op(cx, s) => {}
            // A returned tensor is the launch form's output parameter (as written: `return`).
            Stmt::Ext(ExtStmt::Return { value: Some(v) })
                if !value_returned
                    && match cx.res.bindings.get(v) {
                        Some(super::Binding::Tensor(..)) => true,
                        Some(super::Binding::Param(i)) => {
                            m.kernel.params.get(*i).is_some_and(|p| !p.shape.is_empty())
                        }
                        _ => false,
                    } =>
            {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_STMT,
                    span,
                    "`return`",
                ));
            }
            Stmt::Ext(ExtStmt::Return { value: Some(_) }) => {
                if !std::mem::replace(&mut value_returned, true) {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_RETURN,
                        span,
                        "a `__co__` function that returns a value",
                    ));
                }
            }
            // Block and warp barriers and memory fences lower (`lower/body.rs`); a warpgroup's
            // barrier and `sync.global` (a grid barrier needs a cooperative launch) do not.
            Stmt::Ext(ExtStmt::Sync {
                kind: crate::ir::SyncKind::Fence,
                ..
            }) => {}
            st if super::simt::barrier_scope(st).is_some() => {}
            Stmt::Ext(ExtStmt::Sync {
                kind: crate::ir::SyncKind::Barrier,
                ..
            }) => diags.push(not_lowered(
                codes::NOT_LOWERED_STMT,
                span,
                "`sync.barrier : group-4` (a warpgroup's barrier)",
            )),
            // Atomic updates lower (`lower/atomic.rs`); `check/simt.rs` checks their operands.
            Stmt::Ext(ExtStmt::Call { func, .. })
                if super::simt::atomic(&func.name).is_some() => {}
            // Named barriers lower on the SIMT path (the TMA/WGMMA path numbers its own).
            Stmt::Ext(ExtStmt::Call { func, .. })
                if super::simt::named_barrier(&func.name)
                    && cx.lowering_path() == super::LoweringPath::Simt => {}
            // `call f(…)` of a `__device__` function of the source (`lower/device_call.rs`):
            // tensors and tiles pass pointers, everything else a value.
            Stmt::Ext(ExtStmt::Call { func, targs, .. })
                if m.device_fns.iter().any(|f| f.name == func.name) =>
            {
                if !targs.is_empty() {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_STMT,
                        span,
                        "template arguments of a `call` (`call f<T>(…)`)",
                    ));
                }
            }
            // Inline assembly lowers as written (`lower/asm.rs`); an output in a fragment's
            // registers has no C++ place.
            Stmt::Ext(ExtStmt::Asm { outputs, .. }) => {
                if let Some(o) = outputs.iter().find(|o| {
                    let mut base = o.expr;
                    while let Expr::View { base: b, .. } | Expr::Field { base: b, .. } =
                        &m.exprs[base]
                    {
                        base = *b;
                    }
                    matches!(cx.res.bindings.get(&base), Some(super::Binding::Frag(_)))
                }) {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_STMT,
                        m.expr_span(o.expr),
                        "an `__asm__` output in a fragment's registers",
                    ));
                }
            }
            // A `while` loop of per-thread work lowers as C++'s; one holding what orders or
            // feeds a block (a barrier, a cooperative copy, an `mma`, an event) does not yet.
            Stmt::Ext(ExtStmt::While { body, .. }) => {
                if !per_thread(cx, body) {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_STMT,
                        span,
                        "a `while` loop holding a barrier, a copy through shared memory, an `mma`, an event or a reduction",
                    ));
                }
            }
            Stmt::Ext(ExtStmt::Call { func, .. }) if !func.name.starts_with("__") => diags.push(not_lowered(
                codes::NOT_LOWERED_STMT,
                span,
                &format!("`call` of `{}`, which the source does not define (tessel calls the `__device__` functions written beside the `__co__` function)", func.name),
            )),
            // `break`, `continue`, `yield`: `jumps.rs` (run beside this gate).
            Stmt::Ext(ExtStmt::Jump { .. }) => {}
            Stmt::Ext(x) => diags.push(not_lowered(codes::NOT_LOWERED_STMT, span, x.construct())),
            // A view bound to a name lowers to nothing: the parser wrote the view itself at
            // each use of the name, and each use is gated as it is lowered.
            Stmt::Let { value, .. } if super::views_ext::is_view_let(m, *value) => {}
            Stmt::TensorDecl {
                space,
                dtype,
                dtype_span,
                ..
            } => {
                if !dtype.is_lowered() && !warp_dtype(*dtype) {
                    diags.push(dtype_not_lowered(*dtype, *dtype_span));
                }
                if *space == MemSpace::Global {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_GLOBAL_DECL,
                        span,
                        "a global tensor declared in the kernel body",
                    ));
                }
            }
            // A `bool` scalar is an `int` holding 0 or 1.
            Stmt::ScalarDecl { dtype, .. } | Stmt::MmaFill { dtype, .. }
                if !dtype.is_lowered()
                    && !matches!(&m.stmts[s], Stmt::ScalarDecl { dtype: DType::Bool, .. }) =>
            {
                diags.push(not_lowered(
                    codes::NOT_LOWERED_DTYPE,
                    span,
                    &format!("element type `{dtype}`"),
                ));
            }
            _ => {}
        }
        // The view a warp `mma.load` reads or `mma.store` writes (`lower/warp.rs` resolves its
        // outermost `.chunkat`, composed indices included).
        let warp_view = match &m.stmts[s] {
            Stmt::MmaLoad { src: x, .. } | Stmt::MmaStore { dst: x, .. } if warp_kernel => Some(*x),
            _ => None,
        };
        // A named view lowers at its uses (the parser wrote the view there), not here.
        if matches!(&m.stmts[s], Stmt::Let { value, .. } if super::views_ext::is_view_let(m, *value))
        {
            continue;
        }
        // `.view(…).from(…)` windows of global tensors, each a whole operand of a `dma.copy`
        // (`view_sym.rs` places them; the copies bound them by the tensor's extents).
        let windows = global_windows(cx, s);
        // The `.step`s that follow a `.subspan` and are followed by an `.at`.
        let mut stepped = std::collections::HashSet::new();
        for e in stmt_exprs(&m.stmts[s]) {
            walk_expr(m, e, &mut |x| {
                if let Expr::View {
                    op: crate::ir::ViewOp::At,
                    base,
                    ..
                } = &m.exprs[x]
                    && let Expr::View {
                        op: crate::ir::ViewOp::Step,
                        base: tiled,
                        ..
                    } = &m.exprs[*base]
                    && matches!(
                        m.exprs[*tiled],
                        Expr::View {
                            op: crate::ir::ViewOp::Subspan,
                            ..
                        }
                    )
                {
                    stepped.insert(*base);
                }
            });
        }
        // `apply {i, j} in acc.span`: the extents are the accumulator's shape
        // (`lower/frag_elem.rs` walks its elements).
        if super::frag_elem::acc_apply(cx, s) {
            continue;
        }
        let via_tma = matches!(
            &m.stmts[s],
            Stmt::TmaCopy { .. } | Stmt::Ext(ExtStmt::DmaFuture { tma: true, .. })
        );
        // The amounts of a `dma.pad` are i-tuples the lowering reads itself (`Transform`).
        let pad_amounts: Vec<crate::ir::ExprId> = match &m.stmts[s] {
            Stmt::Ext(ExtStmt::DmaFuture { modifiers, .. }) => modifiers
                .iter()
                .filter(|(n, _)| n.name == "pad")
                .flat_map(|(_, a)| a.iter().take(3).copied())
                .collect(),
            _ => Vec::new(),
        };
        for e in stmt_exprs(&m.stmts[s]) {
            walk_expr(m, e, &mut |x| {
                if let Expr::Field { field, .. } = &m.exprs[x]
                    && field.name != "data"
                {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_VIEW,
                        field.span,
                        &format!("the field `.{}`", field.name),
                    ));
                }
                if let Expr::View {
                    op: crate::ir::ViewOp::Chunkat,
                    args,
                    ..
                } = &m.exprs[x]
                    && warp_view != Some(x)
                    && args.iter().any(|&a| {
                        matches!(m.exprs[a], Expr::Compose { .. }) && !composes_names(m, a)
                    })
                {
                    diags.push(not_lowered(
                        codes::NOT_LOWERED_VIEW,
                        m.expr_span(x),
                        "`.chunkat` with a composed index (`a # b`) of anything but variables",
                    ));
                }
                if let Expr::View { op, .. } = &m.exprs[x] {
                    // `.subspan(…).step(…)` picked by `.at(…)` lowers (`lower/cexpr.rs`).
                    let picked_step = *op == crate::ir::ViewOp::Step && stepped.contains(&x);
                    // A rank-reducing `.sqz()` of whole trailing dimensions, a `.span_as(…)` of a
                    // contiguous tile (`lower/squeeze.rs`).
                    // Not as a TMA operand: a tensor map describes the whole tensor.
                    let squeezed = !via_tma
                        && match op {
                            crate::ir::ViewOp::Sqz => {
                                super::squeeze::lowers(m, &cx.res.bindings, x)
                            }
                            crate::ir::ViewOp::SpanAs => {
                                super::squeeze::reshape_lowers(m, &cx.res.bindings, x)
                            }
                            _ => false,
                        };
                    if !op.is_lowered() && !picked_step && !squeezed && !windows.contains(&x) {
                        diags.push(not_lowered(
                            codes::NOT_LOWERED_VIEW,
                            m.expr_span(x),
                            &format!("the view method `.{}`", op.name()),
                        ));
                    }
                }
                if let Expr::Call { func, args } = &m.exprs[x] {
                    // `c ? a : b` (`select(c, a, b)`) lowers; the n-ary `select(i, …)` does not.
                    let ternary = func.name == "select" && args.len() == 3;
                    // An atomic's old value kept whole in a scalar lowers (`lower/atomic.rs`).
                    let captured = super::simt::captured_atomic(m, s) == Some(x);
                    if !lowered_func(&func.name)
                        && !ternary
                        && !captured
                        && !pad_amounts.contains(&x)
                    {
                        let what = if func.name == "ituple" {
                            "i-tuple values `{a, b}`".to_string()
                        } else if super::simt::atomic(&func.name).is_some() {
                            format!(
                                "the old value of `{}` inside a larger expression (keep it whole: `int old = {}(…);`)",
                                func.name, func.name
                            )
                        } else {
                            format!("the built-in `{}`", func.name)
                        };
                        diags.push(not_lowered(codes::NOT_LOWERED_MATH, m.expr_span(x), &what));
                    }
                }
            });
        }
    }
}

/// Whether `e` is a variable or a composition (`a # b`) of variables only: the composed
/// `.chunkat` indices the lowering translates.
fn composes_names(m: &crate::ir::Module, e: crate::ir::ExprId) -> bool {
    match &m.exprs[e] {
        Expr::Name(_) => true,
        Expr::Compose { outer, inner } => composes_names(m, *outer) && composes_names(m, *inner),
        _ => false,
    }
}

/// The element type and static dimensions of the fresh shared buffer that `dma.copy` futures
/// named `name` copy into (`f = dma.copy … => shared;`), when every such copy has one.
fn fresh_future_shape(cx: &Cx, name: &str) -> Option<(DType, Vec<i64>)> {
    let m = cx.m;
    let mut found: Option<(DType, Vec<i64>)> = None;
    for s in all_stmts(m) {
        if let Stmt::Ext(ExtStmt::DmaFuture {
            tma: false,
            bind: Some(f),
            dst,
            ..
        }) = &m.stmts[s]
            && f.name == name
        {
            if !matches!(dst, CopyDst::Fresh(MemSpace::Shared)) {
                return None;
            }
            let (shape, dtype) = super::fresh_shape(m, &cx.res.bindings, s)?;
            let dims = shape
                .iter()
                .map(|d| cx.sym_value(d))
                .collect::<Option<Vec<i64>>>()?;
            match &found {
                Some(f) if *f != (dtype, dims.clone()) => return None,
                _ => found = Some((dtype, dims)),
            }
        }
    }
    found
}

/// Whether the kernel has what puts a kernel on the TMA/WGMMA path (a TMA copy, an `mma`, or
/// an event) — unless all its `mma`s are warp-level, which the SIMT path lowers — whose helpers
/// do not include the SIMT copies a `dma.copy` future uses.
fn on_tma_path(m: &crate::ir::Module) -> bool {
    all_stmts(m).into_iter().any(|s| {
        matches!(
            m.stmts[s],
            Stmt::TmaCopy { .. } | Stmt::Mma { .. } | Stmt::MmaLoad { .. } | Stmt::EventDecl { .. }
        )
    })
}

/// Whether the statements of `body` may run on some lanes of a warp while the others idle:
/// each is work a thread does alone ([`per_thread`]), or a `parallel` or a synchronous
/// `inthreads` of such statements.
fn idle_lanes_allowed(cx: &Cx, body: &[crate::ir::StmtId]) -> bool {
    body.iter().all(|&s| match &cx.m.stmts[s] {
        Stmt::Parallel { body, .. }
        | Stmt::InThreads {
            is_async: false,
            body,
            ..
        } => idle_lanes_allowed(cx, body),
        _ => per_thread(cx, &[s]),
    })
}

/// The `.view(…)` and `.from(…)` expressions of statement `s` that lower: a window placed by
/// `.from`, of a global tensor, that is a whole source or destination of a `dma.copy` (whose
/// cooperative copies bound it by the tensor's extents, as any tile past the edge).
fn global_windows(cx: &Cx, s: crate::ir::StmtId) -> Vec<crate::ir::ExprId> {
    use crate::ir::ViewOp;
    let m = cx.m;
    let operands = match &m.stmts[s] {
        Stmt::DmaCopy { src, dst, .. } => {
            let mut v = vec![*src];
            if let CopyDst::Expr(d) = dst {
                v.push(*d);
            }
            v
        }
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for e in operands {
        if let Expr::View {
            op: ViewOp::From,
            base,
            ..
        } = &m.exprs[e]
            && matches!(
                m.exprs[*base],
                Expr::View {
                    op: ViewOp::Window,
                    ..
                }
            )
            && root_space(cx, e) == Some(MemSpace::Global)
        {
            out.extend([e, *base]);
        }
    }
    out
}

/// Whether `f = dma.copy.swiz<N> src => shared;` (statement `s`, synchronous, on the TMA/WGMMA
/// path) lowers: the block's threads run it together, `src` is a 2-D tile of global memory
/// with a compile-time shape, and its rows are one swizzle span (`N` bytes), the layout a
/// WGMMA descriptor of that swizzle reads.
fn swizzled_future_lowers(
    cx: &Cx,
    s: crate::ir::StmtId,
    modifiers: &[(crate::ir::Ident, Vec<crate::ir::ExprId>)],
    src: crate::ir::ExprId,
) -> bool {
    let m = cx.m;
    let [(name, args)] = modifiers else {
        return false;
    };
    let swz = match args.as_slice() {
        [a] if name.name == "swiz" => cx.value(*a),
        _ => None,
    };
    let Some((tile, dtype)) = super::fresh_tile(m, &cx.res.bindings, src) else {
        return false;
    };
    let global = matches!(root_space(cx, src), Some(MemSpace::Global));
    let row = tile
        .get(1)
        .and_then(|d| cx.sym_value(d))
        .map(|c| c * dtype.size_bytes() as i64);
    global
        && tile.len() == 2
        && matches!(swz, Some(32 | 64 | 128))
        && row == swz
        && block_uniform(cx, s)
}

/// Whether `e` is the first tile of a tensor, `t.subspan(…).at(0, …)` (as the parser writes a
/// bare `.subspan` copy operand): a future of a copy into it names `t`, whose elements it
/// indexes from the tile's own origin.
fn first_tile(m: &crate::ir::Module, e: crate::ir::ExprId) -> bool {
    match &m.exprs[e] {
        Expr::View {
            op: crate::ir::ViewOp::At,
            base,
            args,
        } => {
            args.iter().all(|&a| matches!(m.exprs[a], Expr::Int(0)))
                && matches!(&m.exprs[*base], Expr::View { op: crate::ir::ViewOp::Subspan, base, .. } if matches!(m.exprs[*base], Expr::Name(_)))
        }
        _ => false,
    }
}

/// Whether `s` is a `dma.transp` / `dma.pad` copy the SIMT path lowers
/// (`lower/dma_transform.rs`): synchronous or `.async` (the block's threads copy it as it is
/// issued: a `wait` on its future only synchronizes), its one modifier a well-formed transform, between
/// global and shared memory (either way, or within one), into a fresh `=> shared` buffer, a
/// tensor a future names or, without a future, any view; each tile the same for the block's
/// threads, which copy it together.
fn transform_lowers(cx: &Cx, s: crate::ir::StmtId) -> bool {
    let m = cx.m;
    let Stmt::Ext(ExtStmt::DmaFuture {
        tma: false,
        bind,
        modifiers,
        src,
        dst,
        after: None,
        ..
    }) = &m.stmts[s]
    else {
        return false;
    };
    let uniform = |e| super::mma_uniform::varying(cx, e, crate::ir::Level::Block, 0).is_none();
    let on_chip_or_global =
        |e| matches!(root_space(cx, e), Some(MemSpace::Global | MemSpace::Shared));
    let dst_ok = match (bind, dst) {
        (Some(_), CopyDst::Fresh(MemSpace::Shared)) => true,
        (Some(_), CopyDst::Expr(d)) => {
            matches!(m.exprs[*d], Expr::Name(_)) && on_chip_or_global(*d)
        }
        (None, CopyDst::Expr(d)) => on_chip_or_global(*d) && uniform(*d),
        _ => false,
    };
    let rank = super::fresh_tile(m, &cx.res.bindings, *src).map(|(t, _)| t.len());
    cx.lowering_path() == super::LoweringPath::Simt
        && modifiers.len() == 1
        && rank.is_some_and(|r| super::Transform::of(m, modifiers, r).is_some())
        && on_chip_or_global(*src)
        && uniform(*src)
        && dst_ok
}

/// The memory space of the tensor a view expression starts from.
pub(crate) fn root_space(cx: &Cx, e: crate::ir::ExprId) -> Option<MemSpace> {
    let m = cx.m;
    match &m.exprs[e] {
        Expr::View { base, .. } | Expr::Field { base, .. } | Expr::Index { base, .. } => {
            root_space(cx, *base)
        }
        Expr::Name(_) => match cx.res.bindings.get(&e)? {
            super::Binding::Param(i) => m.kernel.params.get(*i).map(|p| p.space),
            super::Binding::Tensor(d, _) => match &m.stmts[*d] {
                Stmt::TensorDecl { space, .. } => Some(*space),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// Whether every thread of the block runs statement `s` together, as one copy into one buffer:
/// it is under `: block` levels and loops only (no `if`/`inthreads`, no level that splits the
/// block into warps or threads, which would each load their own tile into the one buffer). A
/// synchronous copy into a fresh buffer on the TMA path waits at block-wide barriers.
/// Whether the `{v}` initializer of tensor declaration `decl` lowers (`lower/simt.rs`
/// `fill_decl`), on the SIMT path: a plain (not `frag`) register tensor, which its thread
/// fills, or a shared one that every thread of the block declares — under `parallel` levels
/// and loops whose extents do not differ between the threads, in no branch — which the
/// block's threads fill together (`Some(false)`: a shared one declared elsewhere; `None`: no
/// such tensor).
fn init_lowers(cx: &Cx, decl: crate::ir::StmtId) -> Option<bool> {
    let m = cx.m;
    let frag = m
        .decl_ext
        .iter()
        .any(|x| matches!(x, crate::ir::DeclExt::Frag { decl: d } if *d == decl));
    let Stmt::TensorDecl { space, .. } = &m.stmts[decl] else {
        return None;
    };
    if frag || cx.lowering_path() != super::LoweringPath::Simt {
        return None;
    }
    let uniform = |e| super::mma_uniform::varying(cx, e, crate::ir::Level::Block, 0).is_none();
    match space {
        MemSpace::Local => Some(true),
        MemSpace::Shared => Some(enclosing(m, decl).iter().all(|&t| match &m.stmts[t] {
            Stmt::Parallel { .. } => true,
            Stmt::Foreach { extents, .. } => extents.iter().all(|&x| uniform(x)),
            _ => false,
        })),
        MemSpace::Global => None,
    }
}

/// The statements around `s`, outermost first.
fn enclosing(m: &crate::ir::Module, s: crate::ir::StmtId) -> Vec<crate::ir::StmtId> {
    fn path(
        m: &crate::ir::Module,
        b: &[crate::ir::StmtId],
        s: crate::ir::StmtId,
        out: &mut Vec<crate::ir::StmtId>,
    ) -> bool {
        for &t in b {
            if t == s {
                return true;
            }
            out.push(t);
            if super::stmt_blocks(&m.stmts[t])
                .into_iter()
                .any(|inner| path(m, inner, s, out))
            {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut above = Vec::new();
    path(m, &m.kernel.body, s, &mut above);
    above
}

pub(crate) fn block_uniform(cx: &Cx, s: crate::ir::StmtId) -> bool {
    let m = cx.m;
    // A level inside the block that is the whole block (every inner level of the kernel of
    // one thread, warp or warpgroup: `parallel by 1 : group-4`) splits nothing.
    let one_group = all_stmts(m).into_iter().all(|p| match &m.stmts[p] {
        Stmt::Parallel { levels, .. } => levels.iter().all(|l| {
            l.level == crate::ir::Level::Block
                || l.extents.iter().all(|&x| cx.static_value(x) == Some(1))
        }),
        _ => true,
    });
    let levels_ok = cx.res.chains.get(&s).is_none_or(|c| {
        c.iter().all(|l| {
            cx.level(*l)
                .is_some_and(|pl| pl.level == crate::ir::Level::Block || one_group)
        })
    });
    levels_ok
        && enclosing(m, s)
            .iter()
            .all(|&t| matches!(m.stmts[t], Stmt::Parallel { .. } | Stmt::Foreach { .. }))
}

/// WGMMA operand fragments (`x = mma.load …`) bound twice under one name in one block: the
/// lowering declares each as a C++ constant of that name (a second binding in a nested block is
/// fine: it shadows).
fn frag_rebinds(m: &crate::ir::Module, b: &crate::ir::Block, diags: &mut Diagnostics) {
    let mut first: std::collections::HashMap<&str, crate::ir::StmtId> =
        std::collections::HashMap::new();
    for &s in b {
        match &m.stmts[s] {
            Stmt::MmaLoad { name, .. } => {
                if let Some(&f) = first.get(name.name.as_str()) {
                    diags.push(
                        Diagnostic::new(
                            codes::NOT_LOWERED_FRAG_REBIND,
                            name.span,
                            format!(
                                "not supported yet: `{}` loaded again in the block that loaded it",
                                name.name
                            ),
                        )
                        .with_note(m.stmt_span(f), "the first load")
                        .with_help(
                            "give the second load its own name, or load it in a block of its own",
                        ),
                    );
                } else {
                    first.insert(&name.name, s);
                }
            }
            Stmt::Parallel { body, .. }
            | Stmt::Foreach { body, .. }
            | Stmt::InThreads { body, .. } => frag_rebinds(m, body, diags),
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                frag_rebinds(m, then_body, diags);
                if let Some(e) = else_body {
                    frag_rebinds(m, e, diags);
                }
            }
            _ => {}
        }
    }
}

/// Copies the lowering makes with barriers of the whole block, under a condition some threads
/// of the block skip. A TMA load that completes on no event (`tma.copy g => s;`, or
/// `f = tma.copy.async …` whose future no `trigger … after` binds to one) is synchronous: thread 0 issues it on a barrier of
/// the kernel's own, after a barrier of the whole block, and every thread of the block waits for
/// it. Under `inthreads`, or an `if` whose condition may differ between threads
/// (`super::events::block_uniform`), the threads outside never reach those barriers, and thread
/// 0 may not be inside to issue it: the kernel would hang (E1692). A `dma.copy` to or from
/// shared memory is cooperative: every thread of the block copies its share of the tile
/// between such barriers, so under the condition part of the tile is never copied (E1693).
fn divergent_sync_loads(
    cx: &Cx,
    b: &[crate::ir::StmtId],
    guard: Option<crate::ir::StmtId>,
    diags: &mut Diagnostics,
) {
    let m = cx.m;
    let bound = super::events::bound_copies(m);
    let of_param = |e: crate::ir::ExprId| {
        let mut root = e;
        while let Expr::View { base, .. } | Expr::Index { base, .. } = &m.exprs[root] {
            root = *base;
        }
        matches!(cx.res.bindings.get(&root), Some(super::Binding::Param(i))
            if m.kernel.params.get(*i).is_some_and(|p| !p.shape.is_empty()))
    };
    // The memory space of the tensor a copy operand views (a tensor parameter is global).
    let space_of = |e: crate::ir::ExprId| {
        let mut root = e;
        while let Expr::View { base, .. } | Expr::Index { base, .. } = &m.exprs[root] {
            root = *base;
        }
        match cx.res.bindings.get(&root)? {
            super::Binding::Param(i) => m
                .kernel
                .params
                .get(*i)
                .filter(|p| !p.shape.is_empty())
                .map(|p| p.space),
            super::Binding::Tensor(d, _) => match &m.stmts[*d] {
                Stmt::TensorDecl { space, .. } => Some(*space),
                _ => None,
            },
            _ => None,
        }
    };
    let cond_span = |g: crate::ir::StmtId| match &m.stmts[g] {
        Stmt::InThreads { cond, .. }
        | Stmt::If { cond, .. }
        | Stmt::Ext(ExtStmt::While { cond, .. }) => m.expr_span(*cond),
        Stmt::Foreach { extents, .. } => extents
            .iter()
            .find(|&&e| !super::events::block_uniform(cx, e))
            .map_or(m.stmt_span(g), |&e| m.expr_span(e)),
        _ => m.stmt_span(g),
    };
    for &s in b {
        let st = &m.stmts[s];
        // A multicast load bound to a future is E1341 already.
        if let (
            Stmt::TmaCopy {
                event: None,
                src,
                bind,
                ..
            },
            Some(g),
        ) = (st, guard)
            && of_param(*src)
            && !bound.contains_key(&s)
            && !(bind.is_some() && m.is_multicast(s))
        {
            let cond = cond_span(g);
            diags.push(
                Diagnostic::new(
                    codes::NOT_LOWERED_DIVERGENT_SYNC_TMA,
                    m.stmt_span(s),
                    "not supported yet: a TMA load that completes on no event, under a condition that may differ between the threads of the block (tessel issues it from thread 0 and waits for it with barriers of the whole block, which the threads outside never reach)",
                )
                .with_note(cond, "the condition")
                .with_help("let it complete on an event the branch waits on: `tma.copy.async<full> … => s;` then `wait full;`, or `f = tma.copy.async …; trigger full after f;`"),
            );
        }
        // A `dma.copy` between global or shared memory and shared memory: every thread of the
        // block copies its share of the tile, between barriers of the whole block.
        let cooperative = match st {
            Stmt::DmaCopy { src, dst, .. }
            | Stmt::Ext(ExtStmt::DmaFuture {
                tma: false,
                src,
                dst,
                ..
            }) => {
                let dst_space = match dst {
                    CopyDst::Expr(d) => space_of(*d),
                    CopyDst::Fresh(sp) => Some(*sp),
                };
                let spaces = [space_of(*src), dst_space];
                !spaces.contains(&Some(MemSpace::Local)) && spaces.contains(&Some(MemSpace::Shared))
            }
            _ => false,
        };
        if let (true, Some(g)) = (cooperative, guard) {
            diags.push(
                Diagnostic::new(
                    codes::NOT_LOWERED_DIVERGENT_DMA,
                    m.stmt_span(s),
                    "not supported yet: a `dma.copy` to or from shared memory under a condition that may differ between the threads of the block (tessel has every thread of the block copy a share of the tile, between barriers of the whole block)",
                )
                .with_note(cond_span(g), "the condition")
                .with_help("move the copy before the `inthreads` / `if` (every thread then helps), or copy with `tma.copy.async<e>` from one thread and `wait e;`"),
            );
        }
        let inner = match st {
            Stmt::InThreads { .. } => Some(s),
            Stmt::If { cond, .. } | Stmt::Ext(ExtStmt::While { cond, .. })
                if !super::events::block_uniform(cx, *cond) =>
            {
                Some(s)
            }
            // A loop whose trip count differs between threads.
            Stmt::Foreach { extents, .. }
                if !extents.iter().all(|&e| super::events::block_uniform(cx, e)) =>
            {
                Some(s)
            }
            _ => guard,
        };
        for blk in super::stmt_blocks(st) {
            divergent_sync_loads(cx, blk, inner, diags);
        }
    }
}

/// Names declared again inside a nested `parallel`: the lowering emits a nested level's body in
/// its parent's C++ scope, so the inner declaration would redeclare the outer one. `names` holds
/// the declarations of the current C++ scope with the nesting depth of the `parallel` body that
/// made each (a second one at the same depth is the resolver's E0103).
fn parallel_shadows<'m>(
    m: &'m crate::ir::Module,
    b: &crate::ir::Block,
    names: &mut Vec<(&'m str, usize, crate::span::Span)>,
    depth: usize,
    diags: &mut Diagnostics,
) {
    let declare = |name: &'m crate::ir::Ident,
                   names: &mut Vec<(&'m str, usize, crate::span::Span)>,
                   diags: &mut Diagnostics| {
        if let Some(&(_, d, first)) = names.iter().find(|(n, _, _)| *n == name.name)
            && d != depth
        {
            diags.push(
                Diagnostic::new(
                    codes::NOT_LOWERED_PARALLEL_SHADOW,
                    name.span,
                    format!(
                        "not supported yet: `{}` declared again inside a nested `parallel` (its body shares the enclosing level's C++ scope)",
                        name.name
                    ),
                )
                .with_note(first, "the enclosing declaration")
                .with_help("give the inner declaration its own name"),
            );
        }
        names.push((&name.name, depth, name.span));
    };
    for &s in b {
        match &m.stmts[s] {
            Stmt::TensorDecl { names: ds, .. } | Stmt::EventDecl { names: ds, .. } => {
                for d in ds {
                    declare(&d.name, names, diags);
                }
            }
            Stmt::ScalarDecl { name, .. } | Stmt::Let { name, .. } => declare(name, names, diags),
            Stmt::Parallel { body, .. } => parallel_shadows(m, body, names, depth + 1, diags),
            Stmt::Foreach { body, .. } | Stmt::InThreads { body, .. } => {
                parallel_shadows(m, body, &mut Vec::new(), depth + 1, diags)
            }
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                parallel_shadows(m, then_body, &mut Vec::new(), depth + 1, diags);
                if let Some(e) = else_body {
                    parallel_shadows(m, e, &mut Vec::new(), depth + 1, diags);
                }
            }
            _ => {}
        }
    }
}

/// The gate's finding for an element type no lowering handles: the 6- and 4-bit floats have a
/// code of their own (`E1635`) and say what to do instead; the others are `E1301`.
fn dtype_not_lowered(dtype: DType, span: crate::span::Span) -> Diagnostic {
    if matches!(dtype, DType::F6E2M3 | DType::F6E3M2 | DType::F4E2M1) {
        return Diagnostic::new(
            codes::NOT_LOWERED_FP6_FP4,
            span,
            format!("not supported yet: the 6-/4-bit float element type `{dtype}`"),
        )
        .with_help(
            "no lowering stores or converts f6/f4 values yet: give the kernel f8_e4m3/f8_e5m2 \
             (WGMMA operands) or f16/bf16 data converted on the host; `tessel check` accepts it",
        );
    }
    Diagnostic::new(
        codes::NOT_LOWERED_DTYPE,
        span,
        format!("not supported yet: element type `{dtype}`"),
    )
    .with_help(
        "`tessel check` accepts it; emitting a kernel needs a lowering tessel does not have yet",
    )
}

/// Whether every statement of `body` is work a thread does alone: scalars, element updates,
/// register tiles and copies with a register side, branches and loops of such statements,
/// atomic updates, fences — nothing that waits for, or is shared with, other threads.
pub(crate) fn per_thread(cx: &Cx, body: &[crate::ir::StmtId]) -> bool {
    let m = cx.m;
    let local = |e: crate::ir::ExprId| match super::sparse::root_binding(cx, e) {
        Some(super::Binding::Tensor(d, _)) => matches!(
            m.stmts[d],
            Stmt::TensorDecl {
                space: MemSpace::Local,
                ..
            }
        ),
        _ => false,
    };
    body.iter().all(|&s| match &m.stmts[s] {
        Stmt::Assign { .. } | Stmt::ScalarDecl { .. } | Stmt::Let { .. } => true,
        Stmt::TensorDecl { space, .. } => *space == MemSpace::Local,
        Stmt::If {
            then_body,
            else_body,
            ..
        } => per_thread(cx, then_body) && else_body.as_ref().is_none_or(|e| per_thread(cx, e)),
        Stmt::Foreach { body, .. } | Stmt::Ext(ExtStmt::While { body, .. }) => per_thread(cx, body),
        // A jump's own rules are `jumps.rs`'s.
        Stmt::Ext(ExtStmt::Jump { .. }) => true,
        Stmt::DmaCopy { src, dst, .. } => {
            local(*src) || matches!(dst, CopyDst::Expr(d) if local(*d))
        }
        Stmt::Ext(ExtStmt::Call { func, .. }) => super::simt::atomic(&func.name).is_some(),
        // A fence orders this thread's own memory operations.
        Stmt::Ext(ExtStmt::Sync {
            kind: crate::ir::SyncKind::Fence,
            ..
        }) => true,
        _ => false,
    })
}
