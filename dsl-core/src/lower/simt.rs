//! SIMT-path statements: `dma.copy`, `dma.wait` and `reduce`.
//!
//! A `dma.copy` global → shared is cooperative: every thread of the block copies a strided share
//! of the tile with 16-byte `cp.async` (LDGSTS) when the whole tile is in bounds and 16-byte
//! aligned, and element by element with zero fill otherwise (edges, odd leading dimensions).
//! Into a `.transpose()`d shared tile it is cooperative too, with 16-byte global loads
//! (LDG.E.128) and a transposed store. The synchronous forms are synchronous, as the DSL says: a
//! barrier before the first copy (earlier readers of the buffer are done) and after the last one
//! (the tile is visible to every thread). `dma.copy.async` leaves the copy in flight until a
//! `dma.wait N` (at most N copies of this thread still in flight, then a barrier).
//!
//! `dma.copy.async … => t.transpose()` is staged through registers: the issue is the 16-byte
//! loads into a per-destination `tsl_stage_t` (declared once at the top of the kernel body), and
//! the copy lands — the transposed shared stores — at the next `dma.wait`, so the loads overlap
//! whatever runs in between (the register-prefetch double buffer of hand-written SGEMMs). An
//! async copy right after a barrier (a `dma.wait`) or right after another async copy needs no
//! barrier of its own.
//!
//! A copy with a `local` side moves one thread's register tile (`super::regtile`).
//!
//! A `dma.copy` shared → global is a cooperative guarded store of the shared tile, between two
//! barriers. A 1-D tile on either side of a cooperative copy is one row of a 2-D one.
//!
//! Inside a loop, the entry of a shared tensor array whose index does not change in the loop
//! (`b_s[kt % 2]` in `foreach {k}`) is computed once, before the loop ([`hoist_entries`]): NVVM
//! otherwise folds the stage offset into every fragment address (with OR, when the stage stride
//! is a power of two) and recomputes each one instead of using immediate offsets.
//!
//! `reduce.sum x : group` is a butterfly all-reduce over the warp's 32 lanes (SHFL.BFLY).

use super::cxx::{CExpr, COp, CType, comma_list};
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, Line, Op};
use super::lowered::{
    Body, G2S, G2S_ASYNC, G2S_N, G2S_T, S2G, S2G_N, Stage, TILE_HELPERS, WAIT, WAIT_ALL,
};
use super::rows::Rows2;
use crate::ir::{CopyDst, Expr, ExprId, Ident, Level, MemSpace, Module, ReduceOp, Stmt, StmtId};
use std::fmt::Write as _;

pub fn dma_copy(
    e: &mut Emitter,
    s: StmtId,
    is_async: bool,
    src: ExprId,
    dst: &CopyDst,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let sv = e.cx().view(src)?;
    let CopyDst::Expr(d) = dst else {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy … => shared` (a fresh buffer) is not supported yet; declare the shared tensor and copy into it",
        ));
    };
    let dv = e.cx().view(*d)?;
    if e.info.per_thread_copies.contains(&s) {
        return super::regtile::per_thread(e, &sv, src, &dv, *d, line);
    }
    if sv.tensor.space == MemSpace::Local || dv.tensor.space == MemSpace::Local {
        if is_async {
            return Err(LowerError::new(
                m.expr_span(src),
                "a copy into or out of registers is per thread and synchronous; drop `.async`",
            ));
        }
        return super::regtile::copy(e, &sv, src, &dv, *d, line);
    }
    if (sv.tensor.space, dv.tensor.space) == (MemSpace::Shared, MemSpace::Global) && !is_async {
        return store_tile(e, src, &sv, &dv, line);
    }
    if sv.tensor.space != MemSpace::Global || dv.tensor.space != MemSpace::Shared {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy` lowers global ↔ shared, global ↔ local and shared ↔ local copies; other directions are not supported yet",
        ));
    }
    let zfill = matches!(m.stmts[s], Stmt::DmaCopy { zfill: true, .. });
    g2s(e, (is_async, zfill), src, sv, dv, Some(*d), line)
}

/// The cooperative global → shared copy of `dma_copy` (`d`: the destination's expression, for
/// diagnostics; `None` for a future's fresh buffer), `.zfill` or not.
fn g2s(
    e: &mut Emitter,
    (is_async, zfill): (bool, bool),
    src: ExprId,
    sv: super::cexpr::View,
    dv: super::cexpr::View,
    d: Option<ExprId>,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    if e.path == super::kernel::KernelPath::Hopper && dv.tensor.dtype == crate::ir::DType::U8 {
        return super::sparse::byte_copy(e, src, &sv, &dv, line);
    }
    let g = match Rows2::of(&sv) {
        Some(g) if !sv.transposed && (!dv.transposed || sv.tile.len() == 2) => g,
        _ => {
            return Err(LowerError::new(
                m.expr_span(src),
                "`dma.copy` into shared memory lowers tiles made of rows (a transposed one 2-D)",
            ));
        }
    };
    let p = sv.tensor.param.unwrap_or(0);
    e.pointer_params.insert(p);
    let (mut rows, mut cols) = (g.rows.clone(), g.cols.clone());
    let (mut tensor_rows, mut tensor_cols) = (g.tensor_rows.clone(), g.tensor_cols.clone());
    // `.zfill` of a source tile smaller than the destination (`check::zero_filled`): the copy
    // fills the destination's tile and reads the source only within its tile's extent, zeros
    // past it.
    let predicated =
        zfill && sv.tile.len() <= 2 && dv.tile.len() == sv.tile.len() && sv.tile != dv.tile;
    if predicated {
        let bound = |tensor: CExpr, start: &CExpr, extent: &crate::sym::Sym| {
            let end = if start.is_zero() {
                CExpr::sym(extent)
            } else {
                start.clone().add(CExpr::sym(extent))
            };
            match (tensor.as_int(), end.as_int()) {
                (Some(a), Some(b)) => CExpr::int(a.min(b)),
                _ => CExpr::call("min", vec![tensor, end]),
            }
        };
        let last = sv.tile.len() - 1;
        if last == 1 && sv.tile[0] != dv.tile[0] {
            rows = CExpr::sym(&dv.tile[0]);
            tensor_rows = bound(tensor_rows, &g.r0, &sv.tile[0]);
        }
        if sv.tile[last] != dv.tile[last] {
            cols = CExpr::sym(&dv.tile[last]);
            tensor_cols = bound(tensor_cols, &g.c0, &sv.tile[last]);
        }
    }
    let ld = if sv.tile.len() == 1 {
        cols.clone()
    } else {
        CExpr::sym_operand(&dv.tensor.ld())
    };
    let barrier = if is_async {
        !follows_barrier_or_async_copy(e)
    } else {
        !e.pending_dma
    };
    if barrier {
        e.barrier_before_shared_writes(Some("earlier readers of the destinations are done"), line);
    }
    if launch_sized(m, &[&rows, &cols, &ld]) {
        if dv.transposed {
            return Err(LowerError::new(
                m.expr_span(d.unwrap_or(src)),
                "a transposed copy into a shared tile sized at launch is not supported",
            ));
        }
        let call = launch_sized_copy(
            G2S_N,
            [rows, cols, ld],
            [dv.tile_ptr(), g.ptr, g.r0, g.c0, tensor_rows, tensor_cols],
        );
        if is_async {
            e.async_launch_sized.push(call.clone());
        } else {
            e.pending_dma = true;
            e.pending_cp_async = true;
        }
        e.call(call, None, line);
        return Ok(());
    }
    let helper = match (dv.transposed, is_async) {
        (true, _) => G2S_T,
        (false, true) => G2S_ASYNC,
        (false, false) => G2S,
    };
    let targs = vec![rows, cols, ld, CExpr::var("tsl_threads")];
    let mut args = Vec::new();
    if dv.transposed && is_async {
        // One register stage per destination tensor: every async copy into it has one shape.
        let stage = Stage {
            tensor: dv.tensor.name.clone(),
            targs: targs.clone(),
            ty: super::cexpr::scalar_type(dv.tensor.dtype),
            dsl_line: line,
        };
        if let Some(other) = e
            .stages
            .iter()
            .find(|o| o.tensor == stage.tensor && o.targs != stage.targs)
        {
            return Err(LowerError::new(
                m.expr_span(d.unwrap_or(src)),
                format!(
                    "the async copies into `{}.transpose()` share one register stage, so they need one tile shape: `<{}>` here, `<{}>` before",
                    dv.tensor.name,
                    comma_list(&stage.targs),
                    comma_list(&other.targs)
                ),
            ));
        }
        args.push(CExpr::var(stage.var()));
        if !e.stages.iter().any(|o| o.tensor == stage.tensor) {
            e.stages.push(stage);
        }
    }
    args.extend([dv.tile_ptr(), g.ptr, g.r0, g.c0, tensor_rows, tensor_cols]);
    let call = Call::new(helper).targs(targs).args(args);
    if is_async
        && !predicated
        && let Some(cond) = super::even::grid_tile_conditions(e.info, src, &sv)
    {
        e.even_copies.push((call.clone(), cond));
    }
    e.call(call, None, line);
    if !is_async {
        // Waited for (with one barrier) before the next statement that is not a copy.
        e.pending_dma = true;
        e.pending_cp_async = true;
    }
    Ok(())
}

/// `f = dma.copy[.async] src => shared;` (a fresh buffer named `f`, placed by the `memory`
/// pass) or `f = dma.copy[.async] src => t;`: the copy of [`dma_copy`], after which `f` names
/// the destination tensor (`f.data`, `f.chunkat(…)`, `wait f`).
pub fn future_copy(
    e: &mut Emitter,
    s: StmtId,
    f: &Ident,
    is_async: bool,
    src: ExprId,
    dst: &CopyDst,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let tensor = match dst {
        CopyDst::Fresh(MemSpace::Shared) => {
            declare_fresh(e, f, line)?;
            e.scopes.cpp_tensor(&f.name).cloned().ok_or_else(|| {
                LowerError::new(f.span, "internal: a fresh shared buffer without a slot")
            })?
        }
        CopyDst::Expr(d) => match &m.exprs[*d] {
            Expr::Name(n) => e.cx().tensor(*d).cloned().ok_or_else(|| {
                LowerError::new(m.expr_span(*d), format!("`{n}` is not a tensor"))
            })?,
            // A tensor's first tile (`check/support.rs`): the future names the tensor, whose
            // elements the tile's own indices reach from the same origin.
            _ => e.cx().view(*d)?.tensor,
        },
        CopyDst::Fresh(MemSpace::Local) => {
            let t = declare_fresh_local(e, f, src, line)?;
            e.scopes.declare(
                crate::check::Binding::Future(s),
                super::scope::Local::Tensor(t.clone()),
            );
            let sv = e.cx().view(src)?;
            return super::regtile::copy(e, &sv, src, &super::cexpr::View::whole(t), src, line);
        }
        CopyDst::Fresh(space) => {
            return Err(LowerError::new(
                f.span,
                format!("a future's fresh buffer is `=> shared` or `=> local`, not `=> {space}`"),
            ));
        }
    };
    e.scopes.declare(
        crate::check::Binding::Future(s),
        super::scope::Local::Tensor(tensor.clone()),
    );
    let dst_expr = match dst {
        CopyDst::Expr(d) => *d,
        // This thread's own buffer: it copies its tile alone.
        _ if e.info.per_thread_copies.contains(&s) => {
            let sv = e.cx().view(src)?;
            let dv = super::cexpr::View::whole(tensor);
            return super::regtile::per_thread(e, &sv, src, &dv, src, line);
        }
        // The fresh buffer is the whole tensor `f`: copy into it by name.
        _ => return copy_into_named(e, is_async, src, &tensor, line),
    };
    dma_copy(e, s, is_async, src, &CopyDst::Expr(dst_expr), line)
}

/// The pointer `T* f` to the fresh shared buffer of future `f` (its slot), declared here and
/// put in scope, unless a pointer of that name is already in scope. A rebinding of the name
/// (`f = dma.copy … => shared;` again, in a loop) copies through the same pointer.
pub(super) fn declare_fresh(
    e: &mut Emitter,
    f: &Ident,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let declared = e
        .scopes
        .cpp_tensor(&f.name)
        .is_some_and(|t| t.name == f.name && t.space == MemSpace::Shared);
    if declared {
        return Ok(());
    }
    let slot =
        e.mem.slot(&f.name).cloned().ok_or_else(|| {
            LowerError::new(f.span, "internal: a fresh shared buffer without a slot")
        })?;
    let (dtype, shape) = e
        .mem
        .fresh(&f.name)
        .map(|(d, sh)| (d, sh.to_vec()))
        .ok_or_else(|| LowerError::new(f.span, "internal: a fresh buffer without a shape"))?;
    let ty = super::cexpr::scalar_type(dtype);
    // A buffer that is each thread's own: this thread's copy of it.
    let own = e.info.own_buffer(&f.name);
    let (offset, note) = match own {
        Some(b) => {
            let bytes = b
                .slot_bytes(e.m)
                .map_err(|_| LowerError::new(f.span, "internal: a fresh buffer without a shape"))?;
            (
                CExpr::var(&slot.offset_name)
                    .add(CExpr::builtin("threadIdx", "x").mul(CExpr::sym(&bytes))),
                "the future's fresh buffer: this thread's own",
            )
        }
        None => (CExpr::var(&slot.offset_name), "the future's fresh buffer"),
    };
    e.emit(
        Op::SharedPtr {
            ty: ty.into(),
            name: f.name.clone(),
            offset,
        },
        Some(note),
        line,
    );
    e.scopes.insert_cpp(
        &f.name,
        super::scope::Local::Tensor(super::scope::TensorLocal {
            name: f.name.clone(),
            space: MemSpace::Shared,
            dtype,
            shape,
            count: None,
            param: None,
            squeezed: None,
        }),
    );
    Ok(())
}

/// The register array `T f[N]` of future `f = dma.copy src => local;`, of the source tile's
/// shape (`check::fresh_tile`), declared here — unless an array of that name and shape is
/// already in scope (the name rebound to a tile of the same shape copies into it again).
fn declare_fresh_local(
    e: &mut Emitter,
    f: &Ident,
    src: ExprId,
    line: Option<u32>,
) -> Result<super::scope::TensorLocal, LowerError> {
    let (shape, dtype) = crate::check::fresh_tile(e.m, &e.info.bindings, src).ok_or_else(|| {
        LowerError::new(
            e.m.expr_span(src),
            "a fresh register array needs a source tile of compile-time shape",
        )
    })?;
    if let Some(t) = e.scopes.cpp_tensor(&f.name)
        && t.name == f.name
        && t.space == MemSpace::Local
        && t.shape == shape
    {
        return Ok(t.clone());
    }
    let t = super::scope::TensorLocal {
        name: f.name.clone(),
        space: MemSpace::Local,
        dtype,
        shape,
        count: None,
        param: None,
        squeezed: None,
    };
    e.emit(
        Op::Array {
            ty: super::cexpr::scalar_type(dtype).into(),
            name: f.name.clone(),
            len: CExpr::sym(&t.elems()),
        },
        Some("the future's registers"),
        line,
    );
    e.scopes
        .insert_cpp(&f.name, super::scope::Local::Tensor(t.clone()));
    Ok(t)
}

/// At the start of the outermost `parallel`: the buffers of the futures some `swap` renames,
/// so that each name keeps its buffer across loop iterations (a pointer declared inside a
/// loop body would start over each iteration).
pub fn declare_swapped(e: &mut Emitter, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    let mut names: Vec<Ident> = Vec::new();
    for s in crate::check::all_stmts(m) {
        if let Stmt::Ext(crate::ir::ExtStmt::Swap { a, b }) = &m.stmts[s] {
            for n in [a, b] {
                if !names.iter().any(|x| x.name == n.name) {
                    names.push(n.clone());
                }
            }
        }
    }
    for n in &names {
        declare_fresh(e, n, line)?;
    }
    Ok(())
}

/// `println("x = ", x);` (`print` without the newline): device `printf`, integers as `%d` and
/// element values as `%f` (converted to f32, passed as `double` as C varargs do).
pub fn println(
    e: &mut Emitter,
    args: &[crate::ir::PrintArg],
    newline: bool,
    line: Option<u32>,
) -> Result<(), LowerError> {
    use super::cexpr::Ty;
    let mut fmt = String::new();
    let mut values = Vec::new();
    for a in args {
        match a {
            crate::ir::PrintArg::Str(s) => {
                // The literal as written (its escapes are C's), `%` doubled, anything else than
                // printable ASCII as octal escapes.
                for c in s.chars() {
                    match c {
                        '%' => fmt.push_str("%%"),
                        c if c.is_ascii() && !c.is_ascii_control() => fmt.push(c),
                        c => {
                            let mut buf = [0u8; 4];
                            for b in c.encode_utf8(&mut buf).bytes() {
                                // An octal escape of the C string literal.
                                let _ = write!(fmt, "\\{b:03o}");
                            }
                        }
                    }
                }
            }
            crate::ir::PrintArg::Expr(x) => {
                let (v, t) = e.cx().value(*x)?;
                match t {
                    Ty::Int => {
                        fmt.push_str("%d");
                        values.push(CExpr::Cast("int", Box::new(v.paren())));
                    }
                    _ => {
                        fmt.push_str("%f");
                        let f32 = super::cexpr::convert(v, t, crate::ir::DType::F32);
                        values.push(CExpr::Cast("double", Box::new(f32.paren())));
                    }
                }
            }
        }
    }
    if newline {
        fmt.push_str("\\n");
    }
    let args = std::iter::once(CExpr::Str(fmt)).chain(values);
    e.call(Call::new("printf").args(args), None, line);
    Ok(())
}

/// `f = dma.any;`: the placeholder's buffer pointer (the copies bound to `f` later fill it).
pub fn any_future(e: &mut Emitter, f: &Ident, line: Option<u32>) -> Result<(), LowerError> {
    declare_fresh(e, f, line)
}

/// `swap(a, b);`: the two futures exchange their buffers — a swap of the two pointers, no
/// data moves.
pub fn swap_futures(
    e: &mut Emitter,
    a: &Ident,
    b: &Ident,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let ty = match (e.scopes.cpp_tensor(&a.name), e.scopes.cpp_tensor(&b.name)) {
        (Some(ta), Some(tb)) if ta.space == MemSpace::Shared && tb.space == MemSpace::Shared => {
            super::cexpr::scalar_type(ta.dtype)
        }
        _ => {
            return Err(LowerError::new(
                a.span,
                "internal: `swap` of futures without fresh shared buffers",
            ));
        }
    };
    let swap = Op::SwapPtrs {
        ty: ty.into(),
        a: CExpr::var(&a.name),
        b: CExpr::var(&b.name),
    };
    e.emit(swap, None, line);
    Ok(())
}

/// [`dma_copy`] of `src` into the whole shared tensor `t` (a future's fresh buffer).
fn copy_into_named(
    e: &mut Emitter,
    is_async: bool,
    src: ExprId,
    t: &super::scope::TensorLocal,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let sv = e.cx().view(src)?;
    let dv = super::cexpr::View::whole(t.clone());
    g2s(e, (is_async, false), src, sv, dv, None, line)
}

/// `wait f;` for a `dma.copy` future: this thread's copies into `f` have landed and are visible
/// to the block. The copies of one thread complete in order, one `cp.async` group each, so the
/// copies issued right before this `wait` (in its block, after the last copy into a name this
/// run of `wait`s names) may stay in flight: `wait cur; ` after `next = dma.copy.async …;`
/// waits for all groups but one. A second `wait` right after one (`wait a, b;`) needs nothing
/// more.
pub fn wait_futures(e: &mut Emitter, s: StmtId, line: Option<u32>) {
    // A future of a synchronous copy has completed when its copy statement ended.
    if let Stmt::Wait { event } = &e.m.stmts[s]
        && matches!(e.m.exprs[*event], Expr::Name(_))
        && synchronous_future(e, *event)
    {
        return;
    }
    let pending = in_flight_after(e.m, &e.info.per_thread_copies, s).min(7);
    let n = e.lines.len();
    let waited = n >= 2
        && matches!(e.lines[n - 1].op, Op::Barrier)
        && e.lines[n - 2].op.call().is_some_and(|c| {
            c.name == WAIT_ALL
                || (c.name == WAIT
                    && c.targs
                        .first()
                        .and_then(CExpr::as_int)
                        .is_some_and(|p| p <= pending as i64))
        });
    if waited {
        return;
    }
    let call = if pending == 0 {
        Call::new(WAIT_ALL)
    } else {
        Call::new(WAIT).targs([CExpr::int(pending as i64)])
    };
    e.call(call, None, line);
    e.barrier(Some("the futures' tiles are visible to every thread"), line);
}

/// Whether `s` is a future's copy that completes as it is issued, `.async` or not, and so makes
/// no `cp.async` group: a `dma.transp` / `dma.pad` (the block's threads copy it), or a copy into
/// the thread's own buffer (`per_thread`: the thread copies it alone).
fn copied_as_issued(m: &Module, per_thread: &[StmtId], s: StmtId) -> bool {
    match &m.stmts[s] {
        Stmt::Ext(crate::ir::ExtStmt::DmaFuture { modifiers, .. }) => {
            crate::check::Transform::named(modifiers) || per_thread.contains(&s)
        }
        _ => false,
    }
}

/// How many asynchronous `dma.copy` futures statement `s` (a `wait`) may leave in flight: the
/// copies right before the run of `wait`s that holds `s`, in the same block, up to the first
/// statement that is not an asynchronous future copy or that copies into a name the run waits
/// for. A transform and a copy into the thread's own buffer (`per_thread`) are no `cp.async`
/// group: they are passed over ([`copied_as_issued`]).
fn in_flight_after(m: &Module, per_thread: &[StmtId], s: StmtId) -> usize {
    fn find(m: &Module, b: &[StmtId], s: StmtId) -> Option<Vec<StmtId>> {
        if b.contains(&s) {
            return Some(b.to_vec());
        }
        b.iter().find_map(|&t| {
            crate::check::stmt_blocks(&m.stmts[t])
                .into_iter()
                .find_map(|inner| find(m, inner, s))
        })
    }
    let Some(block) = find(m, &m.kernel.body, s) else {
        return 0;
    };
    let at = block.iter().position(|&t| t == s).unwrap_or(0);
    let waited_name = |t: StmtId| match &m.stmts[t] {
        Stmt::Wait { event } => match &m.exprs[*event] {
            Expr::Name(n) => Some(n.clone()),
            _ => None,
        },
        _ => None,
    };
    // The run of `wait`s around `s`.
    let mut first = at;
    while first > 0 && waited_name(block[first - 1]).is_some() {
        first -= 1;
    }
    let mut last = at;
    while last + 1 < block.len() && waited_name(block[last + 1]).is_some() {
        last += 1;
    }
    let names: Vec<String> = block[first..=last]
        .iter()
        .filter_map(|&t| waited_name(t))
        .collect();
    let mut count = 0;
    for &t in block[..first].iter().rev() {
        match &m.stmts[t] {
            _ if copied_as_issued(m, per_thread, t) => {}
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                tma: false,
                is_async: true,
                bind: Some(f),
                ..
            }) if !names.contains(&f.name) => count += 1,
            _ => break,
        }
    }
    count
}

/// `dma.copy tile_s => out.subspan(R, C).at(i, j);`: every thread of the block stores a
/// strided share of the shared tile into the global tile (elements outside the tensor are not
/// written). Synchronous: a barrier before (the tile's writers are done) and one after (its
/// readers are done before anything writes the shared tile again).
fn store_tile(
    e: &mut Emitter,
    src: ExprId,
    sv: &super::cexpr::View,
    dv: &super::cexpr::View,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let Some(g) = Rows2::of(dv) else {
        return Err(LowerError::new(
            e.m.expr_span(src),
            "a shared → global `dma.copy` lowers tiles made of rows",
        ));
    };
    let p = dv.tensor.param.unwrap_or(0);
    e.pointer_params.insert(p);
    e.written_params.insert(p);
    // The cooperative copies that filled the tile must have landed (a synchronous one right
    // before leaves its wait to the next statement that is not a copy: this one reads them).
    e.flush_dma();
    let ld = if sv.tile.len() == 1 {
        g.cols.clone()
    } else {
        CExpr::sym_operand(&sv.tensor.ld())
    };
    e.barrier_unless_last(Some("the shared tile's writers are done"), line);
    let extents = [g.rows, g.cols, ld];
    let args = [
        g.ptr,
        g.r0,
        g.c0,
        g.tensor_rows,
        g.tensor_cols,
        sv.tile_ptr(),
    ];
    let call = if launch_sized(e.m, &extents.each_ref()) {
        launch_sized_copy(S2G_N, extents, args)
    } else {
        let [rows, cols, ld] = extents;
        Call::new(S2G)
            .targs([rows, cols, ld, CExpr::var("tsl_threads")])
            .args(args)
    };
    e.call(call, None, line);
    e.barrier(Some("the shared tile's readers are done"), line);
    Ok(())
}

/// The call of `helper` (a copy of [`LAUNCH_SIZED`](super::lowered::LAUNCH_SIZED)) with the
/// tile's extents (rows, columns, row pitch) leading its arguments.
fn launch_sized_copy(helper: &str, extents: [CExpr; 3], args: [CExpr; 6]) -> Call {
    Call::new(helper)
        .targs([CExpr::var("tsl_threads")])
        .args(extents.into_iter().chain(args))
}

/// Whether a cooperative copy's tile extents (rows, columns, row pitch) are known only at launch:
/// they name a problem size or a scalar parameter, not only tunables and constants. Such a
/// copy passes them as arguments ([`G2S_N`], [`S2G_N`]) rather than template parameters.
fn launch_sized(m: &Module, extents: &[&CExpr]) -> bool {
    let mut names = std::collections::BTreeSet::new();
    for x in extents {
        x.names(&mut names);
    }
    names
        .iter()
        .any(|n| m.tunable(n).is_none() && m.constant(n).is_none())
}

/// Whether the last node emitted is a barrier, or an async cooperative copy (a sync one leaves
/// `pending_dma` set): then the threads are already past every earlier reader of shared memory,
/// or the copy before this one emitted the barrier that covers both.
fn follows_barrier_or_async_copy(e: &Emitter) -> bool {
    // A shared tensor's pointer (a future's fresh buffer declared right before its copy) reads
    // no memory.
    e.lines
        .iter()
        .rev()
        .find(|l| !matches!(l.op, Op::SharedPtr { .. }))
        .is_some_and(|l| match &l.op {
            Op::Barrier => true,
            Op::Call(c) => {
                !e.pending_dma && [G2S, G2S_ASYNC, G2S_T, G2S_N].contains(&c.name.as_str())
            }
            _ => false,
        })
}

/// Pass `helpers`: [`G2S_ASYNC`] (the interior fast path) lives in `simt_tiles.cuh`; a kernel
/// that calls nothing else from that file takes [`G2S`] (`simt.cuh`), which does the same copy.
pub fn select_copy_helpers(body: &mut Body) {
    let lines = &mut body.lines;
    let calls = |l: &Line| l.op.call().map(|c| c.name.clone());
    // A warp-level `mma` kernel keeps the fast copies: its K loop is all copies and MMAs.
    if lines
        .iter()
        .filter_map(calls)
        .any(|n| TILE_HELPERS.contains(&n.as_str()) || super::warp::HELPERS.contains(&n.as_str()))
    {
        return;
    }
    for l in lines.iter_mut() {
        if let Op::Call(c) = &mut l.op
            && c.name == G2S_ASYNC
        {
            c.name = G2S.to_string();
        }
    }
}

/// Pass `async-copies` for the nodes `lines[start..end]` of one `parallel` body: the register
/// stages of `dma.copy.async … => t.transpose()` issued there are declared at `start` (once,
/// before the loops that issue and land them), and every `dma.wait` in the range lands every
/// stage just before it waits; the body drains its copies before it ends.
pub fn finish_async_copies(e: &mut Body, start: usize, end: usize) {
    let stages: Vec<Stage> = e
        .stages
        .iter()
        .filter(|st| {
            e.lines[start..end]
                .iter()
                .any(|l| l.op.call().is_some_and(|c| st.issued_by(c)))
        })
        .cloned()
        .collect();
    // Drained already when the range's last full wait that every thread runs (not inside a
    // branch or loop of the body; an inner region's drain among them) comes after every copy
    // issued.
    let base = e.lines[start..end].iter().map(|l| l.indent).min();
    let last_drain = e.lines[start..end]
        .iter()
        .rposition(|l| Some(l.indent) == base && l.op.call().is_some_and(|c| c.name == WAIT_ALL));
    let issues = |l: &Line| {
        l.op.call().is_some_and(|c| {
            c.name == G2S_ASYNC
                || e.async_launch_sized.contains(c)
                || stages.iter().any(|st| st.issued_by(c))
        })
    };
    let issued = e.lines[start..end].iter().any(issues);
    let drained = last_drain.is_some_and(|i| !e.lines[start + i..end].iter().any(issues));
    if issued && !drained {
        // Copies issued ahead (the last iterations' prefetches) do not outlive the block.
        let indent = e.lines[end].indent;
        e.lines.insert(
            end,
            Line {
                note: Some("no async copy outlives the block".into()),
                ..Line::new(indent, Op::Call(Call::new(WAIT_ALL)))
            },
        );
    }
    // Lands before every wait that does not have them yet (from the back: indices stay valid).
    let waits: Vec<usize> = (start..end)
        .filter(|&i| e.lines[i].op.call().is_some_and(|c| c.name == WAIT))
        .collect();
    for &w in waits.iter().rev() {
        let (indent, dsl_line) = (e.lines[w].indent, e.lines[w].dsl_line);
        let before: Vec<&Call> = e.lines[..w]
            .iter()
            .rev()
            .map_while(|l| l.op.call().filter(|c| is_land(c)))
            .collect();
        let missing: Vec<Call> = stages
            .iter()
            .rev()
            .map(Stage::land)
            .filter(|c| !before.contains(&c))
            .collect();
        for c in missing {
            e.lines.insert(
                w,
                Line {
                    indent,
                    op: Op::Call(c),
                    dsl_line,
                    note: Some("the transposed copy in flight lands".into()),
                },
            );
        }
    }
    let indent = e.lines[start].indent;
    for st in stages.iter().rev() {
        let decl = Op::Decl {
            ty: CType::Template {
                name: "tsl_stage_t",
                targs: st
                    .targs
                    .iter()
                    .cloned()
                    .chain([CExpr::Type(st.ty)])
                    .collect(),
            },
            name: st.var(),
            init: None,
        };
        if e.lines.iter().any(|l| l.op == decl) {
            continue;
        }
        e.lines.insert(
            start,
            Line {
                indent,
                op: decl,
                dsl_line: st.dsl_line,
                note: Some("registers of the async transposed copies in flight".into()),
            },
        );
    }
}

/// `tsl_copy_g2s_t<…>(tsl_stage_x);`: a stage landing (an issue passes more arguments).
fn is_land(c: &Call) -> bool {
    c.name == G2S_T && c.args.len() == 1
}

/// The loop-invariant shared array entries of a SIMT loop with body `body`: for each,
/// the C++ of the entry pointer, a name for it, its element type and the tensor. Entries whose
/// index names a declaration of the loop (its variables, or anything declared inside), as the
/// checker binds the names, are not.
pub fn hoist_entries(e: &Emitter, body: &[StmtId]) -> Vec<(CExpr, String, &'static str, String)> {
    let m = e.m;
    // The loop's own statement: the `foreach` whose body this is (statement ids are unique).
    let this_loop = crate::check::all_stmts(m).into_iter().find(
        |&s| matches!(&m.stmts[s], Stmt::Foreach { body: b, .. } if !body.is_empty() && b.as_slice() == body),
    );
    let mut inside: Vec<StmtId> = this_loop.into_iter().collect();
    let mut indexed = Vec::new();
    walk(m, body, &mut inside, &mut indexed);
    let varies = |x: ExprId| {
        let mut any = false;
        crate::check::walk_expr(m, x, &mut |n| {
            if matches!(m.exprs[n], Expr::Name(_))
                && e.info
                    .bindings
                    .get(&n)
                    .and_then(declaration)
                    .is_some_and(|d| inside.contains(&d))
            {
                any = true;
            }
        });
        any
    };
    let mut out: Vec<(CExpr, String, &'static str, String)> = Vec::new();
    for ix in indexed {
        let Expr::Index { base, index } = &m.exprs[ix] else {
            continue;
        };
        let Expr::Name(tensor) = &m.exprs[*base] else {
            continue;
        };
        let shared_array = e
            .cx()
            .tensor(*base)
            .is_some_and(|t| t.space == MemSpace::Shared && t.count.is_some());
        if !shared_array || varies(*index) {
            continue;
        }
        let Ok(v) = e.cx().view(ix) else { continue };
        let text = v.entry_ptr_expr();
        // Hoisted already by an enclosing loop, or seen here.
        if v.hoisted.is_some() || out.iter().any(|h| h.0 == text) {
            continue;
        }
        // A name no earlier node declares (sibling loops hoist into the same C++ scope).
        let name = (0..)
            .map(|n| match n {
                0 => format!("tsl_{tensor}_at"),
                _ => format!("tsl_{tensor}_at{n}"),
            })
            .find(|name| {
                !e.lines
                    .iter()
                    .any(|l| l.op.declared() == Some(name.as_str()))
                    && !out.iter().any(|h| h.1 == *name)
            })
            .unwrap_or_default();
        out.push((
            text,
            name,
            super::cexpr::scalar_type(v.tensor.dtype),
            tensor.clone(),
        ));
    }
    out
}

/// The `base[index]` expressions of `stmts` (recursively), and the statements they are in.
fn walk(m: &Module, stmts: &[StmtId], inside: &mut Vec<StmtId>, out: &mut Vec<ExprId>) {
    for &s in stmts {
        inside.push(s);
        let st = &m.stmts[s];
        for x in crate::check::stmt_exprs(st) {
            indexes(m, x, out);
        }
        match st {
            Stmt::Foreach { body, .. } | Stmt::Parallel { body, .. } => walk(m, body, inside, out),
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                walk(m, then_body, inside, out);
                if let Some(b) = else_body {
                    walk(m, b, inside, out);
                }
            }
            Stmt::InThreads { body, .. } => walk(m, body, inside, out),
            _ => {}
        }
    }
}

/// The statement that declares what `b` names.
fn declaration(b: &crate::check::Binding) -> Option<StmtId> {
    use crate::check::Binding;
    match *b {
        Binding::LoopVar { stmt, .. } | Binding::ParallelVar { stmt, .. } => Some(stmt),
        Binding::Let(s)
        | Binding::Scalar(s)
        | Binding::Tensor(s, _)
        | Binding::Event(s, _)
        | Binding::Frag(s)
        | Binding::Future(s) => Some(s),
        _ => None,
    }
}

fn indexes(m: &Module, x: ExprId, out: &mut Vec<ExprId>) {
    match &m.exprs[x] {
        Expr::Index { base, .. } => {
            out.push(x);
            indexes(m, *base, out);
        }
        Expr::View { base, .. } | Expr::Field { base, .. } => indexes(m, *base, out),
        _ => {}
    }
}

/// `dma.wait N;`
pub fn dma_wait(e: &mut Emitter, pending: ExprId, line: Option<u32>) -> Result<(), LowerError> {
    let n = e.cx().sym(pending)?;
    e.call(Call::new(WAIT).targs([CExpr::sym(&n)]), None, line);
    e.barrier(Some("the landed tiles are visible to every thread"), line);
    Ok(())
}

/// `local f32 [4] a {v};`, `shared s32 [8] b {0};`: every element (of every array entry) of
/// tensor `t` starts at the value. A register array is its thread's: a loop over its elements,
/// unrolled. A shared buffer is the block's (`check::support` admits one every thread of the
/// block declares): its threads fill a strided share, then a barrier makes the values visible
/// before any thread reads or writes the buffer.
pub fn fill_decl(
    e: &mut Emitter,
    t: &super::scope::TensorLocal,
    value: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let (v, ty) = e.cx().value(value)?;
    let v = super::cexpr::convert(v.clone(), ty, t.dtype);
    let n = crate::sym::Sym::mul(
        t.count.clone().unwrap_or(crate::sym::Sym::Int(1)),
        t.elems(),
    );
    let note = format!("every element of `{}` starts at {v}", t.name);
    let shared = t.space == MemSpace::Shared;
    if shared {
        // Earlier readers of the buffer's memory are done (a buffer of an enclosing loop's
        // last iteration).
        e.barrier_before_shared_writes(Some("earlier readers of the buffer are done"), line);
        e.open(
            Op::For {
                var: "tsl_i".into(),
                init: CExpr::builtin("threadIdx", "x"),
                bound: CExpr::sym(&n),
                step: Some(tsl_i().bin(COp::AddAssign, CExpr::var("tsl_threads"))),
            },
            Some(&note),
            line,
        );
    } else {
        e.emit(Op::Unroll(None), None, None);
        e.open(
            Op::For {
                var: "tsl_i".into(),
                init: CExpr::int(0),
                bound: CExpr::sym(&n),
                step: None,
            },
            Some(&note),
            line,
        );
    }
    e.emit(
        Op::Assign {
            place: CExpr::var(&t.name).index(tsl_i()),
            value: v,
        },
        None,
        line,
    );
    e.close(None);
    if shared {
        e.barrier(Some("the initial values are visible to every thread"), line);
    }
    Ok(())
}

/// `tsl_i`, the element index of a cooperative loop.
fn tsl_i() -> CExpr {
    CExpr::var("tsl_i")
}

/// `reduce.<op> x : group;`
pub fn reduce(
    e: &mut Emitter,
    op: ReduceOp,
    target: &Ident,
    level: Level,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let x = CExpr::var(&target.name);
    // `tsl_warp_sum`, `tsl_block_max`, …; the block's take its thread count.
    let call = match level {
        Level::Block => {
            Call::new(format!("tsl_block_{}", op.name())).targs([CExpr::var("tsl_threads")])
        }
        _ => Call::new(format!("tsl_warp_{}", op.name())),
    };
    let what = match level {
        Level::Block => "across every thread of the block",
        _ => "across the 32 lanes of the warp",
    };
    e.call(call.args([x.clone()]).assign(x), Some(what), line);
    Ok(())
}

#[cfg(test)]
#[path = "simt_tests.rs"]
mod tests;

/// At the start of the `: block` level: each output whose initializer the blocks apply to
/// their own chunks (`check::block_owned`) gets the value in this block's chunk
/// `output.chunkat(bm, bn, …)` — a cooperative, bounds-checked fill over the block's threads —
/// and a barrier, before any thread reads or writes it.
pub fn fill_owned_outputs(e: &mut Emitter, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    for x in &m.decl_ext {
        // An initializer nothing observes needs no fill.
        if crate::check::unobservable(m, None, x) {
            continue;
        }
        let Some(fill) = crate::check::block_owned(m, None, x) else {
            continue;
        };
        let p = &m.kernel.params[fill.param];
        let t = match e.scopes.decl(&crate::check::Binding::Param(fill.param)) {
            Some(super::scope::Local::Tensor(t)) => t.clone(),
            _ => {
                return Err(LowerError::new(
                    p.name.span,
                    "internal: an output without a tensor in scope",
                ));
            }
        };
        // Per dimension: the chunk's extent and first index.
        let mut chunk: Vec<crate::sym::Sym> = Vec::new();
        let mut origin: Vec<CExpr> = Vec::new();
        for (d, owned) in fill.dims.iter().enumerate() {
            let full = t.shape[d].clone();
            let (b, c) = match owned {
                crate::check::Owned::Whole => {
                    chunk.push(full);
                    origin.push(CExpr::int(0));
                    continue;
                }
                crate::check::Owned::Chunk(b, composed) => {
                    let ext = e.geo.var(b).map(|v| v.extent.clone()).ok_or_else(|| {
                        LowerError::new(p.name.span, format!("internal: `{b}` has no extent"))
                    })?;
                    let c = match &ext {
                        crate::sym::Sym::Cdiv(dd, tt) if **dd == full && !composed => {
                            (**tt).clone()
                        }
                        other => crate::sym::Sym::bin(
                            crate::ir::BinaryOp::Div,
                            full.clone(),
                            other.clone(),
                        ),
                    };
                    (b, c)
                }
                crate::check::Owned::Tile(b, f) => {
                    let mut c = crate::sym::Sym::Int(1);
                    for &x in f {
                        c = crate::sym::Sym::mul(c, e.cx().sym(x)?);
                    }
                    (b, c)
                }
            };
            origin.push(CExpr::var(b).mul(CExpr::sym_operand(&c)));
            chunk.push(c);
        }
        let (v, ty) = e.cx().value(fill.value)?;
        let v = super::cexpr::convert(v.clone(), ty, p.dtype);
        let elems = chunk
            .iter()
            .cloned()
            .fold(crate::sym::Sym::Int(1), crate::sym::Sym::mul);
        e.pointer_params.insert(fill.param);
        e.written_params.insert(fill.param);
        e.open(
            Op::For {
                var: "tsl_i".into(),
                init: CExpr::builtin("threadIdx", "x"),
                bound: CExpr::sym(&elems),
                step: Some(tsl_i().bin(COp::AddAssign, CExpr::var("tsl_threads"))),
            },
            Some(&format!(
                "`{}` starts at {v}: this block's chunk of it, before any access",
                p.name.name
            )),
            line,
        );
        // Row-major coordinates of element `tsl_i` of the chunk, then of the tensor.
        let rank = chunk.len();
        let mut conds = Vec::new();
        let mut offset: Option<CExpr> = None;
        for d in 0..rank {
            let inner = chunk[d + 1..]
                .iter()
                .cloned()
                .fold(crate::sym::Sym::Int(1), crate::sym::Sym::mul);
            let q = if inner == crate::sym::Sym::Int(1) {
                tsl_i()
            } else {
                tsl_i().div(CExpr::sym_operand(&inner))
            };
            let c = if d == 0 {
                q
            } else {
                q.rem(CExpr::sym_operand(&chunk[d]))
            };
            let g = format!("tsl_g{d}");
            let at = Op::Decl {
                ty: "const int".into(),
                name: g.clone(),
                init: Some(origin[d].clone().add(c)),
            };
            e.emit(at, None, line);
            conds.push(CExpr::var(&g).lt(CExpr::sym_operand(&t.shape[d])));
            let stride = t.shape[d + 1..]
                .iter()
                .cloned()
                .fold(crate::sym::Sym::Int(1), crate::sym::Sym::mul);
            let term = if stride == crate::sym::Sym::Int(1) {
                CExpr::var(&g)
            } else {
                let wide = CExpr::Cast("long long", Box::new(CExpr::var(&g)));
                wide.mul(CExpr::sym_operand(&stride))
            };
            offset = Some(match offset {
                None => term,
                Some(o) => o.add(term),
            });
        }
        let store = Op::GuardedAssign {
            cond: CExpr::join(COp::And, conds).expect("a dimension"),
            place: t.ptr().index(offset.expect("a dimension")),
            value: v,
        };
        e.emit(store, None, line);
        e.close(line);
        e.barrier(
            Some("the chunk's initial values are visible to the block"),
            line,
        );
    }
    Ok(())
}

/// Whether the future the name `ev` denotes has completed when its copies ended: the checker's
/// binding of `ev` is its definition, and every copy that binds the variable — the definition
/// and the copies that bind the name again inside the definition's block (`x = dma.copy …` in a
/// loop, a rebinding of the one variable) — is synchronous (`f = dma.copy …`, `f = tma.copy …`
/// without `.async`), a transform (`dma.transp`, `dma.pad`, which the block copies as it is
/// issued) or a copy into the thread's own buffer (which it copies as it issues). A future of
/// the same name in another block is another variable.
fn synchronous_future(e: &Emitter, ev: ExprId) -> bool {
    let m = e.m;
    let Some(crate::check::Binding::Future(def)) = e.info.bindings.get(&ev) else {
        return false;
    };
    let bound = |st: &Stmt| -> Option<String> {
        match st {
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture { bind: Some(b), .. })
            | Stmt::TmaCopy { bind: Some(b), .. } => Some(b.name.clone()),
            Stmt::Ext(crate::ir::ExtStmt::AnyFuture { bind, .. }) => Some(bind.name.clone()),
            _ => None,
        }
    };
    let Some(name) = bound(&m.stmts[*def]) else {
        return false;
    };
    let Some(block) = enclosing_block(m, &m.kernel.body, *def) else {
        return false;
    };
    let mut any = false;
    for s in crate::check::stmts_within(m, block) {
        if bound(&m.stmts[s]).as_deref() != Some(name.as_str()) {
            continue;
        }
        match &m.stmts[s] {
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                is_async: false, ..
            }) => any = true,
            _ if copied_as_issued(m, &e.info.per_thread_copies, s) => any = true,
            _ => return false,
        }
    }
    any
}

/// The statement list that holds `s`.
fn enclosing_block<'m>(m: &'m Module, b: &'m [StmtId], s: StmtId) -> Option<&'m [StmtId]> {
    if b.contains(&s) {
        return Some(b);
    }
    b.iter().find_map(|&x| {
        crate::check::stmt_blocks(&m.stmts[x])
            .into_iter()
            .find_map(|inner| enclosing_block(m, inner, s))
    })
}
