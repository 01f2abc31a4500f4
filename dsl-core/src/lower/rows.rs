//! A global tile seen as rows of a row-major matrix, the shape every copy helper walks: the
//! cooperative copies of `lower/simt.rs` and the per-thread register copies of
//! `lower/regtile.rs`.

use super::cxx::CExpr;
use crate::sym::Sym;

/// A global tile (or tensor) seen as rows × columns: a 1-D one is one row.
pub(super) struct Rows2 {
    /// The global tensor's pointer, offset to the tile's plane.
    pub(super) ptr: CExpr,
    pub(super) rows: CExpr,
    pub(super) cols: CExpr,
    pub(super) r0: CExpr,
    pub(super) c0: CExpr,
    pub(super) tensor_rows: CExpr,
    pub(super) tensor_cols: CExpr,
}

impl Rows2 {
    /// The tile of global view `v` as rows of a row-major matrix, for the cooperative copy
    /// helpers: a 1-D tile is one row; a tile of rank 3 or more folds (`check::fold_rows`) — its
    /// leading extents of 1 pick a plane of the tensor (a pointer offset; a plane outside the
    /// tensor has no rows, so a load fills the tile with zeros and a store writes nothing), its
    /// next dimension and the whole ones after it are the plane's rows.
    pub(super) fn of(v: &super::cexpr::View) -> Option<Rows2> {
        let t = &v.tensor;
        let n = v.tile.len();
        match n {
            1 => {
                return Some(Rows2 {
                    ptr: t.ptr(),
                    rows: CExpr::int(1),
                    cols: CExpr::sym(&v.tile[0]),
                    r0: CExpr::int(0),
                    c0: v.origin[0].clone(),
                    tensor_rows: CExpr::int(1),
                    tensor_cols: CExpr::sym(&t.shape[0]),
                });
            }
            2 => {
                return Some(Rows2 {
                    ptr: t.ptr(),
                    rows: CExpr::sym(&v.tile[0]),
                    cols: CExpr::sym(&v.tile[1]),
                    r0: v.origin[0].clone(),
                    c0: v.origin[1].clone(),
                    tensor_rows: CExpr::sym(&t.shape[0]),
                    tensor_cols: CExpr::sym(&t.shape[1]),
                });
            }
            _ => {}
        }
        let zero: Vec<bool> = v.origin.iter().map(CExpr::is_zero).collect();
        let lead = crate::check::fold_rows(&v.tile, &zero, &t.shape)?;
        let product = |dims: &[Sym]| dims.iter().cloned().fold(Sym::Int(1), Sym::mul);
        let mut ptr = t.ptr();
        let mut inside: Option<CExpr> = None;
        for d in 0..lead {
            let stride = product(&t.shape[d + 1..]);
            ptr = ptr.add(v.origin[d].clone().wide().mul(CExpr::sym_operand(&stride)));
            let ok = v.origin[d].clone().below(CExpr::sym(&t.shape[d]));
            inside = Some(match inside {
                Some(c) => c.and(ok),
                None => ok,
            });
        }
        // Rows per unit of the first folded dimension: the whole dimensions after it.
        let (rows, r0, plane_rows) = if lead == n - 1 {
            (CExpr::int(1), CExpr::int(0), CExpr::int(1))
        } else {
            let w = product(&t.shape[lead + 1..n - 1]);
            let times_w = |x: Sym| {
                if w == Sym::Int(1) {
                    x
                } else {
                    Sym::mul(x, w.clone())
                }
            };
            let r0 = if w == Sym::Int(1) || v.origin[lead].is_zero() {
                v.origin[lead].clone()
            } else {
                v.origin[lead].clone().mul(CExpr::sym_operand(&w))
            };
            (
                CExpr::sym(&times_w(v.tile[lead].clone())),
                r0,
                CExpr::sym(&times_w(t.shape[lead].clone())),
            )
        };
        let tensor_rows = match inside {
            Some(c) => c.wrap().ternary(plane_rows, CExpr::int(0)).paren(),
            None => plane_rows,
        };
        Some(Rows2 {
            ptr,
            rows,
            cols: CExpr::sym(&v.tile[n - 1]),
            r0,
            c0: v.origin[n - 1].clone(),
            tensor_rows,
            tensor_cols: CExpr::sym(&t.shape[n - 1]),
        })
    }
}
