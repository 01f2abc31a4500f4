//! `call f(args);` of a `__device__` function written in the source file beside the `__co__`
//! function: the function is copied into the `.cu` as written (`CudaKernel::device_fns`) and
//! every thread that reaches the statement calls it. A tensor or tile argument passes the
//! pointer to its first element (a global tensor's parameter becomes writable: the function
//! may store through it), `|t.span|` and other values pass their value. The cooperative copies
//! still in flight land first, so the function reads what the program copied.

use super::emitter::Emitter;
use super::error::LowerError;
use super::kernel::Call;
use crate::ir::{DeviceFn, ExprId, ExtStmt, Ident, MemSpace, Module, Stmt};

/// The device functions of `m`'s source that some `call` of its kernel names, and those
/// their text calls in turn, in source order.
pub fn called(m: &Module) -> Vec<DeviceFn> {
    let mut names: Vec<&str> = crate::check::all_stmts(m)
        .into_iter()
        .filter_map(|s| match &m.stmts[s] {
            Stmt::Ext(ExtStmt::Call { func, .. }) => Some(func.name.as_str()),
            _ => None,
        })
        .collect();
    loop {
        let more: Vec<&str> = m
            .device_fns
            .iter()
            .filter(|g| !names.contains(&g.name.as_str()))
            .filter(|g| {
                m.device_fns
                    .iter()
                    .filter(|f| names.contains(&f.name.as_str()))
                    .any(|f| calls(&f.text, &g.name))
            })
            .map(|g| g.name.as_str())
            .collect();
        if more.is_empty() {
            break;
        }
        names.extend(more);
    }
    m.device_fns
        .iter()
        .filter(|f| names.contains(&f.name.as_str()))
        .cloned()
        .collect()
}

/// Whether `text` holds `name(` as a whole word (a call of the function `name`).
fn calls(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].trim_start().chars().next();
        !before.is_some_and(word) && after == Some('(')
    })
}

pub fn lower(
    e: &mut Emitter,
    func: &Ident,
    args: &[ExprId],
    line: Option<u32>,
) -> Result<(), LowerError> {
    if !e.m.device_fns.iter().any(|f| f.name == func.name) {
        return Err(LowerError::new(
            func.span,
            format!(
                "`{}` is not a `__device__` function of the source",
                func.name
            ),
        ));
    }
    e.flush_dma();
    let mut cargs = Vec::new();
    for &a in args {
        let tensor =
            matches!(e.info.sym_views.get(&a), Some(Ok(v)) if !v.element && !v.tile.is_empty());
        if tensor {
            let v = e.cx().view(a)?;
            if v.tensor.space == MemSpace::Global {
                let p = v.tensor.param.unwrap_or(0);
                e.pointer_params.insert(p);
                e.written_params.insert(p);
            }
            cargs.push(v.tile_ptr());
        } else {
            cargs.push(e.cx().value(a)?.0);
        }
    }
    e.call(Call::new(func.name.clone()).args(cargs), None, line);
    Ok(())
}
