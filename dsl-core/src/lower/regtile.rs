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
//! The copy walks the global/shared side's tile as `[ROWS, COLS]` (a 1-D tensor is one row; a
//! tile of rank 3 or more made of rows folds, `check::fold_rows`: leading extents of 1 pick a
//! plane, whole dimensions after the first other one are more rows). The register side is
//! addressed row-major with its own row pitch, or flat when it is 1-D or — where either side
//! has rank 3 or more — a whole register tensor (so a `[1, 8]` tile copies into an `[8]`
//! register tile, and a `[1, 4, 4]` tile into a `[1, 4, 4]` one, such as the fresh register
//! array of `f = dma.copy … => local;`). Shared-side alignment is a C++ constant expression
//! over the tunables ([`View::aligned_cpp`]), decided per instantiation.

use super::cexpr::View;
use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::Call;
use super::rows::Rows2;
use crate::ir::{ExprId, MemSpace};
use crate::sym::Sym;

/// `[ROWS, COLS]` of a view walked as rows at its tensor's pitch: a 1-D view is one row, a
/// view of rank 3 or more folds as `check::fold_rows` says (leading extents of 1, whole
/// dimensions between the first other one and the last), its rows the product of the
/// dimensions but the last.
fn rows_cols(e: &Emitter, v: &View, at: ExprId) -> Result<(Sym, Sym), LowerError> {
    let n = v.tile.len();
    let zero: Vec<bool> = v.origin.iter().map(CExpr::is_zero).collect();
    match n {
        1 => Ok((Sym::Int(1), v.tile[0].clone())),
        2 => Ok((v.tile[0].clone(), v.tile[1].clone())),
        _ if crate::check::fold_rows(&v.tile, &zero, &v.tensor.shape).is_some() => Ok((
            v.tile[..n - 1].iter().cloned().fold(Sym::Int(1), Sym::mul),
            v.tile[n - 1].clone(),
        )),
        _ => Err(LowerError::new(
            e.m.expr_span(at),
            "a register tile copy moves tiles made of rows",
        )),
    }
}

/// The global side as rows (`Rows2`: a tile of rank 3 or more folds into a plane's rows), and
/// its `[ROWS, COLS]` as symbols for the register side's pitch.
fn global_rows(e: &Emitter, v: &View, at: ExprId) -> Result<(Rows2, Sym, Sym), LowerError> {
    let g = Rows2::of(v).ok_or_else(|| {
        LowerError::new(
            e.m.expr_span(at),
            "a register tile copy moves a global tile made of rows",
        )
    })?;
    let (rows, cols) = rows_cols(e, v, at)?;
    Ok((g, rows, cols))
}

/// Row pitch of the register side for the other side's `[rows, cols]` walk: `cols` — row-major
/// order — when it is 1-D, or a whole register tensor where either side has rank 3 or more;
/// else its tensor's pitch, its own rows being as many (or the walk one row).
fn reg_pitch(
    e: &Emitter,
    reg: &View,
    other_rank: usize,
    rows: &Sym,
    cols: &Sym,
    at: ExprId,
) -> Result<Sym, LowerError> {
    let whole = reg.tile == reg.tensor.shape && reg.origin.iter().all(CExpr::is_zero);
    let n = reg.tile.len();
    if n == 1 || ((n > 2 || other_rank > 2) && whole) {
        return Ok(cols.clone());
    }
    let (own_rows, _) = rows_cols(e, reg, at)?;
    if own_rows == *rows || *rows == Sym::Int(1) {
        return Ok(reg.tensor.ld());
    }
    Err(LowerError::new(
        e.m.expr_span(at),
        "a register tile copy pairs a register tile with a tile of as many rows, or a 1-D or whole register tile with any tile; match the ranks",
    ))
}

/// The pitch of the non-register side of a shared ↔ register or register → register copy:
/// its row length when it is 1-D, else its tensor's.
fn walk_pitch(v: &View, cols: &Sym) -> Sym {
    if v.tile.len() == 1 {
        cols.clone()
    } else {
        v.tensor.ld()
    }
}

fn ptr_of(v: &View) -> CExpr {
    v.tile_ptr()
}

fn check_rank(e: &Emitter, v: &View, at: ExprId) -> Result<(), LowerError> {
    if v.tile.is_empty() {
        return Err(LowerError::new(
            e.m.expr_span(at),
            "a register tile copy moves tiles, not single elements",
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
    check_rank(e, sv, src)?;
    check_rank(e, dv, dst)?;
    let elem = sv.tensor.dtype.size_bytes() as i64;
    let vec = 16 / elem.max(1);
    match (sv.tensor.space, dv.tensor.space) {
        (MemSpace::Global, MemSpace::Local) => g2r(e, sv, src, dv, dst, line)?,
        (MemSpace::Local, MemSpace::Global) => r2g(e, sv, src, dv, dst, line)?,
        (MemSpace::Shared, MemSpace::Local) | (MemSpace::Local, MemSpace::Local) => {
            // The cooperative copies that filled the source must have landed.
            e.flush_dma();
            let (rows, cols) = rows_cols(e, sv, src)?;
            let dld = reg_pitch(e, dv, sv.tile.len(), &rows, &cols, dst)?;
            let sld = walk_pitch(sv, &cols);
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
            let (rows, cols) = rows_cols(e, dv, dst)?;
            let sld = reg_pitch(e, sv, dv.tile.len(), &rows, &cols, src)?;
            let dld = walk_pitch(dv, &cols);
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

/// A global tile into registers (or a thread's own shared tile), element by element, 16 bytes
/// per load where the row allows.
fn g2r(
    e: &mut Emitter,
    sv: &View,
    src: ExprId,
    dv: &View,
    dst: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let (g, rows, cols) = global_rows(e, sv, src)?;
    let dld = reg_pitch(e, dv, sv.tile.len(), &rows, &cols, dst)?;
    let p = sv.tensor.param.unwrap_or(0);
    e.pointer_params.insert(p);
    e.call(
        Call::new("tsl_copy_g2r")
            .targs([g.rows, g.cols, CExpr::sym(&dld)])
            .args([ptr_of(dv), g.ptr, g.r0, g.c0, g.tensor_rows, g.tensor_cols]),
        None,
        line,
    );
    Ok(())
}

/// Registers (or a thread's own shared tile) into a global tile, guarded, 16 bytes per store
/// where the row allows.
fn r2g(
    e: &mut Emitter,
    sv: &View,
    src: ExprId,
    dv: &View,
    dst: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let (g, rows, cols) = global_rows(e, dv, dst)?;
    let sld = reg_pitch(e, sv, dv.tile.len(), &rows, &cols, src)?;
    let p = dv.tensor.param.unwrap_or(0);
    e.pointer_params.insert(p);
    e.written_params.insert(p);
    e.call(
        Call::new("tsl_copy_r2g")
            .targs([g.rows, g.cols, CExpr::sym(&sld)])
            .args([g.ptr, ptr_of(sv), g.r0, g.c0, g.tensor_rows, g.tensor_cols]),
        None,
        line,
    );
    Ok(())
}

/// A synchronous `dma.copy` between a global tile and a shared tile that differ between the
/// block's threads (`check::per_thread_copies`): each thread copies its own tile alone, as it
/// would into registers. Like the block's cooperative copies it is synchronous for the block:
/// a barrier before a copy into shared memory (earlier readers are done) and before the next
/// statement that is not a copy (the tiles are visible); the writers of a shared tile are
/// waited for before it is stored. A thread's own fresh buffer needs none of these barriers.
pub fn per_thread(
    e: &mut Emitter,
    sv: &View,
    src: ExprId,
    dv: &View,
    dst: ExprId,
    line: Option<u32>,
) -> Result<(), LowerError> {
    check_rank(e, sv, src)?;
    check_rank(e, dv, dst)?;
    // A fresh buffer that is each thread's own: no other thread reads or writes it.
    let own = |v: &View| e.info.own_buffer(&v.tensor.name).is_some();
    match (sv.tensor.space, dv.tensor.space) {
        (MemSpace::Global, MemSpace::Shared) if own(dv) => g2r(e, sv, src, dv, dst, line)?,
        (MemSpace::Shared, MemSpace::Global) if own(sv) => {
            e.flush_dma();
            r2g(e, sv, src, dv, dst, line)?;
        }
        (MemSpace::Global, MemSpace::Shared) => {
            if !e.pending_dma {
                e.barrier_before_shared_writes(
                    Some("earlier readers of the destinations are done"),
                    line,
                );
            }
            g2r(e, sv, src, dv, dst, line)?;
            e.pending_dma = true;
        }
        (MemSpace::Shared, MemSpace::Global) => {
            e.flush_dma();
            e.barrier_unless_last(Some("the shared tiles' writers are done"), line);
            r2g(e, sv, src, dv, dst, line)?;
            e.barrier(Some("the shared tiles' readers are done"), line);
        }
        (a, b) => {
            return Err(LowerError::new(
                e.m.expr_span(src),
                format!("a per-thread copy from {a} to {b} memory is not supported"),
            ));
        }
    }
    Ok(())
}
