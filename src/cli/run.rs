//! `tessel run FILE.co --shape M=…,N=…,K=… [--set NAME=V] [--dtype …] [--acc …] [--runs R]`:
//! on GPU 0, random inputs, the output verified against the reference its signature describes
//! (`reference.rs`: a contraction, with the epilogue its stores apply — a bias parameter, an
//! activation), and the kernel timed — against cuBLAS when cuBLAS computes the same thing.
//! Without a GPU: exit 3 and one sentence.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use dsl_core::check::Problem;
use half::{bf16, f16};
use tessel_runtime::cublas_ref::{CublasRef, GemmCompute};
use tessel_runtime::device::Device;
use tessel_runtime::dsl::{Instance, Prepared, TensorArg, module_cache};
use tessel_runtime::dtype::{DType, Element};
use tessel_runtime::run::AnyTensor;
use tessel_runtime::tensor::DeviceTensor;
use tessel_runtime::timing::{Timing, TimingConfig, time_gpu};
use tessel_runtime::verify::{Verification, verify};

use super::answer::{self, Array, Tolerance};
use super::exit;
use super::gpu::{ProblemArgs, kernel_def, open_device};
use super::reference::{Activation, Contraction, Epilogue, GemmLayout};
use super::source::{Failure, Loaded};

/// Arguments of `run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// Timed launches (at least 20).
    #[arg(long, default_value_t = 50, value_name = "R")]
    pub runs: usize,
    /// The value of a scalar parameter (`--scalar alpha=0.5`; repeatable): every scalar
    /// parameter of the kernel needs one.
    #[arg(long = "scalar", value_name = "NAME=V", value_parser = parse_scalar)]
    pub scalars: Vec<(String, f64)>,
    /// A tensor parameter's values from a NumPy `.npy` file (`--input x=x.npy`; repeatable).
    /// With `--expect`, the other inputs are random and the other outputs filled with NaN.
    #[arg(long = "input", value_name = "NAME=FILE.npy", value_parser = answer::parse_named_file)]
    pub inputs: Vec<(String, PathBuf)>,
    /// An output's expected values (`--expect y=y.npy`; repeatable): instead of the built-in
    /// references, every element of each named tensor is compared after one launch, within
    /// `--atol`/`--rtol`, and the mismatches are listed with their indices. Any kernel can be
    /// verified this way (softmax, norms, reductions, epilogues).
    #[arg(long = "expect", value_name = "NAME=FILE.npy", value_parser = answer::parse_named_file)]
    pub expects: Vec<(String, PathBuf)>,
    /// Absolute tolerance of `--expect` (default by the output's type: 1e-5; integers 0).
    #[arg(long, value_name = "A", value_parser = answer::parse_tolerance)]
    pub atol: Option<f64>,
    /// Relative tolerance of `--expect` (default by the output's type: f32 1.3e-6, f16 1e-3,
    /// bf16 1.6e-2; integers 0).
    #[arg(long, value_name = "R", value_parser = answer::parse_tolerance)]
    pub rtol: Option<f64>,
}

fn parse_scalar(s: &str) -> Result<(String, f64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))?;
    let v: f64 = v
        .trim()
        .parse()
        .map_err(|_| format!("`{v}` is not a number"))?;
    if !v.is_finite() {
        return Err(format!("`{k}` must be finite"));
    }
    Ok((k.trim().to_string(), v))
}

/// Outputs recomputed on the host when cuBLAS does not compute the kernel's contraction.
const HOST_SAMPLES: usize = 4096;

/// The kernel's tensors: (parameter name, dtype, dimension names, sizes), and the contraction
/// its signature describes. Errors are usage errors (a missing or unknown dimension) or a
/// signature `tessel run` has no reference for.
pub(super) struct Signature {
    /// The tensor parameters.
    pub params: Vec<(String, DType, Vec<usize>)>,
    /// The kernel parameter index of each of `params`.
    pub param_index: Vec<usize>,
    /// The scalar parameters: (index, name, dtype).
    pub scalars: Vec<(usize, String, DType)>,
    pub contraction: Contraction,
    /// What the kernel does to the contraction before its store (a bias parameter between the
    /// inputs and the output, an activation).
    pub epilogue: Epilogue,
}

/// The kernel's tensor and scalar parameters with the sizes the command line gives them.
pub(super) struct Tensors {
    /// The tensor parameters: (name, dtype, shape).
    pub params: Vec<(String, DType, Vec<usize>)>,
    /// The kernel parameter index of each of `params`.
    pub param_index: Vec<usize>,
    /// The scalar parameters: (index, name, dtype).
    pub scalars: Vec<(usize, String, DType)>,
    /// Each tensor parameter's dimensions as written.
    pub dims_of: Vec<Vec<String>>,
    /// The size of each dimension name.
    pub sizes: BTreeMap<String, usize>,
}

/// The kernel's parameters sized by `--shape` (and the tunables and constants): a usage error
/// for a dimension without a size or a `--shape` name no parameter has.
pub(super) fn tensors(
    k: &Loaded,
    prepared: &Prepared,
    args: &ProblemArgs,
) -> Result<Tensors, Failure> {
    let m = &prepared.module;
    let usage = |msg: String| Failure::new(exit::USAGE, msg);
    let mut sizes: BTreeMap<String, usize> = BTreeMap::new();
    let mut dims_of = Vec::new();
    let mut params = Vec::new();
    let mut param_index = Vec::new();
    let mut scalars = Vec::new();
    for (i, p) in m.kernel.params.iter().enumerate() {
        let name = p.name.name.clone();
        if p.shape.is_empty() {
            // A `bool` scalar reaches the kernel as an `int` (0 or 1).
            let ir_dtype = if p.dtype == dsl_core::ir::DType::Bool {
                dsl_core::ir::DType::I32
            } else {
                p.dtype
            };
            let dtype = DType::from_ir(ir_dtype).ok_or_else(|| {
                Failure::new(
                    exit::RUNTIME,
                    format!("scalar parameter `{name}` is {}", p.dtype),
                )
            })?;
            scalars.push((i, name, dtype));
            continue;
        }
        param_index.push(i);
        let dims: Vec<String> = p.shape.iter().map(|&d| m.expr_to_string(d)).collect();
        let mut shape = Vec::new();
        for d in &dims {
            let size = args
                .dim(d)
                .or_else(|| k.config.values.get(d).copied())
                .or_else(|| k.info.constants.get(d).copied())
                .or_else(|| d.parse::<i64>().ok())
                .ok_or_else(|| {
                    usage(format!(
                        "dimension `{d}` of parameter `{name}` needs a size: --shape {d}=…"
                    ))
                })?;
            let size = usize::try_from(size)
                .ok()
                .filter(|&s| s > 0)
                .ok_or_else(|| usage(format!("dimension `{d}` of `{name}` is {size}")))?;
            sizes.insert(d.clone(), size);
            shape.push(size);
        }
        let dtype = DType::from_ir(p.dtype).ok_or_else(|| {
            Failure::new(
                exit::RUNTIME,
                format!(
                    "parameter `{name}` is {}; tessel run allocates f16, bf16 and f32 tensors",
                    p.dtype
                ),
            )
        })?;
        dims_of.push(dims);
        params.push((name, dtype, shape));
    }
    for (d, _) in &args.shape {
        if !dims_of.iter().flatten().any(|x| x == d) {
            // The names a `--shape` can size: not literals, tunables or constants.
            let mut all: Vec<&String> = dims_of
                .iter()
                .flatten()
                .filter(|d| {
                    d.parse::<i64>().is_err()
                        && !k.config.values.contains_key(*d)
                        && !k.info.constants.contains_key(*d)
                })
                .collect();
            all.sort();
            all.dedup();
            return Err(usage(format!(
                "--shape: `{d}` is not a dimension of any parameter (they are {all:?})"
            )));
        }
    }
    Ok(Tensors {
        params,
        param_index,
        scalars,
        dims_of,
        sizes,
    })
}

pub(super) fn signature(
    k: &Loaded,
    prepared: &Prepared,
    args: &ProblemArgs,
) -> Result<Signature, Failure> {
    let m = &prepared.module;
    let Tensors {
        params,
        param_index,
        scalars,
        dims_of,
        sizes,
    } = tensors(k, prepared, args)?;
    let no_reference = |why: String| {
        Failure::new(
            exit::RUNTIME,
            format!(
                "tessel run verifies kernels whose last parameter is the output of a contraction of the two others (a GEMM, a GEMV); `{}` {why}",
                m.kernel.name.name
            ),
        )
    };
    let last = params.len().saturating_sub(1);
    let out = param_index.get(last).copied().unwrap_or(0);
    let epilogue = match Epilogue::of(m, out) {
        Some(e) => e,
        // Element stores of a value the reference does not describe (`alpha * acc + beta *
        // c.at(i, j)`, `acc * acc`): comparing them with the bare contraction would report a
        // correct kernel as failing.
        None if assigns_elements(m, out) => {
            return Err(no_reference(format!(
                "stores into `{}` a value other than `ACT(alpha * acc + bias)` (the forms its reference computes)",
                m.kernel.params[out].name.name
            )));
        }
        None => Epilogue {
            activation: Activation::Identity,
            bias: None,
            scale: None,
            offset: None,
        },
    };
    match (params.len(), &epilogue.bias) {
        (3, None) => {}
        // `out = act(a · b + bias)`: the bias is the third tensor, along an output dimension.
        (4, Some((b, dim))) if *b == param_index[2] && dims_of[last].contains(dim) => {}
        (4, _) => {
            return Err(no_reference(
                "has 4 parameters, and its stores are not `act(acc + bias.at(…))` with the third one a 1-D bias along an output dimension".into(),
            ));
        }
        (n, _) => return Err(no_reference(format!("has {n} parameters"))),
    }
    let contraction =
        Contraction::new(&dims_of[0], &dims_of[1], &dims_of[last], &sizes).map_err(no_reference)?;
    Ok(Signature {
        params,
        param_index,
        scalars,
        contraction,
        epilogue,
    })
}

/// Whether the kernel assigns elements of parameter `out` (`out.at(i, j) = …`).
fn assigns_elements(m: &dsl_core::ir::Module, out: usize) -> bool {
    use dsl_core::ir::{Expr, Stmt};
    let name = &m.kernel.params[out].name.name;
    m.stmts.iter().any(|(_, st)| {
        let Stmt::Assign { target, .. } = st else {
            return false;
        };
        let mut e = *target;
        loop {
            match &m.exprs[e] {
                Expr::View { base, .. } => e = *base,
                Expr::Name(n) => return n == name,
                _ => return false,
            }
        }
    })
}

/// Runs `run`.
pub fn run(args: &RunArgs) -> Result<String, Failure> {
    let k = Loaded::load(&args.problem.kernel)?;
    let def = kernel_def(&k);
    let prepared =
        Prepared::get(def, args.problem.variant()).map_err(|e| Failure::new(exit::FAILED, e))?;
    if !args.expects.is_empty()
        || !args.inputs.is_empty()
        || args.atol.is_some()
        || args.rtol.is_some()
    {
        return run_with_answers(&k, &prepared, args);
    }
    // Everything that can be refused without a GPU is refused first.
    let sig = signature(&k, &prepared, &args.problem).map_err(|mut f| {
        if f.code == exit::RUNTIME && f.text.contains("tessel run verifies kernels") {
            f.text = format!(
                "{}; to verify any other kernel, give the expected outputs: --expect NAME=FILE.npy (and --input NAME=FILE.npy for its inputs)\n",
                f.text.trim_end()
            );
        }
        f
    })?;
    check_scalars(&sig.scalars, args)?;
    let dev = open_device()?;
    measure(&k, &prepared, &sig, &dev, args)
}

/// Every scalar parameter has a `--scalar` value, and every `--scalar` names one.
fn check_scalars(scalars: &[(usize, String, DType)], args: &RunArgs) -> Result<(), Failure> {
    for (_, name, _) in scalars {
        if !args.scalars.iter().any(|(n, _)| n == name) {
            return Err(Failure::new(
                exit::USAGE,
                format!("scalar parameter `{name}` needs a value: --scalar {name}=…"),
            ));
        }
    }
    for (n, _) in &args.scalars {
        if !scalars.iter().any(|(_, name, _)| name == n) {
            return Err(Failure::new(
                exit::USAGE,
                format!("--scalar: `{n}` is not a scalar parameter of the kernel"),
            ));
        }
    }
    Ok(())
}

/// What each tensor parameter holds before the launch in `--expect` mode.
pub(super) enum Fill {
    /// The values of an `--input` file.
    File(Array),
    /// Random values (this seed).
    Random(u64),
    /// NaN (an output without an `--input`): an element the kernel never writes stays NaN.
    Poison,
}

/// One [`Fill`] per tensor parameter, and the expected arrays by tensor position.
pub(super) type AnswerPlan = (Vec<Fill>, Vec<(usize, Array)>);

/// `--input` and `--expect` matched against the kernel's tensor parameters: one [`Fill`] per
/// tensor parameter, and the expected arrays by tensor position. Every mistake is a usage
/// error found before any GPU work: an unknown name, a name given twice, an unreadable or
/// non-`.npy` file, a shape other than the parameter's, values its type cannot hold.
pub(super) fn answer_plan(t: &Tensors, args: &RunArgs) -> Result<AnswerPlan, Failure> {
    let usage = |msg: String| Failure::new(exit::USAGE, msg);
    if args.expects.is_empty() {
        return Err(usage(
            "--input, --atol and --rtol go with --expect NAME=FILE.npy (the outputs to compare)"
                .into(),
        ));
    }
    let names: Vec<&str> = t.params.iter().map(|(n, ..)| n.as_str()).collect();
    let position = |flag: &str, name: &str| {
        names.iter().position(|n| *n == name).ok_or_else(|| {
            let scalar = t.scalars.iter().any(|(_, n, _)| n == name);
            usage(if scalar {
                format!("{flag}: `{name}` is a scalar parameter; give it with --scalar {name}=…")
            } else {
                format!(
                    "{flag}: `{name}` is not a tensor parameter of the kernel (they are {})",
                    names.join(", ")
                )
            })
        })
    };
    let load = |flag: &str, name: &str, path: &PathBuf, i: usize| -> Result<Array, Failure> {
        let a = answer::read_npy(path).map_err(|e| usage(format!("{flag} {name}: {e}")))?;
        let (_, dtype, shape) = &t.params[i];
        if &a.shape != shape {
            return Err(usage(format!(
                "{flag} {name}: {} has shape {:?}, but `{name}` is {:?} for this --shape",
                path.display(),
                a.shape,
                shape
            )));
        }
        answer::fits(&a, *dtype)
            .map_err(|e| usage(format!("{flag} {name}: {}: {e}", path.display())))?;
        Ok(a)
    };
    let mut fills: Vec<Option<Fill>> = (0..t.params.len()).map(|_| None).collect();
    for (name, path) in &args.inputs {
        let i = position("--input", name)?;
        if fills[i].is_some() {
            return Err(usage(format!("--input: `{name}` is given twice")));
        }
        fills[i] = Some(Fill::File(load("--input", name, path, i)?));
    }
    let mut expected: Vec<(usize, Array)> = Vec::new();
    for (name, path) in &args.expects {
        let i = position("--expect", name)?;
        if expected.iter().any(|(j, _)| *j == i) {
            return Err(usage(format!("--expect: `{name}` is given twice")));
        }
        expected.push((i, load("--expect", name, path, i)?));
    }
    let fills = fills
        .into_iter()
        .enumerate()
        .map(|(i, f)| match f {
            Some(f) => f,
            None if expected.iter().any(|(j, _)| *j == i) => Fill::Poison,
            None => Fill::Random(i as u64 + 1),
        })
        .collect();
    Ok((fills, expected))
}

/// `run` with `--expect`: the tensors from `--input` files (else random; outputs NaN), one
/// launch, every element of each expected output compared, then the kernel timed.
fn run_with_answers(
    k: &Loaded,
    prepared: &std::sync::Arc<Prepared>,
    args: &RunArgs,
) -> Result<String, Failure> {
    let t = tensors(k, prepared, &args.problem)?;
    check_scalars(&t.scalars, args)?;
    let (fills, expected) = answer_plan(&t, args)?;
    let dev = open_device()?;
    let rt = |e: &dyn std::fmt::Display| Failure::new(exit::RUNTIME, e);
    let mut tensors = Vec::new();
    for ((_, dtype, shape), fill) in t.params.iter().zip(&fills) {
        tensors.push(
            match fill {
                Fill::File(a) => AnyTensor::from_f64(&dev, shape, *dtype, &a.values),
                Fill::Random(seed) => AnyTensor::new(&dev, *dtype, shape, Some(*seed)),
                Fill::Poison => AnyTensor::poisoned(&dev, shape, *dtype),
            }
            .map_err(|e| rt(&e))?,
        );
    }
    let value = |name: &str| {
        args.scalars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    };
    let mut targs: Vec<TensorArg> = Vec::new();
    for i in 0..t.params.len() + t.scalars.len() {
        match t.param_index.iter().position(|&j| j == i) {
            Some(p) => targs.push(tensors[p].tensor_arg()),
            None => {
                let Some((_, name, dtype)) = t.scalars.iter().find(|(j, ..)| *j == i) else {
                    return Err(rt(
                        &"internal: a parameter that is neither tensor nor scalar",
                    ));
                };
                let v = value(name).ok_or_else(|| rt(&"internal: a scalar without a value"))?;
                targs.push(TensorArg::scalar(*dtype, v));
            }
        }
    }
    let problem: Problem = prepared.bind(&targs).map_err(|e| rt(&e))?;
    let inst = Instance::new(&dev, module_cache(), prepared.clone(), &k.config, &problem).map_err(
        |e| match e {
            tessel_runtime::dsl::DslError::Illegal { .. } => Failure::new(exit::FAILED, e),
            other => rt(&other),
        },
    )?;
    let kargs = inst.args(&targs).map_err(|e| rt(&e))?;
    inst.launch(&kargs).map_err(|e| rt(&e))?;
    dev.synchronize().map_err(|e| rt(&e))?;

    let mut report = String::new();
    let mut passed = true;
    for (i, want) in &expected {
        let (name, dtype, shape) = &t.params[*i];
        let got = tensors[*i].to_f64().map_err(|e| rt(&e))?;
        let tol = Tolerance::for_output(*dtype, args.atol, args.rtol);
        let c = answer::compare(shape, &got, &want.values, tol);
        passed &= c.passed();
        report.push_str(&answer::report(
            name,
            &c,
            tol,
            matches!(fills[*i], Fill::Poison),
        ));
    }
    // Timed after the comparison: a kernel that updates a tensor in place (`y += a * x`) would
    // change it with every run.
    let timing = TimingConfig {
        warmup: 5,
        runs: args.runs.max(tessel_runtime::timing::MIN_TIMED_RUNS),
    };
    let mine = time_gpu(&dev, &timing, None, || inst.launch(&kargs)).map_err(|e| rt(&e))?;

    let mut out = report_head(&k, &prepared.module.kernel.name.name, &dev);
    let described: Vec<String> = t
        .params
        .iter()
        .zip(&fills)
        .map(|((n, d, s), f)| {
            let from = match f {
                Fill::File(_) => "from --input",
                Fill::Random(_) => "random",
                Fill::Poison => "NaN-filled output",
            };
            format!("{n} {d} {s:?} ({from})")
        })
        .chain(
            t.scalars
                .iter()
                .map(|(_, n, d)| format!("{n} {d} = {}", value(n).unwrap_or(0.0))),
        )
        .collect();
    let _ = writeln!(
        out,
        "problem  {}: {}",
        args.problem.shape_text(),
        described.join(", ")
    );
    let _ = writeln!(
        out,
        "launch   grid {:?} block {} dynamic smem {} B",
        inst.launch.grid, inst.launch.block.0, inst.launch.dynamic_smem_bytes
    );
    out.push_str(&report);
    let _ = writeln!(out, "time     tessel {}", timing_text(&mine));
    let verdict = if passed { "ok" } else { "FAIL" };
    let _ = writeln!(
        out,
        "result   {} {} verify={verdict}",
        prepared.module.kernel.name.name,
        args.problem.shape_text().replace(' ', ",")
    );
    if passed {
        Ok(out)
    } else {
        Err(Failure {
            text: out,
            code: exit::FAILED,
        })
    }
}

fn measure(
    k: &Loaded,
    prepared: &std::sync::Arc<Prepared>,
    sig: &Signature,
    dev: &Device,
    args: &RunArgs,
) -> Result<String, Failure> {
    let rt = |e: &dyn std::fmt::Display| Failure::new(exit::RUNTIME, e);
    let mut tensors = Vec::new();
    let last = sig.params.len() - 1;
    for (i, (_, dtype, shape)) in sig.params.iter().enumerate() {
        let seed = (i < last).then_some(i as u64 + 1);
        tensors.push(AnyTensor::new(dev, *dtype, shape, seed).map_err(|e| rt(&e))?);
    }
    // The kernel's arguments in its parameter order: the tensors, and each scalar's value.
    let scalar_value = |i: usize| -> Option<f64> {
        let (_, name, _) = sig.scalars.iter().find(|(j, ..)| *j == i)?;
        args.scalars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    };
    let mut targs: Vec<TensorArg> = Vec::new();
    for i in 0..sig.params.len() + sig.scalars.len() {
        match sig.param_index.iter().position(|&j| j == i) {
            Some(t) => targs.push(tensors[t].tensor_arg()),
            None => {
                let dtype = sig.scalars.iter().find(|(j, ..)| *j == i).map(|s| s.2);
                let (Some(dtype), Some(v)) = (dtype, scalar_value(i)) else {
                    return Err(rt(
                        &"internal: a parameter that is neither tensor nor scalar",
                    ));
                };
                targs.push(TensorArg::scalar(dtype, v));
            }
        }
    }
    // The reference sees each scalar as the kernel does: rounded to its type.
    let scalar_ref = |i: usize| {
        let Some(v) = scalar_value(i) else { return 0.0 };
        match sig.scalars.iter().find(|(j, ..)| *j == i).map(|s| s.2) {
            Some(DType::F16) => f16::from_f64(v).to_f64(),
            Some(DType::BF16) => bf16::from_f64(v).to_f64(),
            Some(DType::S32) => (v as i32) as f64,
            _ => (v as f32) as f64,
        }
    };
    let problem: Problem = prepared.bind(&targs).map_err(|e| rt(&e))?;
    let inst =
        Instance::new(dev, module_cache(), prepared.clone(), &k.config, &problem).map_err(|e| {
            match e {
                tessel_runtime::dsl::DslError::Illegal { .. } => Failure::new(exit::FAILED, e),
                other => rt(&other),
            }
        })?;
    let kargs = inst.args(&targs).map_err(|e| rt(&e))?;
    inst.launch(&kargs).map_err(|e| rt(&e))?;
    dev.synchronize().map_err(|e| rt(&e))?;

    let c = &sig.contraction;
    let acc = DType::from_ir(tessel_runtime::tune::target::acc_dtype(&prepared.module))
        .unwrap_or(DType::F32);
    let (input, output) = (tensors[0].dtype(), tensors[last].dtype());
    let tol =
        tessel_runtime::run::kernel_tolerance(&prepared.module, input, acc, output, c.depth());
    let compute = if acc == DType::F16 {
        GemmCompute::F16
    } else {
        GemmCompute::F32
    };
    let timing = TimingConfig {
        warmup: 5,
        runs: args.runs.max(tessel_runtime::timing::MIN_TIMED_RUNS),
    };
    let flops = Some(c.flops());
    let mine = time_gpu(dev, &timing, flops, || inst.launch(&kargs)).map_err(|e| rt(&e))?;

    let cublas_layout = c
        .gemm_layout()
        .filter(|_| sig.epilogue.is_identity())
        .filter(|_| tensors[0].dtype() == tensors[1].dtype())
        .filter(|_| !matches!(input, DType::S8 | DType::U8))
        .filter(|_| tessel_runtime::cublas_ref::check_types(input, output, compute).is_ok());
    let (verification, how, theirs) = match cublas_layout {
        Some(layout) => {
            let (v, t) = against_cublas(dev, &tensors, layout, compute, tol, &timing, flops)
                .map_err(|e| rt(&e))?;
            (
                v,
                format!("against cuBLAS ({layout:?}), every output"),
                Some(t),
            )
        }
        None => {
            let out = &tensors[last];
            let (a, b) = (
                tensors[0].to_f64().map_err(|e| rt(&e))?,
                tensors[1].to_f64().map_err(|e| rt(&e))?,
            );
            let bias = match &sig.epilogue.bias {
                Some((p, _)) => {
                    let t = sig.param_index.iter().position(|j| j == p).unwrap_or(2);
                    Some(tensors[t].to_f64().map_err(|e| rt(&e))?)
                }
                None => None,
            };
            let idx = c.sample(HOST_SAMPLES, 7);
            let reference: Vec<f64> = idx
                .iter()
                .map(|&i| {
                    let sum = c.at(&a, &b, i);
                    sig.epilogue.apply(c, bias.as_deref(), &scalar_ref, i, sum)
                })
                .collect();
            let v = out.verify_at(&idx, &reference, tol).map_err(|e| rt(&e))?;
            let with = if sig.epilogue.is_identity() {
                String::new()
            } else {
                format!(" with its epilogue ({:?})", sig.epilogue)
            };
            let how = format!(
                "against an f64 host reference{with} at {} of {} outputs",
                idx.len(),
                c.out_len()
            );
            (v, how, None)
        }
    };

    let mut out = report_head(&k, &prepared.module.kernel.name.name, &dev);
    let dtypes: Vec<String> = sig
        .params
        .iter()
        .map(|(n, d, s)| format!("{n} {d} {s:?}"))
        .collect();
    let _ = writeln!(
        out,
        "problem  {}: {}, accumulate {acc}",
        args.problem.shape_text(),
        dtypes.join(", ")
    );
    let res = match &inst.resources {
        Some(r) => format!(", {} registers, {} B spilled", r.registers, r.spill_stores),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "launch   grid {:?} block {} dynamic smem {} B{res}",
        inst.launch.grid, inst.launch.block.0, inst.launch.dynamic_smem_bytes
    );
    let _ = writeln!(out, "verify   {verification} ({how})");
    let _ = writeln!(out, "time     tessel {}", timing_text(&mine));
    let mut result = format!(
        "result   {} {} {:.2} TFLOP/s",
        prepared.module.kernel.name.name,
        args.problem.shape_text().replace(' ', ","),
        mine.tflops.unwrap_or(0.0)
    );
    if let Some(t) = &theirs {
        let ratio = t.median_ms / mine.median_ms.max(1e-12);
        let _ = writeln!(out, "time     cuBLAS {}", timing_text(t));
        let _ = write!(result, " = {ratio:.3}x cuBLAS");
    }
    let verdict = if verification.passed() { "ok" } else { "FAIL" };
    let _ = writeln!(out, "{result} verify={verdict}");
    if verification.passed() {
        Ok(out)
    } else {
        Err(Failure {
            text: out,
            code: exit::FAILED,
        })
    }
}

fn timing_text(t: &Timing) -> String {
    format!(
        "median {:.4} ms (min {:.4}, max {:.4}, {} runs){}",
        t.median_ms,
        t.min_ms,
        t.max_ms,
        t.runs,
        t.tflops
            .map(|x| format!(", {x:.2} TFLOP/s"))
            .unwrap_or_default()
    )
}

fn against_cublas(
    dev: &Device,
    t: &[AnyTensor],
    layout: GemmLayout,
    compute: GemmCompute,
    tol: f64,
    timing: &TimingConfig,
    flops: Option<f64>,
) -> Result<(Verification, Timing), String> {
    use AnyTensor::*;
    match (&t[0], &t[1], &t[2]) {
        (F16(a), F16(b), F16(c)) => typed(dev, a, b, c, layout, compute, tol, timing, flops),
        (F16(a), F16(b), F32(c)) => typed(dev, a, b, c, layout, compute, tol, timing, flops),
        (BF16(a), BF16(b), BF16(c)) => typed(dev, a, b, c, layout, compute, tol, timing, flops),
        (BF16(a), BF16(b), F32(c)) => typed(dev, a, b, c, layout, compute, tol, timing, flops),
        (F32(a), F32(b), F32(c)) => typed(dev, a, b, c, layout, compute, tol, timing, flops),
        _ => Err("no cuBLAS reference for these dtypes".into()),
    }
}

#[allow(clippy::too_many_arguments)]
fn typed<I: Element, O: Element>(
    dev: &Device,
    a: &DeviceTensor<I>,
    b: &DeviceTensor<I>,
    out: &DeviceTensor<O>,
    layout: GemmLayout,
    compute: GemmCompute,
    tol: f64,
    timing: &TimingConfig,
    flops: Option<f64>,
) -> Result<(Verification, Timing), String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let blas = CublasRef::new(dev).map_err(|x| e(&x))?;
    let mut reference = DeviceTensor::<O>::poisoned(dev, out.shape()).map_err(|x| e(&x))?;
    let mut call = || match layout {
        GemmLayout::Nt => blas.gemm_nt(a, b, &mut reference, compute),
        GemmLayout::Nn => blas.gemm_nn(a, b, &mut reference, compute),
    };
    call().map_err(|x| e(&x))?;
    dev.synchronize().map_err(|x| e(&x))?;
    let theirs = time_gpu(dev, timing, flops, &mut call).map_err(|x| e(&x))?;
    let v = verify(
        &out.to_host().map_err(|x| e(&x))?,
        &reference.to_host().map_err(|x| e(&x))?,
        tol,
    )
    .map_err(|x| e(&x))?;
    Ok((v, theirs))
}

/// The first lines of a run's report: the kernel with its file and configuration, the device.
fn report_head(k: &Loaded, kernel: &str, dev: &Device) -> String {
    let info = dev.info();
    let mut out = String::new();
    let _ = writeln!(out, "kernel   {kernel} ({}), {}", k.file, k.config_text());
    let _ = writeln!(
        out,
        "device   {} ({} SMs, {})",
        info.name, info.sm_count, info.arch
    );
    out
}
