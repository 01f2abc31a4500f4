//! Warnings for races a kernel may have on purpose but usually does not mean:
//!
//! - **W1201**: a global tensor the kernel writes and also reads at other elements (through
//!   another index, or as a tile copy): blocks run in any order, so another block may read an
//!   element before or after this one overwrites it. A compound update of the element it
//!   reads (`c.at(i, j) += …`, or `c.at(i, j) = c.at(i, j) * 2`) is not a race.
//! - **W1202**: an element store into a global or shared tensor whose index ignores a thread
//!   variable of the levels running it (and no `inthreads`/`if` condition around it picks one
//!   value of that variable): every thread along it stores the same element.

use super::super::{Binding, Cx, codes, stmt_exprs, walk_expr};
use super::statements;
use crate::diag::Diagnostic;
use crate::ir::{CopyDst, Expr, ExprId, Level, MemSpace, Stmt};
use std::collections::{HashMap, HashSet};

pub(super) fn check(cx: &Cx, warnings: &mut Vec<Diagnostic>) {
    global_read_write(cx, warnings);
    same_element(cx, warnings);
}

/// The tensor binding at the root of a view expression.
fn root(cx: &Cx, mut e: ExprId) -> Option<Binding> {
    loop {
        match &cx.m.exprs[e] {
            Expr::View { base, .. } | Expr::Index { base, .. } | Expr::Field { base, .. } => {
                e = *base
            }
            Expr::Name(_) => return cx.res.bindings.get(&e).copied(),
            _ => return None,
        }
    }
}

/// The view expressions of `e` that are not the base of a larger view (whole accesses).
fn accesses(cx: &Cx, e: ExprId, out: &mut Vec<ExprId>) {
    let m = cx.m;
    let mut bases = HashSet::new();
    let mut all = Vec::new();
    walk_expr(m, e, &mut |x| match &m.exprs[x] {
        Expr::View { base, .. } | Expr::Index { base, .. } | Expr::Field { base, .. } => {
            bases.insert(*base);
            all.push(x);
        }
        Expr::Name(_) => all.push(x),
        _ => {}
    });
    out.extend(all.into_iter().filter(|x| !bases.contains(x)));
}

fn global_read_write(cx: &Cx, warnings: &mut Vec<Diagnostic>) {
    let m = cx.m;
    let mut writes: HashMap<usize, Vec<ExprId>> = HashMap::new();
    let mut reads: HashMap<usize, Vec<ExprId>> = HashMap::new();
    for s in super::super::all_stmts(m) {
        let st = &m.stmts[s];
        // A named view reads nothing: the parser wrote the view at each use, where it counts.
        if let Stmt::Let { value, .. } = st
            && super::super::is_view_let(m, *value)
        {
            continue;
        }
        let targets: Vec<ExprId> = match st {
            Stmt::Assign { target, .. } => vec![*target],
            Stmt::DmaCopy {
                dst: CopyDst::Expr(d),
                ..
            }
            | Stmt::TmaCopy {
                dst: CopyDst::Expr(d),
                ..
            } => vec![*d],
            Stmt::MmaStore { dst, .. } => vec![*dst],
            Stmt::Ext(crate::ir::ExtStmt::Asm { outputs, .. }) => {
                outputs.iter().map(|o| o.expr).collect()
            }
            _ => Vec::new(),
        };
        for &t in &targets {
            if let Some(Binding::Param(p)) = root(cx, t) {
                writes.entry(p).or_default().push(t);
            }
        }
        for e in stmt_exprs(st) {
            let mut acc = Vec::new();
            accesses(cx, e, &mut acc);
            for a in acc {
                if targets.contains(&a) {
                    continue;
                }
                if let Some(Binding::Param(p)) = root(cx, a) {
                    reads.entry(p).or_default().push(a);
                }
            }
        }
    }
    let mut params: Vec<&usize> = writes.keys().collect();
    params.sort();
    for p in params {
        let ws = &writes[p];
        let written: HashSet<String> = ws.iter().map(|w| m.expr_to_string(*w)).collect();
        let Some(&r) = reads.get(p).and_then(|rs| {
            rs.iter()
                .find(|r| !written.contains(&m.expr_to_string(**r)))
        }) else {
            continue;
        };
        let name = &m.kernel.params[*p].name.name;
        warnings.push(
            Diagnostic::warning(
                codes::GLOBAL_RW,
                m.expr_span(ws[0]),
                format!(
                    "`{name}` is written here and read elsewhere at other elements: blocks run in any order, so some read values this kernel already overwrote"
                ),
            )
            .with_note(m.expr_span(r), format!("`{name}` is read here"))
            .with_help(format!(
                "write the result to a tensor of its own, or read `{name}` only at the element each thread writes"
            )),
        );
    }
}

/// What [`names`] records for a scalar holding an atomic's old value: a value that differs
/// between the threads that take it, whichever thread variables its index names.
const ATOMIC_OLD_VALUE: &str = "\u{0}atomic";

/// Names `e` depends on, through `let` bindings.
fn names(cx: &Cx, e: ExprId, out: &mut HashSet<String>, depth: u32) {
    let m = cx.m;
    walk_expr(m, e, &mut |x| {
        let Expr::Name(n) = &m.exprs[x] else { return };
        if !out.insert(n.clone()) || depth >= 32 {
            return;
        }
        match cx.res.bindings.get(&x) {
            Some(Binding::Let(s)) => {
                if let Stmt::Let { value, .. } = &m.stmts[*s] {
                    names(cx, *value, out, depth + 1);
                }
            }
            // A scalar (`int i = b # t;`): what its initializer and every assignment to it read.
            Some(&Binding::Scalar(d)) => {
                let captured = super::super::simt::captured_atomic;
                if let Stmt::ScalarDecl { init: Some(v), .. } = &m.stmts[d] {
                    names(cx, *v, out, depth + 1);
                    if captured(m, d).is_some() {
                        out.insert(ATOMIC_OLD_VALUE.to_string());
                    }
                }
                for s in super::super::all_stmts(m) {
                    if let Stmt::Assign { target, value, .. } = &m.stmts[s]
                        && cx.res.bindings.get(target) == Some(&Binding::Scalar(d))
                    {
                        names(cx, *value, out, depth + 1);
                        if captured(m, s).is_some() {
                            out.insert(ATOMIC_OLD_VALUE.to_string());
                        }
                    }
                }
            }
            _ => {}
        }
    });
}

fn same_element(cx: &Cx, warnings: &mut Vec<Diagnostic>) {
    let m = cx.m;
    for (s, scope) in statements(m) {
        let Stmt::Assign { target, .. } = &m.stmts[s] else {
            continue;
        };
        let space = match root(cx, *target) {
            Some(Binding::Param(p)) => m.kernel.params.get(p).map(|p| p.space),
            Some(Binding::Tensor(d, _)) => match &m.stmts[d] {
                Stmt::TensorDecl { space, .. } => Some(*space),
                _ => None,
            },
            _ => None,
        };
        if !matches!(space, Some(MemSpace::Global | MemSpace::Shared)) {
            continue;
        }
        // Thread variables of the levels running the store, with more than one value.
        let mut vars: Vec<(String, i64)> = Vec::new();
        for l in cx.res.chains.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(pl) = cx.level(*l) else { continue };
            if pl.level == Level::Block {
                continue;
            }
            for (v, e) in pl.vars.iter().zip(&pl.extents) {
                if let Some(n) = cx.static_value(*e).filter(|&n| n > 1) {
                    vars.push((v.name.clone(), n));
                }
            }
        }
        if vars.is_empty() {
            continue;
        }
        let mut used = HashSet::new();
        let mut idx = Vec::new();
        let mut e = *target;
        loop {
            match &m.exprs[e] {
                Expr::View { base, args, .. } => {
                    idx.extend(args.iter().copied());
                    e = *base;
                }
                Expr::Index { base, index } => {
                    idx.push(*index);
                    e = *base;
                }
                Expr::Field { base, .. } => e = *base,
                _ => break,
            }
        }
        for i in idx {
            names(cx, i, &mut used, 0);
        }
        for (c, _) in &scope.conds {
            names(cx, *c, &mut used, 0);
        }
        if used.contains(ATOMIC_OLD_VALUE) {
            continue;
        }
        let missing: Vec<&(String, i64)> = vars.iter().filter(|(v, _)| !used.contains(v)).collect();
        let Some((v, n)) = missing.first() else {
            continue;
        };
        warnings.push(
            Diagnostic::warning(
                codes::SAME_ELEMENT_STORE,
                m.expr_span(*target),
                format!(
                    "all {n} threads along `{v}` store to this same element: its index does not depend on `{v}`"
                ),
            )
            .with_help(format!(
                "index the element with `{v}` (e.g. `… # {v}`), or let one thread store it: `inthreads ({v} == 0) {{ … }}`"
            )),
        );
    }
}
