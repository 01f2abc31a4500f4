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

/// The chunk-count source of index `a`: a value `k(-n)` gives its bound; `x ± c` and `c + x`
/// (`c` an integer literal) give `x`'s; anything else is its own base.
pub(crate) fn chunk_index(m: &Module, a: ExprId) -> ChunkIndex {
    if let Some(b) = m.bounded_value(a) {
        return ChunkIndex::Bound(b);
    }
    match &m.exprs[a] {
        Expr::Binary {
            op: BinaryOp::Add | BinaryOp::Sub,
            lhs,
            rhs,
        } if matches!(m.exprs[*rhs], Expr::Int(_)) => chunk_index(m, *lhs),
        Expr::Binary {
            op: BinaryOp::Add,
            lhs,
            rhs,
        } if matches!(m.exprs[*lhs], Expr::Int(_)) => chunk_index(m, *rhs),
        _ => ChunkIndex::Base(a),
    }
}
