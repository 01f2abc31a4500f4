//! The shape of the fresh shared buffer a future's copy creates (`f = dma.copy src => shared;`,
//! `f = tma.copy src => shared;`): the tile of its source's symbolic view (`view_sym.rs`, the
//! one implementation of the view rules, which the lowering prints for the copy), so that the
//! buffer the `memory` pass places and the tile the copy moves are one shape. For example
//! `t.subspan(R, C).at(i, j)` (with or without `.step(…)`) is `[R, C]`; `t.chunkat(i, j)` with
//! `i` over `cdiv(D, T)` is `T` along `D`, with `i` of any other extent `E` it is `D / E`;
//! `….at(b, h, 0, 0).sqz()` drops the dimensions of extent 1; a whole tensor is its shape.
//!
//! A source qualifies when it views a kernel parameter or a declared tensor (not a single
//! element, an array entry, a transposed view or another future's buffer). A register array
//! (`=> local`) is sized at compile time: every dimension of its tile is arithmetic over
//! integers, tunables and constants (a problem dimension such as `M` may appear only under a
//! `cdiv(M, T)` extent, whose chunk is `T`). A shared buffer may also be sized at launch, by
//! problem sizes (`x.subspan(M, 64)`, [`launch_known`]).

use super::Binding;
use crate::ir::{DType, ExprId, ExtStmt, Module, Stmt, StmtId};
use crate::sym::Sym;
use std::collections::HashMap;

/// The element type and tile of `src`, the source of a copy into a fresh buffer, when it has a
/// compile-time shape (see the module comment); `bindings` resolves names (the checker's).
pub(crate) fn fresh_tile(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    src: ExprId,
) -> Option<(Vec<Sym>, DType)> {
    source_tile(m, bindings, src).filter(|(tile, _)| tile.iter().all(|d| super::compile_time(m, d)))
}

/// The element type and tile of `src` when it qualifies as a fresh buffer's source, sized at
/// compile time or at launch.
fn source_tile(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    src: ExprId,
) -> Option<(Vec<Sym>, DType)> {
    // No fresh buffer is a source's root: a future's buffer has no view here.
    let root = |r: ExprId| super::root_of(m, bindings, &[], r, 0);
    let v = super::sym_view(m, bindings, &root, src).ok()?;
    if v.element || v.transposed || v.array_index.is_some() || v.tile.is_empty() {
        return None;
    }
    let dtype = match bindings.get(&v.root)? {
        Binding::Param(i) => m.kernel.params.get(*i)?.dtype,
        Binding::Tensor(s, _) => match &m.stmts[*s] {
            Stmt::TensorDecl { dtype, .. } => *dtype,
            _ => return None,
        },
        _ => return None,
    };
    Some((v.tile, dtype))
}

/// Whether every dimension of `shape` is known when the kernel launches: arithmetic over
/// integers, tunables, constants and problem sizes (the names in parameter shapes), which size
/// the launch's dynamic shared memory.
pub(crate) fn launch_known(m: &Module, shape: &[Sym]) -> bool {
    let mut names = Vec::new();
    for d in shape {
        d.names(&mut names);
    }
    let problem_size = |n: &str| {
        m.kernel.params.iter().any(|p| {
            p.shape
                .iter()
                .any(|&d| matches!(&m.exprs[d], crate::ir::Expr::Name(x) if x == n))
        })
    };
    names
        .iter()
        .all(|n| m.tunable(n).is_some() || m.constant(n).is_some() || problem_size(n))
}

/// The element type and shape of the fresh shared buffer statement `s` creates: its source's
/// tile, rearranged by a `dma.transp` or `dma.pad` of the statement (`Transform::shape`).
/// `None` where either is not known at launch ([`launch_known`]).
pub(crate) fn fresh_shape(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    s: StmtId,
) -> Option<(Vec<Sym>, DType)> {
    let (src, modifiers) = match &m.stmts[s] {
        Stmt::Ext(ExtStmt::DmaFuture { src, modifiers, .. }) => (*src, modifiers.as_slice()),
        Stmt::TmaCopy { src, .. } => (*src, &[][..]),
        _ => return None,
    };
    let (tile, dtype) = source_tile(m, bindings, src).filter(|(t, _)| launch_known(m, t))?;
    if !super::Transform::named(modifiers) {
        return Some((tile, dtype));
    }
    let t = super::Transform::of(m, modifiers, tile.len())?;
    let shape = t.shape(&tile);
    launch_known(m, &shape).then_some((shape, dtype))
}
