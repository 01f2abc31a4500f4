//! What the view analysis produces and the checks of `view.rs` and `views_ext.rs` share: the
//! state of one view ([`VState`]), the table of analysed views ([`Views`]) and the extent of
//! a loop or parallel variable. Both files import these from here, so neither imports the
//! other's items back.

use super::{Binding, Cx, Dim, ViewInfo};
use crate::ir::{DType, ExprId, MemSpace, Stmt};
use std::collections::{HashMap, HashSet};

/// The analysis of one view expression.
#[derive(Clone, Debug)]
pub(crate) struct VState {
    pub root: Binding,
    pub array_index: Option<ExprId>,
    pub dtype: DType,
    pub space: MemSpace,
    pub shape: Vec<Dim>,
    pub coords: Vec<Option<ExprId>>,
    pub element: bool,
    /// Tile shape after `.subspan`, waiting for `.at`.
    pub tiled: Option<Vec<Dim>>,
    /// The root tensor's declared shape.
    pub decl_shape: Vec<Dim>,
    /// Number of valid values of each coordinate (tiles, chunks or elements), when known.
    pub bounds: Vec<Option<i64>>,
    /// A `.transpose()` view: dimension order reversed relative to the tensor's.
    pub transposed: bool,
}

impl VState {
    /// An accumulator (`mma.fill` at `def`) seen as a register tile of its `[M, N]` shape: the
    /// root of the views that `mma.store` slices it with.
    pub fn fragment(def: crate::ir::StmtId, dtype: DType, shape: Vec<Dim>) -> VState {
        VState::root(Binding::Frag(def), dtype, MemSpace::Local, shape)
    }

    /// The whole tensor (or fragment) `root`, before any view method.
    pub(crate) fn root(root: Binding, dtype: DType, space: MemSpace, shape: Vec<Dim>) -> VState {
        let n = shape.len();
        VState {
            root,
            array_index: None,
            dtype,
            space,
            decl_shape: shape.clone(),
            shape,
            coords: vec![None; n],
            element: false,
            tiled: None,
            bounds: vec![None; n],
            transposed: false,
        }
    }
}

pub(crate) struct Views {
    pub all: HashMap<ExprId, VState>,
    /// Expressions published in `KernelInfo::views`.
    pub public: HashSet<ExprId>,
}

impl Views {
    pub fn get(&self, e: ExprId) -> Option<&VState> {
        self.all.get(&e)
    }
    pub fn public_views(&self) -> HashMap<ExprId, ViewInfo> {
        self.public
            .iter()
            .filter_map(|e| self.all.get(e).map(|v| (*e, v)))
            .map(|(e, v)| {
                let info = ViewInfo {
                    root: v.root,
                    array_index: v.array_index,
                    dtype: v.dtype,
                    space: v.space,
                    tile: v.shape.clone(),
                    coords: v.coords.clone(),
                    element: v.element,
                };
                (e, info)
            })
            .collect()
    }
}

/// The extent expression of a parallel/foreach variable used as an index.
pub(crate) fn var_extent(cx: &Cx, a: ExprId) -> Option<ExprId> {
    var_extent_in(cx.m, &cx.res.bindings, a)
}

/// [`var_extent`] with the name resolution `bindings`.
pub(crate) fn var_extent_in(
    m: &crate::ir::Module,
    bindings: &std::collections::HashMap<ExprId, Binding>,
    a: ExprId,
) -> Option<ExprId> {
    match bindings.get(&a)? {
        Binding::LoopVar { stmt, index } => match &m.stmts[*stmt] {
            Stmt::Foreach { extents, .. } => extents.get(*index).copied(),
            _ => None,
        },
        Binding::ParallelVar { stmt, level, index } => match &m.stmts[*stmt] {
            Stmt::Parallel { levels, .. } => levels
                .get(*level)
                .and_then(|l| l.extents.get(*index))
                .copied(),
            _ => None,
        },
        _ => None,
    }
}

/// `E0203`: the copy from `src` into `dst` would convert element types.
pub(crate) fn dtype_mismatch(
    m: &crate::ir::Module,
    (src, sv): (ExprId, &VState),
    (dst, dv): (ExprId, &VState),
) -> crate::diag::Diagnostic {
    super::at_expr(
        m,
        super::codes::COPY_DTYPE,
        dst,
        format!(
            "copy from {} to {}: `{}` is {} but `{}` is {}",
            sv.dtype,
            dv.dtype,
            m.expr_to_string(src),
            sv.dtype,
            m.expr_to_string(dst),
            dv.dtype
        ),
    )
    .with_note(m.expr_span(src), format!("the source is {}", sv.dtype))
    .with_help(format!(
        "copies do not convert element types: declare the destination as {}",
        sv.dtype
    ))
}
