//! `dma.transp<p…> src => dst;` and `dma.pad<low, high, mid, v> src => dst;` on the SIMT path
//! (`check/support.rs` admits them, `check::Transform` says what they do): the block's threads
//! walk the destination tile together, element `tsl_e` by thread `tsl_e % tsl_threads`, each
//! computing its row-major coordinates and reading the source element it comes from — or, for
//! `pad`, the pad value outside the source tile:
//!
//! ```text
//! for (int tsl_e = threadIdx.x; tsl_e < 128 * 64; tsl_e += tsl_threads) {
//!   const int tsl_i0 = tsl_e / 64;
//!   const int tsl_i1 = tsl_e % 64;
//!   t[tsl_i0 * 64 + tsl_i1] = tsl_ld_or_zero(input, tsl_i1, tsl_i0, 64, 128);
//! }
//! ```
//!
//! Global sources read zeros past the tensor's edge and global destinations are stored
//! bounds-checked, as every copy. A shared destination is published by the barrier of the
//! next statement that is not a copy (`Emitter::flush_dma`).

use super::cexpr::{View, convert};
use super::cxx::{CExpr, COp};
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, Op};
use crate::check::{Binding, Transform};
use crate::ir::{CopyDst, ExprId, Ident, MemSpace, StmtId};
use crate::sym::Sym;

/// Lowers the transform copy `s` (`bind = ` its future, if any).
pub fn lower(
    e: &mut Emitter,
    s: StmtId,
    bind: Option<&Ident>,
    modifiers: &[(Ident, Vec<ExprId>)],
    src: ExprId,
    dst: &CopyDst,
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let sv = e.cx().view(src)?;
    let internal = |what: &str| LowerError::new(m.expr_span(src), format!("internal: {what}"));
    let t = Transform::of(m, modifiers, sv.tile.len())
        .ok_or_else(|| internal("a transform the checker did not admit"))?;
    let dv = match (bind, dst) {
        (Some(f), CopyDst::Fresh(MemSpace::Shared)) => {
            super::simt::declare_fresh(e, f, line)?;
            let tensor = e
                .scopes
                .cpp_tensor(&f.name)
                .cloned()
                .ok_or_else(|| internal("a fresh shared buffer without a slot"))?;
            e.scopes.declare(
                Binding::Future(s),
                super::scope::Local::Tensor(tensor.clone()),
            );
            View::whole(tensor)
        }
        (Some(_), CopyDst::Expr(d)) => {
            let v = e.cx().view(*d)?;
            e.scopes.declare(
                Binding::Future(s),
                super::scope::Local::Tensor(v.tensor.clone()),
            );
            v
        }
        (None, CopyDst::Expr(d)) => e.cx().view(*d)?,
        _ => {
            return Err(internal(
                "a transform into a buffer the checker did not admit",
            ));
        }
    };
    if sv.transposed || dv.transposed || dv.tile.len() != sv.tile.len() {
        return Err(LowerError::new(
            m.expr_span(src),
            "`dma.transp` / `dma.pad` copy between tiles of one rank, neither `.transpose()`d",
        ));
    }
    // The copies that filled the source have landed (their barrier also orders the
    // destination's earlier readers); else a barrier of its own for shared memory.
    if e.pending_dma {
        e.flush_dma();
    } else if sv.tensor.space == MemSpace::Shared || dv.tensor.space == MemSpace::Shared {
        let last_is_barrier = e.lines.last().is_some_and(|l| matches!(l.op, Op::Barrier));
        if !last_is_barrier {
            e.barrier_before_shared_writes(
                Some("the source's writers and the destination's earlier readers are done"),
                line,
            );
        }
    }
    for v in [&sv, &dv] {
        if v.tensor.space == MemSpace::Global {
            e.pointer_params.insert(v.tensor.param.unwrap_or(0));
        }
    }
    let tsl_e = || CExpr::var("tsl_e");
    let product = |dims: &[Sym]| dims.iter().cloned().fold(Sym::Int(1), Sym::mul);
    let what = match &t {
        Transform::Transpose(_) => "each thread moves every tsl_threads-th element, transposed",
        Transform::Pad { .. } => "each thread moves every tsl_threads-th element, padded",
    };
    e.open(
        Op::For {
            var: "tsl_e".into(),
            init: CExpr::builtin("threadIdx", "x"),
            bound: CExpr::sym(&product(&dv.tile)),
            step: Some(tsl_e().bin(COp::AddAssign, CExpr::var("tsl_threads"))),
        },
        Some(what),
        line,
    );
    // Row-major coordinates of element `tsl_e` of the destination tile.
    let rank = dv.tile.len();
    let mut at = Vec::with_capacity(rank);
    for d in 0..rank {
        let inner = product(&dv.tile[d + 1..]);
        let q = if inner == Sym::Int(1) {
            tsl_e()
        } else {
            tsl_e().div(CExpr::sym_operand(&inner))
        };
        let c = if d == 0 {
            q
        } else {
            q.rem(CExpr::sym_operand(&dv.tile[d]))
        };
        let name = format!("tsl_i{d}");
        e.emit(
            Op::Decl {
                ty: "const int".into(),
                name: name.clone(),
                init: Some(c),
            },
            None,
            line,
        );
        at.push(CExpr::var(&name));
    }
    let dtype = dv.tensor.dtype;
    let value = match &t {
        Transform::Transpose(p) => {
            // Source dimension `p[d]` is destination dimension `d`.
            let mut from = vec![CExpr::int(0); rank];
            for (d, &k) in p.iter().enumerate() {
                from[k] = at[d].clone();
            }
            e.cx().element_access(&element(&sv, &from))
        }
        Transform::Pad { low, value, .. } => {
            let from: Vec<CExpr> = at
                .iter()
                .zip(low)
                .map(|(i, l)| match l {
                    Sym::Int(0) => i.clone(),
                    _ => i.clone().sub(CExpr::sym_operand(l)),
                })
                .collect();
            let inside = from
                .iter()
                .zip(&sv.tile)
                .map(|(j, n)| j.clone().below(CExpr::sym(n)))
                .reduce(CExpr::and)
                .ok_or_else(|| internal("a pad of no dimension"))?;
            let (v, ty) = e.cx().value(*value)?;
            let pad = convert(v, ty, dtype);
            inside.ternary(e.cx().element_access(&element(&sv, &from)), pad)
        }
    };
    let to = element(&dv, &at);
    if dv.tensor.space == MemSpace::Global {
        e.written_params.insert(dv.tensor.param.unwrap_or(0));
        let (r, c, rows, cols) = to.global_rc();
        let store = Call::new("tsl_st_guarded").args([to.tensor.ptr(), r, c, rows, cols, value]);
        e.call(store, None, line);
    } else {
        let place = e.cx().element_access(&to);
        e.emit(Op::Assign { place, value }, None, line);
    }
    e.close(line);
    if dv.tensor.space == MemSpace::Shared {
        // Published by the barrier before the next statement that is not a copy.
        e.pending_dma = true;
    }
    Ok(())
}

/// The element at coordinates `at` (relative to the tile's origin) of tile view `v`.
fn element(v: &View, at: &[CExpr]) -> View {
    let mut x = v.clone();
    x.origin = v
        .origin
        .iter()
        .zip(at)
        .map(|(o, i)| {
            if o.is_zero() {
                i.clone()
            } else {
                o.clone().add(i.clone())
            }
        })
        .collect();
    x.tile = vec![Sym::Int(1); at.len()];
    x.element = true;
    x
}
