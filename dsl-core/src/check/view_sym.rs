//! The symbolic form of every tensor view (`t`, `t[i]`, `t.subspan(R, C).at(i, j)`, `.step`,
//! `t.chunkat(i, _)`, `t.at(i, j)`, `f.data`, `.transpose()`): its tile shape and its origin as
//! terms "index × stride", in tunables, constants and problem sizes — the form that holds for
//! every configuration, which the lowering prints as C++ ([`crate::lower::cexpr`]). The numeric
//! analysis (`view.rs`) checks each view under one configuration and reports the errors; this
//! one records the form, keyed by the view's expression (`KernelInfo::sym_views`).
//!
//! Tile `i` of a `.subspan(T…)` starts `i` tiles in (`i * T`, or `i * S` after `.step(S…)`); a
//! `.chunkat` index of extent `cdiv(D, T)` over a dimension `D` picks chunks of `T`, any other
//! extent `E` (a composition's: the product of its variables' extents) chunks of `D / E`.

use super::view_state::var_extent_in;
use super::{Binding, ChunkIndex, SharedBuffer, chunk_index};
use crate::ir::{BinaryOp, CopyDst, Expr, ExprId, Module, Stmt, ViewOp};
use crate::sym::Sym;
use std::collections::HashMap;

/// How a term of a view's origin came about (the lowering prints each form its own way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermForm {
    /// `.subspan(…).at(i, …)`: `i` times the tile's extent (or `.step`'s distance).
    Tile,
    /// `.at(i, …)` on a whole tensor: the element index `i`.
    Element,
    /// `.chunkat(i, …)`: `i` times the chunk's extent.
    Chunk,
}

/// One term of a view's origin along one dimension: `index * stride`.
#[derive(Clone, Debug, PartialEq)]
pub struct OriginTerm {
    pub index: ExprId,
    pub stride: Sym,
    pub form: TermForm,
}

/// A view in symbolic form. Dimensions are the tensor's, in its order (a `.transpose()` view
/// says so with `transposed`).
#[derive(Clone, Debug, PartialEq)]
pub struct SymView {
    /// The name the view starts from.
    pub root: ExprId,
    /// `t[i]`: the index into a tensor array.
    pub array_index: Option<ExprId>,
    /// The tile's shape (elements).
    pub tile: Vec<Sym>,
    /// Per dimension, the terms whose sum is the tile's first element's coordinate.
    pub origin: Vec<Vec<OriginTerm>>,
    /// `.at(i, j)` on a whole tensor: one element.
    pub element: bool,
    pub transposed: bool,
    /// Per dimension, the strides (in elements) of the origin's run-time terms: the origin is
    /// a multiple of V elements when every stride is.
    pub terms: Vec<Vec<Sym>>,
    /// The strides of the array-entry offset's run-time terms (`stage * elems`).
    pub array_terms: Vec<Sym>,
    /// One tile of its tensor's own grid of tiles (`t.subspan(R, C).at(i, j)` on a tensor's
    /// name: origin `(i·R, j·C)`), so that a grid dividing the tensor leaves every tile wholly
    /// inside it or wholly past its end.
    pub grid_tile: bool,
    /// `.sqz()` on the way: the view is of the tensor the root's tile `Squeezed` makes once its
    /// dimensions of extent 1 are dropped (the lowering makes that tensor a pointer of its own,
    /// `lower/squeeze.rs`); `tile` and `origin` are then in the kept dimensions.
    pub squeezed: Option<Squeezed>,
}

/// The root's tile a `.sqz()` squeezes or a `.span_as(…)` reshapes: its shape and origin in
/// the root's dimensions, and for `.span_as` the new shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Squeezed {
    pub tile: Vec<Sym>,
    pub origin: Vec<Vec<OriginTerm>>,
    pub reshape: Option<Vec<Sym>>,
}

/// Why an expression has no symbolic view (the lowering reports it, at `at`).
#[derive(Clone, Debug, PartialEq)]
pub struct ViewError {
    pub at: ExprId,
    pub msg: String,
}

/// The tensor a view starts from: its symbolic shape and whether it is an array of tensors.
#[derive(Clone, Debug, PartialEq)]
pub struct Root {
    pub shape: Vec<Sym>,
    pub array: bool,
}

fn err<T>(at: ExprId, msg: impl Into<String>) -> Result<T, ViewError> {
    Err(ViewError {
        at,
        msg: msg.into(),
    })
}

/// The symbolic form of every view-like expression of `m` (names of tensors, indexed arrays,
/// view methods, `f.data`), or why it has none.
pub(crate) fn sym_views(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    shared: &[SharedBuffer],
) -> HashMap<ExprId, Result<SymView, ViewError>> {
    let root = |r: ExprId| root_of(m, bindings, shared, r, 0);
    let an = Analysis { m, bindings };
    m.exprs
        .iter()
        .filter(|(e, x)| match x {
            Expr::Name(_) => matches!(
                bindings.get(e),
                Some(Binding::Param(_) | Binding::Tensor(..) | Binding::Future(_))
            ),
            Expr::Index { .. } | Expr::View { .. } => true,
            Expr::Field { field, .. } => field.name == "data",
            _ => false,
        })
        .map(|(e, _)| (e, an.view(e, &root)))
        .collect()
}

/// The symbolic view (as `KernelInfo::sym_views` records it) of one expression whose root
/// tensor `root` describes (the lowering's view of an accumulator, whose root is the
/// accumulator seen as a register tile).
pub fn sym_view(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    root: &dyn Fn(ExprId) -> Result<Root, ViewError>,
    e: ExprId,
) -> Result<SymView, ViewError> {
    Analysis { m, bindings }.view(e, root)
}

/// The root tensor the name `r` denotes under `bindings`.
pub fn root_of(
    m: &Module,
    bindings: &HashMap<ExprId, Binding>,
    shared: &[SharedBuffer],
    r: ExprId,
    depth: u32,
) -> Result<Root, ViewError> {
    let name = m.expr_to_string(r);
    let not_tensor = || err(r, format!("`{name}` is not a tensor"));
    let shape_of = |dims: &[ExprId]| -> Result<Vec<Sym>, ViewError> {
        dims.iter()
            .map(|&d| {
                Sym::from_expr(m, d).map_or_else(
                    || {
                        err(
                            d,
                            "expected integer arithmetic over tunables, constants and dims",
                        )
                    },
                    Ok,
                )
            })
            .collect()
    };
    match bindings.get(&r) {
        Some(Binding::Param(i)) => {
            let p = m.kernel.params.get(*i).ok_or_else(|| ViewError {
                at: r,
                msg: format!("`{name}` is not a tensor"),
            })?;
            Ok(Root {
                shape: p
                    .shape
                    .iter()
                    .map(|&d| Sym::from_expr(m, d).unwrap_or(Sym::Int(0)))
                    .collect(),
                array: false,
            })
        }
        Some(Binding::Tensor(s, d)) => match &m.stmts[*s] {
            Stmt::TensorDecl { shape, names, .. } => Ok(Root {
                shape: shape_of(shape)?,
                array: names.get(*d).is_some_and(|n| n.count.is_some()),
            }),
            _ => not_tensor(),
        },
        Some(Binding::Future(s)) if depth < 8 => {
            let (dst, src) = match &m.stmts[*s] {
                Stmt::TmaCopy { dst, src, .. } => (dst, *src),
                Stmt::Ext(crate::ir::ExtStmt::DmaFuture { dst, src, .. }) => (dst, *src),
                _ => return not_tensor(),
            };
            match dst {
                // The tensor copied into — of a view, its root: a future of a copy into a
                // tensor's first tile names the tensor (`check/support.rs`).
                CopyDst::Expr(d) => {
                    let mut base = *d;
                    while let Expr::Field { base: b, .. } | Expr::View { base: b, .. } =
                        &m.exprs[base]
                    {
                        base = *b;
                    }
                    root_of(m, bindings, shared, base, depth + 1)
                }
                // A fresh register buffer: the source's tile (`fresh_tile`).
                CopyDst::Fresh(crate::ir::MemSpace::Local) => {
                    let (shape, _) =
                        super::fresh_tile(m, bindings, src).ok_or_else(|| ViewError {
                            at: r,
                            msg: "a fresh register buffer's shape must be arithmetic over tunables and constants".into(),
                        })?;
                    Ok(Root {
                        shape,
                        array: false,
                    })
                }
                CopyDst::Fresh(_) => {
                    let buf = shared
                        .iter()
                        .find(|b| b.fresh && b.name == name)
                        .ok_or_else(|| ViewError {
                            at: r,
                            msg: "internal: a fresh buffer without a shape".into(),
                        })?;
                    let shape = buf.sym_shape().map_err(|d| ViewError {
                        at: d,
                        msg:
                            "a shared tensor's shape must be arithmetic over tunables and constants"
                                .into(),
                    })?;
                    Ok(Root {
                        shape,
                        array: false,
                    })
                }
            }
        }
        _ => not_tensor(),
    }
}

struct Analysis<'a> {
    m: &'a Module,
    bindings: &'a HashMap<ExprId, Binding>,
}

/// A view being built: a `.subspan` waits for its `.at` (with `.step`'s distances, if any).
struct Building {
    v: SymView,
    /// The tensor's name alone, or its `.subspan(…)` tiling, so far.
    whole: bool,
    tiled: bool,
    step: Option<Vec<Sym>>,
    /// A `.view(…)` window waiting for the `.from(…)` that places it.
    window: bool,
}

impl Analysis<'_> {
    fn view(
        &self,
        e: ExprId,
        root: &dyn Fn(ExprId) -> Result<Root, ViewError>,
    ) -> Result<SymView, ViewError> {
        let b = self.build(e, root)?;
        if b.window {
            return err(
                e,
                "not supported yet: a `.view(…)` window without `.from(…)`",
            );
        }
        Ok(b.v)
    }

    fn sym(&self, e: ExprId) -> Result<Sym, ViewError> {
        Sym::from_expr(self.m, e).map_or_else(
            || {
                err(
                    e,
                    "expected integer arithmetic over tunables, constants and dims",
                )
            },
            Ok,
        )
    }

    /// The extent of the loop or parallel variable `e`.
    fn extent(&self, e: ExprId) -> Option<Sym> {
        Sym::from_expr(self.m, var_extent_in(self.m, self.bindings, e)?)
    }

    /// The extent of the right side of `#`: a variable's, or the product for `i # j`.
    fn compose_extent(&self, e: ExprId) -> Option<Sym> {
        match &self.m.exprs[e] {
            Expr::Name(_) => self.extent(e),
            Expr::Compose { outer, inner } => Some(Sym::mul(
                self.compose_extent(*outer)?,
                self.compose_extent(*inner)?,
            )),
            _ => None,
        }
    }

    /// The strides of the run-time terms of index `e` scaled by `mult`: a literal `k`
    /// contributes `k * mult`, `a # b` the terms of `a` scaled by `extent(b)` and of `b`,
    /// `a + b` both sides' terms, `a * C` (C static) `a`'s terms scaled by `C`; any other
    /// index contributes `mult` itself.
    fn index_terms(&self, e: ExprId, mult: Sym, out: &mut Vec<Sym>) {
        let m = self.m;
        match &m.exprs[e] {
            Expr::Int(0) => {}
            Expr::Int(k) => out.push(Sym::mul(Sym::Int(*k), mult)),
            Expr::Compose { outer, inner } => match self.compose_extent(*inner) {
                Some(ext) => {
                    self.index_terms(*outer, Sym::mul(mult.clone(), ext), out);
                    self.index_terms(*inner, mult, out);
                }
                None => out.push(mult),
            },
            Expr::Binary {
                op: BinaryOp::Add,
                lhs,
                rhs,
            } => {
                self.index_terms(*lhs, mult.clone(), out);
                self.index_terms(*rhs, mult, out);
            }
            Expr::Binary {
                op: BinaryOp::Mul,
                lhs,
                rhs,
            } => match (self.static_sym(*lhs), self.static_sym(*rhs)) {
                (_, Some(c)) => self.index_terms(*lhs, Sym::mul(mult, c), out),
                (Some(c), _) => self.index_terms(*rhs, Sym::mul(mult, c), out),
                _ => out.push(mult),
            },
            _ => out.push(mult),
        }
    }

    /// `e` as a [`Sym`] over tunables, constants and literals only (no run-time names).
    fn static_sym(&self, e: ExprId) -> Option<Sym> {
        let s = Sym::from_expr(self.m, e)?;
        let mut names = Vec::new();
        s.names(&mut names);
        names
            .iter()
            .all(|n| self.m.tunable(n).is_some() || self.m.constant(n).is_some())
            .then_some(s)
    }

    fn build(
        &self,
        e: ExprId,
        root: &dyn Fn(ExprId) -> Result<Root, ViewError>,
    ) -> Result<Building, ViewError> {
        let m = self.m;
        match &m.exprs[e] {
            Expr::Name(_) => {
                let r = root(e)?;
                let n = r.shape.len();
                Ok(Building {
                    v: SymView {
                        root: e,
                        array_index: None,
                        tile: r.shape,
                        origin: vec![Vec::new(); n],
                        element: false,
                        transposed: false,
                        terms: vec![Vec::new(); n],
                        array_terms: Vec::new(),
                        grid_tile: false,
                        squeezed: None,
                    },
                    whole: true,
                    tiled: false,
                    step: None,
                    window: false,
                })
            }
            // `f.data`: the buffer a copy's future names.
            Expr::Field { base, field } if field.name == "data" => {
                let mut b = self.build(*base, root)?;
                b.whole = false;
                Ok(b)
            }
            Expr::Index { base, index } => {
                let mut b = self.build(*base, root)?;
                let r = root(b.v.root)?;
                if !r.array {
                    return err(
                        e,
                        format!("`{}` is not an array", m.expr_to_string(b.v.root)),
                    );
                }
                let elems = r.shape.iter().cloned().fold(Sym::Int(1), Sym::mul);
                b.v.array_index = Some(*index);
                b.whole = false;
                self.index_terms(*index, elems, &mut b.v.array_terms);
                Ok(b)
            }
            Expr::View { base, op, args } => {
                let mut b = self.build(*base, root)?;
                if b.v.element {
                    return err(e, "cannot take a view of a single element");
                }
                if b.v.transposed {
                    return err(e, "write `.transpose()` last in a view");
                }
                let whole_tiling = b.whole && b.tiled && b.step.is_none();
                b.v.grid_tile = false;
                self.apply(e, &mut b, *op, args)?;
                // A squeezed tile is a whole tensor of its own.
                b.whole = matches!(op, ViewOp::Sqz | ViewOp::SpanAs)
                    || (b.whole && *op == ViewOp::Subspan);
                b.v.grid_tile = whole_tiling && *op == ViewOp::At;
                Ok(b)
            }
            _ => err(e, "expected a tensor or a view of one"),
        }
    }

    fn apply(
        &self,
        e: ExprId,
        b: &mut Building,
        op: ViewOp,
        args: &[ExprId],
    ) -> Result<(), ViewError> {
        let m = self.m;
        // A window is placed by `.from(…)` and nothing else.
        if b.window != (op == ViewOp::From) && op != ViewOp::Strides {
            return err(
                e,
                if b.window {
                    "a `.view(…)` window is placed by `.from(…)`, written right after it"
                } else {
                    "`.from(…)` places a `.view(…)` window, written right before it"
                },
            );
        }
        let v = &mut b.v;
        let indexed = matches!(
            op,
            ViewOp::Subspan | ViewOp::Step | ViewOp::At | ViewOp::Chunkat
        );
        if indexed && (args.len() != v.tile.len() || args.len() != v.origin.len()) {
            return err(
                e,
                format!(
                    "`.{}` takes one argument per dimension: the view has {}, found {}",
                    op.name(),
                    v.tile.len(),
                    args.len()
                ),
            );
        }
        match op {
            // `.sqz()` drops the dimensions of extent 1; `.span_as(…)` gives the tile a new
            // shape. Either way the tile becomes a tensor of its own (`lower/squeeze.rs`; the
            // checker's lowering gate, `check/squeeze.rs`, says which forms lower).
            ViewOp::Sqz | ViewOp::SpanAs => {
                if b.tiled
                    || b.step.is_some()
                    || v.array_index.is_some()
                    || v.transposed
                    || v.squeezed.is_some()
                {
                    return err(
                        e,
                        format!(
                            "not supported yet: `.{}` of anything but a whole tensor or a `.subspan(…).at(…)` tile of one",
                            op.name()
                        ),
                    );
                }
                let reshape = match op {
                    ViewOp::SpanAs => Some(
                        args.iter()
                            .map(|&a| self.sym(a))
                            .collect::<Result<Vec<_>, _>>()?,
                    ),
                    _ => None,
                };
                let base = Squeezed {
                    tile: std::mem::take(&mut v.tile),
                    origin: std::mem::take(&mut v.origin),
                    reshape: reshape.clone(),
                };
                v.tile = reshape.unwrap_or_else(|| {
                    base.tile
                        .iter()
                        .filter(|d| **d != Sym::Int(1))
                        .cloned()
                        .collect()
                });
                v.origin = vec![Vec::new(); v.tile.len()];
                v.terms = vec![Vec::new(); v.tile.len()];
                v.squeezed = Some(base);
            }
            // `.view(A, B)`: a window of A × B elements (`_` the whole dimension so far), which
            // `.from(i, j)` places at element (i, j) of the view below it.
            ViewOp::Window if !b.tiled && b.step.is_none() && args.len() == v.tile.len() => {
                v.tile = args
                    .iter()
                    .enumerate()
                    .map(|(d, &a)| match m.exprs[a] {
                        Expr::Wildcard => Ok(v.tile[d].clone()),
                        _ => self.sym(a),
                    })
                    .collect::<Result<_, _>>()?;
                b.window = true;
            }
            ViewOp::From if args.len() == v.tile.len() => {
                for (d, &a) in args.iter().enumerate() {
                    self.index_terms(a, Sym::Int(1), &mut v.terms[d]);
                    if matches!(m.exprs[a], Expr::Int(0)) {
                        continue;
                    }
                    v.origin[d].push(OriginTerm {
                        index: a,
                        stride: Sym::Int(1),
                        form: TermForm::Element,
                    });
                }
                b.window = false;
            }
            ViewOp::Window | ViewOp::Strides | ViewOp::From | ViewOp::SpanOf => {
                return err(
                    e,
                    format!("not supported yet: the view method `.{}` here", op.name()),
                );
            }
            ViewOp::Transpose => {
                if b.tiled || v.tile.len() != 2 {
                    return err(e, "`.transpose()` applies to a 2-D tensor or tile");
                }
                v.transposed = true;
            }
            ViewOp::Subspan => {
                // `_` is the whole dimension of the view so far.
                v.tile = args
                    .iter()
                    .enumerate()
                    .map(|(d, &a)| match m.exprs[a] {
                        Expr::Wildcard => match v.tile.get(d) {
                            Some(t) => Ok(t.clone()),
                            None => err(a, "`_` names no dimension of the view"),
                        },
                        _ => self.sym(a),
                    })
                    .collect::<Result<_, _>>()?;
                b.tiled = true;
            }
            ViewOp::Step => {
                if !b.tiled || args.len() != v.tile.len() {
                    return err(
                        e,
                        "`.step(…)` follows a `.subspan(…)`, one distance per dimension",
                    );
                }
                b.step = Some(
                    args.iter()
                        .map(|&a| self.sym(a))
                        .collect::<Result<_, _>>()?,
                );
            }
            ViewOp::At if b.tiled => {
                for (d, &a) in args.iter().enumerate() {
                    // Tile `i` starts `i` steps in: the tile's extent, or `.step`'s.
                    let stride = b
                        .step
                        .as_ref()
                        .and_then(|s| s.get(d))
                        .unwrap_or(&v.tile[d])
                        .clone();
                    self.index_terms(a, stride.clone(), &mut v.terms[d]);
                    if matches!(m.exprs[a], Expr::Int(0)) {
                        continue;
                    }
                    v.origin[d].push(OriginTerm {
                        index: a,
                        stride,
                        form: TermForm::Tile,
                    });
                }
                b.tiled = false;
                b.step = None;
            }
            ViewOp::At => {
                for (d, &a) in args.iter().enumerate() {
                    self.index_terms(a, Sym::Int(1), &mut v.terms[d]);
                    v.origin[d].push(OriginTerm {
                        index: a,
                        stride: Sym::Int(1),
                        form: TermForm::Element,
                    });
                }
                v.tile = vec![Sym::Int(1); args.len()];
                v.element = true;
            }
            ViewOp::Chunkat => {
                for (d, &a) in args.iter().enumerate() {
                    if matches!(m.exprs[a], Expr::Wildcard) {
                        continue;
                    }
                    let ext = self.chunk_extent(a)?;
                    let chunk = match &ext {
                        Sym::Cdiv(dd, t) if **dd == v.tile[d] => (**t).clone(),
                        other => Sym::bin(BinaryOp::Div, v.tile[d].clone(), other.clone()),
                    };
                    self.index_terms(a, chunk.clone(), &mut v.terms[d]);
                    v.origin[d].push(OriginTerm {
                        index: a,
                        stride: chunk.clone(),
                        form: TermForm::Chunk,
                    });
                    v.tile[d] = chunk;
                }
            }
        }
        Ok(())
    }

    /// The number of chunks a `.chunkat` index `a` splits its dimension into: a variable's
    /// extent, a composition's product of extents; `k - 1`, `k(-1)` keep `k`'s extent, a
    /// bounded value has its bound.
    fn chunk_extent(&self, a: ExprId) -> Result<Sym, ViewError> {
        let m = self.m;
        match chunk_index(m, a) {
            ChunkIndex::Bound(b) => Sym::from_expr(m, b).map_or_else(
                || {
                    err(
                        a,
                        "the bound of this value is not arithmetic over constants",
                    )
                },
                Ok,
            ),
            ChunkIndex::Base(b) if b != a => {
                let Expr::Name(var) = &m.exprs[b] else {
                    return err(a, "`.chunkat` shifts a loop or parallel variable");
                };
                self.extent(b).map_or_else(
                    || err(a, format!("`{var}` is not a loop or parallel variable")),
                    Ok,
                )
            }
            ChunkIndex::Base(_) => match &m.exprs[a] {
                Expr::Name(var) => self.extent(a).map_or_else(
                    || err(a, format!("`{var}` is not a loop or parallel variable")),
                    Ok,
                ),
                Expr::Compose { .. } => self.compose_extent(a).map_or_else(
                    || {
                        err(
                            a,
                            "both sides of `#` in `.chunkat` must be loop or parallel variables",
                        )
                    },
                    Ok,
                ),
                _ => err(
                    a,
                    "`.chunkat` takes loop/parallel variables, their compositions (`a # b`) or `_`",
                ),
            },
        }
    }
}

/// How a tile of rank 3 or more moves through a cooperative copy's 2-D helpers: its first
/// `lead` dimensions have extent 1 (a plane of the tensor, reached by a pointer offset), the
/// next is any extent, and every later one but the last is whole (the tensor's extent, from
/// 0), so that the tile's rows are consecutive rows of the plane folded to 2-D
/// (`[S_lead · … · S_(n-2), S_(n-1)]`). `Some(lead)` for such a tile (and 0 for ranks 1 and 2),
/// `None` otherwise. `origin_zero[d]`: whether the tile starts at 0 in dimension d.
pub fn fold_rows(tile: &[Sym], origin_zero: &[bool], shape: &[Sym]) -> Option<usize> {
    let n = tile.len();
    if n <= 2 {
        return Some(0);
    }
    if shape.len() != n || origin_zero.len() != n {
        return None;
    }
    let lead = tile[..n - 1]
        .iter()
        .take_while(|t| **t == Sym::Int(1))
        .count();
    let whole = (lead + 1..n - 1).all(|d| tile[d] == shape[d] && origin_zero[d]);
    whole.then_some(lead)
}
