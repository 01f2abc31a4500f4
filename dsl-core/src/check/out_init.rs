//! `f32 [M, N] output{0.0f};` in a `__co__ auto` function: an output whose every element starts
//! at the value. The launch form makes the output a parameter that the caller allocates
//! (`lower/launch.rs`); the lowering gives the initializer its meaning in two cases:
//!
//! - **unobservable**: the kernel never reads the output and writes all of it — each write is
//!   a tile store (`mma.store`, a copy) into `output.chunkat(…)` whose indices are `parallel`
//!   variables (or `a # b` compositions of them, or `_`), under nothing but `parallel`s. The
//!   tiles of a `.chunkat` partition the tensor, and such a store runs for every value of its
//!   index variables, so it reaches every element. Nothing is emitted.
//! - **block-owned** ([`block_owned`]): every access (read or write) is a view of
//!   `output.chunkat(…)` whose index along each dimension is a `: block` variable, alone or
//!   composed over inner variables (`bm # w`), or `_` — the same variable per dimension in
//!   every access, each block variable in one dimension. Block `(bm, bn)` then touches only
//!   its chunk `output.chunkat(bm, bn)` of the block grid's partition of the tensor, no other
//!   block touches it, and the chunks cover the tensor: filling its chunk with the value when
//!   the block starts (before any access, then a barrier) is the initializer
//!   (`lower/simt.rs`). Not for persistent or cluster kernels (a block runs several tiles, or
//!   peers reach into each other), nor for a tensor a TMA copy reads (the fill's stores would
//!   need a proxy fence).
//!
//! Any other output initializer ([`host_fill`]: atomics into a zeroed histogram, writes that
//! skip elements, reads before writes) is applied by the runtime: before every launch it fills
//! the output with the value (`cuMemsetD8/16/32Async` of the element's bits, on the launch's
//! stream), the plan's [`crate::lower::LaunchPlan::fills`]. The value must be a number the
//! checker knows (a literal, a constant).

use super::{Binding, all_stmts, stmt_blocks, stmt_exprs, walk_expr};
use crate::ir::{CopyDst, DeclExt, Expr, ExprId, ExtStmt, Level, Module, Stmt, StmtId, ViewOp};
use std::collections::HashMap;

/// The global tensors declared at the top of the body (a function's outputs) whose shapes the
/// launch form (`lower::launch_form`) can state as parameters: every name in their dimensions
/// is, as the resolver binds it in the function as written, a problem size, a tunable, a
/// constant or a tensor parameter (`input.span`) — or unknown (an error of the function itself).
/// A dimension naming a value of the body (a `let`, a named shape, a scalar parameter) has no
/// meaning in the parameter list: moved there, it would be an unknown name or a new problem
/// size its body declaration shadows, so such an output stays where it is (E1304, not lowered).
pub fn header_outputs(m: &Module) -> std::collections::HashSet<StmtId> {
    let mut diags = crate::diag::Diagnostics::default();
    let res = super::resolve::resolve(m, &mut diags);
    let in_header = |e: ExprId| {
        let mut ok = true;
        walk_expr(m, e, &mut |x| {
            if !matches!(m.exprs[x], Expr::Name(_)) {
                return;
            }
            ok &= match res.bindings.get(&x) {
                None | Some(Binding::SymDim { .. } | Binding::Tunable | Binding::Constant) => true,
                Some(Binding::Param(i)) => {
                    m.kernel.params.get(*i).is_some_and(|p| !p.shape.is_empty())
                }
                Some(_) => false,
            };
        });
        ok
    };
    m.kernel
        .body
        .iter()
        .copied()
        .filter(|&s| {
            matches!(&m.stmts[s], Stmt::TensorDecl { space: crate::ir::MemSpace::Global, shape, .. }
                if shape.iter().all(|&d| in_header(d)))
        })
        .collect()
}

/// Whether the initializer `x` is unobservable (see the module comment). `bindings` resolves
/// names (the checker's); without them (in the lowering, after the checker accepted the
/// kernel) names are matched by text.
pub fn unobservable(m: &Module, bindings: Option<&HashMap<ExprId, Binding>>, x: &DeclExt) -> bool {
    let DeclExt::Init { decl, .. } = x else {
        return false;
    };
    // The launch form moved the declaration out of the body: it names an output parameter.
    let Stmt::TensorDecl { names, .. } = &m.stmts[*decl] else {
        return false;
    };
    if all_stmts(m).contains(decl) {
        return false;
    }
    names.iter().all(|d| {
        m.kernel
            .params
            .iter()
            .position(|p| p.name.name == d.name.name)
            .is_some_and(|i| write_only_covered(m, bindings, i))
    })
}

fn write_only_covered(
    m: &Module,
    bindings: Option<&HashMap<ExprId, Binding>>,
    param: usize,
) -> bool {
    let names_param = |e: ExprId| match bindings {
        Some(b) => matches!(b.get(&e), Some(Binding::Param(i)) if *i == param),
        None => matches!(&m.exprs[e], Expr::Name(n) if *n == m.kernel.params[param].name.name),
    };
    let mut writes = 0;
    let mut ok = true;
    walk(m, &m.kernel.body, &mut Vec::new(), &mut |s, conditional| {
        let dst = match &m.stmts[s] {
            Stmt::MmaStore { dst, .. } => Some(*dst),
            Stmt::DmaCopy {
                dst: CopyDst::Expr(d),
                ..
            }
            | Stmt::TmaCopy {
                dst: CopyDst::Expr(d),
                ..
            } => Some(*d),
            _ => None,
        };
        for e in stmt_exprs(&m.stmts[s]) {
            let mut uses = Vec::new();
            walk_expr(m, e, &mut |x| {
                if names_param(x) {
                    uses.push(x);
                }
            });
            if uses.is_empty() {
                continue;
            }
            let covering = Some(e) == dst && !conditional && covering_tile(m, bindings, e);
            if covering && uses.len() == 1 {
                writes += 1;
            } else {
                ok = false;
            }
        }
    });
    ok && writes > 0
}

/// `t.chunkat(i, j)` with each index a `parallel` variable, a composition of them, or `_`.
fn covering_tile(m: &Module, bindings: Option<&HashMap<ExprId, Binding>>, e: ExprId) -> bool {
    let Expr::View {
        base,
        op: ViewOp::Chunkat,
        args,
    } = &m.exprs[e]
    else {
        return false;
    };
    fn var(m: &Module, bindings: Option<&HashMap<ExprId, Binding>>, a: ExprId) -> bool {
        match &m.exprs[a] {
            Expr::Wildcard => true,
            Expr::Name(n) => match bindings {
                Some(b) => matches!(b.get(&a), Some(Binding::ParallelVar { .. })),
                None => parallel_var_named(m, n),
            },
            Expr::Compose { outer, inner } => var(m, bindings, *outer) && var(m, bindings, *inner),
            _ => false,
        }
    }
    matches!(m.exprs[*base], Expr::Name(_)) && args.iter().all(|&a| var(m, bindings, a))
}

/// Every statement, with whether it may not run for every value of the `parallel` variables
/// above it: under anything but a `parallel` (a condition, or a loop that may run no
/// iteration).
fn walk(m: &Module, b: &[StmtId], stack: &mut Vec<bool>, f: &mut impl FnMut(StmtId, bool)) {
    for &s in b {
        f(s, stack.iter().any(|&c| c));
        let conditional = !matches!(m.stmts[s], Stmt::Parallel { .. });
        for inner in stmt_blocks(&m.stmts[s]) {
            stack.push(conditional);
            walk(m, inner, stack, f);
            stack.pop();
        }
    }
}

/// An output initializer the blocks apply to their own chunks (see the module comment).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockFill {
    /// The output parameter.
    pub param: usize,
    /// The initial value.
    pub value: ExprId,
    /// Per dimension of the output, what each block owns of it.
    pub dims: Vec<Owned>,
}

/// What a block owns along one dimension of a block-owned output.
#[derive(Clone, Debug, PartialEq)]
pub enum Owned {
    /// All of it (`_`).
    Whole,
    /// Chunk `b` of the `.chunkat` split by the block variable `b`; `true` when the accesses
    /// compose it (`b # w`: the split is exact, `D / extent(b)`; alone, an extent `cdiv(D, T)`
    /// gives chunks of `T`, as the lowering's views do).
    Chunk(String, bool),
    /// Tile `b` of the product of these sizes (`.subspan(R).at(b # w)`: `R · extent(w)`).
    Tile(String, Vec<ExprId>),
}

/// The block-owned initializer `x` (see the module comment), if it is one. `bindings` resolves
/// names (the checker's); without them (in the lowering, after the checker accepted the
/// kernel) names are matched by text.
pub fn block_owned(
    m: &Module,
    bindings: Option<&HashMap<ExprId, Binding>>,
    x: &DeclExt,
) -> Option<BlockFill> {
    let DeclExt::Init { decl, value } = x else {
        return None;
    };
    let Stmt::TensorDecl { shape, .. } = &m.stmts[*decl] else {
        return None;
    };
    if m.persistent.is_some() {
        return None;
    }
    let param = moved_output(m, *decl)?;
    let rank = shape.len();
    // The `: block` variables.
    let mut block_vars: Vec<String> = Vec::new();
    for s in all_stmts(m) {
        if let Stmt::Parallel { levels, .. } = &m.stmts[s] {
            for l in levels {
                if l.level == Level::Block {
                    block_vars.extend(l.vars.iter().map(|v| v.name.clone()));
                }
            }
        }
    }
    if m.cluster.is_some() || m.cluster_level.is_some() || block_vars.is_empty() {
        return None;
    }
    let names_param = |e: ExprId| match bindings {
        Some(b) => matches!(b.get(&e), Some(Binding::Param(i)) if *i == param),
        None => matches!(&m.exprs[e], Expr::Name(n) if *n == m.kernel.params[param].name.name),
    };
    let is_block_var = |e: ExprId| -> Option<String> {
        let Expr::Name(n) = &m.exprs[e] else {
            return None;
        };
        let ok = match bindings {
            Some(b) => matches!(
                b.get(&e),
                Some(Binding::ParallelVar { stmt, level, .. })
                    if matches!(&m.stmts[*stmt], Stmt::Parallel { levels, .. }
                        if levels.get(*level).is_some_and(|l| l.level == Level::Block))
            ),
            None => block_vars.contains(n),
        };
        ok.then(|| n.clone())
    };
    let is_var = |e: ExprId| match bindings {
        Some(b) => matches!(
            b.get(&e),
            Some(Binding::ParallelVar { .. } | Binding::LoopVar { .. })
        ),
        None => matches!(m.exprs[e], Expr::Name(_)),
    };
    // The block variable of one `.chunkat` index: `B`, `B # w # …`, or `_` (None).
    fn leftmost(m: &Module, e: ExprId, out: &mut Vec<ExprId>) {
        match &m.exprs[e] {
            Expr::Compose { outer, inner } => {
                leftmost(m, *outer, out);
                leftmost(m, *inner, out);
            }
            _ => out.push(e),
        }
    }
    let extent_of = |x: ExprId| -> Option<ExprId> {
        let Expr::Name(n) = &m.exprs[x] else {
            return None;
        };
        match bindings {
            Some(b) => var_extent(m, b.get(&x)?),
            None => extent_by_name(m, n),
        }
    };
    // One access: per dimension, the block variable and the region it owns.
    let mut dims: Option<Vec<Owned>> = None;
    let key = |o: &[Owned]| -> Vec<String> {
        o.iter()
            .map(|d| match d {
                Owned::Whole => "_".to_string(),
                Owned::Chunk(b, c) => format!("chunk {b} {c}"),
                Owned::Tile(b, f) => format!(
                    "tile {b} {}",
                    f.iter()
                        .map(|&x| m.expr_to_string(x))
                        .collect::<Vec<_>>()
                        .join(" * ")
                ),
            })
            .collect()
    };
    let mut ok = true;
    for s in all_stmts(m) {
        let st = &m.stmts[s];
        let tma = matches!(
            st,
            Stmt::TmaCopy { .. } | Stmt::Ext(ExtStmt::DmaFuture { tma: true, .. })
        );
        for e in stmt_exprs(st) {
            let mut uses = 0;
            // (indices, the `.subspan` sizes for `t.subspan(…).at(…)`)
            let mut accesses: Vec<(Vec<ExprId>, Option<Vec<ExprId>>)> = Vec::new();
            walk_expr(m, e, &mut |x| {
                if names_param(x) {
                    uses += 1;
                }
                match &m.exprs[x] {
                    Expr::View {
                        base,
                        op: ViewOp::Chunkat,
                        args,
                    } if names_param(*base) => accesses.push((args.clone(), None)),
                    Expr::View {
                        base,
                        op: ViewOp::At,
                        args,
                    } => {
                        if let Expr::View {
                            base: root,
                            op: ViewOp::Subspan,
                            args: sizes,
                        } = &m.exprs[*base]
                            && names_param(*root)
                        {
                            accesses.push((args.clone(), Some(sizes.clone())));
                        }
                    }
                    _ => {}
                }
            });
            if uses == 0 {
                continue;
            }
            if tma || uses != accesses.len() {
                ok = false;
                continue;
            }
            for (args, sizes) in accesses {
                if args.len() != rank || sizes.as_ref().is_some_and(|z| z.len() != rank) {
                    ok = false;
                    continue;
                }
                let mut these = Vec::with_capacity(rank);
                for (d, &a) in args.iter().enumerate() {
                    if matches!(m.exprs[a], Expr::Wildcard) && sizes.is_none() {
                        these.push(Owned::Whole);
                        continue;
                    }
                    let mut atoms = Vec::new();
                    leftmost(m, a, &mut atoms);
                    let inner = &atoms[1..];
                    let rest_inner = inner
                        .iter()
                        .all(|&x| is_var(x) && is_block_var(x).is_none());
                    let Some(b) = is_block_var(atoms[0]).filter(|_| rest_inner) else {
                        ok = false;
                        these.push(Owned::Whole);
                        continue;
                    };
                    match &sizes {
                        None => these.push(Owned::Chunk(b, !inner.is_empty())),
                        Some(z) => {
                            // `(b # w) * R`: block `b` owns `R · extent(w)` along the dimension.
                            let mut f = vec![z[d]];
                            for &x in inner {
                                match extent_of(x) {
                                    Some(ext) => f.push(ext),
                                    None => ok = false,
                                }
                            }
                            these.push(Owned::Tile(b, f));
                        }
                    }
                }
                match &dims {
                    None => dims = Some(these),
                    Some(v) if key(v) != key(&these) => ok = false,
                    _ => {}
                }
            }
        }
    }
    let dims = dims?;
    // Every block variable owns one dimension.
    let used: Vec<&String> = dims
        .iter()
        .filter_map(|d| match d {
            Owned::Whole => None,
            Owned::Chunk(b, _) | Owned::Tile(b, _) => Some(b),
        })
        .collect();
    let each_once = block_vars
        .iter()
        .all(|b| used.iter().filter(|u| **u == b).count() == 1)
        && used.len() == block_vars.len();
    (ok && each_once).then_some(BlockFill {
        param,
        value: *value,
        dims,
    })
}

/// The extent of the loop or `parallel` variable a binding names.
fn var_extent(m: &Module, b: &Binding) -> Option<ExprId> {
    match b {
        Binding::LoopVar { stmt, index } => match &m.stmts[*stmt] {
            Stmt::Foreach { extents, .. } => extents.get(*index).copied(),
            _ => None,
        },
        Binding::ParallelVar { stmt, level, index } => match &m.stmts[*stmt] {
            Stmt::Parallel { levels, .. } => levels.get(*level)?.extents.get(*index).copied(),
            _ => None,
        },
        _ => None,
    }
}

/// The extent of the first loop or `parallel` variable named `n` (the checker resolved the
/// names before the lowering asks).
fn extent_by_name(m: &Module, n: &str) -> Option<ExprId> {
    all_stmts(m).into_iter().find_map(|s| match &m.stmts[s] {
        Stmt::Foreach { vars, extents, .. } => vars
            .iter()
            .position(|v| v.name == n)
            .and_then(|i| extents.get(i).copied()),
        Stmt::Parallel { levels, .. } => levels.iter().find_map(|l| {
            l.vars
                .iter()
                .position(|v| v.name == n)
                .and_then(|i| l.extents.get(i).copied())
        }),
        _ => None,
    })
}

/// Whether the blocks' regions of a block-owned output cover it: a `.chunkat` chunk always
/// does (the chunks partition the tensor); a `.subspan(R).at(b # w)` region of `R · extent(w)`
/// does when `b` runs over `cdiv(D, T)` with `T` that size (under the checked configuration), or
/// the values show `extent(b) · R · extent(w) ≥ D`.
pub(crate) fn covers(cx: &super::Cx, fill: &BlockFill) -> bool {
    let m = cx.m;
    let shape = &m.kernel.params[fill.param].shape;
    let block_extent = |b: &str| -> Option<ExprId> {
        all_stmts(m).into_iter().find_map(|s| match &m.stmts[s] {
            Stmt::Parallel { levels, .. } => levels
                .iter()
                .filter(|l| l.level == Level::Block)
                .find_map(|l| {
                    l.vars
                        .iter()
                        .position(|v| v.name == b)
                        .and_then(|i| l.extents.get(i).copied())
                }),
            _ => None,
        })
    };
    fill.dims.iter().enumerate().all(|(d, o)| match o {
        Owned::Whole | Owned::Chunk(..) => true,
        Owned::Tile(b, f) => {
            let Some(ext) = block_extent(b) else {
                return false;
            };
            let tile = f
                .iter()
                .try_fold(1i64, |acc, &x| cx.value(x).and_then(|v| acc.checked_mul(v)));
            let Some(tile) = tile else { return false };
            if let Expr::Call { func, args } = &m.exprs[ext]
                && func.name == "cdiv"
                && args.len() == 2
                && super::view::same_expr(m, args[0], shape[d])
                && cx.value(args[1]) == Some(tile)
            {
                return true;
            }
            match (cx.value(ext), cx.value(shape[d])) {
                (Some(e), Some(full)) => e.checked_mul(tile).is_some_and(|n| n >= full),
                _ => false,
            }
        }
    })
}

/// Whether some `parallel` level declares a variable named `n`.
fn parallel_var_named(m: &Module, n: &str) -> bool {
    all_stmts(m).into_iter().any(|s| {
        matches!(&m.stmts[s], Stmt::Parallel { levels, .. }
            if levels.iter().any(|l| l.vars.iter().any(|v| v.name == n)))
    })
}

/// An output initializer the runtime applies before each launch (see the module comment): the
/// output parameter and the initial value, or `None` when the initializer is unobservable or
/// block-owned (the kernel's own business) or does not name a moved output.
pub fn host_fill(
    m: &Module,
    bindings: Option<&HashMap<ExprId, Binding>>,
    x: &DeclExt,
) -> Option<(usize, ExprId)> {
    let DeclExt::Init { decl, value } = x else {
        return None;
    };
    if unobservable(m, bindings, x) || block_owned(m, bindings, x).is_some() {
        return None;
    }
    Some((moved_output(m, *decl)?, *value))
}

/// The output parameter a one-name global declaration became, once the launch form moved it
/// out of the body.
fn moved_output(m: &Module, decl: StmtId) -> Option<usize> {
    let Stmt::TensorDecl { names, .. } = &m.stmts[decl] else {
        return None;
    };
    if names.len() != 1 || all_stmts(m).contains(&decl) {
        return None;
    }
    m.kernel
        .params
        .iter()
        .position(|p| p.name.name == names[0].name.name)
}

/// The number an initializer's value stands for: a literal, negated or not, or an integer
/// constant (`consts`: the checker's values).
pub fn fill_value(
    m: &Module,
    e: ExprId,
    consts: &std::collections::BTreeMap<String, i64>,
) -> Option<f64> {
    match &m.exprs[e] {
        Expr::Int(v) => Some(*v as f64),
        Expr::Float { value, .. } => Some(*value),
        Expr::Bool(b) => Some(*b as i64 as f64),
        Expr::Unary {
            op: crate::ir::UnaryOp::Neg,
            expr,
        } => fill_value(m, *expr, consts).map(|v| -v),
        Expr::Name(n) => consts.get(n).map(|&v| v as f64),
        _ => None,
    }
}
