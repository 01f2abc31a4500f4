//! `mma.row.col acc, a, b` with 16-bit operands: B is a `[K, N]` tile (MN-major) in a swizzled
//! shared buffer whose rows of N elements are one swizzle span (the checker's swizzle rules).
//! The WGMMA reads it through the same descriptor as a K-major tile (rows SWIZ bytes apart,
//! 8-row groups 8 · SWIZ bytes apart) with the instruction's B transpose set; a K-step of 16 is
//! 16 rows of B, so B's descriptor advances by 16 · SWIZ bytes per step (A, K-major, by 32 bytes
//! from shared memory, or 4 registers per thread when A is a register fragment). The wrappers
//! are generated per (accumulator, input, N) (`codegen-cuda/src/wgmma_tb.rs`).

use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::Call;
use super::scope::FragKind;
use super::wgmma_issue::desc_cpp;
use crate::check::IdentRole;
use crate::ir::{DType, Ident, StmtId};
use crate::sym::Sym;

pub fn mma(
    e: &mut Emitter,
    s: StmtId,
    (acc, a, b): (&Ident, &Ident, &Ident),
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let Some(FragKind::Acc { n, dtype }) = e.frag(s, IdentRole::Acc) else {
        return Err(LowerError::new(
            acc.span,
            format!("`{}` is not an accumulator", acc.name),
        ));
    };
    let Some(FragKind::Desc { .. }) = e.frag(s, IdentRole::B) else {
        return Err(LowerError::new(
            b.span,
            "the MN-major B operand of a WGMMA is a shared tile",
        ));
    };
    // The swizzle of the tile B's `mma.load` reads (the checker's binding of the operand).
    let swz = match e.info.idents.get(&(s, IdentRole::B)) {
        Some(crate::check::Binding::Frag(def)) => e.swizzle.get(def).cloned(),
        _ => None,
    }
    .unwrap_or(Sym::Int(0));
    if swz == Sym::Int(0) {
        return Err(LowerError::new(
            b.span,
            "an MN-major B operand is read from a swizzled tile",
        ));
    }
    let acc_ty = if dtype == DType::F32 { "f32" } else { "f16" };
    let (in_ty, k, regs) = match e.frag(s, IdentRole::A) {
        Some(FragKind::Desc { dtype, k }) => (dtype, k, None),
        Some(FragKind::ARegs { dtype, k, regs }) => (dtype, k, Some(regs)),
        _ => {
            return Err(LowerError::new(
                a.span,
                format!("`{}` is not an `mma.load` operand", a.name),
            ));
        }
    };
    let family = if regs.is_some() { "rstb" } else { "tb" };
    let key = (acc_ty.to_string(), format!("{family}_{}", in_ty.name()));
    if !e.wgmma_types.contains(&key) {
        e.wgmma_types.push(key);
    }
    if !e.wgmma_ns.contains(&n) {
        e.wgmma_ns.push(n.clone());
    }
    let op = CExpr::Template {
        name: format!("tsl_wgmma_{family}_{acc_ty}_{}", in_ty.name()),
        targs: vec![CExpr::sym(&n)],
    };
    let steps = Sym::bin(crate::ir::BinaryOp::Div, k, Sym::Int(16));
    let b_cpp = desc_cpp(&b.name);
    let what = |a_cpp: &str| {
        format!(
            "{} += {a_cpp}·{b_cpp} (B MN-major: wgmma m64nNk16 with B transposed, N = {}), {} K-steps of 16",
            acc.name,
            n.to_cpp(),
            steps.to_cpp()
        )
    };
    match regs {
        Some(regs) => {
            let k_steps = Call::new("tsl_wgmma_rstb_k_steps")
                .targs([op, CExpr::sym(&steps), CExpr::sym(&swz)])
                .args([CExpr::var(&acc.name), CExpr::var(&regs), CExpr::var(&b_cpp)]);
            super::wgmma_issue::register_a_issue(e, s, &regs, k_steps, &what(&regs), line);
        }
        None => {
            let a_cpp = desc_cpp(&a.name);
            e.call(
                Call::new("tsl_wgmma_fence"),
                Some("the accumulators are ordered before this batch of WGMMAs"),
                line,
            );
            e.call(
                Call::new("tsl_wgmma_tb_k_steps")
                    .targs([op, CExpr::sym(&steps), CExpr::sym(&swz)])
                    .args([
                        CExpr::var(&acc.name),
                        CExpr::var(&a_cpp),
                        CExpr::var(&b_cpp),
                    ]),
                Some(&what(&a_cpp)),
                line,
            );
            e.wgmma_uncommitted = true;
            if m.mma_async(s).is_some() {
                super::wgmma_issue::commit_async(e, line);
            }
        }
    }
    Ok(())
}
