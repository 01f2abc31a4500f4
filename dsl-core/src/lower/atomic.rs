//! `__atomic_add(t.at(i, j), v);` and its kin: the CUDA atomic on the element — behind the
//! bounds test of a guarded store on a global tensor (an index outside it updates nothing),
//! directly on shared memory. `check/simt.rs` has checked the element type and the space.

use super::cexpr::convert;
use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, Op};
use crate::ir::{ExprId, Ident, MemSpace};

/// Whether `func` names an atomic update this module lowers.
pub fn is_atomic(func: &Ident) -> bool {
    crate::check::atomic(&func.name).is_some()
}

pub fn lower(
    e: &mut Emitter,
    func: &Ident,
    args: &[ExprId],
    line: Option<u32>,
) -> Result<(), LowerError> {
    let m = e.m;
    let (Some(crate::check::Atomic { cuda, .. }), Some((&target, values))) =
        (crate::check::atomic(&func.name), args.split_first())
    else {
        return Err(LowerError::new(func.span, "not an atomic update"));
    };
    let v = e.cx().view(target)?;
    if !v.element {
        return Err(LowerError::new(
            m.expr_span(target),
            "an atomic updates one element (`t.at(i, j)`)",
        ));
    }
    let mut operands = Vec::with_capacity(values.len());
    for &a in values {
        let (x, t) = e.cx().value(a)?;
        operands.push(convert(x, t, v.tensor.dtype));
    }
    if v.tensor.space == MemSpace::Global {
        let p = v.tensor.param.unwrap_or(0);
        e.written_params.insert(p);
        e.pointer_params.insert(p);
        let (r, c, rows, cols) = v.global_rc();
        let unsigned = |x: CExpr| CExpr::Cast("unsigned", Box::new(x.paren()));
        let wide = |x: CExpr| CExpr::Cast("long long", Box::new(x.paren()));
        // A 1-D tensor is one column: its test and offset are the row's alone.
        let (inside, offset) = if matches!((&c, &cols), (CExpr::Int(0), CExpr::Int(1))) {
            (unsigned(r.clone()).lt(unsigned(rows)), wide(r))
        } else {
            (
                unsigned(r.clone())
                    .lt(unsigned(rows))
                    .and(unsigned(c.clone()).lt(unsigned(cols.clone()))),
                wide(r).mul(cols).add(c),
            )
        };
        let at = v.tensor.ptr().add(offset);
        e.open(
            Op::If {
                cond: inside,
                constexpr: false,
            },
            Some("an index outside the tensor updates nothing"),
            line,
        );
        e.call(
            Call::new(cuda).args(std::iter::once(at).chain(operands)),
            None,
            line,
        );
        e.close(None);
    } else {
        let place = e.cx().element_access(&v);
        e.call(
            Call::new(cuda).args(std::iter::once(place.addr()).chain(operands)),
            None,
            line,
        );
    }
    Ok(())
}
