//! The reference `tessel run` checks a kernel against, read from its signature: two inputs and
//! an output (the last parameter) whose dimension names describe a contraction
//! `out[…] = Σ a[…] · b[…]` over the dimensions the output lacks — a GEMM in any layout, a
//! GEMV, a batched product. Row-major GEMMs in the NT and NN layouts go to cuBLAS (full output,
//! and a timing to compare with); every other contraction is recomputed in f64 on the host at
//! sampled outputs.

use std::collections::BTreeMap;

/// A contraction over named dimensions, row-major tensors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contraction {
    /// Dimensions of the first input, outermost first.
    pub a: Vec<String>,
    /// Dimensions of the second input.
    pub b: Vec<String>,
    /// Dimensions of the output.
    pub out: Vec<String>,
    /// Dimensions summed over: in an input, not in the output.
    pub summed: Vec<String>,
    /// Every dimension's size.
    pub sizes: BTreeMap<String, usize>,
}

/// Which cuBLAS call computes a contraction, when one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmLayout {
    /// `out[M,N] = a[M,K] · b[N,K]ᵀ`.
    Nt,
    /// `out[M,N] = a[M,K] · b[K,N]`.
    Nn,
}

impl Contraction {
    /// The contraction these dimension lists describe, or why they describe none.
    pub fn new(
        a: &[String],
        b: &[String],
        out: &[String],
        sizes: &BTreeMap<String, usize>,
    ) -> Result<Contraction, String> {
        for (what, dims) in [("first input", a), ("second input", b), ("output", out)] {
            for (i, d) in dims.iter().enumerate() {
                if dims[..i].contains(d) {
                    return Err(format!("the {what} repeats dimension `{d}`"));
                }
                if !sizes.contains_key(d) {
                    return Err(format!("dimension `{d}` of the {what} has no size"));
                }
            }
        }
        if let Some(d) = out.iter().find(|d| !a.contains(d) && !b.contains(d)) {
            return Err(format!(
                "output dimension `{d}` appears in neither input, so the output is not a contraction of them"
            ));
        }
        let mut summed: Vec<String> = Vec::new();
        for d in a.iter().chain(b) {
            if !out.contains(d) && !summed.contains(d) {
                summed.push(d.clone());
            }
        }
        let sizes = out
            .iter()
            .chain(&summed)
            .map(|d| (d.clone(), sizes[d]))
            .collect();
        Ok(Contraction {
            a: a.to_vec(),
            b: b.to_vec(),
            out: out.to_vec(),
            summed,
            sizes,
        })
    }

    /// Elements of the output.
    pub fn out_len(&self) -> usize {
        self.out.iter().map(|d| self.sizes[d]).product()
    }

    /// Terms summed per output (`K` for a GEMM).
    pub fn depth(&self) -> usize {
        self.summed.iter().map(|d| self.sizes[d]).product()
    }

    /// `2 ·` output elements `·` depth: a multiply and an add per term.
    pub fn flops(&self) -> f64 {
        2.0 * self.out_len() as f64 * self.depth() as f64
    }

    /// The cuBLAS layout, for a row-major GEMM that cuBLAS computes as is.
    pub fn gemm_layout(&self) -> Option<GemmLayout> {
        let [m, n] = self.out.as_slice() else {
            return None;
        };
        let [k] = self.summed.as_slice() else {
            return None;
        };
        if self.a != [m.clone(), k.clone()] {
            return None;
        }
        if self.b == [n.clone(), k.clone()] {
            Some(GemmLayout::Nt)
        } else if self.b == [k.clone(), n.clone()] {
            Some(GemmLayout::Nn)
        } else {
            None
        }
    }

    /// For a tensor with dimensions `dims` (row-major): the offset of the output point `out`
    /// (coordinates in `self.out` order), and the stride of each summed dimension (0 when the
    /// tensor lacks it).
    fn offsets(&self, dims: &[String], out: &[usize]) -> (usize, Vec<usize>) {
        let mut stride = 1;
        let mut base = 0;
        let mut summed = vec![0; self.summed.len()];
        for d in dims.iter().rev() {
            if let Some(i) = self.out.iter().position(|o| o == d) {
                base += stride * out[i];
            } else if let Some(j) = self.summed.iter().position(|x| x == d) {
                summed[j] = stride;
            }
            stride *= self.sizes[d];
        }
        (base, summed)
    }

    /// The output at flat index `index`, in f64, from the inputs in f64.
    pub fn at(&self, a: &[f64], b: &[f64], index: usize) -> f64 {
        let mut point = vec![0; self.out.len()];
        let mut rest = index;
        for (i, d) in self.out.iter().enumerate().rev() {
            point[i] = rest % self.sizes[d];
            rest /= self.sizes[d];
        }
        let (mut ao, a_step) = self.offsets(&self.a, &point);
        let (mut bo, b_step) = self.offsets(&self.b, &point);
        let extents: Vec<usize> = self.summed.iter().map(|d| self.sizes[d]).collect();
        let mut at = vec![0; extents.len()];
        let mut sum = 0.0;
        for _ in 0..self.depth() {
            sum += a[ao] * b[bo];
            // The next summed point, the last dimension fastest.
            for j in (0..extents.len()).rev() {
                at[j] += 1;
                ao += a_step[j];
                bo += b_step[j];
                if at[j] < extents[j] {
                    break;
                }
                ao -= a_step[j] * extents[j];
                bo -= b_step[j] * extents[j];
                at[j] = 0;
            }
        }
        sum
    }

    /// Up to `max` output indices, all of them when there are no more, else a deterministic
    /// sample that includes the first and last.
    pub fn sample(&self, max: usize, seed: u64) -> Vec<usize> {
        let len = self.out_len();
        if len <= max {
            return (0..len).collect();
        }
        let mut rng = tessel_runtime::dtype::SplitMix64::new(seed);
        let mut v: Vec<usize> = (0..max.saturating_sub(2))
            .map(|_| (rng.next_u64() % len as u64) as usize)
            .collect();
        v.push(0);
        v.push(len - 1);
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// An element-wise activation a kernel applies before its store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// None: the value itself.
    Identity,
    /// `max(x, 0)`.
    Relu,
    /// `x · Φ(x)` (the erf form).
    Gelu,
    /// `1 / (1 + e^-x)`.
    Sigmoid,
    /// `x / (1 + e^-x)`.
    Silu,
    /// `tanh x`.
    Tanh,
}

impl Activation {
    fn from_name(name: &str) -> Option<Activation> {
        Some(match name {
            "relu" => Activation::Relu,
            "gelu" => Activation::Gelu,
            "sigmoid" => Activation::Sigmoid,
            "silu" => Activation::Silu,
            "tanh" => Activation::Tanh,
            _ => return None,
        })
    }

    /// The activation in f64 (GELU in its erf form, as the kernel computes it).
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Activation::Identity => x,
            Activation::Relu => x.max(0.0),
            Activation::Gelu => 0.5 * x * (1.0 + libm_erf(x / std::f64::consts::SQRT_2)),
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::Silu => x / (1.0 + (-x).exp()),
            Activation::Tanh => x.tanh(),
        }
    }
}

/// erf in f64, from the Chebyshev fit of erfc in Numerical Recipes (`erfcc`, |relative error|
/// < 1.2e-7: ample for f16/f32 outputs). Written here because std has no erf and the reference
/// needs nothing else from a math crate.
fn libm_erf(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { 1.0 - r } else { r - 1.0 }
}

/// What a kernel does to the contraction before its store, read from the store statement
/// `out.at(…) = ACT(acc + bias.at(…))` (`ACT` one of [`Activation`] or none; the bias term
/// optional, on either side of `+`): the output is `ACT(contraction + bias[d])`, `bias` a 1-D
/// parameter over output dimension `d`.
#[derive(Clone, Debug, PartialEq)]
pub struct Epilogue {
    /// The activation applied last.
    pub activation: Activation,
    /// The bias parameter's index and the output dimension it runs along.
    pub bias: Option<(usize, String)>,
    /// A scalar parameter (its index) the contraction is multiplied by (`alpha * acc`).
    pub scale: Option<usize>,
    /// A scalar parameter (its index) added to every output (`acc + beta`).
    pub offset: Option<usize>,
}

impl Epilogue {
    /// The epilogue of the element stores into parameter `out` of `m`, when every store into
    /// it has one recognized form (the same for all of them); or, for an `mma` accumulator
    /// stored into it (`mma.store acc, out…`), the element-wise updates of that accumulator
    /// before the store (`acc *= alpha;`, `apply {i, j} in acc.span { acc.at(i, j) =
    /// ACT(acc.at(i, j) + bias.at(…)); }`), composed in program order.
    pub fn of(m: &dsl_core::ir::Module, out: usize) -> Option<Epilogue> {
        use dsl_core::ir::{Expr, Stmt};
        let params = &m.kernel.params;
        let out_name = &params[out].name.name;
        let mut found: Option<Epilogue> = None;
        for (_, st) in m.stmts.iter() {
            let Stmt::Assign { target, value, .. } = st else {
                continue;
            };
            let Expr::View { base, .. } = &m.exprs[*target] else {
                continue;
            };
            if !matches!(&m.exprs[*base], Expr::Name(n) if n == out_name) {
                continue;
            }
            // The accumulator: a name that is no parameter, or an element of a register or
            // shared tile (`sum.at(i, j)`, `acc.at(mi # i, ni # j)`).
            let local = |n: &String| !params.iter().any(|p| &p.name.name == n);
            let acc = |e: dsl_core::ir::ExprId| match &m.exprs[e] {
                Expr::Name(n) => local(n),
                Expr::View {
                    base,
                    op: dsl_core::ir::ViewOp::At,
                    ..
                } => matches!(&m.exprs[*base], Expr::Name(n) if local(n)),
                _ => false,
            };
            let e = Self::value_form(m, *value, &acc)?;
            match &found {
                Some(f) if *f != e => return None,
                _ => found = Some(e),
            }
        }
        found.or_else(|| Self::of_accumulator(m, out_name))
    }

    /// `ACT(acc)`, `ACT(alpha * acc)`, `ACT(acc + bias.at(…))`, `ACT(acc + beta)` (either
    /// order of `+` and `*`), where `is_acc` tells the accumulator's expression.
    fn value_form(
        m: &dsl_core::ir::Module,
        value: dsl_core::ir::ExprId,
        is_acc: &dyn Fn(dsl_core::ir::ExprId) -> bool,
    ) -> Option<Epilogue> {
        use dsl_core::ir::{BinaryOp, Expr, ViewOp};
        let params = &m.kernel.params;
        let bias_of = |e: dsl_core::ir::ExprId| -> Option<(usize, String)> {
            let Expr::View {
                base,
                op: ViewOp::At,
                args,
            } = &m.exprs[e]
            else {
                return None;
            };
            let Expr::Name(n) = &m.exprs[*base] else {
                return None;
            };
            let i = params.iter().position(|p| &p.name.name == n)?;
            (params[i].shape.len() == 1 && args.len() == 1)
                .then(|| (i, m.expr_to_string(params[i].shape[0])))
        };
        let (activation, inner) = match &m.exprs[value] {
            Expr::Call { func, args } if args.len() == 1 => {
                (Activation::from_name(&func.name)?, args[0])
            }
            _ => (Activation::Identity, value),
        };
        // A scalar parameter, and the accumulator, possibly scaled by one: `alpha * acc`.
        let scalar = |e: dsl_core::ir::ExprId| match &m.exprs[e] {
            Expr::Name(n) => params
                .iter()
                .position(|p| &p.name.name == n && p.shape.is_empty()),
            _ => None,
        };
        let acc = |e: dsl_core::ir::ExprId| -> Option<Option<usize>> {
            if is_acc(e) {
                return Some(None);
            }
            match &m.exprs[e] {
                Expr::Binary {
                    op: BinaryOp::Mul,
                    lhs,
                    rhs,
                } => match (scalar(*lhs), scalar(*rhs)) {
                    (Some(s), None) if is_acc(*rhs) => Some(Some(s)),
                    (None, Some(s)) if is_acc(*lhs) => Some(Some(s)),
                    _ => None,
                },
                _ => None,
            }
        };
        let (scale, bias, offset) = match &m.exprs[inner] {
            _ if acc(inner).is_some() => (acc(inner)?, None, None),
            Expr::Binary {
                op: BinaryOp::Add,
                lhs,
                rhs,
            } => {
                let (a, other) = match (acc(*lhs), acc(*rhs)) {
                    (Some(s), _) => (s, *rhs),
                    (_, Some(s)) => (s, *lhs),
                    _ => return None,
                };
                match scalar(other) {
                    Some(o) => (a, None, Some(o)),
                    None => (a, Some(bias_of(other)?), None),
                }
            }
            _ => return None,
        };
        Some(Epilogue {
            activation,
            bias,
            scale,
            offset,
        })
    }

    /// The updates of the accumulator `mma.store` writes into `out_name`, in program order:
    /// whole-fragment assignments (`acc *= alpha;`, `acc = acc * alpha + beta;`) and `apply`s
    /// over it whose body is one assignment `acc.at(i, j) = …`, each of a [`value_form`]; the
    /// steps compose while the result stays `ACT(alpha · c + bias + beta)`.
    ///
    /// [`value_form`]: Epilogue::value_form
    fn of_accumulator(m: &dsl_core::ir::Module, out_name: &str) -> Option<Epilogue> {
        use dsl_core::ir::{AssignOp, Expr, Stmt, ViewOp};
        let root = |mut e: dsl_core::ir::ExprId| loop {
            match &m.exprs[e] {
                Expr::View { base, .. } => e = *base,
                Expr::Name(n) => return Some(n.clone()),
                _ => return None,
            }
        };
        let stores: Vec<String> = m
            .stmts
            .iter()
            .filter_map(|(_, st)| match st {
                Stmt::MmaStore { acc, dst, .. } if root(*dst).as_deref() == Some(out_name) => {
                    Some(acc.name.clone())
                }
                _ => None,
            })
            .collect();
        let acc_name = stores.first()?.clone();
        if stores.iter().any(|a| *a != acc_name) {
            return None;
        }
        let names_acc =
            |e: dsl_core::ir::ExprId| matches!(&m.exprs[e], Expr::Name(n) if *n == acc_name);
        let mut steps: Vec<Epilogue> = Vec::new();
        let mut order = Vec::new();
        fn walk(
            m: &dsl_core::ir::Module,
            b: &[dsl_core::ir::StmtId],
            out: &mut Vec<dsl_core::ir::StmtId>,
        ) {
            for &s in b {
                out.push(s);
                match &m.stmts[s] {
                    Stmt::Parallel { body, .. } | Stmt::InThreads { body, .. } => {
                        walk(m, body, out)
                    }
                    // An `apply` is one step; the body of another loop is walked.
                    Stmt::Foreach { body, extents, .. }
                        if !extents.iter().any(|&e| {
                            matches!(
                                m.exprs[e],
                                Expr::View {
                                    op: ViewOp::SpanOf,
                                    ..
                                } | Expr::Field { .. }
                            )
                        }) =>
                    {
                        walk(m, body, out)
                    }
                    _ => {}
                }
            }
        }
        walk(m, &m.kernel.body, &mut order);
        for s in order {
            match &m.stmts[s] {
                Stmt::Assign { target, op, value } if names_acc(*target) => {
                    let step = match op {
                        AssignOp::Set => Self::value_form(m, *value, &names_acc)?,
                        // `acc op= v`: the form of `acc op v`.
                        AssignOp::Mul | AssignOp::Add => {
                            let scalar = match &m.exprs[*value] {
                                Expr::Name(n) => m
                                    .kernel
                                    .params
                                    .iter()
                                    .position(|p| &p.name.name == n && p.shape.is_empty())?,
                                _ => return None,
                            };
                            Epilogue {
                                activation: Activation::Identity,
                                bias: None,
                                scale: (*op == AssignOp::Mul).then_some(scalar),
                                offset: (*op == AssignOp::Add).then_some(scalar),
                            }
                        }
                        _ => return None,
                    };
                    steps.push(step);
                }
                Stmt::Foreach { extents, body, .. }
                    if extents.iter().any(|&e| matches!(&m.exprs[e], Expr::View { op: ViewOp::SpanOf, base, .. } if names_acc(*base))) =>
                {
                    let [b] = body.as_slice() else {
                        return None;
                    };
                    let Stmt::Assign {
                        target,
                        op: AssignOp::Set,
                        value,
                    } = &m.stmts[*b]
                    else {
                        return None;
                    };
                    let elem = |e: dsl_core::ir::ExprId| {
                        matches!(&m.exprs[e], Expr::View { op: ViewOp::At, base, .. } if names_acc(*base))
                    };
                    if !elem(*target) {
                        return None;
                    }
                    steps.push(Self::value_form(m, *value, &elem)?);
                }
                _ => {}
            }
        }
        let mut e = Epilogue {
            activation: Activation::Identity,
            bias: None,
            scale: None,
            offset: None,
        };
        for f in steps {
            // A step after an activation, a second scale, a scale of an earlier bias or
            // offset, or a second bias or offset leave the form.
            if e.activation != Activation::Identity && !f.is_identity()
                || (f.scale.is_some()
                    && (e.scale.is_some() || e.bias.is_some() || e.offset.is_some()))
                || (f.bias.is_some() && e.bias.is_some())
                || (f.offset.is_some() && e.offset.is_some())
            {
                return None;
            }
            e = Epilogue {
                activation: if f.activation == Activation::Identity {
                    e.activation
                } else {
                    f.activation
                },
                bias: e.bias.or(f.bias),
                scale: e.scale.or(f.scale),
                offset: e.offset.or(f.offset),
            };
        }
        (!e.is_identity()).then_some(e)
    }

    /// Whether the output is the plain contraction.
    pub fn is_identity(&self) -> bool {
        self.activation == Activation::Identity
            && self.bias.is_none()
            && self.scale.is_none()
            && self.offset.is_none()
    }

    /// The output at flat index `index` of the contraction `c` whose value there is `sum`;
    /// `scalar(i)` is the value of scalar parameter `i`.
    pub fn apply(
        &self,
        c: &Contraction,
        bias: Option<&[f64]>,
        scalar: &dyn Fn(usize) -> f64,
        index: usize,
        sum: f64,
    ) -> f64 {
        let mut x = sum * self.scale.map_or(1.0, scalar) + self.offset.map_or(0.0, scalar);
        if let (Some((_, dim)), Some(b)) = (&self.bias, bias) {
            let mut rest = index;
            for d in c.out.iter().rev() {
                let coord = rest % c.sizes[d];
                rest /= c.sizes[d];
                if d == dim {
                    x += b[coord];
                    break;
                }
            }
        }
        self.activation.apply(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations_match_their_definitions() {
        assert_eq!(Activation::Relu.apply(-2.0), 0.0);
        assert!((libm_erf(0.5) - 0.520_499_877_8).abs() < 1e-6);
        assert!((libm_erf(-1.5) + 0.966_105_146_5).abs() < 1e-6);
        assert!((Activation::Gelu.apply(1.0) - 0.841_344_746).abs() < 1e-6);
        assert!((Activation::Sigmoid.apply(0.0) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn an_accumulator_epilogue_is_read_from_its_element_wise_updates() {
        let read = |name: &str| {
            let path =
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("kernels/{name}.co"));
            let src = std::fs::read_to_string(path).unwrap();
            dsl_core::parse::parse_str(&src, None).unwrap().module
        };
        // `mc *= alpha; apply … mc.at(i, j) = relu(mc.at(i, j) + bias.at(…));`
        let e = Epilogue::of(&read("warp_epilogue"), 4).expect("recognized");
        assert_eq!(e.activation, Activation::Relu);
        assert_eq!(e.bias, Some((2, "N".to_string())));
        assert_eq!(e.scale, Some(3));
        assert_eq!(e.offset, None);
        // `mc = mc * alpha; apply … silu(…)`
        let e = Epilogue::of(&read("wgmma_epilogue"), 4).expect("recognized");
        assert_eq!(e.activation, Activation::Silu);
        assert_eq!(e.scale, Some(3));
        // A scale after the bias is not of the form: no epilogue, rather than a wrong one.
        let text = "__co__ void k(f16 [M, K] a, f16 [N, K] b, f32 [N] bias, f32 s, f32 [M, N] c) {
  parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 8)] : block, {w} by [1] : group {
    mc = mma.fill.f32 0.0f;
    ma = mma.load a.subspan(16, K).at(bm, 0);
    mb = mma.load b.subspan(8, K).at(bn, 0);
    mma.row.row mc, ma, mb;
    apply {i, j} in mc.span
      mc.at(i, j) = mc.at(i, j) + bias.at(bn * 8 + j);
    mc *= s;
    mma.store mc, c.subspan(16, 8).at(bm, bn);
  }
}";
        let m = dsl_core::parse::parse_str(text, None).unwrap().module;
        assert_eq!(Epilogue::of(&m, 4), None);
    }

    #[test]
    fn the_epilogue_is_read_from_the_store() {
        let src = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/gemm_bias_gelu.co"),
        )
        .unwrap();
        let m = dsl_core::parse::parse_str(&src, None).unwrap().module;
        let e = Epilogue::of(&m, 3).expect("recognized");
        assert_eq!(e.activation, Activation::Gelu);
        assert_eq!(e.bias, Some((2, "N".to_string())));
        let c = Contraction::new(
            &s(&["M", "K"]),
            &s(&["N", "K"]),
            &s(&["M", "N"]),
            &sizes(&[("M", 2), ("N", 3), ("K", 4)]),
        )
        .unwrap();
        // Output (1, 2): the bias of column 2.
        let want = Activation::Gelu.apply(1.0 + 30.0);
        assert!((e.apply(&c, Some(&[10.0, 20.0, 30.0]), &|_| 0.0, 5, 1.0) - want).abs() < 1e-12);
    }

    #[test]
    fn scalar_parameters_scale_and_offset_the_contraction() {
        let src = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/gemm_scaled.co"),
        )
        .unwrap();
        let m = dsl_core::parse::parse_str(&src, None).unwrap().module;
        let e = Epilogue::of(&m, 4).expect("recognized");
        assert_eq!(
            (e.scale, e.offset, e.bias.clone()),
            (Some(1), Some(3), None)
        );
        assert!(!e.is_identity());
        let c = Contraction::new(
            &s(&["M", "K"]),
            &s(&["N", "K"]),
            &s(&["M", "N"]),
            &sizes(&[("M", 2), ("N", 3), ("K", 4)]),
        )
        .unwrap();
        let scalar = |i: usize| if i == 1 { 0.5 } else { -2.0 };
        assert_eq!(e.apply(&c, None, &scalar, 0, 8.0), 0.5 * 8.0 - 2.0);
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn sizes(v: &[(&str, usize)]) -> BTreeMap<String, usize> {
        v.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    }

    #[test]
    fn gemm_layouts_are_recognized() {
        let sz = sizes(&[("M", 3), ("N", 4), ("K", 5)]);
        let c = |a: &[&str], b: &[&str]| Contraction::new(&s(a), &s(b), &s(&["M", "N"]), &sz);
        assert_eq!(
            c(&["M", "K"], &["N", "K"]).unwrap().gemm_layout(),
            Some(GemmLayout::Nt)
        );
        assert_eq!(
            c(&["M", "K"], &["K", "N"]).unwrap().gemm_layout(),
            Some(GemmLayout::Nn)
        );
        let tn = c(&["K", "M"], &["K", "N"]).unwrap();
        assert_eq!(tn.gemm_layout(), None);
        assert_eq!(tn.summed, s(&["K"]));
        assert_eq!(tn.flops(), 2.0 * 3.0 * 4.0 * 5.0);
    }

    #[test]
    fn values_match_a_hand_computed_product() {
        // a[K=2, M=2] (transposed), b[K=2, N=3]: out[m, n] = Σ_k a[k, m] · b[k, n].
        let sz = sizes(&[("M", 2), ("N", 3), ("K", 2)]);
        let c = Contraction::new(&s(&["K", "M"]), &s(&["K", "N"]), &s(&["M", "N"]), &sz).unwrap();
        let a = [1.0, 2.0, 3.0, 4.0]; // k0: m0=1 m1=2; k1: m0=3 m1=4
        let b = [1.0, 10.0, 100.0, 2.0, 20.0, 200.0];
        let got: Vec<f64> = (0..6).map(|i| c.at(&a, &b, i)).collect();
        assert_eq!(got, [7.0, 70.0, 700.0, 10.0, 100.0, 1000.0]);
        // A GEMV: y[M] = A[M, K] · x[K].
        let sz = sizes(&[("M", 2), ("K", 3)]);
        let g = Contraction::new(&s(&["M", "K"]), &s(&["K"]), &s(&["M"]), &sz).unwrap();
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(
            [g.at(&a, &[1.0, 1.0, 2.0], 0), g.at(&a, &[1.0, 1.0, 2.0], 1)],
            [9.0, 21.0]
        );
        assert_eq!(g.gemm_layout(), None);
    }

    #[test]
    fn two_summed_dimensions_match_a_direct_sum() {
        // out[M] = Σ_{K, J} a[K, M, J] · b[J, K]
        let sz = sizes(&[("M", 3), ("K", 4), ("J", 5)]);
        let c = Contraction::new(&s(&["K", "M", "J"]), &s(&["J", "K"]), &s(&["M"]), &sz).unwrap();
        assert_eq!(c.summed, s(&["K", "J"]));
        let a: Vec<f64> = (0..60).map(|x| (x as f64).sin()).collect();
        let b: Vec<f64> = (0..20).map(|x| (x as f64).cos()).collect();
        for m in 0..3 {
            let mut want = 0.0;
            for k in 0..4 {
                for j in 0..5 {
                    want += a[(k * 3 + m) * 5 + j] * b[j * 4 + k];
                }
            }
            assert!((c.at(&a, &b, m) - want).abs() < 1e-12, "m={m}");
        }
    }

    #[test]
    fn signatures_that_are_not_contractions_are_refused() {
        let sz = sizes(&[("M", 2), ("N", 3), ("K", 2)]);
        let e = Contraction::new(&s(&["M", "K"]), &s(&["K"]), &s(&["M", "N"]), &sz).unwrap_err();
        assert!(e.contains("`N` appears in neither input"), "{e}");
        let e = Contraction::new(&s(&["M", "M"]), &s(&["K"]), &s(&["M"]), &sz).unwrap_err();
        assert!(e.contains("repeats dimension `M`"), "{e}");
        let e = Contraction::new(&s(&["M", "Q"]), &s(&["Q"]), &s(&["M"]), &sz).unwrap_err();
        assert!(e.contains("`Q` of the first input has no size"), "{e}");
    }

    #[test]
    fn samples_are_all_outputs_or_a_spread() {
        let sz = sizes(&[("M", 100), ("N", 100), ("K", 1)]);
        let c = Contraction::new(&s(&["M", "K"]), &s(&["N", "K"]), &s(&["M", "N"]), &sz).unwrap();
        assert_eq!(c.sample(20_000, 1).len(), 10_000);
        let v = c.sample(64, 1);
        assert!(v.len() <= 64 && v.len() > 32);
        assert_eq!((v[0], *v.last().unwrap()), (0, 9_999));
    }
}
