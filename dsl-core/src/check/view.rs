//! Tensor views: the shape of `t`, `t[i]`, `t.subspan(A, B).at(i, j)`, `t.chunkat(i, _)`,
//! `t.at(i, j)` (an element) and `f.data`, with the number of valid coordinates per dim.
//!
//! `chunkat` splits each dim evenly by the extent of the variable used there: for a variable
//! whose extent is `cdiv(D, T)` over a dim `D`, the chunk is `T`; for constant extents,
//! `dim / extent`; `_` keeps the dim whole.

use super::{Binding, Cx, Dim, DimExpr, all_stmts, at_expr, codes, stmt_exprs, walk_expr};
use crate::diag::Diagnostics;
use crate::ir::{CopyDst, Expr, ExprId, MemSpace, Module, Stmt, ViewOp};
use std::collections::{HashMap, HashSet};

pub(crate) use super::view_state::{VState, Views, var_extent};

pub(crate) fn compute_views(cx: &Cx, diags: &mut Diagnostics) -> Views {
    let m = cx.m;
    let mut a = A {
        cx,
        diags,
        views: Views {
            all: HashMap::new(),
            public: HashSet::new(),
        },
        failed: HashSet::new(),
    };
    for s in all_stmts(m) {
        match &m.stmts[s] {
            // A copy operand picks a tile like any view: the parser already wrote a bare
            // `.subspan` tiling's first tile as `.at(0, …)`.
            Stmt::Ext(crate::ir::ExtStmt::DmaFuture { src, dst, .. })
            | Stmt::DmaCopy { src, dst, .. }
            | Stmt::TmaCopy { src, dst, .. } => {
                let operands = std::iter::once(*src).chain(match dst {
                    CopyDst::Expr(d) => Some(*d),
                    CopyDst::Fresh(_) => None,
                });
                for e in operands {
                    a.publish(e);
                }
            }
            Stmt::MmaLoad { src, .. } | Stmt::Ext(crate::ir::ExtStmt::LoadInto { src, .. }) => {
                a.publish(*src)
            }
            // A named view: analysed (and its errors reported) even when unused.
            Stmt::Let { value, .. } if super::views_ext::is_view_let(m, *value) => {
                let _ = a.view(*value);
            }
            Stmt::MmaStore { dst, .. } => a.publish(*dst),
            _ => {}
        }
        // The scales of `mma….scale` (a tile of per-row scales, or values).
        let scales = m.scales_of(s).map(|x| [x.lhs, x.rhs]);
        if let Some([lhs, _]) = scales
            && (matches!(m.exprs[lhs], Expr::View { op, .. } if op != ViewOp::At)
                || super::views_ext::tile_pick(&m.exprs, lhs))
            && a.view(lhs).is_some_and(|v| !v.element && v.tiled.is_none())
        {
            a.views.public.insert(lhs);
        }
        // Element accesses anywhere in the statement's expressions.
        for e in stmt_exprs(&m.stmts[s])
            .into_iter()
            .chain(scales.into_iter().flatten())
        {
            let mut ats = Vec::new();
            walk_expr(m, e, &mut |x| {
                if matches!(m.exprs[x], Expr::View { op: ViewOp::At, .. }) {
                    ats.push(x);
                }
            });
            for x in ats {
                if let Some(v) = a.view(x)
                    && v.element
                {
                    a.views.public.insert(x);
                }
            }
        }
    }
    a.views
}

/// The view `e` of a fragment whose root name is seen as `root` (an accumulator slice in
/// `mma.store`, resolved once the accumulator's shape is known): errors as for any view, and the
/// view and its sub-views join `views` for the later passes (ranges, register-tile indices).
pub(crate) fn fragment_view(
    cx: &Cx,
    views: &mut Views,
    diags: &mut Diagnostics,
    e: ExprId,
    root: VState,
) -> Option<VState> {
    let m = cx.m;
    let mut base = e;
    while let Expr::View { base: b, .. } = &m.exprs[base] {
        base = *b;
    }
    let mut a = A {
        cx,
        diags,
        views: Views {
            all: HashMap::from([(base, root)]),
            public: HashSet::new(),
        },
        failed: HashSet::new(),
    };
    let v = a.view(e);
    views.all.extend(a.views.all);
    v
}

struct A<'a, 'b> {
    cx: &'a Cx<'b>,
    diags: &'a mut Diagnostics,
    views: Views,
    failed: HashSet<ExprId>,
}

impl A<'_, '_> {
    fn publish(&mut self, e: ExprId) {
        if let Some(v) = self.view(e) {
            if v.tiled.is_some() {
                self.diags.push(
                    at_expr(
                        self.cx.m,
                        codes::VIEW,
                        e,
                        "`.subspan(…)` tiles a tensor but picks no tile",
                    )
                    .with_help(
                        "pick one tile with `.at(i, j)`, e.g. `t.subspan(TM, TK).at(bm, k)`",
                    ),
                );
            } else {
                self.views.public.insert(e);
            }
        }
    }

    fn err<T>(&mut self, code: &'static str, e: ExprId, msg: String, help: &str) -> Option<T> {
        self.diags
            .push(at_expr(self.cx.m, code, e, msg).with_help(help.to_string()));
        self.failed.insert(e);
        None
    }

    /// The view `e` denotes (memoized; errors reported once).
    fn view(&mut self, e: ExprId) -> Option<VState> {
        if let Some(v) = self.views.all.get(&e) {
            return Some(v.clone());
        }
        if self.failed.contains(&e) {
            return None;
        }
        let v = self.compute(e);
        match &v {
            Some(v) => {
                self.views.all.insert(e, v.clone());
            }
            None => {
                self.failed.insert(e);
            }
        }
        v
    }

    fn compute(&mut self, e: ExprId) -> Option<VState> {
        let cx = self.cx;
        let m = cx.m;
        match &m.exprs[e] {
            Expr::Name(n) => {
                let b = *cx.res.bindings.get(&e)?;
                let v = self.root(b)?;
                if let Some(count) = array_count(cx, b) {
                    return self.err(
                        codes::VIEW,
                        e,
                        format!(
                            "`{n}` is an array of {} tensors; pick one",
                            count.map(|c| c.to_string()).unwrap_or("several".into())
                        ),
                        &format!("index it: `{n}[i]`"),
                    );
                }
                Some(v)
            }
            Expr::Index { base, index } => {
                let b = *cx.res.bindings.get(base)?;
                let name = m.expr_to_string(*base);
                if matches!(b, Binding::Tensor(..)) && array_count(cx, b).is_some() {
                    let mut v = self.root(b)?;
                    v.array_index = Some(*index);
                    Some(v)
                } else {
                    self.err(
                        codes::VIEW,
                        e,
                        format!("`{name}` is not an array of tensors, so it cannot be indexed with `[…]`"),
                        "use `.at(i, j)` for an element or `.subspan(…).at(…)` for a tile",
                    )
                }
            }
            Expr::Field { base, .. } => {
                let b = *cx.res.bindings.get(base)?;
                self.root(b)
            }
            Expr::View { base, op, args } => {
                let bv = self.view(*base)?;
                self.apply(e, bv, *op, args)
            }
            _ => None,
        }
    }

    /// The whole tensor a binding names.
    fn root(&mut self, b: Binding) -> Option<VState> {
        let cx = self.cx;
        let m = cx.m;
        let (dtype, space, shape) = match b {
            Binding::Param(i) => {
                let p = m.kernel.params.get(i)?;
                (
                    p.dtype,
                    p.space,
                    p.shape.iter().map(|&d| cx.dim(d)).collect::<Vec<_>>(),
                )
            }
            Binding::Tensor(s, _) => match &m.stmts[s] {
                Stmt::TensorDecl {
                    space,
                    dtype,
                    shape,
                    ..
                } => (*dtype, *space, shape.iter().map(|&d| cx.dim(d)).collect()),
                _ => return None,
            },
            Binding::Future(s) => match &m.stmts[s] {
                // `f = dma.transp<…> … => shared;` / `f = dma.pad<…> … => shared;`: a fresh
                // buffer of the source tile's shape, rearranged (`Transform::shape`).
                Stmt::Ext(crate::ir::ExtStmt::DmaFuture {
                    src,
                    dst: CopyDst::Fresh(space),
                    modifiers,
                    ..
                }) if super::Transform::named(modifiers) => {
                    let sv = self.view(*src)?;
                    let tile = sv.tiled.clone().unwrap_or(sv.shape);
                    let shape = match super::Transform::of(m, modifiers, tile.len())? {
                        super::Transform::Transpose(p) => p.iter().map(|&d| tile[d]).collect(),
                        pad => {
                            let values: Vec<Option<i64>> = tile.iter().map(|d| d.value).collect();
                            pad.extents(&values, |s| cx.sym_value(s))
                                .into_iter()
                                .map(|v| {
                                    let v = v?;
                                    Some(super::Dim {
                                        expr: super::DimExpr::Const(v),
                                        value: Some(v),
                                    })
                                })
                                .collect::<Option<_>>()?
                        }
                    };
                    (sv.dtype, *space, shape)
                }
                // `f = dma.copy … => shared;` / `f = tma.copy … => shared;`: a fresh buffer of
                // the source tile's shape; `=> t`: the tensor `t`.
                Stmt::TmaCopy { src, dst, .. }
                | Stmt::Ext(crate::ir::ExtStmt::DmaFuture { src, dst, .. })
                    if !matches!(&m.stmts[s], Stmt::Ext(crate::ir::ExtStmt::DmaFuture { modifiers, .. })
                        if modifiers.iter().any(|(n, _)| !matches!(n.name.as_str(), "swiz" | "zfill"))) =>
                {
                    match dst {
                        CopyDst::Fresh(space) => {
                            let sv = self.view(*src)?;
                            let shape = sv.tiled.clone().unwrap_or(sv.shape);
                            (sv.dtype, *space, shape)
                        }
                        CopyDst::Expr(d) => {
                            let dv = self.view(*d)?;
                            (dv.dtype, dv.space, dv.shape)
                        }
                    }
                }
                _ => return None,
            },
            _ => return None,
        };
        Some(VState::root(b, dtype, space, shape))
    }

    fn apply(&mut self, e: ExprId, mut v: VState, op: ViewOp, args: &[ExprId]) -> Option<VState> {
        let cx = self.cx;
        let m = cx.m;
        let rank = v.shape.len();
        if v.element {
            return self.err(
                codes::VIEW,
                e,
                format!("`.{}` applied to a single element", op.name()),
                "apply views to tensors or tiles, not to elements",
            );
        }
        if v.transposed && op != ViewOp::Transpose {
            return self.err(
                codes::VIEW,
                e,
                format!("`.{}` applied to a `.transpose()` view", op.name()),
                "write `.transpose()` last: `t.subspan(A, B).at(i, j).transpose()`",
            );
        }
        if op == ViewOp::Transpose {
            return self.transpose(e, v, args);
        }
        if !op.is_lowered() {
            return match super::views_ext::apply(cx, e, v, op, args) {
                Ok(v) => v,
                Err(msg) => self.err(
                    codes::VIEW,
                    e,
                    msg,
                    if op == ViewOp::SpanAs {
                        "give the new shape as many elements as the view has"
                    } else {
                        "tile or reshape first: `t.subspan(1, N).at(i, 0).sqz()`"
                    },
                ),
            };
        }
        if args.len() != rank {
            return self.err(
                codes::VIEW,
                e,
                format!(
                    "`.{}` takes one argument per dimension: the tensor has {rank}, found {}",
                    op.name(),
                    args.len()
                ),
                "give one index or size per dimension",
            );
        }
        match op {
            ViewOp::Subspan => {
                if v.tiled.is_some() {
                    return self.err(
                        codes::VIEW,
                        e,
                        "`.subspan` applied twice without `.at`".into(),
                        "pick a tile with `.at(i, j)` before tiling again",
                    );
                }
                let tile: Vec<Dim> = args
                    .iter()
                    .zip(&v.shape)
                    .map(|(&a, full)| cx.size_or_whole(a, full))
                    .collect();
                for (d, (t, full)) in tile.iter().zip(&v.shape).enumerate() {
                    if let (Some(tv), Some(fv)) = (t.value, cx.dim_value(full))
                        && (tv < 1 || (v.space != MemSpace::Global && tv > fv))
                    {
                        return self.err(
                            codes::VIEW,
                            args[d],
                            format!(
                                "tile size {} does not fit dimension {d} of extent {}",
                                cx.describe_dim(t),
                                cx.describe_dim(full)
                            ),
                            "use a tile size between 1 and the dimension's extent",
                        );
                    }
                }
                v.tiled = Some(tile);
                Some(v)
            }
            ViewOp::At => {
                match v.tiled.take() {
                    Some(tile) => {
                        // A global tile may hang past the tensor's edge (its copies are
                        // bounds-checked); a tile of shared or register memory lies inside
                        // its tensor, which has only the whole tiles.
                        let on_chip = v.space != MemSpace::Global;
                        v.bounds = tile
                            .iter()
                            .zip(&v.shape)
                            .map(|(t, full)| match (t.value, cx.dim_value(full)) {
                                (Some(tv), Some(fv)) if tv > 0 && on_chip => Some(fv / tv),
                                (Some(tv), Some(fv)) if tv > 0 => {
                                    Some(fv.saturating_add(tv - 1) / tv)
                                }
                                _ => None,
                            })
                            .collect();
                        v.shape = tile;
                    }
                    None => {
                        v.bounds = v.shape.iter().map(|d| cx.dim_value(d)).collect();
                        v.shape = vec![
                            Dim {
                                expr: DimExpr::Const(1),
                                value: Some(1)
                            };
                            rank
                        ];
                        v.element = true;
                    }
                }
                v.coords = args.iter().map(|&a| Some(a)).collect();
                Some(v)
            }
            ViewOp::Transpose
            | ViewOp::Window
            | ViewOp::Strides
            | ViewOp::From
            | ViewOp::SpanAs
            | ViewOp::Sqz
            | ViewOp::Step
            | ViewOp::SpanOf => None,
            ViewOp::Chunkat => {
                if v.tiled.is_some() {
                    return self.err(
                        codes::VIEW,
                        e,
                        "`.chunkat` applied to a `.subspan` tiling".into(),
                        "use either `.subspan(…).at(…)` or `.chunkat(…)`",
                    );
                }
                let mut shape = Vec::with_capacity(rank);
                let mut bounds = Vec::with_capacity(rank);
                let mut coords = Vec::with_capacity(rank);
                let mut failed = false;
                for (d, &a) in args.iter().enumerate() {
                    let full = v.shape[d];
                    if matches!(m.exprs[a], Expr::Wildcard) {
                        shape.push(full);
                        bounds.push(Some(1));
                        coords.push(None);
                        continue;
                    }
                    let Some(chunk) = self.chunk_size(a, &full) else {
                        failed = true;
                        continue;
                    };
                    // A chunk wider than a fixed on-chip dimension would read past the buffer
                    // (a global dimension's last chunk is clipped at run time instead).
                    if let (Some(c), Some(f)) = (chunk.value, cx.dim_value(&full))
                        && (c < 1 || (v.space != MemSpace::Global && c > f))
                    {
                        return self.err(
                            codes::VIEW,
                            a,
                            format!(
                                "chunk size {} does not fit dimension {d} of extent {}",
                                cx.describe_dim(&chunk),
                                cx.describe_dim(&full)
                            ),
                            "make the chunk no wider than the dimension (the extent `cdiv(D, T)` makes chunks of T)",
                        );
                    }
                    let b = match (chunk.value, cx.dim_value(&full)) {
                        (Some(c), Some(f)) if c > 0 => Some(f / c),
                        _ => None,
                    };
                    shape.push(chunk);
                    bounds.push(b);
                    coords.push(Some(a));
                }
                if failed {
                    return None;
                }
                v.shape = shape;
                v.bounds = bounds;
                v.coords = coords;
                Some(v)
            }
        }
    }

    /// `.transpose()`: a 2-D tensor or tile with its dimensions swapped.
    fn transpose(&mut self, e: ExprId, mut v: VState, args: &[ExprId]) -> Option<VState> {
        if !args.is_empty() {
            return self.err(
                codes::VIEW,
                e,
                format!("`.transpose()` takes no arguments, found {}", args.len()),
                "write `t.transpose()`",
            );
        }
        if v.tiled.is_some() {
            return self.err(
                codes::VIEW,
                e,
                "`.transpose()` applied to a `.subspan` tiling that picks no tile".into(),
                "pick the tile first: `t.subspan(A, B).at(i, j).transpose()`",
            );
        }
        if v.shape.len() != 2 {
            return self.err(
                codes::VIEW,
                e,
                format!(
                    "`.transpose()` swaps the two dimensions of a 2-D view; this one has {}",
                    v.shape.len()
                ),
                "transpose 2-D tensors or tiles",
            );
        }
        v.shape.reverse();
        v.coords.reverse();
        v.bounds.reverse();
        v.decl_shape.reverse();
        v.transposed = !v.transposed;
        Some(v)
    }

    /// The chunk size for index `a` over a dim `full`.
    fn chunk_size(&mut self, a: ExprId, full: &Dim) -> Option<Dim> {
        let cx = self.cx;
        let m = cx.m;
        let help = "index `.chunkat` with a parallel or foreach variable (extent `cdiv(D, T)` or a constant dividing D), or use `.subspan(T…).at(…)`";
        if let Some(d) = super::views_ext::compose_chunk(cx, a, full) {
            return Some(d);
        }
        let ext = match super::chunk_index(m, a) {
            super::ChunkIndex::Base(b) => var_extent(cx, b),
            super::ChunkIndex::Bound(b) => Some(b),
        };
        let Some(ext) = ext else {
            return self.err(
                codes::CHUNK,
                a,
                format!("cannot infer the chunk size from `{}`", m.expr_to_string(a)),
                help,
            );
        };
        if let Expr::Call { func, args } = &m.exprs[ext]
            && func.name == "cdiv"
            && args.len() == 2
        {
            let same = match full.expr {
                DimExpr::Expr(d) => {
                    same_expr(m, d, args[0])
                        || matches!((cx.dim_value(full), cx.value(args[0])), (Some(x), Some(y)) if x == y)
                }
                DimExpr::Const(c) => cx.value(args[0]) == Some(c),
            };
            if same {
                return Some(cx.dim(args[1]));
            }
        }
        match (cx.dim_value(full), cx.static_value(ext)) {
            (Some(f), Some(x)) if x > 0 && f % x == 0 => Some(Dim { expr: DimExpr::Const(f / x), value: Some(f / x) }),
            (Some(f), Some(x)) if x > 0 => self.err(
                codes::CHUNK,
                a,
                format!("`{}` splits a dimension of {f} into {x} chunks, which is not even", m.expr_to_string(a)),
                "make the extent divide the dimension, or use `.subspan(T…).at(…)`",
            ),
            _ => self.err(
                codes::CHUNK,
                a,
                format!(
                    "cannot infer the chunk size: `{}` has extent `{}`, which does not split the dimension `{}`",
                    m.expr_to_string(a),
                    m.expr_to_string(ext),
                    cx.describe_dim(full)
                ),
                help,
            ),
        }
    }
}

/// The array count of a tensor binding (`Some(None)`: an array whose count has no value).
pub(crate) fn array_count(cx: &Cx, b: Binding) -> Option<Option<i64>> {
    match b {
        Binding::Tensor(s, d) => match &cx.m.stmts[s] {
            Stmt::TensorDecl { names, .. } => names.get(d)?.count.map(|c| cx.value(c)),
            _ => None,
        },
        _ => None,
    }
}

/// Structural equality of two expressions.
pub(crate) fn same_expr(m: &Module, a: ExprId, b: ExprId) -> bool {
    match (&m.exprs[a], &m.exprs[b]) {
        (Expr::Int(x), Expr::Int(y)) => x == y,
        (Expr::Name(x), Expr::Name(y)) => x == y,
        (Expr::Unary { op: o1, expr: e1 }, Expr::Unary { op: o2, expr: e2 }) => {
            o1 == o2 && same_expr(m, *e1, *e2)
        }
        (
            Expr::Binary {
                op: o1,
                lhs: l1,
                rhs: r1,
            },
            Expr::Binary {
                op: o2,
                lhs: l2,
                rhs: r2,
            },
        ) => o1 == o2 && same_expr(m, *l1, *l2) && same_expr(m, *r1, *r2),
        (Expr::Call { func: f1, args: a1 }, Expr::Call { func: f2, args: a2 }) => {
            f1.name == f2.name
                && a1.len() == a2.len()
                && a1.iter().zip(a2).all(|(x, y)| same_expr(m, *x, *y))
        }
        _ => false,
    }
}
