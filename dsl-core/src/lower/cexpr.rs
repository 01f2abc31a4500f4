//! Expressions → C++: index arithmetic, `#` composition, element loads, and tensor views
//! (`.subspan(..).at(..)`, `.chunkat(..)`, array elements): the checker's symbolic view of each
//! (`KernelInfo::sym_views`: tile shape and origin terms) printed over the tensor's C++ name —
//! a base pointer, a tile shape and the tile's origin.

use super::cxx::{CExpr, COp, CUn};
use super::error::LowerError;
use super::scope::{Local, Scopes, TensorLocal};
use crate::check::{Binding, KernelInfo, OriginTerm, Root, TermForm};
use crate::ir::{BinaryOp, DType, Expr, ExprId, MemSpace, Module, ViewOp};
use crate::sym::Sym;

/// The C++ type class of a lowered expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    Float(DType),
    /// A float literal (adapts to the context).
    Literal,
}

/// A resolved tensor view.
#[derive(Clone, Debug)]
pub struct View {
    pub tensor: TensorLocal,
    /// C++ index into a tensor array (`stage`), if any.
    pub array_index: Option<CExpr>,
    /// Tile shape (elements).
    pub tile: Vec<Sym>,
    /// C++ row/column of the tile's first element inside the tensor (array entry).
    pub origin: Vec<CExpr>,
    /// `.at(i, j)` on a whole tensor: one element.
    pub element: bool,
    /// `.transpose()`: the view's dimensions are the tensor's reversed (`tile` and `origin`
    /// stay in the tensor's order).
    pub transposed: bool,
    /// Per dimension of `origin`, the strides (in elements) that multiply its run-time terms:
    /// the origin is a multiple of V elements when every stride is (see [`View::aligned_cpp`]).
    pub terms: Vec<Vec<Sym>>,
    /// Strides of the array-entry offset's run-time terms (`stage * elems`).
    pub array_terms: Vec<Sym>,
    /// The name of the array entry's pointer when an enclosing loop computes it once (see
    /// `simt::hoist_entries`).
    pub hoisted: Option<String>,
}

impl View {
    /// The whole tensor `t` (array entry 0 of an array), as its name alone resolves.
    pub fn whole(t: TensorLocal) -> View {
        View {
            tile: t.shape.clone(),
            origin: vec![CExpr::int(0); t.shape.len()],
            terms: vec![Vec::new(); t.shape.len()],
            array_terms: Vec::new(),
            tensor: t,
            array_index: None,
            element: false,
            transposed: false,
            hoisted: None,
        }
    }
    /// C++ pointer to the first element of the array entry (shared/local tensors).
    pub fn entry_ptr(&self) -> CExpr {
        match &self.hoisted {
            Some(name) => CExpr::var(name),
            None => self.entry_ptr_expr(),
        }
    }
    /// [`View::entry_ptr`] as an expression, even where a loop computes it once.
    pub fn entry_ptr_expr(&self) -> CExpr {
        match &self.array_index {
            Some(i) => self
                .tensor
                .ptr()
                .add(
                    i.clone()
                        .wrap()
                        .mul(CExpr::sym_operand(&self.tensor.elems())),
                )
                .paren(),
            None => self.tensor.ptr(),
        }
    }
    /// C++ element offset of the tile origin within the entry (row-major 2-D or 1-D).
    pub fn origin_offset(&self) -> CExpr {
        match self.origin.len() {
            0 => CExpr::int(0),
            1 => self.origin[0].clone(),
            // Row-major strides: dimension d steps over the elements of dimensions d + 1 ….
            n if n > 2 && self.tensor.shape.len() == n => {
                let mut off = CExpr::int(0);
                for (d, o) in self.origin.iter().enumerate() {
                    if o.is_zero() {
                        continue;
                    }
                    let stride = self.tensor.shape[d + 1..]
                        .iter()
                        .cloned()
                        .fold(Sym::Int(1), Sym::mul);
                    let term = if stride == Sym::Int(1) {
                        o.clone()
                    } else {
                        o.clone().wrap().mul(CExpr::sym_operand(&stride))
                    };
                    off = if off.is_zero() { term } else { off.add(term) };
                }
                off
            }
            _ => {
                let ld = CExpr::sym_operand(&self.tensor.ld());
                let (o0, o1) = (&self.origin[0], &self.origin[1]);
                if o1.is_zero() {
                    if o0.is_zero() {
                        CExpr::int(0)
                    } else {
                        o0.clone().wrap().mul(ld)
                    }
                } else if o0.is_zero() {
                    o1.clone()
                } else {
                    o0.clone().wrap().mul(ld).add(o1.clone())
                }
            }
        }
    }
    /// C++ element offset of the tile's first element from the tensor's base (array entry
    /// included): `tile_ptr() == tensor.ptr() + tile_offset()`.
    pub fn tile_offset(&self) -> CExpr {
        let off = self.origin_offset();
        let entry = self.array_index.as_ref().map(|i| {
            i.clone()
                .wrap()
                .mul(CExpr::sym_operand(&self.tensor.elems()))
        });
        match entry {
            None => off,
            Some(e) if off.is_zero() => e,
            Some(e) => e.add(off),
        }
    }
    /// C++ pointer to the tile's first element.
    pub fn tile_ptr(&self) -> CExpr {
        let off = self.origin_offset();
        if off.is_zero() {
            self.entry_ptr()
        } else {
            self.entry_ptr().add(off)
        }
    }
    /// An element of a global tensor as (row, column, rows, columns) of the row-major matrix
    /// the guarded accessors (`tsl_ld_or_zero`, `tsl_st_guarded`) take: a 1-D tensor is one
    /// row; a tensor of rank 3 or more folds its leading dimensions into the row
    /// (`(i0 · S1 + i1) · S2 + i2`, of S0 · S1 · S2 rows), and a leading index past its own
    /// dimension (or negative) makes the row `rows` — outside, so the element reads as zero and
    /// is not stored, as for a 2-D tensor.
    pub fn global_rc(&self) -> (CExpr, CExpr, CExpr, CExpr) {
        let t = &self.tensor;
        let n = t.shape.len();
        if n <= 2 {
            let c = self.origin.get(1).cloned().unwrap_or(CExpr::int(0));
            let cols = t.shape.get(1).map(CExpr::sym).unwrap_or(CExpr::int(1));
            return (self.origin[0].clone(), c, CExpr::sym(&t.shape[0]), cols);
        }
        let lead = n - 1;
        let mut row = self.origin[0].clone().wrap();
        for d in 1..lead {
            row = row
                .mul(CExpr::sym_operand(&t.shape[d]))
                .add(self.origin[d].clone().wrap())
                .paren();
        }
        let rows = CExpr::join(COp::Mul, t.shape[..lead].iter().map(CExpr::sym_operand))
            .expect("a leading dimension");
        // Unsigned, so that a negative index is outside too (it would fold into the row before).
        let inside = CExpr::join(
            COp::And,
            (1..lead).map(|d| {
                let unsigned = |e: CExpr| CExpr::Cast("unsigned", Box::new(e));
                unsigned(self.origin[d].clone().wrap())
                    .lt(unsigned(CExpr::sym_operand(&t.shape[d])))
            }),
        )
        .expect("a middle dimension");
        let row = inside.ternary(row, rows.clone()).paren();
        (
            row,
            self.origin[lead].clone(),
            rows,
            CExpr::sym(&t.shape[lead]),
        )
    }

    pub fn tile_elems(&self) -> Sym {
        self.tile.iter().cloned().fold(Sym::Int(1), Sym::mul)
    }

    /// A C++ constant expression that is true when the tile's first element — and, for tiles
    /// of several rows, every row's first element — is a multiple of `v` elements from the
    /// tensor's (aligned) base: `"true"`, `"false"` or a condition over tunables such as
    /// `BM % 4 == 0 && TM % 4 == 0`. For shared and register tensors, whose shapes are static.
    pub fn aligned_cpp(&self, v: i64) -> CExpr {
        let ld = self.tensor.ld();
        let mut strides: Vec<Sym> = self.array_terms.clone();
        for (d, ts) in self.terms.iter().enumerate() {
            let scale = if d + 1 < self.terms.len() {
                ld.clone()
            } else {
                Sym::Int(1)
            };
            strides.extend(ts.iter().map(|t| Sym::mul(t.clone(), scale.clone())));
        }
        // Rows after the first start a pitch (or a multiple of it) further on.
        if let Some((_, rows)) = self.tile.split_last()
            && rows.iter().any(|t| *t != Sym::Int(1))
        {
            strides.push(ld);
        }
        // A stride with a factor already required to be a multiple of `v` needs no condition
        // of its own: visit strides with fewer factors first.
        strides.sort_by_key(|s| factors(s).len());
        let mut required: Vec<Sym> = Vec::new();
        let mut conds: Vec<CExpr> = Vec::new();
        for s in strides {
            match s {
                Sym::Int(x) if x % v == 0 => {}
                Sym::Int(_) => return CExpr::Lit("false"),
                other => {
                    if factors(&other).iter().any(|f| required.contains(f)) {
                        continue;
                    }
                    let c = CExpr::sym_operand(&other)
                        .rem(CExpr::int(v))
                        .eq(CExpr::int(0));
                    if !conds.contains(&c) {
                        conds.push(c);
                    }
                    required.push(other);
                }
            }
        }
        CExpr::join(COp::And, conds).unwrap_or(CExpr::Lit("true"))
    }
}

/// The factors of a product (`a * b * c` → `[a, b, c]`; anything else is its own factor).
fn factors(s: &Sym) -> Vec<Sym> {
    match s {
        Sym::Bin(crate::ir::BinaryOp::Mul, a, b) => {
            let mut f = factors(a);
            f.extend(factors(b));
            f
        }
        other => vec![other.clone()],
    }
}

pub struct ExprCx<'a> {
    pub m: &'a Module,
    pub info: &'a KernelInfo,
    pub scopes: &'a Scopes,
}

impl ExprCx<'_> {
    /// What the name `e` refers to, as the checker resolved it: a lowered declaration, or the
    /// fresh buffer a future names (a pointer the lowering declared under the future's name).
    pub fn local(&self, e: ExprId) -> Option<&Local> {
        let b = self.info.bindings.get(&e)?;
        // Inside an element loop a fragment stands for its element (`lower/frag_elem.rs`).
        if let Some(l) = self.scopes.elem(b) {
            return Some(l);
        }
        self.scopes.decl(b).or_else(|| match (b, &self.m.exprs[e]) {
            (Binding::Future(_), Expr::Name(n)) => self.scopes.cpp(n),
            _ => None,
        })
    }

    /// The tensor the name `e` refers to.
    pub fn tensor(&self, e: ExprId) -> Option<&TensorLocal> {
        match self.local(e) {
            Some(Local::Tensor(t)) => Some(t),
            _ => None,
        }
    }

    /// The extent of the loop or parallel variable `e` (the checker's binding of the name).
    pub fn extent(&self, e: ExprId) -> Option<Sym> {
        let x = crate::check::var_extent_in(self.m, &self.info.bindings, e)?;
        Sym::from_expr(self.m, x)
    }

    fn err(&self, e: ExprId, msg: impl Into<String>) -> LowerError {
        LowerError::new(self.m.expr_span(e), msg)
    }

    /// An integer-valued symbolic expression (sizes, extents).
    pub fn sym(&self, e: ExprId) -> Result<Sym, LowerError> {
        Sym::from_expr(self.m, e).ok_or_else(|| {
            self.err(
                e,
                "expected integer arithmetic over tunables, constants and dims",
            )
        })
    }

    /// Renders a value expression as C++.
    pub fn value(&self, e: ExprId) -> Result<(CExpr, Ty), LowerError> {
        self.value_prec(e, 0)
    }

    fn value_prec(&self, e: ExprId, min_prec: u8) -> Result<(CExpr, Ty), LowerError> {
        let m = self.m;
        Ok(match &m.exprs[e] {
            Expr::Int(v) => (CExpr::int(*v), Ty::Int),
            Expr::Bool(b) => (CExpr::int(*b as i64), Ty::Int),
            Expr::Float { value, .. } => (CExpr::float(*value), Ty::Literal),
            Expr::Name(n) => {
                let ty = match self.local(e) {
                    // An accumulator's element inside its element loop (`lower/frag_elem.rs`).
                    Some(Local::FragElem { place, dtype }) => {
                        let ty = if *dtype == DType::I32 {
                            Ty::Int
                        } else {
                            Ty::Float(*dtype)
                        };
                        return Ok((place.clone(), ty));
                    }
                    Some(Local::Scalar(d)) if d.is_float() => Ty::Float(*d),
                    Some(Local::Tensor(_)) | Some(Local::Event { .. }) | Some(Local::Frag(_)) => {
                        return Err(self.err(e, format!("`{n}` is not a scalar value here")));
                    }
                    _ => Ty::Int,
                };
                (CExpr::var(n), ty)
            }
            Expr::Wildcard => {
                return Err(self.err(e, "`_` is only meaningful inside `.chunkat(..)`"));
            }
            Expr::Unary { op, expr } => {
                let (s, t) = self.value_prec(*expr, 11)?;
                let op = match op {
                    crate::ir::UnaryOp::Neg => CUn::Neg,
                    crate::ir::UnaryOp::Not => CUn::Not,
                };
                (s.un(op), t)
            }
            Expr::Binary { op, lhs, rhs } => {
                let p = op.precedence();
                let (a, ta) = self.value_prec(*lhs, p)?;
                let (b, tb) = self.value_prec(*rhs, p + 1)?;
                let (a, b, t) = match (ta, tb) {
                    (Ty::Int, Ty::Int) => (a, b, Ty::Int),
                    (Ty::Float(_), _) | (_, Ty::Float(_)) | (Ty::Literal, _) | (_, Ty::Literal) => {
                        (
                            to_float(a, ta),
                            to_float(b, tb),
                            if op.is_comparison() || op.is_logical() {
                                Ty::Int
                            } else {
                                Ty::Float(DType::F32)
                            },
                        )
                    }
                };
                if *op == BinaryOp::Rem && matches!(t, Ty::Float(_)) {
                    // C++ has no `%` on floating-point values: the truncated remainder (the
                    // sign of the dividend, as `%` on integers).
                    return Ok((CExpr::call("fmodf", vec![a, b]), t));
                }
                let s = a.bin(COp::from(*op), b);
                (if p < min_prec { s.paren() } else { s }, t)
            }
            Expr::Compose { outer, inner } => {
                let ext = self.compose_extent(*inner)
                .ok_or_else(|| self.err(*inner, "the right side of `#` must be a parallel or loop variable, or a composition of them (its extent is the stride)"))?;
                let (o, _) = self.value_prec(*outer, 10)?;
                let (i, _) = self.value_prec(*inner, 10)?;
                let s = o.mul(CExpr::sym_operand(&ext)).add(i);
                (if 9 < min_prec { s.paren() } else { s }, Ty::Int)
            }
            Expr::Call { func, args } => {
                let vals: Vec<(CExpr, Ty)> = args
                    .iter()
                    .map(|&a| self.value(a))
                    .collect::<Result<_, _>>()?;
                let all_int = vals.iter().all(|(_, t)| *t == Ty::Int);
                // `select(c, a, b)` (`c ? a : b`): an `int` when both values are, else an f32.
                if func.name == "select"
                    && let [(c, _), (a, ta), (b, tb)] = vals.as_slice()
                {
                    let (a, b, t) = if *ta == Ty::Int && *tb == Ty::Int {
                        (a.clone(), b.clone(), Ty::Int)
                    } else {
                        (
                            to_float(a.clone(), *ta),
                            to_float(b.clone(), *tb),
                            Ty::Float(DType::F32),
                        )
                    };
                    return Ok((c.clone().wrap().ternary(a, b).paren(), t));
                }
                let f = match func.name.as_str() {
                    "cdiv" => "tsl_cdiv",
                    "min" if all_int => "tsl_min",
                    "max" if all_int => "tsl_max",
                    "abs" if all_int => "abs",
                    // `__to<T>(x)`: x converted to element type T.
                    conv if conv.starts_with("__to<") => {
                        let to = match conv.trim_start_matches("__to<").trim_end_matches('>') {
                            "f16" => DType::F16,
                            "bf16" => DType::BF16,
                            "s32" | "int" => DType::I32,
                            _ => DType::F32,
                        };
                        let (v, t) = vals[0].clone();
                        return Ok(match to {
                            DType::I32 => (CExpr::Cast("int", Box::new(v.paren())), Ty::Int),
                            _ => (convert(v, t, to), Ty::Float(to)),
                        });
                    }
                    other => {
                        let floats: Vec<CExpr> =
                            vals.into_iter().map(|(v, t)| to_float(v, t)).collect();
                        let text = math_call(other, &floats).ok_or_else(|| {
                            self.err(e, format!("not supported yet: the built-in `{other}`"))
                        })?;
                        return Ok((text, Ty::Float(DType::F32)));
                    }
                };
                let a: Vec<CExpr> = vals.into_iter().map(|v| v.0).collect();
                (CExpr::call(f, a), Ty::Int)
            }
            // `acc.at(i, j)` inside `apply {i, j} in acc.span`: the element.
            Expr::View {
                op: ViewOp::At,
                base,
                ..
            } if matches!(&m.exprs[*base], Expr::Name(_))
                && matches!(self.local(*base), Some(Local::FragElem { .. })) =>
            {
                return self.value_prec(*base, min_prec);
            }
            Expr::View { op: ViewOp::At, .. } => {
                let v = self.view(e)?;
                if !v.element {
                    return Err(self.err(
                        e,
                        "a tile view is not a value; use it in a copy or `.at(..)` one element",
                    ));
                }
                // Integer elements compute as C++ `int` (as C promotes them); floating-point
                // ones as f32.
                let ty = if v.tensor.dtype.is_float() {
                    Ty::Float(v.tensor.dtype)
                } else {
                    Ty::Int
                };
                (self.element_access(&v), ty)
            }
            Expr::Index { .. } | Expr::View { .. } | Expr::Field { .. } => {
                return Err(self.err(e, "a tensor view is not a value here"));
            }
        })
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

    /// A load or store location for an element view.
    pub fn element_access(&self, v: &View) -> CExpr {
        let t = &v.tensor;
        match t.space {
            MemSpace::Global => {
                let (r, c, rows, cols) = v.global_rc();
                CExpr::call("tsl_ld_or_zero", vec![t.ptr(), r, c, rows, cols])
            }
            _ => v.entry_ptr().index(v.origin_offset()),
        }
    }

    /// Resolves a view expression (`t`, `t[i]`, `t.subspan(..).at(..)`, `t.chunkat(..)`, `t.at(..)`).
    pub fn view(&self, e: ExprId) -> Result<View, LowerError> {
        self.view_in(e, None)
    }

    /// Resolves a view of an mma fragment (`mc.subspan(64, W).at(0, j)` in `mma.store`), its
    /// root name standing for `frag`, the fragment seen as a register tile.
    pub fn fragment_view(&self, e: ExprId, frag: &TensorLocal) -> Result<View, LowerError> {
        self.view_in(e, Some(frag))
    }

    /// The C++ of a view's origin, per dimension: the sum of its terms.
    fn print_origin(&self, origin: &[Vec<OriginTerm>]) -> Result<Vec<CExpr>, LowerError> {
        let mut out = Vec::with_capacity(origin.len());
        for terms in origin {
            let mut o = CExpr::int(0);
            for t in terms {
                let term = match (t.form, &t.stride) {
                    (TermForm::Element, _) | (TermForm::Tile, Sym::Int(1)) => {
                        self.value(t.index)?.0
                    }
                    (TermForm::Tile, stride) => self
                        .value_prec(t.index, 10)?
                        .0
                        .mul(CExpr::sym_operand(stride)),
                    (TermForm::Chunk, stride) => self
                        .value(t.index)?
                        .0
                        .wrap()
                        .mul(CExpr::sym_operand(stride)),
                };
                // The first non-zero term replaces the `0` it starts from.
                o = if o.is_zero() { term } else { o.add(term) };
            }
            out.push(o);
        }
        Ok(out)
    }

    fn view_in(&self, e: ExprId, frag: Option<&TensorLocal>) -> Result<View, LowerError> {
        let m = self.m;
        let is_frag =
            |r: ExprId| frag.filter(|f| matches!(&m.exprs[r], Expr::Name(n) if *n == f.name));
        // The checker's symbolic form of the view; an accumulator's slice is analysed the same
        // way over the accumulator seen as the register tile `frag`.
        let sv = match frag {
            None => match self.info.sym_views.get(&e) {
                Some(Ok(v)) => v.clone(),
                Some(Err(x)) => return Err(self.err(x.at, x.msg.clone())),
                None => return Err(self.err(e, "expected a tensor or a view of one")),
            },
            Some(_) => {
                let root = |r: ExprId| match is_frag(r) {
                    Some(f) => Ok(Root {
                        shape: f.shape.clone(),
                        array: f.count.is_some(),
                    }),
                    None => crate::check::root_of(m, &self.info.bindings, &self.info.shared, r, 0),
                };
                crate::check::sym_view(m, &self.info.bindings, &root, e)
                    .map_err(|x| self.err(x.at, x.msg))?
            }
        };
        let tensor = match is_frag(sv.root) {
            Some(f) => f.clone(),
            None => self.tensor(sv.root).cloned().ok_or_else(|| {
                self.err(
                    sv.root,
                    format!("`{}` is not a tensor", m.expr_to_string(sv.root)),
                )
            })?,
        };
        let array_index = match sv.array_index {
            Some(i) => Some(self.value(i)?.0),
            None => None,
        };
        let origin = self.print_origin(&sv.origin)?;
        // `.sqz()`, `.span_as(…)`: the tile is a tensor of its own, at its first element.
        let mut tensor = tensor;
        let mut array_terms = sv.array_terms;
        if let Some(base) = &sv.squeezed {
            let base_origin = self.print_origin(&base.origin)?;
            let (ptr, shape, moved) = match &base.reshape {
                None => {
                    super::squeeze::squeeze(&tensor.name, &tensor.shape, &base.tile, &base_origin)
                }
                Some(new) => super::squeeze::reshape(&tensor.shape, &base.tile, &base_origin)
                    .map(|()| (None, new.clone(), None)),
            }
            .map_err(|why| self.err(e, why))?;
            tensor = TensorLocal {
                squeezed: ptr,
                shape,
                ..tensor
            };
            // The base moved by a multiple of the kept block's elements.
            array_terms.extend(moved);
        }
        let mut v = View {
            tensor,
            array_index,
            tile: sv.tile,
            origin,
            element: sv.element,
            transposed: sv.transposed,
            terms: sv.terms,
            array_terms,
            hoisted: None,
        };
        if v.array_index.is_some() {
            v.hoisted = self.scopes.hoisted(&v.entry_ptr_expr());
        }
        Ok(v)
    }
}

/// The f32 C++ of the math built-in `name` on float arguments (see
/// [`crate::check::LOWERED_MATH`]), or `None` for one no lowering handles. `__exp`-style
/// names are CUDA's fast intrinsics (`__expf`) where CUDA has one. The activations are
/// written out inline rather than as helpers: the writer selects helper sections by the calls
/// a body makes, and these live inside expressions.
pub fn math_call(name: &str, a: &[CExpr]) -> Option<CExpr> {
    let intrinsic = name.starts_with("__");
    let base = name.strip_prefix("__").unwrap_or(name);
    // `__exp2f`, `__expf`: CUDA's f32 spelling of a built-in, lowered as `__exp2`, `__exp`.
    if intrinsic
        && let Some(b) = base.strip_suffix('f')
        && !b.is_empty()
        && let Some(e) = math_call(&format!("__{b}"), a)
    {
        return Some(e);
    }
    let x = || a[0].clone().wrap();
    let f = |cuda: &str| CExpr::call(cuda, a.to_vec());
    let one = || CExpr::float(1.0);
    // `1.0f + expf(-x)`
    let one_plus_exp_neg = || {
        one()
            .add(CExpr::call("expf", vec![x().un(CUn::Neg)]))
            .paren()
    };
    Some(match (base, a.len()) {
        ("exp" | "exp10" | "log" | "log2" | "log10" | "sin" | "cos" | "tan", 1) | ("pow", 2)
            if intrinsic =>
        {
            f(&format!("__{base}f"))
        }
        (
            "exp" | "exp2" | "exp10" | "expm1" | "log" | "log2" | "log10" | "log1p" | "sqrt"
            | "rsqrt" | "cbrt" | "tanh" | "sinh" | "cosh" | "asinh" | "acosh" | "atanh" | "erf"
            | "erfc" | "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "floor" | "ceil"
            | "round" | "trunc",
            1,
        ) => f(&format!("{base}f")),
        ("abs" | "fabs", 1) => f("fabsf"),
        ("relu", 1) => CExpr::call("fmaxf", vec![a[0].clone(), CExpr::float(0.0)]),
        ("sigmoid", 1) => one().div(one_plus_exp_neg()).paren(),
        ("silu", 1) => x().div(one_plus_exp_neg()).paren(),
        ("gelu", 1) => {
            let erf = CExpr::call("erff", vec![x().mul(CExpr::float(0.70710678))]);
            CExpr::float(0.5)
                .mul(x())
                .mul(one().add(erf).paren())
                .paren()
        }
        ("rcp", 1) => one().div(x()).paren(),
        ("min" | "fmin", 2) => f("fminf"),
        ("max" | "fmax", 2) => f("fmaxf"),
        ("pow" | "atan2" | "hypot" | "fmod" | "copysign", 2) => f(&format!("{base}f")),
        ("fma" | "fmaf", 3) => f("fmaf"),
        _ => return None,
    })
}

fn to_float(s: CExpr, t: Ty) -> CExpr {
    match t {
        Ty::Float(DType::F32) | Ty::Literal => s,
        Ty::Float(_) => CExpr::call("tsl_to_f32", vec![s]),
        Ty::Int => CExpr::call("float", vec![s]),
    }
}

/// Converts a C++ value of type `from` to a value of dtype `to`.
pub fn convert(s: CExpr, from: Ty, to: DType) -> CExpr {
    let from_f32 = |ty: &'static str, s: CExpr| {
        CExpr::call_t(
            "tsl_from_f32",
            vec![CExpr::Type(ty)],
            vec![to_float(s, from)],
        )
    };
    match (from, to) {
        (Ty::Float(a), b) if a == b => s,
        (_, DType::F32) => to_float(s, from),
        (_, DType::F16) => from_f32("tsl_f16", s),
        (_, DType::BF16) => from_f32("tsl_bf16", s),
        (Ty::Int, DType::I32) => s,
        // Into an integer element: an explicit conversion (the stores take `T` from both the
        // pointer and the value).
        (Ty::Int, d) => CExpr::call_t("static_cast", vec![CExpr::Type(scalar_type(d))], vec![s]),
        (_, d) if !d.is_float() => CExpr::call_t(
            "static_cast",
            vec![CExpr::Type(scalar_type(d))],
            vec![to_float(s, from)],
        ),
        (_, _) => s,
    }
}

/// The C++ type of a DSL element type.
pub fn scalar_type(d: DType) -> &'static str {
    match d {
        DType::F16 => "tsl_f16",
        DType::BF16 => "tsl_bf16",
        DType::F32 => "float",
        DType::I32 => "int",
        DType::F8E4M3 | DType::F8E5M2 => "unsigned char",
        DType::S8 => "signed char",
        DType::U8 => "unsigned char",
        DType::S16 => "short",
        DType::U16 => "unsigned short",
        DType::U32 => "unsigned",
        // Not lowered yet (the checker's gate rejects them); their C++ spelling keeps this total.
        DType::S64 => "long long",
        DType::U64 => "unsigned long long",
        DType::F64 => "double",
        DType::TF32 => "float",
        DType::Bool => "bool",
        DType::F6E2M3 | DType::F6E3M2 | DType::F4E2M1 => "unsigned char",
        DType::U1 | DType::U2 | DType::U4 | DType::U6 | DType::Bin1 => "unsigned char",
        DType::S2 | DType::S4 | DType::S6 => "signed char",
    }
}
