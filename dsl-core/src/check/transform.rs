//! What `dma.transp<p…>` and `dma.pad<low, high, mid, value>` do to the tile they copy: the
//! destination's shape and, per destination element, the source element (or the pad value).
//! The checker sizes fresh buffers and compares shapes with it; the lowering prints the copy
//! from it (`lower/dma_transform.rs`).

use crate::ir::{Expr, ExprId, Ident, Module};
use crate::sym::Sym;

/// A copy that rearranges its source tile.
#[derive(Clone, Debug, PartialEq)]
pub enum Transform {
    /// `dma.transp<p0, p1, …>`: dimension `d` of the destination is dimension `p[d]` of the
    /// source, so element `i` of the destination is the source's element `j` with
    /// `j[p[d]] = i[d]`.
    Transpose(Vec<usize>),
    /// `dma.pad<{low…}, {high…}, {0…}, value>`: `low[d]` elements before dimension `d` of the
    /// source and `high[d]` after it, all `value`.
    Pad {
        low: Vec<Sym>,
        high: Vec<Sym>,
        value: ExprId,
    },
}

/// The elements of an i-tuple value `{a, b, …}`, or `None` for any other expression.
pub(crate) fn ituple_elems(m: &Module, e: ExprId) -> Option<&[ExprId]> {
    match &m.exprs[e] {
        Expr::Call { func, args } if func.name == "ituple" => Some(args),
        _ => None,
    }
}

impl Transform {
    /// Whether a `dma` copy's modifiers name a transform (`transp` or `pad`).
    pub fn named(modifiers: &[(Ident, Vec<ExprId>)]) -> bool {
        modifiers
            .iter()
            .any(|(n, _)| matches!(n.name.as_str(), "transp" | "pad"))
    }

    /// The transform of a `dma` copy's modifiers, when it has one whose arguments are well
    /// formed for a source of `rank` dimensions: a permutation of integers, or padding
    /// amounts of tunables, constants and integers with zero middle padding (`check/pad.rs`
    /// and `check/views_ext.rs` report the others).
    pub fn of(m: &Module, modifiers: &[(Ident, Vec<ExprId>)], rank: usize) -> Option<Transform> {
        let (op, args) = modifiers
            .iter()
            .find(|(n, _)| matches!(n.name.as_str(), "transp" | "pad"))?;
        if op.name == "transp" {
            let p: Vec<usize> = args
                .iter()
                .map(|&a| match Sym::from_expr(m, a)? {
                    Sym::Int(v) => usize::try_from(v).ok(),
                    _ => None,
                })
                .collect::<Option<_>>()?;
            let mut seen = vec![false; rank];
            let perm = p.len() == rank
                && p.iter()
                    .all(|&d| d < rank && !std::mem::replace(&mut seen[d], true));
            return perm.then_some(Transform::Transpose(p));
        }
        let [low, high, mid, value] = args.as_slice() else {
            return None;
        };
        let amounts = |e: ExprId| -> Option<Vec<Sym>> {
            let v: Vec<Sym> = ituple_elems(m, e)?
                .iter()
                .map(|&x| Sym::from_expr(m, x))
                .collect::<Option<_>>()?;
            (v.len() == rank).then_some(v)
        };
        let zero = amounts(*mid)?.iter().all(|s| *s == Sym::Int(0));
        zero.then(|| {
            Some(Transform::Pad {
                low: amounts(*low)?,
                high: amounts(*high)?,
                value: *value,
            })
        })?
    }

    /// The destination's extents under a configuration, for a source tile of extents `tile`
    /// (`None` where unknown; `value` evaluates a padding amount).
    pub fn extents(
        &self,
        tile: &[Option<i64>],
        value: impl Fn(&Sym) -> Option<i64>,
    ) -> Vec<Option<i64>> {
        match self {
            Transform::Transpose(p) => p.iter().map(|&d| tile[d]).collect(),
            Transform::Pad { low, high, .. } => tile
                .iter()
                .zip(low.iter().zip(high))
                .map(|(n, (l, h))| Some(value(l)? + (*n)? + value(h)?))
                .collect(),
        }
    }

    /// The destination's shape for a source tile of shape `tile`.
    pub fn shape(&self, tile: &[Sym]) -> Vec<Sym> {
        match self {
            Transform::Transpose(p) => p.iter().map(|&d| tile[d].clone()).collect(),
            Transform::Pad { low, high, .. } => tile
                .iter()
                .zip(low.iter().zip(high))
                .map(|(n, (l, h))| match (l, n, h) {
                    (Sym::Int(l), Sym::Int(n), Sym::Int(h)) => Sym::Int(l + n + h),
                    _ => Sym::add(Sym::add(l.clone(), n.clone()), h.clone()),
                })
                .collect(),
        }
    }
}
