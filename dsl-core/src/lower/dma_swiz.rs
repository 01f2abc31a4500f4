//! `f = dma.copy.swiz<N> src => shared;` on the TMA/WGMMA path: a synchronous copy of a 2-D
//! global tile into the future's fresh buffer, written in the swizzled layout a TMA load with
//! swizzle `N` produces — the layout the WGMMA descriptors of the buffer read. The block's
//! threads copy it together (`tsl_copy_g2s_swz`: 16-byte chunks, each stored at its swizzled
//! address, zeros past the tensor's edge as TMA gives), each orders its stores before the
//! async proxy's reads (`fence.proxy.async`), and a barrier publishes the tile. Unlike a TMA
//! load this reads any view the lowering can address — a rank-reducing `.sqz()` view of a 4-D
//! tensor, for one — with that view's own bounds.

use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::Call;
use crate::ir::{ExprId, Ident, MemSpace, StmtId};

/// The helper the copy calls (its section is selected by this name).
pub const SWIZZLED_G2S: &str = "tsl_copy_g2s_swz";

pub fn future_copy(
    e: &mut Emitter,
    s: StmtId,
    f: &Ident,
    src: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let sv = e.cx().view(src)?;
    if sv.tile.len() != 2 || sv.transposed || sv.tensor.space != MemSpace::Global {
        return Err(LowerError::new(
            e.m.expr_span(src),
            "`dma.copy.swiz` into a fresh buffer copies a 2-D tile of global memory",
        ));
    }
    // WGMMAs still reading an earlier tile of the buffer finish before it is overwritten.
    if e.wgmma_uncommitted {
        super::wgmma_issue::wgmma_commit_wait(
            e,
            line,
            "the WGMMAs above are done reading the buffer",
        );
    } else if e.wgmma_pending {
        super::hopper::wgmma_wait_all(e, line, "the WGMMAs above are done reading the buffer");
    }
    // Right after another such copy's closing barrier, that barrier already orders them.
    let after_barrier = matches!(
        e.lines.last().map(|l| &l.op),
        Some(super::kernel::Op::Barrier)
    );
    super::simt::declare_fresh(e, f, line)?;
    let t = e.scopes.cpp_tensor(&f.name).cloned().ok_or_else(|| {
        LowerError::new(f.span, "internal: a fresh shared buffer without a tensor")
    })?;
    let swz = e
        .swizzle
        .get(&s)
        .cloned()
        .unwrap_or(crate::sym::Sym::Int(0));
    if let Some(p) = sv.tensor.param {
        e.pointer_params.insert(p);
    }
    if !after_barrier {
        e.barrier(Some("earlier readers of the buffer are done"), line);
    }
    e.call(
        Call::new(SWIZZLED_G2S)
            .targs([
                CExpr::sym(&sv.tile[0]),
                CExpr::sym(&sv.tile[1]),
                CExpr::sym(&swz),
                CExpr::var("tsl_threads"),
            ])
            .args([
                CExpr::var(&t.name),
                sv.tensor.ptr(),
                sv.origin[0].clone(),
                sv.origin[1].clone(),
                CExpr::sym(&sv.tensor.shape[0]),
                CExpr::sym(&sv.tensor.shape[1]),
            ]),
        Some(&format!("swizzle {} B, zeros past the edge", swz.to_cpp())),
        line,
    );
    e.barrier(
        Some("the tile is visible to every thread and to the WGMMAs"),
        line,
    );
    Ok(())
}
