//! Initialisation: a shared or local (register) tile that is read before any statement writes
//! it holds garbage — on the GPU the kernel runs and its result is wrong. A tile is written by
//! a copy into it, an `mma.store` into it, an element `=`, or a `call` it is passed to; it is read by a copy from it,
//! an `mma.load`, any element use in an expression, and `+=`-style updates. A read is reported
//! when no write comes before it in program order — also inside a loop whose later statements
//! write the tile: its first iteration reads garbage — unless the read is under an `if` in such
//! a loop (a guard like `kt > 0`) or the write is in another `inthreads` branch (branches run
//! concurrently, ordered by events).
//!
//! A kernel parameter that the body never names is left out of the emitted signature: a
//! warning, so that it is never dropped in silence.

use super::super::{Binding, Cx, codes, stmt_exprs, walk_expr};
use super::{Scope, statements};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{AssignOp, CopyDst, Expr, ExprId, MemSpace, Stmt, StmtId};
use std::collections::{HashMap, HashSet};

pub(super) fn check(cx: &Cx, diags: &mut Diagnostics, warnings: &mut Vec<Diagnostic>) {
    unused_params(cx, warnings);
    reads_before_writes(cx, diags);
}

/// The tensor a view expression starts from.
fn root(cx: &Cx, mut e: ExprId) -> Option<(ExprId, Binding)> {
    loop {
        match &cx.m.exprs[e] {
            Expr::View { base, .. } | Expr::Index { base, .. } | Expr::Field { base, .. } => {
                e = *base
            }
            Expr::Name(_) => return cx.res.bindings.get(&e).map(|b| (e, *b)),
            _ => return None,
        }
    }
}

fn unused_params(cx: &Cx, warnings: &mut Vec<Diagnostic>) {
    let used: HashSet<usize> = cx
        .res
        .bindings
        .values()
        .filter_map(|b| match b {
            Binding::Param(i) => Some(*i),
            _ => None,
        })
        .collect();
    for (i, p) in cx.m.kernel.params.iter().enumerate() {
        if !used.contains(&i) {
            warnings.push(
                Diagnostic::warning(
                    codes::UNUSED_PARAM,
                    p.name.span,
                    format!(
                        "parameter `{}` is never used: the emitted kernel's signature leaves it out",
                        p.name.name
                    ),
                )
                .with_help(format!(
                    "use `{}` in the body (a copy from it, an element read or store), or remove it",
                    p.name.name
                )),
            );
        }
    }
}

/// A local or shared tensor binding (one declared with an initializer `{v}` is written from
/// the start).
fn on_chip(cx: &Cx, b: Binding) -> bool {
    match b {
        Binding::Tensor(s, _)
            if cx
                .m
                .decl_ext
                .iter()
                .any(|x| matches!(x, crate::ir::DeclExt::Init { decl, .. } if *decl == s)) =>
        {
            false
        }
        Binding::Tensor(s, _) => matches!(
            cx.m.stmts[s],
            Stmt::TensorDecl {
                space: MemSpace::Shared | MemSpace::Local,
                ..
            }
        ),
        _ => false,
    }
}

struct Access {
    order: usize,
    stmt: StmtId,
    at: ExprId,
    loops: Vec<StmtId>,
    /// The outermost `inthreads` branch around it (its condition), if any.
    branch: Option<ExprId>,
    /// Under an `if`.
    guarded: bool,
    /// For a read by a copy into another shared/local tensor: that tensor.
    copy_to: Option<Binding>,
}

fn reads_before_writes(cx: &Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let mut writes: HashMap<Binding, Vec<Access>> = HashMap::new();
    let mut reads: HashMap<Binding, Vec<Access>> = HashMap::new();
    for (order, (s, scope)) in statements(m).into_iter().enumerate() {
        let branch = scope.conds.iter().find(|c| c.1).map(|c| c.0);
        let guarded = scope.ifs > 0;
        let Scope { loops, .. } = scope;
        let mut wr: Vec<ExprId> = Vec::new();
        let mut rd: Vec<ExprId> = Vec::new();
        let mut copy_to = None;
        match &m.stmts[s] {
            Stmt::DmaCopy { src, dst, .. } | Stmt::TmaCopy { src, dst, .. } => {
                rd.push(*src);
                if let CopyDst::Expr(d) = dst {
                    copy_to = root(cx, *d).map(|(_, b)| b).filter(|b| on_chip(cx, *b));
                }
                if let CopyDst::Expr(d) = dst {
                    wr.push(*d);
                    // The destination's indices are reads.
                    index_reads(cx, *d, &mut rd);
                }
            }
            // `f = dma.copy src => t;`: a copy bound to a future writes its destination as an
            // unbound one does.
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                src,
                dst,
                after,
                modifiers,
                ..
            }) => {
                rd.push(*src);
                rd.extend(modifiers.iter().flat_map(|(_, a)| a.iter().copied()));
                rd.extend(after.iter().copied());
                if let CopyDst::Expr(d) = dst {
                    copy_to = root(cx, *d).map(|(_, b)| b).filter(|b| on_chip(cx, *b));
                    wr.push(*d);
                    index_reads(cx, *d, &mut rd);
                }
            }
            Stmt::MmaStore { dst, .. } => {
                wr.push(*dst);
                index_reads(cx, *dst, &mut rd);
            }
            Stmt::Assign { target, op, value } => {
                // `+=` and friends read the element first: only `=` initialises it.
                if *op == AssignOp::Set {
                    wr.push(*target);
                } else {
                    rd.push(*target);
                }
                index_reads(cx, *target, &mut rd);
                rd.push(*value);
            }
            // Inline assembly writes its outputs (a `+` one is read first) and reads its inputs.
            Stmt::Ext(crate::ir::ExtStmt::Asm {
                outputs, inputs, ..
            }) => {
                for o in outputs {
                    if o.constraint.starts_with('+') {
                        rd.push(o.expr);
                    } else {
                        wr.push(o.expr);
                    }
                    index_reads(cx, o.expr, &mut rd);
                }
                rd.extend(inputs.iter().map(|o| o.expr));
            }
            // `copy(dst, src);`, `reduce_max(dst, src, axis);`: `dst` is written whole.
            // (`all_reduce_sum(v);` reads and rewrites `v`.)
            Stmt::Ext(crate::ir::ExtStmt::FragOp { args, .. }) if args.len() == 1 => {
                rd.push(args[0])
            }
            Stmt::Ext(crate::ir::ExtStmt::FragOp { args, .. }) => {
                wr.push(args[0]);
                rd.extend(args[1..].iter().copied());
            }
            // `mma.load src, t;` fills the `frag` tile `t`.
            Stmt::Ext(crate::ir::ExtStmt::LoadInto { src, dst }) => {
                rd.push(*src);
                wr.push(*dst);
            }
            // `call f(…)` of a `__device__` function of the source: it may write any tensor it
            // is passed (it may read them too, which cannot be told from here).
            Stmt::Ext(crate::ir::ExtStmt::Call { func, args, .. })
                if m.device_fns.iter().any(|f| f.name == func.name) =>
            {
                for &a in args {
                    if root(cx, a).is_some_and(|(_, b)| on_chip(cx, b)) {
                        wr.push(a);
                        index_reads(cx, a, &mut rd);
                    } else {
                        rd.push(a);
                    }
                }
            }
            // `b = s[1];`, `v = t.span_as(…);`: naming a view reads only its indices (each use
            // of the name is the view itself, read or written there).
            Stmt::Let { value, .. } if super::super::is_view_let(m, *value) => {
                index_reads(cx, *value, &mut rd)
            }
            other => rd.extend(stmt_exprs(other)),
        }
        let record = |list: &mut HashMap<Binding, Vec<Access>>, e: ExprId, whole: bool| {
            let copy_to = if whole { None } else { copy_to };
            let mut add = |x: ExprId| {
                if let Some((_, b)) = root(cx, x)
                    && on_chip(cx, b)
                {
                    list.entry(b).or_default().push(Access {
                        order,
                        stmt: s,
                        at: x,
                        loops: loops.clone(),
                        branch,
                        guarded,
                        copy_to,
                    });
                }
            };
            if whole {
                add(e);
            } else {
                // `t.span` (an extent: `apply {i, j} in t.span`) reads `t`'s shape only.
                let mut shape_only = HashSet::new();
                walk_expr(m, e, &mut |x| {
                    if let Expr::View {
                        op: crate::ir::ViewOp::SpanOf,
                        base,
                        ..
                    } = &m.exprs[x]
                    {
                        walk_expr(m, *base, &mut |y| {
                            shape_only.insert(y);
                        });
                    }
                });
                walk_expr(m, e, &mut |x| {
                    if matches!(m.exprs[x], Expr::Name(_)) && !shape_only.contains(&x) {
                        add(x)
                    }
                });
            }
        };
        for e in wr {
            record(&mut writes, e, true);
        }
        for e in rd {
            record(&mut reads, e, false);
        }
    }
    let mut found: Vec<(Binding, &Access, Option<&Access>)> = Vec::new();
    for (b, rs) in &reads {
        // A declaration with an initializer (`frag f32 [M] v {-inf};`) writes every element.
        if let Binding::Tensor(decl, _) = b
            && m.decl_ext
                .iter()
                .any(|x| matches!(x, crate::ir::DeclExt::Init { decl: d, .. } if d == decl))
        {
            continue;
        }
        let ws = writes.get(b).map(Vec::as_slice).unwrap_or(&[]);
        let first_write = ws.iter().map(|w| w.order).min();
        for r in rs {
            let before = first_write.is_none_or(|fw| r.order < fw);
            // A later write in a loop around a guarded read feeds the next iterations' reads.
            // So does a write in another `inthreads` branch: branches run concurrently, and
            // their order is the events' business, not the text's.
            let fed = ws.iter().any(|w| {
                (r.guarded && r.loops.iter().any(|l| w.loops.contains(l)))
                    || (r.branch.is_some() && w.branch.is_some() && r.branch != w.branch)
            });
            if before && !fed {
                found.push((*b, r, ws.first()));
                break;
            }
        }
    }
    // Garbage copied into another on-chip tile matters once that tile is used: follow the
    // copies, and report the first read only if the data reaches a computation or global
    // memory.
    found.retain(|(_, r, _)| match r.copy_to {
        None => true,
        Some(dst) => reaches_use(&reads, dst, &mut HashSet::new()),
    });
    found.sort_by_key(|(_, r, _)| r.order);
    for (b, r, w) in found {
        let name = cx.binding_name(b);
        let mut d = Diagnostic::new(
            codes::UNINIT_READ,
            m.expr_span(r.at),
            match w {
                Some(_) => format!("`{name}` is read here before anything writes it"),
                None => format!("`{name}` is read but nothing ever writes it"),
            },
        )
        .with_help(format!(
            "fill `{name}` first: a copy into it (`dma.copy … => {name};`), an `mma.store`, or element stores"
        ));
        if let Some(w) = w {
            d = d.with_note(m.stmt_span(w.stmt), "first written here");
        }
        diags.push(d);
    }
}

/// Whether data copied into `b` is used: read by anything but copies into further on-chip
/// tiles, or by such a copy whose destination is used.
fn reaches_use(
    reads: &HashMap<Binding, Vec<Access>>,
    b: Binding,
    seen: &mut HashSet<Binding>,
) -> bool {
    if !seen.insert(b) {
        return false;
    }
    reads.get(&b).is_some_and(|rs| {
        rs.iter().any(|r| match r.copy_to {
            None => true,
            Some(next) => reaches_use(reads, next, seen),
        })
    })
}

/// The index expressions of a view (its arguments, at every level), as reads.
fn index_reads(cx: &Cx, mut e: ExprId, out: &mut Vec<ExprId>) {
    loop {
        match &cx.m.exprs[e] {
            Expr::View { base, args, .. } => {
                out.extend(args.iter().copied());
                e = *base;
            }
            Expr::Index { base, index } => {
                out.push(*index);
                e = *base;
            }
            Expr::Field { base, .. } => e = *base,
            _ => return,
        }
    }
}
