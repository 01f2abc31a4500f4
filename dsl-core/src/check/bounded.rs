//! Chunk indices beyond a bare variable: `k - 1` (a variable shifted by an integer) and
//! `k(-1)` (the last value of a bounded name). Both keep a chunk count: the shifted
//! variable's extent, or the bounded name's bound.

use crate::ir::{BinaryOp, Expr, ExprId, Module};

/// What gives the chunk count of a `.chunkat` index `a`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ChunkIndex {
    /// The index is (a shift of) this expression: a variable or a composition.
    Base(ExprId),
    /// The index is a value `k(-n)` whose bound is this expression.
    Bound(ExprId),
}

/// The chunk-count source of index `a`: a value `k(-n)` gives its bound; `x - c` (`c` a
/// non-negative integer literal) gives `x`'s; anything else is its own base. Only downward
/// shifts: they stay below the extent, and the range check proves them non-negative.
pub(crate) fn chunk_index(m: &Module, a: ExprId) -> ChunkIndex {
    if let Some(b) = m.bounded_value(a) {
        return ChunkIndex::Bound(b);
    }
    match &m.exprs[a] {
        Expr::Binary {
            op: BinaryOp::Sub,
            lhs,
            rhs,
        } if matches!(m.exprs[*rhs], Expr::Int(c) if c >= 0) => match chunk_index(m, *lhs) {
            ChunkIndex::Base(_) => ChunkIndex::Base(base_of(m, *lhs)),
            bound => bound,
        },
        _ => ChunkIndex::Base(a),
    }
}

/// `x` of `x - c - d …`.
fn base_of(m: &Module, a: ExprId) -> ExprId {
    match &m.exprs[a] {
        Expr::Binary {
            op: BinaryOp::Sub,
            lhs,
            rhs,
        } if matches!(m.exprs[*rhs], Expr::Int(c) if c >= 0) => base_of(m, *lhs),
        _ => a,
    }
}
