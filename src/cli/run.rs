//! `tessel run FILE.co --shape M=…,N=…,K=… [--set NAME=V] [--dtype …] [--acc …] [--runs R]`:
//! on GPU 0, random inputs, the output verified against the reference its signature describes
//! (`reference.rs`: a contraction, with the epilogue its stores apply — a bias parameter, an
//! activation), and the kernel timed — against cuBLAS when cuBLAS computes the same thing.
//! Without a GPU: exit 3 and one sentence.

use std::collections::BTreeMap;
use std::fmt::Write as _;

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

pub(super) fn signature(
    k: &Loaded,
    prepared: &Prepared,
    args: &ProblemArgs,
) -> Result<Signature, Failure> {
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
            let dtype = DType::from_ir(p.dtype).ok_or_else(|| {
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
            let mut all: Vec<&String> = dims_of.iter().flatten().collect();
            all.sort();
            all.dedup();
            return Err(usage(format!(
                "--shape: `{d}` is not a dimension of any parameter (they are {all:?})"
            )));
        }
    }
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
    let epilogue =
        Epilogue::of(m, param_index.get(last).copied().unwrap_or(0)).unwrap_or(Epilogue {
            activation: Activation::Identity,
            bias: None,
            scale: None,
            offset: None,
        });
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

/// Runs `run`.
pub fn run(args: &RunArgs) -> Result<String, Failure> {
    let k = Loaded::load(&args.problem.kernel)?;
    let def = kernel_def(&k);
    let prepared =
        Prepared::get(def, args.problem.variant()).map_err(|e| Failure::new(exit::FAILED, e))?;
    // Everything that can be refused without a GPU is refused first.
    let sig = signature(&k, &prepared, &args.problem)?;
    for (_, name, _) in &sig.scalars {
        if !args.scalars.iter().any(|(n, _)| n == name) {
            return Err(Failure::new(
                exit::USAGE,
                format!("scalar parameter `{name}` needs a value: --scalar {name}=…"),
            ));
        }
    }
    for (n, _) in &args.scalars {
        if !sig.scalars.iter().any(|(_, name, _)| name == n) {
            return Err(Failure::new(
                exit::USAGE,
                format!("--scalar: `{n}` is not a scalar parameter of the kernel"),
            ));
        }
    }
    let dev = open_device()?;
    measure(&k, &prepared, &sig, &dev, args)
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

    let info = dev.info();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "kernel   {} ({}), {}",
        prepared.module.kernel.name.name,
        k.file,
        k.config_text()
    );
    let _ = writeln!(
        out,
        "device   {} ({} SMs, {})",
        info.name, info.sm_count, info.arch
    );
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
