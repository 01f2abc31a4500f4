//! Inline assembly: `__asm__ [volatile]("…" : outputs : inputs : clobbers);` is emitted as the
//! source wrote it (template, constraints, operand names and clobbers), each operand lowered
//! like any value. An output is a C++ lvalue: a scalar, or an element of a shared or register
//! tensor, in place; an element of a global tensor goes through a temporary (`tsl_asm_N`, read
//! first for a `+` operand) that is stored back after the assembly, bounds-checked as an
//! assignment is, all inside one C++ scope. (NVVM takes no symbolic operand references: the
//! printer of `Op::Asm` writes each `%[name]` as the operand's position.)

use super::cexpr::scalar_type;
use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::{AsmArg, Call, Op};
use crate::ir::{Expr, ExtStmt, MemSpace, Stmt, StmtId};

pub fn asm(e: &mut Emitter, s: StmtId, line: Option<u32>) -> Result<(), LowerError> {
    let m = e.m;
    let Stmt::Ext(ExtStmt::Asm {
        volatile,
        template,
        outputs,
        inputs,
        clobbers,
    }) = &m.stmts[s]
    else {
        return Err(LowerError::new(
            m.stmt_span(s),
            "internal: not an `__asm__`",
        ));
    };
    let mut temps = Vec::new();
    let mut stores = Vec::new();
    let mut outs = Vec::new();
    for o in outputs {
        let value = match &m.exprs[o.expr] {
            Expr::View { .. } => {
                let v = e.cx().view(o.expr)?;
                if !v.element {
                    return Err(LowerError::new(
                        m.expr_span(o.expr),
                        "an `__asm__` output is a scalar or one element (`.at(i, j)`)",
                    ));
                }
                if v.tensor.space == MemSpace::Global {
                    let tmp = format!("tsl_asm_{}", temps.len());
                    let init = if o.constraint.starts_with('+') {
                        Some(e.cx().value(o.expr)?.0)
                    } else {
                        None
                    };
                    temps.push(Op::Decl {
                        ty: scalar_type(v.tensor.dtype).into(),
                        name: tmp.clone(),
                        init,
                    });
                    let p = v.tensor.param.unwrap_or(0);
                    e.written_params.insert(p);
                    e.pointer_params.insert(p);
                    let (r, c, rows, cols) = v.global_rc();
                    stores.push(Call::new("tsl_st_guarded").args([
                        v.tensor.ptr(),
                        r,
                        c,
                        rows,
                        cols,
                        super::cxx::CExpr::var(&tmp),
                    ]));
                    super::cxx::CExpr::var(&tmp)
                } else {
                    e.cx().element_access(&v)
                }
            }
            _ => super::cxx::CExpr::var(m.expr_to_string(o.expr)),
        };
        outs.push(AsmArg {
            name: o.name.as_ref().map(|n| n.name.clone()),
            constraint: o.constraint.clone(),
            value,
        });
    }
    let ins = inputs
        .iter()
        .map(|o| {
            Ok(AsmArg {
                name: o.name.as_ref().map(|n| n.name.clone()),
                constraint: o.constraint.clone(),
                value: e.cx().value(o.expr)?.0,
            })
        })
        .collect::<Result<Vec<_>, LowerError>>()?;
    let scoped = !temps.is_empty();
    if scoped {
        e.open(
            Op::Scope,
            Some("the assembly's outputs in global memory"),
            line,
        );
        for t in temps {
            e.emit(t, None, line);
        }
    }
    e.emit(
        Op::Asm {
            volatile: *volatile,
            template: template.clone(),
            outputs: outs,
            inputs: ins,
            clobbers: clobbers.clone(),
        },
        None,
        line,
    );
    for st in stores {
        e.call(st, None, line);
    }
    if scoped {
        e.close(line);
    }
    Ok(())
}
