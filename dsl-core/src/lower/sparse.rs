//! Structured-sparse WGMMA: `mma.row.row.sp acc, a, b, meta;` → `wgmma.mma_async.sp`.
//!
//! - The metadata `mma.load` becomes a pointer to the first byte of the u8 metadata tile (row r
//!   of the tile: the 4-bit groups of dense row r of A, see `check/sparse.rs`); its row stride
//!   is recorded with the fragment.
//! - The `mma` is one call of `tsl_wgmma_sp_k_steps`: per K-step (64 bytes of dense K: 32
//!   columns of f16/bf16, 64 of 8-bit types) each thread reads its metadata word from the tile
//!   and issues `wgmma.mma_async.sp.m64nNkK`, with A's descriptor advanced by 32 bytes (the
//!   packed half of the step) and B's by 64.
//!
//! The checker accepted only the forms lowered here (`check/sparse.rs`), so the errors below
//! are lowering bugs, reported as such.

use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, Op};
use super::scope::{FragKind, Local};
use super::wgmma_issue::desc_cpp;
use crate::check::{Binding, IdentRole};
use crate::ir::{DType, ExprId, Ident, MemSpace, StmtId};
use crate::sym::Sym;

/// Whether the fragment `load` defines is the metadata operand of some sparse `mma`, by the
/// checker's binding of the operand.
pub fn is_meta(e: &Emitter, load: StmtId) -> bool {
    e.m.sparse
        .iter()
        .any(|sp| e.info.idents.get(&(sp.stmt, IdentRole::Meta)) == Some(&Binding::Frag(load)))
}

/// The C++ name of a metadata fragment: the user's name, or for a shared tile passed straight
/// to the `mma` (the parser's `direct$metadata<n>`) `tsl_meta<n>`.
fn meta_cpp(name: &str) -> String {
    match name.strip_prefix("direct$metadata") {
        Some(rest) => format!("tsl_meta{rest}"),
        None => name.to_string(),
    }
}

/// `meta = mma.load src;` where `meta` feeds a sparse `mma`: a byte pointer to the tile.
pub fn meta_load(
    e: &mut Emitter,
    s: StmtId,
    name: &Ident,
    src: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let v = e.cx().view(src)?;
    if v.tensor.space != MemSpace::Shared || v.tensor.dtype != DType::U8 {
        return Err(LowerError::new(
            e.m.expr_span(src),
            "sparsity metadata is read from a u8 shared tile",
        ));
    }
    let ld = v.tensor.ld();
    let meta = Op::Decl {
        ty: "const tsl_u8*".into(),
        name: meta_cpp(&name.name),
        init: Some(CExpr::call_t(
            "reinterpret_cast",
            vec![CExpr::Type("const tsl_u8*")],
            vec![v.tile_ptr()],
        )),
    };
    let why = format!(
        "sparsity metadata: 64 rows, {} bytes apart, 4 bits per 4 elements of A's K",
        ld.to_cpp()
    );
    e.emit(meta, Some(&why), line);
    e.scopes
        .declare(Binding::Frag(s), Local::Frag(FragKind::Meta { ld }));
    Ok(())
}

/// `mma.row.row.sp acc, a, b, meta;`: the fence and one `tsl_wgmma_sp_k_steps` call.
pub fn mma(
    e: &mut Emitter,
    s: StmtId,
    (acc, a, b, meta): (&Ident, &Ident, &Ident, &Ident),
    line: Option<u32>,
) -> Result<(), LowerError> {
    let Some(FragKind::Acc { n, dtype }) = e.frag(s, IdentRole::Acc) else {
        return Err(LowerError::new(
            acc.span,
            format!("`{}` is not an accumulator", acc.name),
        ));
    };
    let Some(FragKind::Desc { dtype: in_ty, .. }) = e.frag(s, IdentRole::A) else {
        return Err(LowerError::new(
            a.span,
            format!("`{}` is not an `mma.load` operand", a.name),
        ));
    };
    let Some(FragKind::Desc { k: bk, .. }) = e.frag(s, IdentRole::B) else {
        return Err(LowerError::new(
            b.span,
            format!("`{}` is not an `mma.load` operand", b.name),
        ));
    };
    let Some(FragKind::Meta { ld }) = e.frag(s, IdentRole::Meta) else {
        return Err(LowerError::new(
            meta.span,
            format!("`{}` is not sparsity metadata", meta.name),
        ));
    };
    let acc_ty = if dtype == DType::F32 { "f32" } else { "f16" };
    let key = (acc_ty.to_string(), format!("sp_{}", in_ty.name()));
    if !e.wgmma_types.contains(&key) {
        e.wgmma_types.push(key);
    }
    // One instruction takes 64 bytes of dense K.
    let ik = 64 / i64::from(in_ty.size_bytes());
    let steps = Sym::bin(crate::ir::BinaryOp::Div, bk, Sym::Int(ik));
    let op = CExpr::Template {
        name: format!("tsl_wgmma_sp_{acc_ty}_{}", in_ty.name()),
        targs: vec![CExpr::sym(&n)],
    };
    let (a_cpp, b_cpp, m_cpp) = (desc_cpp(&a.name), desc_cpp(&b.name), meta_cpp(&meta.name));
    e.call(
        Call::new("tsl_wgmma_fence"),
        Some("the accumulators are ordered before this batch of WGMMAs"),
        line,
    );
    e.call(
        Call::new("tsl_wgmma_sp_k_steps")
            .targs([op, CExpr::sym(&steps), CExpr::sym(&ld)])
            .args([
                CExpr::var(&acc.name),
                CExpr::var(&a_cpp),
                CExpr::var(&b_cpp),
                CExpr::var(&m_cpp),
            ]),
        Some(&format!(
            "{} += {a_cpp}·{b_cpp}ᵀ, A 2:4-sparse with metadata {m_cpp} (wgmma.sp m64nNk{ik}, N = {}), {} K-steps",
            acc.name,
            n.to_cpp(),
            steps.to_cpp()
        )),
        line,
    );
    e.wgmma_uncommitted = true;
    Ok(())
}

/// `dma.copy src => dst` of a u8 tile (the sparsity metadata) in a Hopper kernel: every thread
/// of the block copies a strided share of the bytes (outside the tensor a valid metadata byte,
/// positions 0 and 1, whose A values are zero), between two
/// barriers. Byte rows narrower than a 16-byte `cp.async` chunk (8 bytes for a 64-wide K tile)
/// are the common case here, so the copy is plain loads and stores.
pub fn byte_copy(
    e: &mut Emitter,
    src: ExprId,
    sv: &super::cexpr::View,
    dv: &super::cexpr::View,
    line: Option<u32>,
) -> Result<(), LowerError> {
    if sv.tile.len() != 2 || sv.transposed || dv.transposed {
        return Err(LowerError::new(
            e.m.expr_span(src),
            "a u8 tile copy in a Hopper kernel lowers 2-D row-major tiles",
        ));
    }
    let p = sv.tensor.param.unwrap_or(0);
    e.pointer_params.insert(p);
    let t = &sv.tensor;
    e.barrier(Some("earlier readers of the destination are done"), line);
    e.call(
        Call::new("tsl_copy_g2s_bytes")
            .targs([
                CExpr::sym(&sv.tile[0]),
                CExpr::sym(&sv.tile[1]),
                CExpr::sym_operand(&dv.tensor.ld()),
                CExpr::var("tsl_threads"),
            ])
            .args([
                dv.tile_ptr(),
                t.ptr(),
                sv.origin[0].clone(),
                sv.origin[1].clone(),
                CExpr::sym(&t.shape[0]),
                CExpr::sym(&t.shape[1]),
            ]),
        None,
        line,
    );
    e.barrier(Some("the bytes are visible to every thread"), line);
    Ok(())
}
