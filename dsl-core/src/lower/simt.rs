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
//! A copy with a `local` side moves one thread's register tile ([`super::regtile`]).
//!
//! `reduce.sum x : group` is a butterfly all-reduce over the warp's 32 lanes (SHFL.BFLY).

use super::LowerError;
use super::body::Emitter;
use super::cexpr::cpp_paren;
use crate::ir::{CopyDst, ExprId, Ident, MemSpace, ReduceOp, StmtId};

pub fn dma_copy(
    e: &mut Emitter,
    _s: StmtId,
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
    if sv.tensor.space == MemSpace::Local || dv.tensor.space == MemSpace::Local {
        if is_async {
            return Err(LowerError::new(
                m.expr_span(src),
                "a copy into or out of registers is per thread and synchronous; drop `.async`",
            ));
        }
        return super::regtile::copy(e, &sv, src, &dv, *d, line);
    }
    if sv.tensor.space != MemSpace::Global || dv.tensor.space != MemSpace::Shared {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy` lowers global → shared, global ↔ local and shared ↔ local copies; other directions are not supported yet",
        ));
    }
    if sv.tile.len() != 2 || sv.transposed {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy` into shared memory lowers 2-D tiles",
        ));
    }
    if dv.transposed && is_async {
        return Err(LowerError::new(
            m.expr_span(*d),
            "a copy into a `.transpose()`d tile goes through registers and is synchronous; drop `.async`",
        ));
    }
    let p = sv.tensor.param.unwrap_or(0);
    e.pointer_params.insert(p);
    let (rows, cols) = (sv.tile[0].to_cpp(), sv.tile[1].to_cpp());
    let t = &sv.tensor;
    if !e.pending_dma {
        e.line(
            "__syncthreads();  // earlier readers of the destinations are done",
            line,
        );
    }
    let helper = if dv.transposed {
        "tsl_copy_g2s_t"
    } else {
        "tsl_copy_g2s"
    };
    e.line(
        format!(
            "{helper}<{rows}, {cols}, {}, tsl_threads>({}, {}, {}, {}, {}, {});",
            cpp_paren(&dv.tensor.ld()),
            dv.tile_ptr(),
            t.name,
            sv.origin[0],
            sv.origin[1],
            t.shape[0].to_cpp(),
            t.shape[1].to_cpp()
        ),
        line,
    );
    if !is_async {
        // Waited for (with one barrier) before the next statement that is not a copy.
        e.pending_dma = true;
    }
    Ok(())
}

/// `dma.wait N;`
pub fn dma_wait(e: &mut Emitter, pending: ExprId, line: Option<u32>) -> Result<(), LowerError> {
    let n = e.cx().sym(pending)?;
    e.line(format!("tsl_cp_async_wait<{}>();", n.to_cpp()), line);
    e.line(
        "__syncthreads();  // the landed tiles are visible to every thread",
        line,
    );
    Ok(())
}

/// `reduce.<op> x : group;`
pub fn reduce(
    e: &mut Emitter,
    op: ReduceOp,
    target: &Ident,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let f = match op {
        ReduceOp::Sum => "tsl_warp_sum",
        ReduceOp::Max => "tsl_warp_max",
    };
    e.line(
        format!(
            "{0} = {f}({0});  // across the 32 lanes of the warp",
            target.name
        ),
        line,
    );
    Ok(())
}
