//! The shared `main` of the GEMM examples (`v0_naive` … `v4_tuned`): parse flags, write the
//! instantiated `.cu`, and — on a GPU — verify against cuBLAS over the full output and time
//! both in the same process. Without a GPU: compile with NVRTC when it is found, say so in one
//! sentence, exit non-zero.

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};

use crate::sweep::no_gpu;
use dsl_core::ir;
use half::{bf16, f16};

use tessel_runtime::cublas_ref::{CublasRef, GemmCompute};
use tessel_runtime::device::Device;
use tessel_runtime::dsl::{Instance, Prepared, module_cache};
use tessel_runtime::dtype::Element;
use tessel_runtime::tensor::DeviceTensor;
use tessel_runtime::timing::{TimingConfig, gemm_flops, time_gpu};
use tessel_runtime::verify::{gemm_tolerance, verify};

use crate::exit;

/// Command-line options of a GEMM example.
#[derive(Clone, Debug)]
pub struct GemmOpts {
    /// Rows of `lhs` and `out`.
    pub m: usize,
    /// Rows of `rhs`, columns of `out`.
    pub n: usize,
    /// The reduction dimension.
    pub k: usize,
    /// Input and accumulator dtypes.
    pub variant: Variant,
    /// Pinned tunables.
    pub sets: Vec<(String, i64)>,
    /// Timed runs per round.
    pub runs: usize,
    /// Where to write the `tessel explain` page of the configuration that runs.
    pub explain: Option<std::path::PathBuf>,
}

/// The GEMM examples' flags.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct GemmArgs {
    /// Rows of lhs and out [default: 8192; v0_naive: 4096]
    #[arg(long, value_parser = crate::flags::positive)]
    pub m: Option<usize>,
    /// Rows of rhs, columns of out [default: as --m]
    #[arg(long, value_parser = crate::flags::positive)]
    pub n: Option<usize>,
    /// Reduction dimension [default: as --m]
    #[arg(long, value_parser = crate::flags::positive)]
    pub k: Option<usize>,
    /// Input dtype (bf16 implies --acc f32)
    #[arg(long, value_parser = ["f16", "bf16"])]
    pub dtype: Option<String>,
    /// Accumulator dtype
    #[arg(long, value_parser = ["f16", "f32"])]
    pub acc: Option<String>,
    /// Set a tunable: NAME=VALUE (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = crate::sweep::parse_set)]
    pub sets: Vec<(String, i64)>,
    /// Timed runs per round (at least 20)
    #[arg(long, default_value_t = 20)]
    pub runs: usize,
    /// Also write the `tessel explain` page (DSL, CUDA and SASS linked) of the configuration
    /// that runs to this file (needs NVRTC and nvdisasm, no GPU)
    #[arg(long, value_name = "PAGE.html")]
    pub explain: Option<std::path::PathBuf>,
}

/// A GEMM example's command line.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Runs a tessel GEMM kernel: writes its .cu, verifies it against cuBLAS over the full output and times both",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct GemmCli {
    #[command(flatten)]
    pub gemm: GemmArgs,
}

impl GemmArgs {
    /// The options of example `example` (its default size: 4096 for `v0…`, else 8192).
    pub fn opts(&self, example: &str) -> GemmOpts {
        let d = if example.starts_with("v0") {
            4096
        } else {
            8192
        };
        let dtype = |n: &Option<String>| n.as_deref().and_then(ir::DType::from_name);
        let mut variant = Variant {
            input: dtype(&self.dtype),
            acc: dtype(&self.acc),
        };
        if variant.input == Some(ir::DType::BF16) && variant.acc.is_none() {
            // bf16 operands need an f32 accumulator (there is no bf16 → f16 WGMMA).
            variant.acc = Some(ir::DType::F32);
        }
        GemmOpts {
            m: self.m.unwrap_or(d),
            n: self.n.unwrap_or(d),
            k: self.k.unwrap_or(d),
            variant,
            sets: self.sets.clone(),
            runs: self.runs.max(20),
            explain: self.explain.clone(),
        }
    }
}

/// Runs a GEMM example; returns the process exit code (see [`crate::exit`]).
pub fn gemm_main(def: &'static KernelDef, example: &str, args: &[String]) -> i32 {
    let cli = match exit::parse::<GemmCli>(example, args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    exit::finish(example, run(def, example, &cli.gemm.opts(example)))
}

/// Runs a GEMM example with parsed options: `Ok(verified)`.
pub fn run(def: &'static KernelDef, example: &str, o: &GemmOpts) -> Result<bool, exit::Error> {
    let prepared = Prepared::get(def, o.variant).map_err(|e| e.to_string())?;
    let cfg = crate::sweep::config_with(def, &o.sets).map_err(exit::Error::Usage)?;
    let dir = crate::out::example_dir(example);
    let vname = variant_name(&prepared);
    let path = dir.join(format!("{}_{vname}.cu", def.name));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(&path, prepared.instantiated_cuda(&cfg))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("kernel   {} ({vname}), config {}", def.name, cfg);
    println!("cuda     {}", path.display());
    if let Some(page) = &o.explain {
        let sets: Vec<(String, i64)> = cfg.values.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let done = crate::explain::write(def, &sets, page).map_err(exit::Error::Runtime)?;
        println!("explain  {done}");
    }
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => return Err(exit::Error::NoGpu(no_gpu(&prepared, &cfg, &e.to_string()))),
    };
    let input = prepared.module.kernel.params[0].dtype;
    Ok(match input {
        ir::DType::F16 => run_typed::<f16>(&dev, &prepared, &cfg, o)?,
        ir::DType::BF16 => run_typed::<bf16>(&dev, &prepared, &cfg, o)?,
        other => {
            return Err(exit::Error::Usage(format!(
                "the GEMM examples run f16/bf16 kernels, not {other}"
            )));
        }
    })
}

/// `f16_accf32`: the variant's input and accumulator dtypes.
pub fn variant_name(p: &Prepared) -> String {
    let input = p.module.kernel.params[0].dtype;
    let acc = tessel_runtime::tune::target::acc_dtype(&p.module);
    format!("{input}_acc{acc}")
}

/// One GEMM instance measured: full-output verification against cuBLAS, a host f64 spot
/// check, and interleaved timing of tessel and cuBLAS in this process.
pub struct GemmMeasurement {
    pub verification: tessel_runtime::verify::Verification,
    /// (samples, max relative error) of the host f64 spot check.
    pub spot: (usize, f64),
    pub tessel: tessel_runtime::timing::Timing,
    pub cublas: tessel_runtime::timing::Timing,
    pub launch: tessel_runtime::launch::LaunchConfig,
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
    let acc = tessel_runtime::tune::target::acc_dtype(&p.module);
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
    let tol = gemm_tolerance(
        T::DTYPE,
        tessel_runtime::dtype::DType::from_ir(acc).unwrap_or(tessel_runtime::dtype::DType::F32),
        T::DTYPE,
        k,
    );
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
        tessel: crate::sweep::combine(&mine_r, Some(flops)),
        cublas: crate::sweep::combine(&theirs_r, Some(flops)),
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
    println!("{}", crate::sgemm::timing_table(mine, theirs, false));
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
) -> Result<(usize, f64), tessel_runtime::tensor::TensorError> {
    let (a, b, c) = (lhs.to_host()?, rhs.to_host()?, out.to_host()?);
    let mut rng = tessel_runtime::dtype::SplitMix64::new(7);
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
