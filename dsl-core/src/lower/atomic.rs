//! `__atomic_add(t.at(i, j), v);` and its kin: the CUDA atomic on the element — behind the
//! bounds test of a guarded store on a global tensor (an index outside it updates nothing),
//! directly on shared memory; `int old = __atomic_add(…);` keeps the value it returns.
//! `check/simt.rs` has checked the element type and the space.

use super::cexpr::{Ty, convert};
use super::cxx::CExpr;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{Call, Op};
use crate::ir::{DType, Expr, ExprId, Ident, MemSpace, StmtId};

/// Whether `func` names an atomic update this module lowers.
pub fn is_atomic(func: &Ident) -> bool {
    crate::check::atomic(&func.name).is_some()
}

/// An atomic on its element: the CUDA function and its arguments (the element's address
/// first), the bounds test of a global tensor's element (an index outside it updates nothing),
/// the element's type.
struct Site {
    cuda: &'static str,
    args: Vec<CExpr>,
    inside: Option<CExpr>,
    dtype: DType,
}

fn site(e: &mut Emitter, func: &Ident, args: &[ExprId]) -> Result<Site, LowerError> {
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
    let dtype = v.tensor.dtype;
    let mut operands = Vec::with_capacity(values.len());
    for &a in values {
        let (x, t) = e.cx().value(a)?;
        operands.push(convert(x, t, dtype));
    }
    let site = |place: CExpr, inside| Site {
        cuda,
        args: std::iter::once(place).chain(operands).collect(),
        inside,
        dtype,
    };
    if v.tensor.space != MemSpace::Global {
        let place = e.cx().element_access(&v);
        return Ok(site(place.addr(), None));
    }
    let p = v.tensor.param.unwrap_or(0);
    e.written_params.insert(p);
    e.pointer_params.insert(p);
    let (r, c, rows, cols) = v.global_rc();
    // The test that an index is inside its extent, unless both are integers that show it.
    let within = |i: &CExpr, n: &CExpr| match (i.as_int(), n.as_int()) {
        (Some(a), Some(b)) if (0..b).contains(&a) => None,
        _ => Some(i.clone().below(n.clone())),
    };
    // A 1-D tensor is one column: its test and offset are the row's alone.
    let (inside, offset) = if matches!((&c, &cols), (CExpr::Int(0), CExpr::Int(1))) {
        (within(&r, &rows), r.wide())
    } else {
        let tests = [within(&r, &rows), within(&c, &cols)];
        (
            tests.into_iter().flatten().reduce(|a, b| a.and(b)),
            r.wide().mul(cols).add(c),
        )
    };
    Ok(site(v.tensor.ptr().add(offset), inside))
}

/// `__atomic_add(t.at(i), v);` as a statement.
pub fn lower(
    e: &mut Emitter,
    func: &Ident,
    args: &[ExprId],
    line: Option<u32>,
) -> Result<(), LowerError> {
    let Site {
        cuda, args, inside, ..
    } = site(e, func, args)?;
    let call = Call::new(cuda).args(args);
    match inside {
        Some(cond) => {
            e.open(
                Op::If {
                    cond,
                    constexpr: false,
                },
                Some("an index outside the tensor updates nothing"),
                line,
            );
            e.call(call, None, line);
            e.close(None);
        }
        None => e.call(call, None, line),
    }
    Ok(())
}

/// The old value an atomic returns, where statement `s` keeps it whole in a scalar
/// (`check::captured_atomic`): `atomicAdd(…)`, on a global tensor behind its bounds test (an
/// index outside the tensor updates nothing and reads 0). `None` for any other statement.
pub fn old_value(e: &mut Emitter, s: StmtId) -> Result<Option<(CExpr, Ty)>, LowerError> {
    let m = e.m;
    let Some(x) = crate::check::captured_atomic(m, s) else {
        return Ok(None);
    };
    let Expr::Call { func, args } = &m.exprs[x] else {
        return Ok(None);
    };
    let Site {
        cuda,
        args,
        inside,
        dtype,
    } = site(e, func, args)?;
    let call = CExpr::call(cuda, args);
    let value = match inside {
        Some(cond) => cond
            .wrap()
            .ternary(call, convert(CExpr::int(0), Ty::Int, dtype))
            .paren(),
        None => call,
    };
    let ty = if dtype.is_float() {
        Ty::Float(dtype)
    } else {
        Ty::Int
    };
    Ok(Some((value, ty)))
}
