//! Expressions → C++: index arithmetic, `#` composition, element loads, and tensor views
//! (`.subspan(..).at(..)`, `.chunkat(..)`, array elements) resolved to a base pointer, a tile
//! shape and the tile's origin.

use super::LowerError;
use super::scope::{Local, Scopes, TensorLocal};
use super::sym::Sym;
use crate::ir::{DType, Expr, ExprId, MemSpace, Module, ViewOp};

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
    /// A `.subspan` waiting for its `.at`.
    tiled: bool,
}

impl View {
    /// C++ pointer to the first element of the array entry (shared/local tensors).
    pub fn entry_ptr(&self) -> String {
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
    /// C++ pointer to the tile's first element.
    pub fn tile_ptr(&self) -> String {
        let off = self.origin_offset();
        if off == "0" {
            self.entry_ptr()
        } else {
            format!("{} + {off}", self.entry_ptr())
        }
    }
    pub fn tile_elems(&self) -> Sym {
        self.tile.iter().cloned().fold(Sym::Int(1), Sym::mul)
    }
}

pub fn cpp_paren(s: &Sym) -> String {
    match s {
        Sym::Int(_) | Sym::Name(_) | Sym::Cdiv(..) | Sym::Min(..) | Sym::Max(..) => s.to_cpp(),
        _ => format!("({})", s.to_cpp()),
    }
}

pub struct ExprCx<'a> {
    pub m: &'a Module,
    pub scopes: &'a Scopes,
}

impl ExprCx<'_> {
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
                let ty = match self.scopes.get(n) {
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
                let s = format!("{a} {} {b}", op.symbol());
                (if p < min_prec { format!("({s})") } else { s }, t)
            }
            Expr::Compose { outer, inner } => {
                let ext = match &m.exprs[*inner] {
                    Expr::Name(n) => self.scopes.extent(n).cloned(),
                    _ => None,
                }
                .ok_or_else(|| self.err(*inner, "the right side of `#` must be a parallel or loop variable (its extent is the stride)"))?;
                let (o, _) = self.value_prec(*outer, 10)?;
                let (i, _) = self.value_prec(*inner, 10)?;
                let s = format!("{o} * {} + {i}", cpp_paren(&ext));
                (if 9 < min_prec { format!("({s})") } else { s }, Ty::Int)
            }
            Expr::Call { func, args } => {
                let f = match func.name.as_str() {
                    "cdiv" => "tsl_cdiv",
                    "min" => "tsl_min",
                    "max" => "tsl_max",
                    other => return Err(self.err(e, format!("unknown function `{other}`"))),
                };
                let a: Vec<String> = args
                    .iter()
                    .map(|&a| self.value(a).map(|v| v.0))
                    .collect::<Result<_, _>>()?;
                (format!("{f}({})", a.join(", ")), Ty::Int)
            }
            Expr::View { op: ViewOp::At, .. } => {
                let v = self.view(e)?;
                if !v.element {
                    return Err(self.err(
                        e,
                        "a tile view is not a value; use it in a copy or `.at(..)` one element",
                    ));
                }
                (self.element_access(&v), Ty::Float(v.tensor.dtype))
            }
            Expr::Index { .. } | Expr::View { .. } | Expr::Field { .. } => {
                return Err(self.err(e, "a tensor view is not a value here"));
            }
        })
    }

    /// A load or store location for an element view.
    pub fn element_access(&self, v: &View) -> String {
        let t = &v.tensor;
        match t.space {
            MemSpace::Global => {
                let r = &v.origin[0];
                let c = v.origin.get(1).cloned().unwrap_or_else(|| "0".into());
                let rows = t.shape[0].to_cpp();
                let cols = t
                    .shape
                    .get(1)
                    .map(|s| s.to_cpp())
                    .unwrap_or_else(|| "1".into());
                format!("tsl_ld_or_zero({}, {r}, {c}, {rows}, {cols})", t.name)
            }
            _ => format!("{}[{}]", v.entry_ptr(), v.origin_offset()),
        }
    }

    /// Resolves a view expression (`t`, `t[i]`, `t.subspan(..).at(..)`, `t.chunkat(..)`, `t.at(..)`).
    pub fn view(&self, e: ExprId) -> Result<View, LowerError> {
        let m = self.m;
        match &m.exprs[e] {
            Expr::Name(n) => {
                let t = self
                    .scopes
                    .tensor(n)
                    .ok_or_else(|| self.err(e, format!("`{n}` is not a tensor")))?;
                Ok(View {
                    tile: t.shape.clone(),
                    origin: vec!["0".into(); t.shape.len()],
                    tensor: t.clone(),
                    array_index: None,
                    element: false,
                    tiled: false,
                })
            }
            Expr::Index { base, index } => {
                let mut v = self.view(*base)?;
                if v.tensor.count.is_none() {
                    return Err(self.err(e, format!("`{}` is not an array", v.tensor.name)));
                }
                v.array_index = Some(self.value(*index)?.0);
                Ok(v)
            }
            Expr::View { base, op, args } => {
                let mut v = self.view(*base)?;
                if v.element {
                    return Err(self.err(e, "cannot take a view of a single element"));
                }
                match op {
                    ViewOp::Subspan => {
                        v.tile = args
                            .iter()
                            .map(|&a| self.sym(a))
                            .collect::<Result<_, _>>()?;
                        v.tiled = true;
                    }
                    ViewOp::At => {
                        if v.tiled {
                            for (d, &a) in args.iter().enumerate() {
                                let (i, _) = self.value_prec(a, 10)?;
                                v.origin[d] = offset(
                                    &v.origin[d],
                                    &format!("{i} * {}", cpp_paren(&v.tile[d])),
                                );
                            }
                            v.tiled = false;
                        } else {
                            for (d, &a) in args.iter().enumerate() {
                                let (i, _) = self.value(a)?;
                                v.origin[d] = offset(&v.origin[d], &i);
                            }
                            v.tile = vec![Sym::Int(1); args.len()];
                            v.element = true;
                        }
                    }
                    ViewOp::Chunkat => {
                        for (d, &a) in args.iter().enumerate() {
                            if matches!(m.exprs[a], Expr::Wildcard) {
                                continue;
                            }
                            let Expr::Name(var) = &m.exprs[a] else {
                                return Err(
                                    self.err(a, "`.chunkat` takes loop/parallel variables or `_`")
                                );
                            };
                            let ext = self.scopes.extent(var).ok_or_else(|| {
                                self.err(a, format!("`{var}` is not a loop or parallel variable"))
                            })?;
                            let chunk = match ext {
                                Sym::Cdiv(dd, t) if **dd == v.tile[d] => (**t).clone(),
                                other => Sym::bin(
                                    crate::ir::BinaryOp::Div,
                                    v.tile[d].clone(),
                                    other.clone(),
                                ),
                            };
                            v.origin[d] =
                                offset(&v.origin[d], &format!("{var} * {}", cpp_paren(&chunk)));
                            v.tile[d] = chunk;
                        }
                    }
                }
                Ok(v)
            }
            _ => Err(self.err(e, "expected a tensor or a view of one")),
        }
    }
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
        (_, _) => s.to_string(),
    }
}
