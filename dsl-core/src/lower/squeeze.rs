//! `.sqz()` and `.span_as(…)`: views that make a tile a tensor of its own. `.sqz()` is a
//! rank-reducing view. `t.subspan(1, 1, S, D).at(b, h, 0, 0).sqz()` picks the
//! `[S, D]` matrix of batch `b`, head `h` of a 4-D tensor; the lowering makes it a tensor of
//! its own — the base pointer moved to the picked block (`t + ((b * H + h) * S) * D`) and the
//! kept dimensions as its shape — so every later view, copy and element access is the 2-D (or
//! 1-D) one the rest of the lowering knows, bounds checks included.
//!
//! The rule (the checker's gate states the same one, `check::squeeze`): the dropped dimensions
//! have extent `1` and come before the kept ones; at most two are kept, each whole (the
//! tensor's extent, index 0), so the result is a row-major tensor with the original row pitch.
//!
//! `.span_as(…)` reshapes a whole tensor into a row-major tensor of the new shape:
//! `lhs.span_as(6, 64)` of an `[2, 3, 64]` tensor is the same pointer with rows of 64, and its
//! bounds checks are the new shape's.

use super::cxx::CExpr;
use crate::sym::Sym;

/// The squeezed tensor of a tile: `tile` at `origin` (C++ per dimension) of a tensor named
/// `name` of shape `shape`. Returns the C++ pointer of the picked block (`None` when it is the
/// tensor's own), the kept shape, and the element stride its base moved by (`None` when it did
/// not move), which alignment reasoning can rely on.
pub fn squeeze(
    name: &str,
    shape: &[Sym],
    tile: &[Sym],
    origin: &[CExpr],
) -> Result<(Option<CExpr>, Vec<Sym>, Option<Sym>), String> {
    let n = tile.len();
    if shape.len() != n || origin.len() != n {
        return Err("not supported yet: `.sqz()` of anything but a `.subspan(…).at(…)` tile of a whole tensor".into());
    }
    let kept: Vec<usize> = (0..n).filter(|&d| tile[d] != Sym::Int(1)).collect();
    let first_kept = kept.first().copied().unwrap_or(n);
    if kept.len() > 2 || kept != (first_kept..n).collect::<Vec<_>>() {
        return Err("not supported yet: `.sqz()` keeping dimensions other than the last one or two (the dropped ones, of extent 1, come first)".into());
    }
    if kept
        .iter()
        .any(|&d| !origin[d].is_zero() || tile[d] != shape[d])
    {
        return Err("not supported yet: `.sqz()` of a tile that does not keep its dimensions whole (extent the tensor's, index 0)".into());
    }
    let kept_shape: Vec<Sym> = kept.iter().map(|&d| shape[d].clone()).collect();
    let elems = kept_shape.iter().cloned().fold(Sym::Int(1), Sym::mul);
    Ok(match block_start(name, shape, origin) {
        None => (None, kept_shape, None),
        Some(ptr) => (Some(ptr), kept_shape, Some(elems)),
    })
}

/// `.span_as(new)` of the tile `tile` at `origin` of a tensor of shape `shape`: it must be the
/// whole tensor (the checker's gate, `check::squeeze`), which is then the same pointer seen as
/// a row-major tensor of shape `new` (the checker has matched the element counts).
pub fn reshape(shape: &[Sym], tile: &[Sym], origin: &[CExpr]) -> Result<(), String> {
    if tile != shape || !origin.iter().all(CExpr::is_zero) {
        return Err("not supported yet: `.span_as(…)` of anything but a whole tensor".into());
    }
    Ok(())
}

/// `name + offset` of the element at `origin` of a row-major tensor of shape `shape`, or
/// `None` at offset 0.
fn block_start(name: &str, shape: &[Sym], origin: &[CExpr]) -> Option<CExpr> {
    // Horner's rule over the origin: ((o0 · S1 + o1) · S2 + o2) · …, zeros left out.
    let mut off = CExpr::int(0);
    for d in 0..origin.len() {
        if d > 0 && !off.is_zero() {
            off = off.wrap().mul(CExpr::sym(&shape[d]).wrap());
        }
        if !origin[d].is_zero() {
            off = if off.is_zero() {
                origin[d].clone()
            } else {
                off.add(origin[d].clone())
            };
        }
    }
    (!off.is_zero()).then(|| CExpr::var(name).add(off).paren())
}
