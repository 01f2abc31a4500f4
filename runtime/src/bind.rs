//! A kernel's launch plan for one configuration, resolved once so that binding a launch's
//! tensor shapes is cheap and allocation-free.
//!
//! [`LaunchTemplate::new`] folds every tunable, constant and the device's SM count into the
//! plan's expressions and numbers the symbolic dims (`M`, `N`, `K`, in kernel-argument order).
//! [`LaunchTemplate::bind`] then takes the tensor shapes of one launch and, on the stack:
//!
//! * binds each symbolic dim from the first parameter that declares it and checks every other
//!   occurrence (and every dimension written as an expression) against it;
//! * checks that each dim fits the kernel's index type (`int`: dims are `const int` kernel
//!   arguments and rows/columns are `int` in the emitted code), including the tile-rounded
//!   extent `cdiv(d, T) * T` the grid covers;
//! * evaluates the `require`s that need problem sizes, the grid, the block and the dynamic
//!   shared memory with checked arithmetic and converts them without wrapping.
//!
//! Every failure is a typed [`DslError`], returned before any GPU call.

use std::collections::BTreeMap;

use dsl_core::check::Config;
use dsl_core::ir::{self, BinaryOp, Module};
use dsl_core::lower::{KernelArg as PlanArg, Sym};

use crate::dsl::{DslError, Prepared};
use crate::dtype::DType;
use crate::launch::LaunchConfig;

/// Most symbolic dims a kernel may have.
pub const MAX_DIMS: usize = 16;
/// Most kernel arguments (pointers, tensor maps, dims) a kernel may have.
pub const MAX_ARGS: usize = 32;
pub use crate::dsl::INDEX_MAX;

/// An integer expression over dim slots, everything else folded to constants.
#[derive(Clone, Debug, PartialEq)]
enum Ex {
    Const(i64),
    Dim(usize),
    Neg(Box<Ex>),
    Not(Box<Ex>),
    Bin(BinaryOp, Box<Ex>, Box<Ex>),
    Cdiv(Box<Ex>, Box<Ex>),
    Min(Box<Ex>, Box<Ex>),
    Max(Box<Ex>, Box<Ex>),
}

/// Why an expression did not evaluate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EvalError {
    Overflow,
    DivByZero,
}

impl Ex {
    fn eval(&self, d: &[i64]) -> Result<i64, EvalError> {
        let map = |e: ir::ArithError| match e {
            ir::ArithError::Overflow => EvalError::Overflow,
            ir::ArithError::DivByZero => EvalError::DivByZero,
        };
        Ok(match self {
            Ex::Const(v) => *v,
            Ex::Dim(i) => d[*i],
            Ex::Neg(a) => a.eval(d)?.checked_neg().ok_or(EvalError::Overflow)?,
            Ex::Not(a) => (a.eval(d)? == 0) as i64,
            Ex::Bin(op, a, b) => op.apply(a.eval(d)?, b.eval(d)?).map_err(map)?,
            Ex::Cdiv(a, b) => cdiv(a.eval(d)?, b.eval(d)?)?,
            Ex::Min(a, b) => a.eval(d)?.min(b.eval(d)?),
            Ex::Max(a, b) => a.eval(d)?.max(b.eval(d)?),
        })
    }

    fn is_const(&self) -> Option<i64> {
        match self {
            Ex::Const(v) => Some(*v),
            _ => None,
        }
    }

    /// Every `cdiv(a, b)` inside, as `(a, b)`.
    fn cdivs<'a>(&'a self, out: &mut Vec<(&'a Ex, &'a Ex)>) {
        match self {
            Ex::Const(_) | Ex::Dim(_) => {}
            Ex::Neg(a) | Ex::Not(a) => a.cdivs(out),
            Ex::Cdiv(a, b) => {
                out.push((a, b));
                a.cdivs(out);
                b.cdivs(out);
            }
            Ex::Bin(_, a, b) | Ex::Min(a, b) | Ex::Max(a, b) => {
                a.cdivs(out);
                b.cdivs(out);
            }
        }
    }
}

/// Ceiling division, checked.
fn cdiv(a: i64, b: i64) -> Result<i64, EvalError> {
    if b == 0 {
        return Err(EvalError::DivByZero);
    }
    Ok(a.checked_add(b - b.signum())
        .ok_or(EvalError::Overflow)?
        .div_euclid(b))
}

/// Resolves names: fixed values fold, dims become slots, constants expand to their definition.
struct Resolver<'a> {
    module: &'a Module,
    fixed: &'a BTreeMap<String, i64>,
    dims: &'a [String],
}

impl Resolver<'_> {
    fn ex(&self, s: &Sym, depth: u32) -> Result<Ex, String> {
        let r = |x: &Sym| self.ex(x, depth).map(Box::new);
        let folded = |e: Ex| {
            if contains_dim(&e) {
                return e;
            }
            match e.eval(&[]) {
                Ok(v) => Ex::Const(v),
                Err(_) => e,
            }
        };
        Ok(match s {
            Sym::Int(v) => Ex::Const(*v),
            Sym::Name(n) => {
                if let Some(i) = self.dims.iter().position(|d| d == n) {
                    Ex::Dim(i)
                } else if let Some(v) = self.fixed.get(n) {
                    Ex::Const(*v)
                } else if let (Some(c), true) = (self.module.constant(n), depth < 32) {
                    let def = Sym::from_expr(self.module, c.value)
                        .ok_or_else(|| format!("constant `{n}` is not an integer expression"))?;
                    self.ex(&def, depth + 1)?
                } else {
                    return Err(format!("`{n}` has no value at launch"));
                }
            }
            Sym::Neg(a) => folded(Ex::Neg(r(a)?)),
            Sym::Not(a) => folded(Ex::Not(r(a)?)),
            Sym::Bin(op, a, b) => folded(Ex::Bin(*op, r(a)?, r(b)?)),
            Sym::Cdiv(a, b) => folded(Ex::Cdiv(r(a)?, r(b)?)),
            Sym::Min(a, b) => folded(Ex::Min(r(a)?, r(b)?)),
            Sym::Max(a, b) => folded(Ex::Max(r(a)?, r(b)?)),
        })
    }
}

fn contains_dim(e: &Ex) -> bool {
    match e {
        Ex::Const(_) => false,
        Ex::Dim(_) => true,
        Ex::Neg(a) | Ex::Not(a) => contains_dim(a),
        Ex::Bin(_, a, b) | Ex::Cdiv(a, b) | Ex::Min(a, b) | Ex::Max(a, b) => {
            contains_dim(a) || contains_dim(b)
        }
    }
}

/// One declared dimension of a parameter.
#[derive(Clone, Debug)]
enum DimSpec {
    /// A symbolic dim: binds (or must equal) slot `i`.
    Bind(usize),
    /// Anything else (a constant, a tunable, an expression): must equal its value.
    Check(Ex),
}

#[derive(Clone, Debug)]
struct ParamSpec {
    name: String,
    dtype: Option<DType>,
    /// The dims as written, for messages.
    text: Vec<String>,
    dims: Vec<DimSpec>,
    written: bool,
}

/// How one kernel argument is produced.
#[derive(Clone, Debug)]
pub(crate) enum ArgSpec {
    /// The device address of parameter `param`.
    Pointer { param: usize },
    /// A tensor map over parameter `param` (2-D) with this box and swizzle.
    TensorMap {
        param: usize,
        box_rows: u32,
        box_cols: u32,
        swizzle: u32,
    },
    /// Symbolic dim slot `slot`, as `int`.
    Dim { slot: usize },
}

/// A launch plan resolved for one configuration (see the module doc).
#[derive(Clone, Debug)]
pub struct LaunchTemplate {
    kernel: String,
    dims: Vec<String>,
    params: Vec<ParamSpec>,
    grid: [Ex; 3],
    block: Ex,
    smem: Ex,
    requires: Vec<(Ex, String)>,
    /// `cdiv(a, b)` of the grid: `cdiv(a, b) * b` is the largest row/column index + 1.
    padded: Vec<(Ex, Ex)>,
    pub(crate) args: Vec<ArgSpec>,
    /// Outputs set to a value before each launch: the parameter and the value
    /// (`LaunchPlan::fills`; the tensor's own shape counts its elements).
    pub(crate) fills: Vec<(usize, f64)>,
}

/// One launch's problem: the dims (in slot order) and the launch configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    dims: [i64; MAX_DIMS],
    count: usize,
    /// Grid, block and dynamic shared memory.
    pub launch: LaunchConfig,
}

impl Bound {
    /// The symbolic dims' values, in [`LaunchTemplate::dim_names`] order.
    pub fn dims(&self) -> &[i64] {
        &self.dims[..self.count]
    }
}

impl LaunchTemplate {
    /// Threads per block and dynamic shared memory when neither depends on the problem size
    /// (what an occupancy query needs before any launch).
    pub fn fixed_block_and_smem(&self) -> Option<(u32, u32)> {
        let block = u32::try_from(self.block.is_const()?).ok()?;
        let smem = u32::try_from(self.smem.is_const()?).ok()?;
        Some((block, smem))
    }

    /// Resolves `prepared`'s plan for `config`. `constants` are the kernel's constants
    /// evaluated under `config` (from the checker); `sm_count` sizes `persistent` grids.
    pub fn new(
        prepared: &Prepared,
        config: &Config,
        constants: &BTreeMap<String, i64>,
        sm_count: i64,
    ) -> Result<LaunchTemplate, DslError> {
        let module = &prepared.module;
        let kernel = &prepared.kernel;
        let plan_err = |m: String| DslError::Plan(m);
        let mut fixed: BTreeMap<String, i64> = BTreeMap::new();
        for t in &kernel.tunables {
            fixed.insert(t.name.clone(), config.get(&t.name).unwrap_or(t.default));
        }
        fixed.extend(constants.iter().map(|(k, v)| (k.clone(), *v)));
        fixed.insert("TSL_SM_COUNT".into(), sm_count.max(1));
        let dims = module.symbolic_dims();
        if dims.len() > MAX_DIMS {
            return Err(plan_err(format!(
                "kernel `{}` has {} symbolic dims; at most {MAX_DIMS} are supported",
                prepared.def.name,
                dims.len()
            )));
        }
        let res = Resolver {
            module,
            fixed: &fixed,
            dims: &dims,
        };
        let ex = |s: &Sym| res.ex(s, 0).map_err(|m| plan_err(format!("`{s}`: {m}")));
        let mut params = Vec::new();
        for (i, p) in module.kernel.params.iter().enumerate() {
            let mut specs = Vec::new();
            let mut text = Vec::new();
            for &d in &p.shape {
                text.push(module.expr_to_string(d));
                let spec = match &module.exprs[d] {
                    ir::Expr::Name(n) if dims.contains(n) => {
                        DimSpec::Bind(dims.iter().position(|x| x == n).unwrap_or(0))
                    }
                    _ => match Sym::from_expr(module, d) {
                        Some(s) => DimSpec::Check(ex(&s)?),
                        None => {
                            return Err(plan_err(format!(
                                "parameter `{}`: dimension `{}` is not an integer expression",
                                p.name.name,
                                module.expr_to_string(d)
                            )));
                        }
                    },
                };
                specs.push(spec);
            }
            params.push(ParamSpec {
                name: p.name.name.clone(),
                dtype: crate::dtype::DType::from_ir(p.dtype),
                text,
                dims: specs,
                written: kernel.written_params.contains(&i),
            });
        }
        let plan = &kernel.plan;
        let grid = [ex(&plan.grid[0])?, ex(&plan.grid[1])?, ex(&plan.grid[2])?];
        let mut padded = Vec::new();
        for g in &grid {
            let mut c = Vec::new();
            g.cdivs(&mut c);
            padded.extend(c.into_iter().map(|(a, b)| (a.clone(), b.clone())));
        }
        let requires = plan
            .launch_requires
            .iter()
            .map(|(c, t)| Ok((ex(c)?, t.clone())))
            .collect::<Result<Vec<_>, DslError>>()?;
        let mut args = Vec::new();
        for a in &plan.args {
            args.push(match a {
                PlanArg::Pointer { param } => ArgSpec::Pointer { param: *param },
                PlanArg::TensorMap {
                    param,
                    box_rows,
                    box_cols,
                    swizzle,
                } => {
                    let fixed_u32 = |s: &Sym, what: &str| -> Result<u32, DslError> {
                        ex(s)?
                            .is_const()
                            .and_then(|v| u32::try_from(v).ok())
                            .ok_or_else(|| {
                                plan_err(format!(
                                    "the tensor map {what} of parameter #{param} (`{s}`) is not a fixed 32-bit value"
                                ))
                            })
                    };
                    ArgSpec::TensorMap {
                        param: *param,
                        box_rows: fixed_u32(box_rows, "box rows")?,
                        box_cols: fixed_u32(box_cols, "box columns")?,
                        swizzle: fixed_u32(swizzle, "swizzle")?,
                    }
                }
                PlanArg::Scalar { param, .. } => {
                    return Err(plan_err(format!(
                        "parameter #{param} is a scalar: kernels with scalar parameters launch through `dsl::Instance` (`TensorArg::scalar`), not a tensor-only handle"
                    )));
                }
                PlanArg::Workspace { .. } => {
                    return Err(plan_err(
                        "a `streamk` kernel keeps a workspace between launches: it launches through `dsl::Instance` (`tessel run`), not a tensor-only handle".into(),
                    ));
                }
                PlanArg::Dim { name } => ArgSpec::Dim {
                    slot: dims.iter().position(|d| d == name).ok_or_else(|| {
                        plan_err(format!("kernel argument `{name}` is not a symbolic dim"))
                    })?,
                },
            });
        }
        if args.len() > MAX_ARGS {
            return Err(plan_err(format!(
                "kernel `{}` takes {} arguments; at most {MAX_ARGS} are supported",
                prepared.def.name,
                args.len()
            )));
        }
        let block = ex(&plan.block_threads)?;
        let smem = ex(&plan.dynamic_smem_bytes)?;
        Ok(LaunchTemplate {
            kernel: prepared.def.name.to_string(),
            dims,
            params,
            grid,
            block,
            smem,
            requires,
            padded,
            args,
            fills: plan.fills.iter().map(|f| (f.param, f.value)).collect(),
        })
    }

    /// The symbolic dims, in slot order.
    pub fn dim_names(&self) -> &[String] {
        &self.dims
    }

    /// Number of tensor parameters.
    pub fn arity(&self) -> usize {
        self.params.len()
    }

    /// Whether the kernel writes parameter `i`.
    pub fn writes(&self, i: usize) -> bool {
        self.params.get(i).is_some_and(|p| p.written)
    }

    /// Parameter `i`'s declared dtype (when the runtime has a type for it).
    pub fn dtype(&self, i: usize) -> Option<DType> {
        self.params.get(i).and_then(|p| p.dtype)
    }

    /// Binds one launch's tensor shapes (one per parameter, in order) and evaluates its
    /// launch configuration (see the module doc). `dtypes`, when given, are checked too.
    pub fn bind(&self, shapes: &[&[usize]], dtypes: Option<&[DType]>) -> Result<Bound, DslError> {
        if shapes.len() != self.params.len() || dtypes.is_some_and(|d| d.len() != shapes.len()) {
            return Err(DslError::Arity {
                kernel: self.kernel.clone(),
                expected: self.params.len(),
                got: shapes.len(),
            });
        }
        let mut d = [0i64; MAX_DIMS];
        let mut from = [usize::MAX; MAX_DIMS];
        for (pi, (p, shape)) in self.params.iter().zip(shapes).enumerate() {
            if shape.len() != p.dims.len() {
                return Err(DslError::Rank {
                    param: p.name.clone(),
                    expected: p.dims.len(),
                    dims: p.text.join(", "),
                    shape: shape.to_vec(),
                });
            }
            if let (Some(want), Some(got)) = (p.dtype, dtypes.map(|d| d[pi]))
                && want != got
            {
                return Err(DslError::DType {
                    param: p.name.clone(),
                    expected: want.name().into(),
                    got: got.name().into(),
                });
            }
            for (i, (spec, &got)) in p.dims.iter().zip(shape.iter()).enumerate() {
                if let DimSpec::Bind(slot) = spec {
                    let v = i64::try_from(got).unwrap_or(i64::MAX);
                    if from[*slot] == usize::MAX {
                        if v > INDEX_MAX {
                            return Err(DslError::IndexRange {
                                kernel: self.kernel.clone(),
                                param: p.name.clone(),
                                dim: i,
                                name: self.dims[*slot].clone(),
                                value: got as u64,
                                max: INDEX_MAX,
                            });
                        }
                        d[*slot] = v;
                        from[*slot] = pi;
                    } else if d[*slot] != v {
                        return Err(DslError::Mismatch {
                            param: p.name.clone(),
                            dim: i,
                            name: self.dims[*slot].clone(),
                            got,
                            bound: d[*slot],
                            from: self.params[from[*slot]].name.clone(),
                        });
                    }
                }
            }
        }
        let values = &d[..self.dims.len()];
        // `what` is built only on error: the success path allocates nothing.
        let eval = |e: &Ex, what: &dyn Fn() -> String| {
            e.eval(values).map_err(|err| {
                DslError::Plan(format!(
                    "kernel `{}`: {} does not evaluate for {}: {}",
                    self.kernel,
                    what(),
                    self.describe(values),
                    match err {
                        EvalError::Overflow => "integer overflow",
                        EvalError::DivByZero => "division by zero",
                    }
                ))
            })
        };
        for (p, shape) in self.params.iter().zip(shapes) {
            for (i, (spec, &got)) in p.dims.iter().zip(shape.iter()).enumerate() {
                if let DimSpec::Check(e) = spec {
                    let want = eval(e, &|| format!("dimension `{}`", p.text[i]))?;
                    if i64::try_from(got).ok() != Some(want) {
                        return Err(DslError::FixedDim {
                            param: p.name.clone(),
                            dim: i,
                            expected: want,
                            got,
                        });
                    }
                }
            }
        }
        for (c, text) in &self.requires {
            if eval(c, &|| format!("`{text}`"))? == 0 {
                return Err(DslError::Plan(format!(
                    "`{text}` does not hold for {}",
                    self.describe(values)
                )));
            }
        }
        for (a, b) in &self.padded {
            let (av, bv) = (
                eval(a, &|| "the grid".into())?,
                eval(b, &|| "the grid".into())?,
            );
            let extent = cdiv(av, bv).ok().and_then(|c| c.checked_mul(bv));
            if extent.is_none_or(|x| x > INDEX_MAX) {
                return Err(DslError::TileRange {
                    kernel: self.kernel.clone(),
                    extent: format!("cdiv({}, {bv}) * {bv}", self.show(a, av)),
                    value: extent.map_or(u64::MAX, |x| x as u64),
                    max: INDEX_MAX,
                });
            }
        }
        let range = |what: &'static str, v: i64, min: i64, max: i64| {
            if (min..=max).contains(&v) {
                Ok(v as u32)
            } else {
                Err(DslError::LaunchRange {
                    kernel: self.kernel.clone(),
                    what,
                    value: v,
                    min,
                    max,
                })
            }
        };
        // A grid or block of 0 (a dimension of size 0) is refused here: the driver would
        // reject the launch with a bare "invalid argument".
        let launch = LaunchConfig {
            grid: (
                range(
                    "grid x",
                    eval(&self.grid[0], &|| "the grid".into())?,
                    1,
                    i32::MAX as i64,
                )?,
                range(
                    "grid y",
                    eval(&self.grid[1], &|| "the grid".into())?,
                    1,
                    65535,
                )?,
                range(
                    "grid z",
                    eval(&self.grid[2], &|| "the grid".into())?,
                    1,
                    65535,
                )?,
            ),
            block: (
                range(
                    "block",
                    eval(&self.block, &|| "the block size".into())?,
                    1,
                    1024,
                )?,
                1,
                1,
            ),
            dynamic_smem_bytes: range(
                "dynamic shared memory",
                eval(&self.smem, &|| "the shared memory size".into())?,
                0,
                u32::MAX as i64,
            )?,
        };
        Ok(Bound {
            dims: d,
            count: self.dims.len(),
            launch,
        })
    }

    /// `M = 2147483647` for a dim slot, the value otherwise (for messages).
    fn show(&self, e: &Ex, v: i64) -> String {
        match e {
            Ex::Dim(i) => format!("{} = {v}", self.dims[*i]),
            _ => v.to_string(),
        }
    }

    /// `M = 128, K = 64` (for messages).
    fn describe(&self, values: &[i64]) -> String {
        let v: Vec<String> = self
            .dims
            .iter()
            .zip(values)
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        if v.is_empty() {
            "this launch".into()
        } else {
            v.join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dsl_core::def::{KernelDef, Variant};
    use std::sync::Arc;

    static GEMM: KernelDef = KernelDef {
        name: "bind_gemm",
        dsl: r#"
tunable TILE_M in [8, 16, 32] = 32;
tunable TILE_N in [8, 16, 32] = 32;
__co__ void matmul(global f32 [M, K] lhs, global f32 [N, K] rhs, global f32 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, TILE_N)] : block,
           {thr_m, thr_n} by [TILE_M, TILE_N] : thread {
    f32 acc = 0.0f;
    foreach {iv_k} in [K]
      acc += lhs.at(block_m # thr_m, iv_k) * rhs.at(block_n # thr_n, iv_k);
    output.at(block_m # thr_m, block_n # thr_n) = acc;
  }
}
"#,
        file: None,
        cuda: "",
        ir: "",
        params: &[],
        tunables: &[],
    };

    fn template(cfg: &Config) -> (Arc<Prepared>, LaunchTemplate) {
        let p = Prepared::get(&GEMM, Variant::default()).unwrap();
        let info = GEMM.check(cfg, None).unwrap();
        let t = LaunchTemplate::new(&p, cfg, &info.constants, 132).unwrap();
        (p, t)
    }

    #[test]
    fn binds_dims_and_evaluates_the_launch() {
        let cfg = GEMM.default_config();
        let (_, t) = template(&cfg);
        assert_eq!(t.dim_names(), &["M", "K", "N"]);
        let b = t.bind(&[&[100, 64], &[70, 64], &[100, 70]], None).unwrap();
        assert_eq!(b.dims(), &[100, 64, 70]);
        assert_eq!(b.launch.grid, (4, 3, 1));
        assert_eq!(b.launch.block, (1024, 1, 1));
        let small = template(&cfg.clone().with("TILE_M", 8)).1;
        let b = small
            .bind(&[&[100, 64], &[70, 64], &[100, 70]], None)
            .unwrap();
        assert_eq!((b.launch.grid, b.launch.block.0), ((13, 3, 1), 256));
        assert!(t.writes(2) && !t.writes(0));
    }

    /// `assert` over problem sizes is checked before every launch, like a `require`.
    #[test]
    fn an_assertion_over_problem_sizes_is_a_typed_error_at_launch() {
        static ASSERTING: KernelDef = KernelDef {
            name: "bind_assert",
            dsl: r#"
__co__ void rows(global f32 [M, K] x, global f32 [M, K] y) {
  assert(K % 4 == 0, "K must be a multiple of 4");
  parallel {b} by [M] : block, {t} by [32] : thread {
    assert(x.span(0) == y.span(0));
    y.at(b, t) = x.at(b, t);
  }
}
"#,
            file: None,
            cuda: "",
            ir: "",
            params: &[],
            tunables: &[],
        };
        let p = Prepared::get(&ASSERTING, Variant::default()).unwrap();
        let cfg = ASSERTING.default_config();
        let info = ASSERTING.check(&cfg, None).unwrap();
        let t = LaunchTemplate::new(&p, &cfg, &info.constants, 132).unwrap();
        t.bind(&[&[100, 64], &[100, 64]], None).unwrap();
        let e = t.bind(&[&[100, 66], &[100, 66]], None).unwrap_err();
        assert!(
            matches!(&e, DslError::Plan(m) if m.contains("K must be a multiple of 4") && m.contains("K = 66")),
            "{e}"
        );
    }

    #[test]
    fn shape_errors_name_the_parameter() {
        let (_, t) = template(&GEMM.default_config());
        let e = t
            .bind(&[&[100, 64], &[70, 65], &[100, 70]], None)
            .unwrap_err();
        assert!(
            matches!(&e, DslError::Mismatch { param, name, got: 65, bound: 64, .. } if param == "rhs" && name == "K"),
            "{e}"
        );
        let e = t.bind(&[&[100, 64], &[70, 64]], None).unwrap_err();
        assert!(
            matches!(
                e,
                DslError::Arity {
                    expected: 3,
                    got: 2,
                    ..
                }
            ),
            "{e}"
        );
        let e = t.bind(&[&[100, 64], &[70, 64], &[100]], None).unwrap_err();
        assert!(matches!(e, DslError::Rank { expected: 2, .. }), "{e}");
        let f16 = [DType::F16, DType::F32, DType::F32];
        let e = t
            .bind(&[&[100, 64], &[70, 64], &[100, 70]], Some(&f16))
            .unwrap_err();
        assert!(
            matches!(&e, DslError::DType { param, .. } if param == "lhs"),
            "{e}"
        );
    }

    #[test]
    fn sizes_beyond_the_index_type_are_errors_not_wraps() {
        let (_, t) = template(&GEMM.default_config());
        // 2^31 would wrap to i32::MIN as a kernel argument.
        let big = 1usize << 31;
        let e = t
            .bind(&[&[big, 64], &[70, 64], &[big, 70]], None)
            .unwrap_err();
        match &e {
            DslError::IndexRange {
                name, value, max, ..
            } => {
                assert_eq!(
                    (name.as_str(), *value, *max),
                    ("M", 1 << 31, i32::MAX as i64)
                );
            }
            other => panic!("{other}"),
        }
        assert!(e.to_string().contains("2147483647"), "{e}");
        // Exactly i32::MAX fits as a value, but the grid rounds it up to a multiple of the
        // tile (32), past i32::MAX: the last tile's row indices would wrap.
        let max = i32::MAX as usize;
        let e = t
            .bind(&[&[64, max], &[max, max], &[64, max]], None)
            .unwrap_err();
        assert!(
            matches!(
                e,
                DslError::TileRange {
                    value: 2147483648,
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string().contains("cdiv(N = 2147483647, 32) * 32"),
            "{e}"
        );
        // A value that does not even fit i64.
        let e = t
            .bind(&[&[usize::MAX, 64], &[70, 64], &[usize::MAX, 70]], None)
            .unwrap_err();
        assert!(matches!(e, DslError::IndexRange { .. }), "{e}");
        // The largest multiple of the tile size passes.
        let ok = (i32::MAX as usize) / 32 * 32;
        let b = t.bind(&[&[ok, 1], &[32, 1], &[ok, 32]], None).unwrap();
        assert_eq!(b.launch.grid.0 as usize, ok / 32);
    }

    #[test]
    fn an_empty_dimension_is_a_typed_error_not_a_zero_grid() {
        let (_, t) = template(&GEMM.default_config());
        let e = t.bind(&[&[0, 64], &[70, 64], &[0, 70]], None).unwrap_err();
        assert!(
            matches!(
                e,
                DslError::LaunchRange {
                    what: "grid x",
                    value: 0,
                    min: 1,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("grid x of 0 is outside 1..="), "{e}");
        // K = 0 is a legal (empty) sum: the grid covers the output.
        let b = t.bind(&[&[64, 0], &[70, 0], &[64, 70]], None).unwrap();
        assert_eq!(b.launch.grid, (2, 3, 1));
    }

    #[test]
    fn grid_limits_are_checked_without_wrapping() {
        let (_, t) = template(&GEMM.default_config());
        // N / 32 = 65536 blocks in y: over the y limit of 65535.
        let n = 65536 * 32;
        let e = t.bind(&[&[32, 8], &[n, 8], &[32, n]], None).unwrap_err();
        assert!(
            matches!(
                e,
                DslError::LaunchRange {
                    what: "grid y",
                    value: 65536,
                    ..
                }
            ),
            "{e}"
        );
    }
}
