//! `.sqz()`: a rank-reducing view. `t.subspan(1, 1, S, D).at(b, h, 0, 0).sqz()` picks the
//! `[S, D]` matrix of batch `b`, head `h` of a 4-D tensor; the lowering makes it a tensor of
//! its own — the base pointer moved to the picked block (`t + ((b * H + h) * S) * D`) and the
//! kept dimensions as its shape — so every later view, copy and element access is the 2-D (or
//! 1-D) one the rest of the lowering knows, bounds checks included.
//!
//! The rule (the checker's gate states the same one, `check::squeeze`): the dropped dimensions
//! have extent `1` and come before the kept ones; at most two are kept, each whole (the
//! tensor's extent, index 0), so the result is a row-major tensor with the original row pitch.

use super::cexpr::{View, cpp_paren, wrap};
use super::scope::TensorLocal;
use super::sym::Sym;

/// The squeezed view of `v` (a tile picked by `.at` after a `.subspan`).
pub fn squeeze(v: View) -> Result<View, String> {
    let n = v.tile.len();
    if v.element || v.array_index.is_some() || v.transposed || v.tensor.shape.len() != n {
        return Err("not supported yet: `.sqz()` of anything but a `.subspan(…).at(…)` tile of a whole tensor".into());
    }
    let kept: Vec<usize> = (0..n).filter(|&d| v.tile[d] != Sym::Int(1)).collect();
    let first_kept = kept.first().copied().unwrap_or(n);
    if kept.len() > 2
        || kept.iter().any(|&d| d < first_kept)
        || kept != (first_kept..n).collect::<Vec<_>>()
    {
        return Err("not supported yet: `.sqz()` keeping dimensions other than the last one or two (the dropped ones, of extent 1, come first)".into());
    }
    if kept
        .iter()
        .any(|&d| v.origin[d] != "0" || v.tile[d] != v.tensor.shape[d])
    {
        return Err("not supported yet: `.sqz()` of a tile that does not keep its dimensions whole (extent the tensor's, index 0)".into());
    }
    // Horner's rule over the origin: ((o0 · S1 + o1) · S2 + o2) · …, zeros left out.
    let mut off = String::from("0");
    for d in 0..n {
        if d > 0 && off != "0" {
            off = format!("{} * {}", wrap(&off), cpp_paren(&v.tensor.shape[d]));
        }
        if v.origin[d] != "0" {
            off = if off == "0" {
                v.origin[d].clone()
            } else {
                format!("{off} + {}", v.origin[d])
            };
        }
    }
    let shape: Vec<Sym> = kept.iter().map(|&d| v.tensor.shape[d].clone()).collect();
    let elems = shape.iter().cloned().fold(Sym::Int(1), Sym::mul);
    let name = if off == "0" {
        v.tensor.name.clone()
    } else {
        format!("({} + {})", v.tensor.name, off)
    };
    let mut out = View::whole(TensorLocal {
        name,
        shape,
        ..v.tensor.clone()
    });
    // The base moved by a multiple of the kept block's elements: what alignment can assume.
    if off != "0" {
        out.array_terms.push(elems);
    }
    Ok(out)
}
