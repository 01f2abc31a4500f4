//! SIMT register tiles: `dma.copy` with a `local` side. Such a copy is per thread — each thread
//! moves its own tile between its registers and global or shared memory — and moves 16 bytes
//! per access where it can:
//!
//! | copy              | helper (lowering/simt_tiles.cuh) | vector access                      |
//! |-------------------|----------------------------------|------------------------------------|
//! | global → local    | `tsl_copy_g2r`                   | LDG.E.128, run-time alignment test |
//! | local → global    | `tsl_copy_r2g`                   | STG.E.128, run-time alignment test |
//! | shared → local    | `tsl_copy_tile`                  | LDS.128 when the origin is provably aligned |
//! | local → shared    | `tsl_copy_tile_st`               | STS.128 when the origin is provably aligned |
//! | local → local     | `tsl_copy_tile`                  | none                               |
//!
//! The copy walks the global/shared side's tile as `[ROWS, COLS]` (a 1-D tensor is one row);
//! the register side is addressed row-major with its own row pitch, or flat when it is 1-D
//! (so a `[1, 8]` tile copies into an `[8]` register tile). Shared-side alignment is a C++
//! constant expression over the tunables ([`View::aligned_cpp`]), decided per instantiation.

use super::cexpr::View;
use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::Call;
use crate::ir::{ExprId, MemSpace};
use crate::sym::Sym;

/// `[ROWS, COLS]` of a view, a 1-D view being one row; and the C++ (row, col) origin.
fn rows_cols(v: &View) -> (Sym, Sym, CExpr, CExpr) {
    match v.tile.len() {
        1 => (
            Sym::Int(1),
            v.tile[0].clone(),
            CExpr::int(0),
            v.origin[0].clone(),
        ),
        _ => (
            v.tile[0].clone(),
            v.tile[1].clone(),
            v.origin[0].clone(),
            v.origin[1].clone(),
        ),
    }
}

/// The global tensor's `[rows, cols]` as C++ (a 1-D tensor is one row).
fn global_extent(v: &View) -> (CExpr, CExpr) {
    let t = &v.tensor;
    match t.shape.len() {
        1 => (CExpr::int(1), CExpr::sym(&t.shape[0])),
        _ => (CExpr::sym(&t.shape[0]), CExpr::sym(&t.shape[1])),
    }
}

/// Row pitch of the register side for a `[rows, cols]` walk: its own pitch when it is 2-D
/// (its tile must then have as many rows), `cols` when it is 1-D (row-major flattening).
fn reg_pitch(
    e: &Emitter,
    reg: &View,
    rows: &Sym,
    cols: &Sym,
    at: ExprId,
) -> Result<Sym, LowerError> {
    match reg.tile.len() {
        1 => Ok(cols.clone()),
        2 if reg.tile[0] == *rows || *rows == Sym::Int(1) => Ok(reg.tensor.ld()),
        _ => Err(LowerError::new(
            e.m.expr_span(at),
            "a register tile copy pairs a 2-D register tile with a tile of the same rows, or a 1-D register tile with any tile; match the ranks",
        )),
    }
}

fn ptr_of(v: &View) -> CExpr {
    v.tile_ptr()
}

fn check_2d(e: &Emitter, v: &View, at: ExprId) -> Result<(), LowerError> {
    if v.tile.len() > 2 || v.tile.is_empty() {
        return Err(LowerError::new(
            e.m.expr_span(at),
            "register tile copies move 1-D and 2-D tiles",
        ));
    }
    if v.transposed {
        return Err(LowerError::new(
            e.m.expr_span(at),
            "`.transpose()` is lowered for cooperative global → shared copies only",
        ));
    }
    Ok(())
}

/// Lowers a per-thread `dma.copy` between `sv` (at `src`) and `dv` (at `dst`), one of which is
/// a register tile.
pub fn copy(
    e: &mut Emitter,
    sv: &View,
    src: ExprId,
    dv: &View,
    dst: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    check_2d(e, sv, src)?;
    check_2d(e, dv, dst)?;
    let elem = sv.tensor.dtype.size_bytes() as i64;
    let vec = 16 / elem.max(1);
    match (sv.tensor.space, dv.tensor.space) {
        (MemSpace::Global, MemSpace::Local) => {
            let (rows, cols, r0, c0) = rows_cols(sv);
            let dld = reg_pitch(e, dv, &rows, &cols, dst)?;
            let (gr, gc) = global_extent(sv);
            let p = sv.tensor.param.unwrap_or(0);
            e.pointer_params.insert(p);
            e.call(
                Call::new("tsl_copy_g2r")
                    .targs([CExpr::sym(&rows), CExpr::sym(&cols), CExpr::sym(&dld)])
                    .args([ptr_of(dv), sv.tensor.ptr(), r0, c0, gr, gc]),
                None,
                line,
            );
        }
        (MemSpace::Local, MemSpace::Global) => {
            let (rows, cols, r0, c0) = rows_cols(dv);
            let sld = reg_pitch(e, sv, &rows, &cols, src)?;
            let (gr, gc) = global_extent(dv);
            let p = dv.tensor.param.unwrap_or(0);
            e.pointer_params.insert(p);
            e.written_params.insert(p);
            e.call(
                Call::new("tsl_copy_r2g")
                    .targs([CExpr::sym(&rows), CExpr::sym(&cols), CExpr::sym(&sld)])
                    .args([dv.tensor.ptr(), ptr_of(sv), r0, c0, gr, gc]),
                None,
                line,
            );
        }
        (MemSpace::Shared, MemSpace::Local) | (MemSpace::Local, MemSpace::Local) => {
            // The cooperative copies that filled the source must have landed.
            e.flush_dma();
            let (rows, cols, _, _) = rows_cols(sv);
            let dld = reg_pitch(e, dv, &rows, &cols, dst)?;
            let sld = if sv.tile.len() == 1 {
                cols.clone()
            } else {
                sv.tensor.ld()
            };
            let aligned = if sv.tensor.space == MemSpace::Shared {
                sv.aligned_cpp(vec)
            } else {
                CExpr::Lit("false")
            };
            e.call(
                Call::new("tsl_copy_tile")
                    .targs([
                        CExpr::sym(&rows),
                        CExpr::sym(&cols),
                        CExpr::sym(&sld),
                        CExpr::sym(&dld),
                        aligned.wrap(),
                    ])
                    .args([ptr_of(dv), ptr_of(sv)]),
                None,
                line,
            );
        }
        (MemSpace::Local, MemSpace::Shared) => {
            e.flush_dma();
            let (rows, cols, _, _) = rows_cols(dv);
            let sld = reg_pitch(e, sv, &rows, &cols, src)?;
            let dld = if dv.tile.len() == 1 {
                cols.clone()
            } else {
                dv.tensor.ld()
            };
            e.call(
                Call::new("tsl_copy_tile_st")
                    .targs([
                        CExpr::sym(&rows),
                        CExpr::sym(&cols),
                        CExpr::sym(&sld),
                        CExpr::sym(&dld),
                        dv.aligned_cpp(vec).wrap(),
                    ])
                    .args([ptr_of(dv), ptr_of(sv)]),
                None,
                line,
            );
        }
        (a, b) => {
            return Err(LowerError::new(
                e.m.expr_span(src),
                format!("`dma.copy` from {a} to {b} memory is not supported on the SIMT path"),
            ));
        }
    }
    Ok(())
}
