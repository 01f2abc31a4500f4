//! SIMT-path statements: the cooperative `dma.copy` of a global tile into shared memory.
//!
//! Every thread of the block copies a strided share of the tile with 16-byte `cp.async`
//! (LDGSTS) when the whole tile is in bounds and 16-byte aligned, and element by element with
//! zero fill otherwise (edges, odd leading dimensions). The statement is synchronous, as the
//! DSL says: a barrier before it (earlier readers of the buffer are done) and after it (the
//! tile is visible to every thread).

use super::LowerError;
use super::body::Emitter;
use super::cexpr::cpp_paren;
use crate::ir::{CopyDst, ExprId, MemSpace, StmtId};

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
    if sv.tensor.space != MemSpace::Global || dv.tensor.space != MemSpace::Shared {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy` lowers global → shared copies; other directions are not supported yet",
        ));
    }
    if sv.tile.len() != 2 {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.copy` lowers 2-D tiles",
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
    e.line(
        format!(
            "tsl_copy_g2s<{rows}, {cols}, {}, tsl_threads>({}, {}, {}, {}, {}, {});",
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
