//! Expressions → C++: index arithmetic, `#` composition, element loads, and tensor views
//! (`.subspan(..).at(..)`, `.chunkat(..)`, array elements): the checker's symbolic view of each
//! (`KernelInfo::sym_views`: tile shape and origin terms) printed over the tensor's C++ name —
//! a base pointer, a tile shape and the tile's origin.

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
    pub array_index: Option<String>,
    /// Tile shape (elements).
    pub tile: Vec<Sym>,
    /// C++ row/column of the tile's first element inside the tensor (array entry).
    pub origin: Vec<String>,
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
            origin: vec!["0".into(); t.shape.len()],
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
    pub fn entry_ptr(&self) -> String {
        match &self.hoisted {
            Some(name) => name.clone(),
            None => self.entry_ptr_expr(),
        }
    }
    /// [`View::entry_ptr`] as an expression, even where a loop computes it once.
    pub fn entry_ptr_expr(&self) -> String {
        match &self.array_index {
            Some(i) => format!(
                "({} + {} * {})",
                self.tensor.name,
                wrap(i),
                cpp_paren(&self.tensor.elems())
            ),
            None => self.tensor.name.clone(),
        }
    }
    /// C++ element offset of the tile origin within the entry (row-major 2-D or 1-D).
    pub fn origin_offset(&self) -> String {
        match self.origin.len() {
            0 => "0".into(),
            1 => self.origin[0].clone(),
            _ => {
                let ld = cpp_paren(&self.tensor.ld());
                if self.origin[1] == "0" {
                    if self.origin[0] == "0" {
                        "0".into()
                    } else {
                        format!("{} * {ld}", wrap(&self.origin[0]))
                    }
                } else if self.origin[0] == "0" {
                    self.origin[1].clone()
                } else {
                    format!("{} * {ld} + {}", wrap(&self.origin[0]), self.origin[1])
                }
            }
        }
    }
    /// C++ element offset of the tile's first element from the tensor's base (array entry
    /// included): `tile_ptr() == tensor.name + tile_offset()`.
    pub fn tile_offset(&self) -> String {
        let off = self.origin_offset();
        let entry = self
            .array_index
            .as_ref()
            .map(|i| format!("{} * {}", wrap(i), cpp_paren(&self.tensor.elems())));
        match (entry, off.as_str()) {
            (None, _) => off,
            (Some(e), "0") => e,
            (Some(e), _) => format!("{e} + {off}"),
        }
    }
    /// C++ pointer to the tile's first element.
    pub fn tile_ptr(&self) -> String {
        let off = self.origin_offset();
        if off == "0" {
            self.entry_ptr()
        } else {
            format!("{} + {off}", self.entry_ptr())
        }
    }
    /// An element of a global tensor as (row, column, rows, columns) of the row-major matrix
    /// the guarded accessors (`tsl_ld_or_zero`, `tsl_st_guarded`) take: a 1-D tensor is one
    /// row; a tensor of rank 3 or more folds its leading dimensions into the row
    /// (`(i0 · S1 + i1) · S2 + i2`, of S0 · S1 · S2 rows), and a leading index past its own
    /// dimension (or negative) makes the row `rows` — outside, so the element reads as zero and
    /// is not stored, as for a 2-D tensor.
    pub fn global_rc(&self) -> (String, String, String, String) {
        let t = &self.tensor;
        let n = t.shape.len();
        if n <= 2 {
            let c = self.origin.get(1).cloned().unwrap_or_else(|| "0".into());
            let cols = t
                .shape
                .get(1)
                .map(|s| s.to_cpp())
                .unwrap_or_else(|| "1".into());
            return (self.origin[0].clone(), c, t.shape[0].to_cpp(), cols);
        }
        let lead = n - 1;
        let mut row = wrap(&self.origin[0]);
        for d in 1..lead {
            row = format!(
                "{row} * {} + {}",
                cpp_paren(&t.shape[d]),
                wrap(&self.origin[d])
            );
            row = format!("({row})");
        }
        let rows = t.shape[..lead]
            .iter()
            .map(cpp_paren)
            .collect::<Vec<_>>()
            .join(" * ");
        // Unsigned, so that a negative index is outside too (it would fold into the row before).
        let inside: Vec<String> = (1..lead)
            .map(|d| {
                format!(
                    "(unsigned){} < (unsigned){}",
                    wrap(&self.origin[d]),
                    cpp_paren(&t.shape[d])
                )
            })
            .collect();
        let row = format!("({} ? {row} : {rows})", inside.join(" && "));
        (row, self.origin[lead].clone(), rows, t.shape[lead].to_cpp())
    }

    pub fn tile_elems(&self) -> Sym {
        self.tile.iter().cloned().fold(Sym::Int(1), Sym::mul)
    }

    /// A C++ constant expression that is true when the tile's first element — and, for tiles
    /// of several rows, every row's first element — is a multiple of `v` elements from the
    /// tensor's (aligned) base: `"true"`, `"false"` or a condition over tunables such as
    /// `BM % 4 == 0 && TM % 4 == 0`. For shared and register tensors, whose shapes are static.
    pub fn aligned_cpp(&self, v: i64) -> String {
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
        if self.tile.len() > 1 && self.tile[0] != Sym::Int(1) {
            strides.push(ld);
        }
        // A stride with a factor already required to be a multiple of `v` needs no condition
        // of its own: visit strides with fewer factors first.
        strides.sort_by_key(|s| factors(s).len());
        let mut required: Vec<Sym> = Vec::new();
        let mut conds: Vec<String> = Vec::new();
        for s in strides {
            match s {
                Sym::Int(x) if x % v == 0 => {}
                Sym::Int(_) => return "false".into(),
                other => {
                    if factors(&other).iter().any(|f| required.contains(f)) {
                        continue;
                    }
                    let c = format!("{} % {v} == 0", cpp_paren(&other));
                    if !conds.contains(&c) {
                        conds.push(c);
                    }
                    required.push(other);
                }
            }
        }
        if conds.is_empty() {
            "true".into()
        } else {
            conds.join(" && ")
        }
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

pub fn cpp_paren(s: &Sym) -> String {
    s.to_cpp_operand()
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
        // Inside an element loop a fragment's name is its element (`lower/frag_elem.rs`).
        if let Expr::Name(n) = &self.m.exprs[e]
            && let Some(l @ Local::FragElem { .. }) = self.scopes.cpp(n)
        {
            return Some(l);
        }
        let b = self.info.bindings.get(&e)?;
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
    pub fn value(&self, e: ExprId) -> Result<(String, Ty), LowerError> {
        self.value_prec(e, 0)
    }

    fn value_prec(&self, e: ExprId, min_prec: u8) -> Result<(String, Ty), LowerError> {
        let m = self.m;
        Ok(match &m.exprs[e] {
            Expr::Int(v) => (v.to_string(), Ty::Int),
            Expr::Bool(b) => ((*b as i32).to_string(), Ty::Int),
            Expr::Float { value, .. } => (float_literal(*value), Ty::Literal),
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
                (n.clone(), ty)
            }
            Expr::Wildcard => {
                return Err(self.err(e, "`_` is only meaningful inside `.chunkat(..)`"));
            }
            Expr::Unary { op, expr } => {
                let (s, t) = self.value_prec(*expr, 11)?;
                (format!("{}{s}", op.symbol()), t)
            }
            Expr::Binary { op, lhs, rhs } => {
                let p = op.precedence();
                let (a, ta) = self.value_prec(*lhs, p)?;
                let (b, tb) = self.value_prec(*rhs, p + 1)?;
                let (a, b, t) = match (ta, tb) {
                    (Ty::Int, Ty::Int) => (a, b, Ty::Int),
                    (Ty::Float(_), _) | (_, Ty::Float(_)) | (Ty::Literal, _) | (_, Ty::Literal) => {
                        (
                            to_float(&a, ta),
                            to_float(&b, tb),
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
                    return Ok((format!("fmodf({a}, {b})"), t));
                }
                let s = format!("{a} {} {b}", op.symbol());
                (if p < min_prec { format!("({s})") } else { s }, t)
            }
            Expr::Compose { outer, inner } => {
                let ext = self.compose_extent(*inner)
                .ok_or_else(|| self.err(*inner, "the right side of `#` must be a parallel or loop variable, or a composition of them (its extent is the stride)"))?;
                let (o, _) = self.value_prec(*outer, 10)?;
                let (i, _) = self.value_prec(*inner, 10)?;
                let s = format!("{o} * {} + {i}", cpp_paren(&ext));
                (if 9 < min_prec { format!("({s})") } else { s }, Ty::Int)
            }
            Expr::Call { func, args } => {
                let vals: Vec<(String, Ty)> = args
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
                        (to_float(a, *ta), to_float(b, *tb), Ty::Float(DType::F32))
                    };
                    return Ok((format!("({} ? {a} : {b})", wrap(c)), t));
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
                            DType::I32 => (format!("(int)({v})"), Ty::Int),
                            _ => (convert(&v, t, to), Ty::Float(to)),
                        });
                    }
                    other => {
                        let floats: Vec<String> =
                            vals.iter().map(|(v, t)| to_float(v, *t)).collect();
                        let text = math_call(other, &floats).ok_or_else(|| {
                            self.err(e, format!("not supported yet: the built-in `{other}`"))
                        })?;
                        return Ok((text, Ty::Float(DType::F32)));
                    }
                };
                let a: Vec<String> = vals.into_iter().map(|v| v.0).collect();
                (format!("{f}({})", a.join(", ")), Ty::Int)
            }
            // `acc.at(i, j)` inside `apply {i, j} in acc.span`: the element.
            Expr::View {
                op: ViewOp::At,
                base,
                ..
            } if matches!(&m.exprs[*base], Expr::Name(n) if matches!(self.scopes.cpp(n), Some(Local::FragElem { .. }))) =>
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
    pub fn element_access(&self, v: &View) -> String {
        let t = &v.tensor;
        match t.space {
            MemSpace::Global => {
                let (r, c, rows, cols) = v.global_rc();
                format!("tsl_ld_or_zero({}, {r}, {c}, {rows}, {cols})", t.name)
            }
            _ => format!("{}[{}]", v.entry_ptr(), v.origin_offset()),
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
    fn print_origin(&self, origin: &[Vec<OriginTerm>]) -> Result<Vec<String>, LowerError> {
        let mut out = Vec::with_capacity(origin.len());
        for terms in origin {
            let mut o = "0".to_string();
            for t in terms {
                let term = match (t.form, &t.stride) {
                    (TermForm::Element, _) | (TermForm::Tile, Sym::Int(1)) => {
                        self.value(t.index)?.0
                    }
                    (TermForm::Tile, stride) => format!(
                        "{} * {}",
                        self.value_prec(t.index, 10)?.0,
                        cpp_paren(stride)
                    ),
                    (TermForm::Chunk, stride) => {
                        format!("{} * {}", wrap(&self.value(t.index)?.0), cpp_paren(stride))
                    }
                };
                o = offset(&o, &term);
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
        // `.sqz()`: the squeezed tile is a tensor of its own, at the tile's first element.
        let mut tensor = tensor;
        let mut array_terms = sv.array_terms;
        if let Some(base) = &sv.squeezed {
            let base_origin = self.print_origin(&base.origin)?;
            let (name, shape, moved) =
                super::squeeze::squeeze(&tensor.name, &tensor.shape, &base.tile, &base_origin)
                    .map_err(|why| self.err(e, why))?;
            tensor = TensorLocal {
                name,
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
pub fn math_call(name: &str, a: &[String]) -> Option<String> {
    let intrinsic = name.starts_with("__");
    let base = name.strip_prefix("__").unwrap_or(name);
    // `__exp2f`, `__expf`: CUDA's f32 spelling of a built-in, lowered as `__exp2`, `__exp`.
    if intrinsic
        && let Some(b) = base.strip_suffix('f')
        && !b.is_empty()
        && let Some(text) = math_call(&format!("__{b}"), a)
    {
        return Some(text);
    }
    let x = || wrap(&a[0]);
    let f = |cuda: &str| format!("{cuda}({})", a.join(", "));
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
        ("relu", 1) => format!("fmaxf({}, 0.0f)", a[0]),
        ("sigmoid", 1) => format!("(1.0f / (1.0f + expf(-{})))", x()),
        ("silu", 1) => format!("({} / (1.0f + expf(-{})))", x(), x()),
        ("gelu", 1) => format!("(0.5f * {} * (1.0f + erff({} * 0.70710678f)))", x(), x()),
        ("rcp", 1) => format!("(1.0f / {})", x()),
        ("min" | "fmin", 2) => f("fminf"),
        ("max" | "fmax", 2) => f("fmaxf"),
        ("pow" | "atan2" | "hypot" | "fmod" | "copysign", 2) => f(&format!("{base}f")),
        ("fma" | "fmaf", 3) => f("fmaf"),
        _ => return None,
    })
}

/// Parenthesizes C++ text unless it is a single token.
fn wrap(s: &str) -> String {
    if s.chars().all(|c| c.is_alphanumeric() || c == '_') {
        s.to_string()
    } else {
        format!("({s})")
    }
}

fn offset(base: &str, add: &str) -> String {
    if base == "0" {
        add.to_string()
    } else {
        format!("{base} + {add}")
    }
}

fn to_float(s: &str, t: Ty) -> String {
    match t {
        Ty::Float(DType::F32) | Ty::Literal => s.to_string(),
        Ty::Float(_) => format!("tsl_to_f32({s})"),
        Ty::Int => format!("float({s})"),
    }
}

/// `0.0f`-style literal text.
pub fn float_literal(v: f64) -> String {
    // `inf`: no C++ literal spells it without a header; the bit pattern does.
    if v.is_infinite() {
        let bits = if v > 0.0 { "0x7f800000" } else { "0xff800000" };
        return format!("__int_as_float({bits})");
    }
    let s = format!("{v:?}");
    let s = if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    };
    format!("{s}f")
}

/// Converts C++ text of type `from` to a value of dtype `to`.
pub fn convert(s: &str, from: Ty, to: DType) -> String {
    match (from, to) {
        (Ty::Float(a), b) if a == b => s.to_string(),
        (_, DType::F32) => to_float(s, from),
        (_, DType::F16) => format!("tsl_from_f32<tsl_f16>({})", to_float(s, from)),
        (_, DType::BF16) => format!("tsl_from_f32<tsl_bf16>({})", to_float(s, from)),
        (Ty::Int, DType::I32) => s.to_string(),
        // Into an integer element: an explicit conversion (the stores take `T` from both the
        // pointer and the value).
        (Ty::Int, d) => format!("static_cast<{}>({s})", scalar_type(d)),
        (_, d) if !d.is_float() => {
            format!("static_cast<{}>({})", scalar_type(d), to_float(s, from))
        }
        (_, _) => s.to_string(),
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
        // Not lowered yet (the checker's gate rejects them); their C++ spelling keeps this total.
        DType::S8 => "signed char",
        DType::U8 => "unsigned char",
        DType::S16 => "short",
        DType::U16 => "unsigned short",
        DType::U32 => "unsigned",
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
