//! The shape of the fresh shared buffer a future's copy creates (`f = dma.copy src => shared;`,
//! `f = tma.copy src => shared;`): the tile of its source, worked out from the source view the
//! way the lowering computes the view (`lower/cexpr.rs`), so that the buffer the `memory` pass
//! places and the tile the copy moves are one shape.
//!
//! Sources with such a shape:
//! - `t.subspan(R, C).at(i, j)` (also with `.step(…)` before `.at`, and `.subspan(…)` alone): the
//!   tile is `[R, C]`;
//! - `t.chunkat(i, j)`, chains of `.chunkat`, composed indices (`a # b`) and `_`: along a
//!   dimension `D` split by an index of extent `cdiv(D, T)` the tile is `T`; by any other
//!   extent `E` (a composition: the product of its variables' extents) it is `D / E`; `_`
//!   keeps `D`;
//! - a whole parameter or declared tensor: its shape;
//! - any chain of those and `.sqz()`, which drops the dimensions of extent 1: a rank-reducing
//!   view such as `Q.subspan(1, 1, S, D).at(b, h, 0, 0).sqz()` is `[S, D]`, and
//!   `….sqz().subspan(BM, D).at(i, 0)` is `[BM, D]` (named views are written out at their
//!   uses by the parser, so `q = Q_head.subspan(BM, D).at(i, 0)` is the same chain).
//!
//! A shared buffer is sized at compile time, so every dimension must be arithmetic over
//! integers, tunables and constants (a problem dimension such as `M` may appear only under a
//! `cdiv(M, T)` extent, whose chunk is `T`).

use super::{Binding, ChunkIndex, chunk_index};
use crate::ir::{BinaryOp, DType, Expr, ExprId, Module, Stmt, ViewOp};
use std::collections::HashMap;

/// One dimension of a fresh buffer: `num / (div[0] * div[1] * …)`.
#[derive(Clone, Debug, PartialEq)]
pub struct FreshDim {
    pub num: ExprId,
    pub div: Vec<ExprId>,
}

impl FreshDim {
    pub fn whole(num: ExprId) -> FreshDim {
        FreshDim {
            num,
            div: Vec::new(),
        }
    }

    /// The C++-like text of the dimension (for messages and shape comparisons).
    pub fn text(&self, m: &Module) -> String {
        let mut s = m.expr_to_string(self.num);
        for &d in &self.div {
            s = format!("{s} / {}", m.expr_to_string(d));
        }
        s
    }

    /// Its value, with `value` evaluating one expression.
    pub fn eval(&self, value: impl Fn(ExprId) -> Option<i64>) -> Option<i64> {
        let mut v = value(self.num)?;
        for &d in &self.div {
            let x = value(d)?;
            if x <= 0 {
                return None;
            }
            v /= x;
        }
        Some(v)
    }
}

/// The element type and tile of `src`, the source of a copy into a fresh buffer, when it has a
/// compile-time shape (see the module comment); `bindings` resolves names (the checker's).
pub(crate) fn fresh_tile(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    src: ExprId,
) -> Option<(Vec<FreshDim>, DType)> {
    let (dims, dtype) = tile(m, bindings, src)?;
    dims.iter()
        .all(|d| {
            std::iter::once(d.num)
                .chain(d.div.iter().copied())
                .all(|e| static_int(m, e))
        })
        .then_some((dims, dtype))
}

fn tile(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    e: ExprId,
) -> Option<(Vec<FreshDim>, DType)> {
    match &m.exprs[e] {
        Expr::Name(_) => {
            let (shape, dtype) = match bindings.get(&e)? {
                Binding::Param(i) => {
                    let p = m.kernel.params.get(*i)?;
                    (p.shape.clone(), p.dtype)
                }
                Binding::Tensor(s, _) => match &m.stmts[*s] {
                    Stmt::TensorDecl { shape, dtype, .. } => (shape.clone(), *dtype),
                    _ => return None,
                },
                _ => return None,
            };
            (!shape.is_empty()).then(|| (shape.into_iter().map(FreshDim::whole).collect(), dtype))
        }
        // `t.subspan(R, C).at(i, j)` (or `.subspan(R, C).step(…).at(…)`): the tile `[R, C]`,
        // also inside a longer chain (`….at(b, h, 0, 0).sqz().subspan(…)`).
        Expr::View {
            base,
            op: ViewOp::At,
            ..
        } => match &m.exprs[stepped(m, *base)] {
            Expr::View {
                base: root,
                op: ViewOp::Subspan,
                args,
            } => {
                let (whole, dtype) = tile(m, bindings, *root)?;
                (whole.len() == args.len())
                    .then(|| (args.iter().map(|&a| FreshDim::whole(a)).collect(), dtype))
            }
            _ => None,
        },
        // `v.sqz()`: `v`'s tile without its dimensions of extent 1 (a rank-reducing view:
        // `t.subspan(1, 1, S, D).at(b, h, 0, 0).sqz()` is `[S, D]`).
        Expr::View {
            base,
            op: ViewOp::Sqz,
            ..
        } => {
            let (dims, dtype) = tile(m, bindings, *base)?;
            let kept: Vec<FreshDim> = dims
                .iter()
                .filter(|d| !(d.div.is_empty() && is_one(m, d.num)))
                .cloned()
                .collect();
            if kept.is_empty() {
                return dims.first().map(|d| (vec![d.clone()], dtype));
            }
            Some((kept, dtype))
        }
        Expr::View {
            base,
            op: ViewOp::Subspan,
            args,
        } => {
            let (whole, dtype) = tile(m, bindings, *base)?;
            (whole.len() == args.len())
                .then(|| (args.iter().map(|&a| FreshDim::whole(a)).collect(), dtype))
        }
        Expr::View {
            base,
            op: ViewOp::Chunkat,
            args,
        } => {
            let (mut dims, dtype) = tile(m, bindings, *base)?;
            if dims.len() != args.len() {
                return None;
            }
            for (d, &a) in dims.iter_mut().zip(args) {
                if matches!(m.exprs[a], Expr::Wildcard) {
                    continue;
                }
                let exts = extents(m, bindings, a)?;
                // `cdiv(D, T)` over the whole dimension `D`: chunks of `T`.
                if let [ext] = exts.as_slice()
                    && d.div.is_empty()
                    && let Expr::Call { func, args: ca } = &m.exprs[*ext]
                    && func.name == "cdiv"
                    && ca.len() == 2
                    && super::view::same_expr(m, ca[0], d.num)
                {
                    *d = FreshDim::whole(ca[1]);
                    continue;
                }
                d.div.extend(exts);
            }
            Some((dims, dtype))
        }
        _ => None,
    }
}

/// The `.subspan` under a `.step`: the tiling whose tiles `.at` picks.
fn stepped(m: &Module, e: ExprId) -> ExprId {
    match &m.exprs[e] {
        Expr::View {
            base,
            op: ViewOp::Step,
            ..
        } if matches!(
            m.exprs[*base],
            Expr::View {
                op: ViewOp::Subspan,
                ..
            }
        ) =>
        {
            *base
        }
        _ => e,
    }
}

/// The extents whose product is the chunk count of `.chunkat` index `a`: a variable's extent,
/// each variable's of a composition (`a # b`), a bounded value's bound.
fn extents(m: &Module, bindings: &HashMap<ExprId, Binding>, a: ExprId) -> Option<Vec<ExprId>> {
    match &m.exprs[a] {
        Expr::Compose { outer, inner } => {
            let mut v = extents(m, bindings, *outer)?;
            v.extend(extents(m, bindings, *inner)?);
            Some(v)
        }
        _ => match chunk_index(m, a) {
            ChunkIndex::Bound(b) => Some(vec![b]),
            ChunkIndex::Base(b) if b != a => extents(m, bindings, b),
            ChunkIndex::Base(b) => Some(vec![super::view_state::var_extent_in(m, bindings, b)?]),
        },
    }
}

/// Whether `e` is the literal 1, or a constant whose value is (the extents `.sqz()` drops).
fn is_one(m: &Module, e: ExprId) -> bool {
    match &m.exprs[e] {
        Expr::Int(1) => true,
        Expr::Name(n) => m.constant(n).is_some_and(|c| is_one(m, c.value)),
        _ => false,
    }
}

/// Integer arithmetic over literals, tunables and constants (`cdiv`/`min`/`max` included).
fn static_int(m: &Module, e: ExprId) -> bool {
    match &m.exprs[e] {
        Expr::Int(_) => true,
        Expr::Name(n) => m.tunable(n).is_some() || m.constant(n).is_some(),
        Expr::Binary { op, lhs, rhs } => {
            matches!(
                op,
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
            ) && static_int(m, *lhs)
                && static_int(m, *rhs)
        }
        Expr::Call { func, args } => {
            matches!(func.name.as_str(), "cdiv" | "min" | "max")
                && args.len() == 2
                && args.iter().all(|&a| static_int(m, a))
        }
        _ => false,
    }
}
