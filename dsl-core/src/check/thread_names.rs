//! Thread variables of one name in sibling `parallel`s (`parallel {w, t} by [4, 32] : thread`
//! beside `parallel t by 128 : thread`) are two variables, legal Croqtile. The Hopper lowering
//! counts the threads that reach an event's `trigger` (and picks the thread that issues a
//! bound TMA load) in a C++ lambda that declares every thread variable of the kernel by name,
//! so two indexes under one name cannot both be declared there: in a kernel with events on
//! that path this is "not supported yet" (`E1685`), until the lambda declares only the
//! variables in scope at the statement.

use super::geometry::Geometry;
use super::{Binding, Cx, LoweringPath, all_stmts, codes};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::Stmt;

pub(crate) fn gate(cx: &Cx, geo: &Geometry, diags: &mut Diagnostics) {
    let m = cx.m;
    if cx.lowering_path() != LoweringPath::Hopper
        || !all_stmts(m)
            .into_iter()
            .any(|s| matches!(m.stmts[s], Stmt::EventDecl { .. }))
    {
        return;
    }
    let chains: Vec<Vec<(crate::ir::StmtId, usize)>> = geo
        .chains
        .iter()
        .map(|c| c.iter().map(|l| (l.stmt, l.level)).collect())
        .collect();
    let Ok(sym) = super::geometry_sym::sym_geometry(m, &chains) else {
        return;
    };
    let span_of = |b: Binding| match b {
        Binding::ParallelVar { stmt, level, index } => match &m.stmts[stmt] {
            Stmt::Parallel { levels, .. } => levels
                .get(level)
                .and_then(|l| l.vars.get(index))
                .map(|v| v.span),
            _ => None,
        },
        _ => None,
    };
    let mut seen: Vec<(&str, String, Binding)> = Vec::new();
    for v in &sym.thread_vars {
        let formula = v.index.cpp("tid");
        match seen.iter().find(|(n, _, _)| *n == v.name) {
            Some((_, f, first)) if *f != formula => {
                let (Some(at), Some(first)) = (span_of(v.binding), span_of(*first)) else {
                    continue;
                };
                diags.push(
                    Diagnostic::new(
                        codes::NOT_LOWERED_THREAD_NAME,
                        at,
                        format!(
                            "not supported yet: `{}` names two thread variables of different indexes in a kernel with events",
                            v.name
                        ),
                    )
                    .with_note(first, "the other variable of this name")
                    .with_help("give one of them another name"),
                );
            }
            Some(_) => {}
            None => seen.push((&v.name, formula, v.binding)),
        }
    }
}
