//! The shared `main` of the GEMM examples (`v0_naive` … `v4_tuned`): parse flags, write the
//! instantiated `.cu`, and — on a GPU — verify against cuBLAS over the full output and time
//! both in the same process. Without a GPU: compile with NVRTC when it is found, say so in one
//! sentence, exit non-zero.

use std::fmt::Write as _;

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir;
use half::{bf16, f16};

use crate::cublas_ref::{CublasRef, GemmCompute};
use crate::device::Device;
use crate::dsl::{Instance, Prepared, module_cache};
use crate::dtype::Element;
use crate::tensor::DeviceTensor;
use crate::timing::{TimingConfig, gemm_flops, time_gpu};
use crate::verify::{gemm_tolerance, verify};

/// Command-line options of a GEMM example.
#[derive(Clone, Debug)]
pub struct GemmOpts {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub variant: Variant,
    pub sets: Vec<(String, i64)>,
    pub runs: usize,
}

pub const GEMM_USAGE: &str = "flags: --m M --n N --k K (default 8192 each; v0: 4096), --dtype f16|bf16, --acc f16|f32, --set NAME=V, --runs R";

pub fn parse_opts(example: &str, args: &[String]) -> Result<GemmOpts, String> {
    let d = if example.starts_with("v0") {
        4096
    } else {
        8192
    };
    let mut o = GemmOpts {
        m: d,
        n: d,
        k: d,
        variant: Variant::default(),
        sets: Vec::new(),
        runs: 20,
    };
    let mut i = 0;
    while i < args.len() {
        let v = args
            .get(i + 1)
            .ok_or_else(|| format!("`{}` needs a value", args[i]))?;
        let num = || {
            v.parse::<usize>()
                .map_err(|_| format!("`{v}` is not a positive integer"))
        };
        match args[i].as_str() {
            "--m" => o.m = num()?,
            "--n" => o.n = num()?,
            "--k" => o.k = num()?,
            "--runs" => o.runs = num()?.max(20),
            "--dtype" => {
                o.variant.input = Some(
                    ir::DType::from_name(v)
                        .filter(|d| matches!(d, ir::DType::F16 | ir::DType::BF16))
                        .ok_or(format!("--dtype takes f16 or bf16, not `{v}`"))?,
                )
            }
            "--acc" => {
                o.variant.acc = Some(
                    ir::DType::from_name(v)
                        .filter(|d| matches!(d, ir::DType::F16 | ir::DType::F32))
                        .ok_or(format!("--acc takes f16 or f32, not `{v}`"))?,
                )
            }
            "--set" => o.sets.push(crate::example_sweep::parse_set(v)?),
            other => return Err(format!("unknown flag `{other}`")),
        }
        i += 2;
    }
    if o.variant.input == Some(ir::DType::BF16) && o.variant.acc.is_none() {
        // bf16 operands need an f32 accumulator (there is no bf16 → f16 WGMMA).
        o.variant.acc = Some(ir::DType::F32);
    }
    if o.m == 0 || o.n == 0 || o.k == 0 {
        return Err("dims must be positive".into());
    }
    Ok(o)
}

/// Runs a GEMM example; returns the process exit code.
pub fn gemm_main(def: &'static KernelDef, example: &str, args: &[String]) -> i32 {
    match run(def, example, args) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(msg) => {
            eprintln!("{example}: {msg}");
            1
        }
    }
}

fn run(def: &'static KernelDef, example: &str, args: &[String]) -> Result<bool, String> {
    let o = parse_opts(example, args).map_err(|e| format!("{e}\n{GEMM_USAGE}"))?;
    let prepared = Prepared::get(def, o.variant).map_err(|e| e.to_string())?;
    let mut cfg = Config {
        values: def
            .tunables
            .iter()
            .map(|t| (t.name.to_string(), t.default))
            .collect(),
    };
    for (k, v) in &o.sets {
        if !cfg.values.contains_key(k) {
            return Err(format!("`{k}` is not a tunable of `{}`", def.name));
        }
        cfg.values.insert(k.clone(), *v);
    }
    let dir = std::path::Path::new("target/tessel").join(example);
    let vname = variant_name(&prepared);
    let path = dir.join(format!("{}_{vname}.cu", def.name));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(&path, prepared.instantiated_cuda(&cfg))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "kernel   {} ({vname}), config {}",
        def.name,
        config_text(&cfg)
    );
    println!("cuda     {}", path.display());
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => return Err(no_gpu(&prepared, &cfg, &e.to_string())),
    };
    let input = prepared.module.kernel.params[0].dtype;
    match input {
        ir::DType::F16 => run_typed::<f16>(&dev, &prepared, &cfg, &o),
        ir::DType::BF16 => run_typed::<bf16>(&dev, &prepared, &cfg, &o),
        other => Err(format!(
            "the GEMM examples run f16/bf16 kernels, not {other}"
        )),
    }
}

pub fn variant_name(p: &Prepared) -> String {
    let input = p.module.kernel.params[0].dtype;
    let acc = acc_dtype(&p.module);
    format!("{input}_acc{acc}")
}

/// The accumulator dtype: the first `mma.fill` or float scalar declaration.
pub fn acc_dtype(m: &ir::Module) -> ir::DType {
    for (_, s) in m.stmts.iter() {
        match s {
            ir::Stmt::MmaFill { dtype, .. } => return *dtype,
            ir::Stmt::ScalarDecl { dtype, .. } if dtype.is_float() => return *dtype,
            _ => {}
        }
    }
    ir::DType::F32
}

fn config_text(cfg: &Config) -> String {
    cfg.values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// No GPU: compile the instance with NVRTC when possible, then one sentence.
fn no_gpu(p: &Prepared, cfg: &Config, why: &str) -> String {
    let arch = match p.kernel.path {
        dsl_core::lower::KernelPath::Hopper => crate::nvrtc::Arch::Sm90a,
        dsl_core::lower::KernelPath::Simt => crate::nvrtc::Arch::Sm80,
    };
    let expr = p.kernel.name_expression(&p.template_values(cfg));
    let req = crate::nvrtc::CompileRequest::new(p.cuda.clone(), arch).name_expression(&expr);
    let compiled = match module_cache().get_or_compile(&req) {
        Ok(_) => format!("compiled `{expr}` for {} with NVRTC", arch.as_str()),
        Err(e) => format!("did not compile it ({e})"),
    };
    format!("no GPU to run on ({why}); wrote the .cu and {compiled}.")
}

/// One GEMM instance measured: full-output verification against cuBLAS, a host f64 spot
/// check, and interleaved timing of tessel and cuBLAS in this process.
pub struct GemmMeasurement {
    pub verification: crate::verify::Verification,
    /// (samples, max relative error) of the host f64 spot check.
    pub spot: (usize, f64),
    pub tessel: crate::timing::Timing,
    pub cublas: crate::timing::Timing,
    pub launch: crate::launch::LaunchConfig,
    pub registers: Option<u32>,
    pub spill_bytes: Option<u32>,
}

impl GemmMeasurement {
    pub fn ratio(&self) -> f64 {
        self.tessel.tflops.unwrap_or(0.0) / self.cublas.tflops.unwrap_or(0.0).max(1e-9)
    }
}

/// Measures one configuration of a prepared GEMM kernel (`out[M,N] = lhs[M,K] · rhs[N,K]ᵀ`).
pub fn measure_gemm<T: Element>(
    dev: &Device,
    p: &std::sync::Arc<Prepared>,
    cfg: &Config,
    (m, n, k): (usize, usize, usize),
    runs: usize,
) -> Result<GemmMeasurement, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let acc = acc_dtype(&p.module);
    let lhs = DeviceTensor::<T>::random(dev, &[m, k], 1).map_err(|x| e(&x))?;
    let rhs = DeviceTensor::<T>::random(dev, &[n, k], 2).map_err(|x| e(&x))?;
    let out = DeviceTensor::<T>::poisoned(dev, &[m, n]).map_err(|x| e(&x))?;
    let tensors = [lhs.as_arg(), rhs.as_arg(), out.as_arg()];
    let problem = p.bind(&tensors).map_err(|x| e(&x))?;
    let inst = Instance::new(dev, module_cache(), p.clone(), cfg, &problem).map_err(|x| e(&x))?;
    let kargs = inst.args(&tensors).map_err(|x| e(&x))?;
    inst.launch(&kargs).map_err(|x| e(&x))?;
    dev.synchronize().map_err(|x| e(&x))?;
    let cublas = CublasRef::new(dev).map_err(|x| e(&x))?;
    let compute = if acc == ir::DType::F16 {
        GemmCompute::F16
    } else {
        GemmCompute::F32
    };
    let mut reference = DeviceTensor::<T>::poisoned(dev, &[m, n]).map_err(|x| e(&x))?;
    cublas
        .gemm_nt(&lhs, &rhs, &mut reference, compute)
        .map_err(|x| e(&x))?;
    dev.synchronize().map_err(|x| e(&x))?;
    let tol = gemm_tolerance(T::DTYPE, rt_dtype(acc), T::DTYPE, k);
    let verification = verify(
        &out.to_host().map_err(|x| e(&x))?,
        &reference.to_host().map_err(|x| e(&x))?,
        tol,
    )
    .map_err(|x| e(&x))?;
    let spot = host_spot_check(&lhs, &rhs, &out, m, n, k).map_err(|x| e(&x))?;
    // Interleaved rounds (tessel, cuBLAS, tessel, …) so clock and thermal drift hit both alike.
    let tc = TimingConfig {
        warmup: 3,
        runs: runs.max(20),
    };
    let flops = gemm_flops(m, n, k);
    let (mut mine_r, mut theirs_r) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        mine_r.push(time_gpu(dev, &tc, Some(flops), || inst.launch(&kargs)).map_err(|x| e(&x))?);
        theirs_r.push(
            time_gpu(dev, &tc, Some(flops), || {
                cublas.gemm_nt(&lhs, &rhs, &mut reference, compute)
            })
            .map_err(|x| e(&x))?,
        );
    }
    Ok(GemmMeasurement {
        verification,
        spot,
        tessel: crate::example_sweep::combine(&mine_r, Some(flops)),
        cublas: crate::example_sweep::combine(&theirs_r, Some(flops)),
        launch: inst.launch,
        registers: inst.resources.as_ref().map(|r| r.registers),
        spill_bytes: inst.resources.as_ref().map(|r| r.spill_stores),
    })
}

fn run_typed<T: Element>(
    dev: &Device,
    p: &std::sync::Arc<Prepared>,
    cfg: &Config,
    o: &GemmOpts,
) -> Result<bool, String> {
    let (m, n, k) = (o.m, o.n, o.k);
    let info = dev.info();
    println!(
        "device   {} ({} SMs, {}), problem {m}x{n}x{k}",
        info.name, info.sm_count, info.arch
    );
    let r = measure_gemm::<T>(dev, p, cfg, (m, n, k), o.runs)?;
    let regs = match (r.registers, r.spill_bytes) {
        (Some(g), Some(s)) => format!("{g} regs, {s} B spilled"),
        _ => String::new(),
    };
    println!(
        "launch   grid {:?} block {} smem {} B {regs}",
        r.launch.grid, r.launch.block.0, r.launch.dynamic_smem_bytes
    );
    println!("verify   {}", r.verification);
    println!(
        "host     f64 spot check of {} outputs: max relative error {:.2e}",
        r.spot.0, r.spot.1
    );
    let (mine, theirs) = (&r.tessel, &r.cublas);
    let (a, b) = (mine.tflops.unwrap_or(0.0), theirs.tflops.unwrap_or(0.0));
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<10} {:>10} {:>10} {:>10} {:>9} {:>8}",
        "", "median ms", "min ms", "max ms", "TFLOP/s", "vs cuBLAS"
    );
    let _ = writeln!(
        t,
        "{:<10} {:>10.4} {:>10.4} {:>10.4} {:>9.1} {:>7.1}%",
        "tessel",
        mine.median_ms,
        mine.min_ms,
        mine.max_ms,
        a,
        100.0 * r.ratio()
    );
    let _ = writeln!(
        t,
        "{:<10} {:>10.4} {:>10.4} {:>10.4} {:>9.1} {:>7.1}%",
        "cuBLAS", theirs.median_ms, theirs.min_ms, theirs.max_ms, b, 100.0
    );
    print!("{t}");
    let ok = r.verification.passed();
    println!(
        "result   {} {m}x{n}x{k} {} {a:.1} TFLOP/s = {:.3}x cuBLAS ({b:.1}) verify={}",
        p.def.name,
        variant_name(p),
        r.ratio(),
        if ok { "ok" } else { "FAIL" }
    );
    Ok(ok)
}

/// Timing rounds per side.
const ROUNDS: usize = 3;

/// Recomputes 512 sampled outputs in f64 on the host from the device inputs: an independent
/// check that does not trust cuBLAS. Returns (samples, max error relative to max |ref|).
fn host_spot_check<T: Element>(
    lhs: &DeviceTensor<T>,
    rhs: &DeviceTensor<T>,
    out: &DeviceTensor<T>,
    m: usize,
    n: usize,
    k: usize,
) -> Result<(usize, f64), crate::tensor::TensorError> {
    let (a, b, c) = (lhs.to_host()?, rhs.to_host()?, out.to_host()?);
    let mut rng = crate::dtype::SplitMix64::new(7);
    let samples = 512.min(m * n);
    let (mut worst, mut scale) = (0.0f64, 0.0f64);
    for _ in 0..samples {
        let (i, j) = ((rng.next_u64() as usize) % m, (rng.next_u64() as usize) % n);
        let r: f64 = (0..k)
            .map(|p| a[i * k + p].to_f64() * b[j * k + p].to_f64())
            .sum();
        worst = worst.max((c[i * n + j].to_f64() - r).abs());
        scale = scale.max(r.abs());
    }
    Ok((samples, worst / scale.max(1e-30)))
}

fn rt_dtype(d: ir::DType) -> crate::dtype::DType {
    match d {
        ir::DType::BF16 => crate::dtype::DType::BF16,
        ir::DType::F16 => crate::dtype::DType::F16,
        _ => crate::dtype::DType::F32,
    }
}
