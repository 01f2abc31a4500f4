//! The shared `main` of the GEMV example: `y[N] = W[N,K] · x[K]`, f16 or bf16 in
//! and out, f32 accumulation, over the standard shapes (7168, 16384), (18432, 7168),
//! (28672, 8192), (57344, 7168) and (1024, 1024).
//!
//! GEMV reads every byte of W once and does 2 FLOPs per element: it is bound by memory
//! bandwidth, so it is reported in TB/s (`(N·K + K + N) · 2 bytes / time`) and as a percentage of
//! the device's *measured* copy bandwidth (a device-to-device `cuMemcpy` of 1 GiB timed with
//! events, read + write bytes), next to cuBLAS (`cublasGemmEx` with N = 1, f32 compute).
//!
//! For every shape and kernel the legal configurations (rows per block, loads in flight, stages
//! …) are swept through the tuner ([`crate::jobs`]), each verified over the full output
//! against cuBLAS; the fastest is timed against cuBLAS in interleaved rounds.

use std::sync::Arc;

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir;
use half::{bf16, f16};

use crate::exit;
use crate::sweep::{ROUNDS, combine, config_text, config_with, no_gpu, parse_set, write_cuda};
use tessel_runtime::cublas_ref::{CublasRef, GemmCompute};
use tessel_runtime::device::Device;
use tessel_runtime::dsl::{Instance, Prepared, TensorArg, module_cache};
use tessel_runtime::dtype::Element;
use tessel_runtime::tensor::DeviceTensor;
use tessel_runtime::timing::{Timing, TimingConfig, time_gpu};
use tessel_runtime::verify::{Verification, gemm_tolerance, verify};

/// The standard GEMV shapes `(N, K)` (LLM projection sizes, and a small one).
pub const SHAPES: [(usize, usize); 5] = [
    (7168, 16384),
    (18432, 7168),
    (28672, 8192),
    (57344, 7168),
    (1024, 1024),
];

/// Options of the GEMV example.
#[derive(Clone, Debug)]
pub struct GemvOpts {
    /// `(N, K)` shapes.
    pub shapes: Vec<(usize, usize)>,
    /// Input and output dtype.
    pub dtype: ir::DType,
    /// Kernel names to run (all when empty).
    pub kernels: Vec<String>,
    /// Pinned tunables.
    pub sets: Vec<(String, i64)>,
    /// Sweep each kernel's legal configurations.
    pub tune: bool,
    /// Timed runs per round.
    pub runs: usize,
}

/// `N,K`.
pub fn parse_shape(v: &str) -> Result<(usize, usize), String> {
    let (n, k) = v.split_once(',').ok_or("--shape takes N,K")?;
    Ok((
        crate::flags::positive(n.trim())?,
        crate::flags::positive(k.trim())?,
    ))
}

/// The GEMV example's flags.
#[derive(clap::Args, Clone, Debug)]
pub struct GemvArgs {
    /// A shape N,K (repeatable) [default: the five standard shapes]
    #[arg(long = "shape", value_name = "N,K", value_parser = parse_shape)]
    pub shapes: Vec<(usize, usize)>,
    /// Input and output dtype
    #[arg(long, default_value = "f16", value_parser = ["f16", "bf16"])]
    pub dtype: String,
    /// Run only this kernel (repeatable) [default: all]
    #[arg(long = "kernel", value_name = "NAME")]
    pub kernels: Vec<String>,
    /// Set a tunable: NAME=VALUE (repeatable; turns the sweep off)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub sets: Vec<(String, i64)>,
    /// Run the default configurations, no sweep
    #[arg(long)]
    pub no_tune: bool,
    /// Timed runs per round (at least 20)
    #[arg(long, default_value_t = 50, value_parser = crate::flags::positive)]
    pub runs: usize,
}

/// The GEMV example's command line.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Runs tessel's GEMV kernels (y = W·x): sweeps, verifies against cuBLAS, reports TB/s against the measured copy bandwidth",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct GemvCli {
    #[command(flatten)]
    pub gemv: GemvArgs,
}

impl GemvArgs {
    /// The options.
    pub fn opts(&self) -> GemvOpts {
        GemvOpts {
            shapes: if self.shapes.is_empty() {
                SHAPES.to_vec()
            } else {
                self.shapes.clone()
            },
            dtype: ir::DType::from_name(&self.dtype).unwrap_or(ir::DType::F16),
            kernels: self.kernels.clone(),
            sets: self.sets.clone(),
            tune: !self.no_tune && self.sets.is_empty(),
            runs: self.runs.max(20),
        }
    }
}

/// Bytes a GEMV must move: W, x and y once each.
pub fn gemv_bytes(n: usize, k: usize, elem: usize) -> f64 {
    ((n * k + k + n) * elem) as f64
}

/// TB/s at `ms` for `bytes`.
pub fn tbps(bytes: f64, ms: f64) -> f64 {
    bytes / (ms * 1e-3) / 1e12
}

/// The device's copy bandwidth in TB/s: a device-to-device copy of 1 GiB, timed with events,
/// counting the bytes read and written.
pub fn copy_bandwidth(dev: &Device) -> Result<f64, String> {
    crate::bandwidth::copy_bandwidth(dev, 1 << 30)
}

/// One (shape, kernel) measurement.
#[derive(Clone, Debug)]
pub struct GemvOutcome {
    pub kernel: String,
    pub config: String,
    pub n: usize,
    pub k: usize,
    pub mine: Timing,
    pub cublas: Timing,
    pub verify: Verification,
    pub bytes: f64,
    /// A device-to-device copy moving the same bytes (half read, half written), TB/s: the
    /// bandwidth a copy reaches at this size, launch and ramp included (at 1024 × 1024 both
    /// are launch-bound, far from the 1 GiB copy's rate).
    pub copy_same_size: f64,
}

impl GemvOutcome {
    pub fn tbps(&self) -> f64 {
        tbps(self.bytes, self.mine.median_ms)
    }
    pub fn cublas_tbps(&self) -> f64 {
        tbps(self.bytes, self.cublas.median_ms)
    }
    /// Percent of the same-size copy's bandwidth.
    pub fn of_same_size_copy(&self) -> f64 {
        100.0 * self.tbps() / self.copy_same_size.max(1e-9)
    }
}

/// The `result` line of one (shape, kernel).
pub fn result_line(o: &GemvOutcome, dtype: ir::DType, copy_tbps: f64) -> String {
    format!(
        "result   {} {}x{} {dtype} {:.2} TB/s = {:.1}% of copy ({:.2} TB/s) = {:.1}% of a same-size copy ({:.2} TB/s) = {:.3}x cuBLAS ({:.2} TB/s) verify={} config {}",
        o.kernel,
        o.n,
        o.k,
        o.tbps(),
        100.0 * o.tbps() / copy_tbps.max(1e-9),
        copy_tbps,
        o.of_same_size_copy(),
        o.copy_same_size,
        o.tbps() / o.cublas_tbps().max(1e-9),
        o.cublas_tbps(),
        if o.verify.passed() { "ok" } else { "FAIL" },
        o.config
    )
}

/// W, x and y of one shape, and cuBLAS's y.
struct Shape<T: Element> {
    n: usize,
    k: usize,
    w: DeviceTensor<T>,
    /// `[1, K]`: cuBLAS's view; the kernel gets it as `[K]`.
    x: DeviceTensor<T>,
    y: DeviceTensor<T>,
    reference: DeviceTensor<T>,
    ref_host: Vec<T>,
}

impl<T: Element> Shape<T> {
    fn new(dev: &Device, cublas: &CublasRef, n: usize, k: usize) -> Result<Self, String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        let w = DeviceTensor::<T>::random(dev, &[n, k], 11).map_err(|x| e(&x))?;
        let x = DeviceTensor::<T>::random(dev, &[1, k], 12).map_err(|x| e(&x))?;
        let y = DeviceTensor::<T>::poisoned(dev, &[n]).map_err(|x| e(&x))?;
        let mut reference = DeviceTensor::<T>::poisoned(dev, &[n, 1]).map_err(|x| e(&x))?;
        cublas
            .gemm_nt(&w, &x, &mut reference, GemmCompute::F32)
            .map_err(|x| e(&x))?;
        dev.synchronize().map_err(|x| e(&x))?;
        let ref_host = reference.to_host().map_err(|x| e(&x))?;
        Ok(Shape {
            n,
            k,
            w,
            x,
            y,
            reference,
            ref_host,
        })
    }

    fn tensors(&self) -> [TensorArg; 3] {
        let mut x = self.x.as_arg();
        x.shape = vec![self.k];
        [self.w.as_arg(), x, self.y.as_arg()]
    }

    fn instance(
        &self,
        dev: &Device,
        p: &Arc<Prepared>,
        cfg: &Config,
    ) -> Result<(Instance, Vec<tessel_runtime::launch::KernelArg>), String> {
        let t = self.tensors();
        let problem = p.bind(&t).map_err(|x| x.to_string())?;
        let inst = Instance::new(dev, module_cache(), p.clone(), cfg, &problem)
            .map_err(|x| x.to_string())?;
        let args = inst.args(&t).map_err(|x| x.to_string())?;
        Ok((inst, args))
    }

    fn run_and_verify(
        &mut self,
        dev: &Device,
        inst: &Instance,
        args: &[tessel_runtime::launch::KernelArg],
    ) -> Result<Verification, String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        self.y.fill_poison().map_err(|x| e(&x))?;
        inst.launch(args).map_err(|x| e(&x))?;
        dev.synchronize().map_err(|x| e(&x))?;
        let tol = gemm_tolerance(
            T::DTYPE,
            tessel_runtime::dtype::DType::F32,
            T::DTYPE,
            self.k,
        );
        verify(&self.y.to_host().map_err(|x| e(&x))?, &self.ref_host, tol).map_err(|x| e(&x))
    }
}

/// Runs the GEMV example over `kernels`; returns the process exit code (see [`crate::exit`]).
pub fn gemv_main(kernels: &[&'static KernelDef], example: &str, args: &[String]) -> i32 {
    // First: a copy of this program re-launched by the tuner serves trials and exits here.
    crate::jobs::serve(&[], &[], kernels);
    let cli = match exit::parse::<GemvCli>(example, args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    exit::finish(example, run_example(kernels, example, &cli.gemv.opts()))
}

/// Runs the GEMV example with parsed options: `Ok(verified)`.
pub fn run_example(
    all: &[&'static KernelDef],
    example: &str,
    o: &GemvOpts,
) -> Result<bool, exit::Error> {
    let kernels: Vec<&'static KernelDef> = if o.kernels.is_empty() {
        all.to_vec()
    } else {
        o.kernels
            .iter()
            .map(|k| {
                all.iter().copied().find(|d| d.name == k).ok_or_else(|| {
                    exit::Error::Usage(format!("no kernel `{k}` (kernels: {})", names(all)))
                })
            })
            .collect::<Result<_, _>>()?
    };
    let variant = match o.dtype {
        ir::DType::BF16 => Variant {
            input: Some(ir::DType::BF16),
            acc: None,
        },
        _ => Variant::default(),
    };
    let mut prepared = Vec::new();
    for def in &kernels {
        let p = Prepared::get(def, variant).map_err(|e| e.to_string())?;
        let sets: Vec<(String, i64)> = o
            .sets
            .iter()
            .filter(|(k, _)| def.tunables.iter().any(|t| t.name == k))
            .cloned()
            .collect();
        let cfg = config_with(def, &sets).map_err(exit::Error::Usage)?;
        let path = write_cuda(&p, example, &cfg)?;
        println!(
            "kernel   {} ({}), config {}",
            def.name,
            o.dtype,
            config_text(def, &cfg)
        );
        println!("cuda     {}", path.display());
        prepared.push((p, cfg));
    }
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => {
            let (p, cfg) = &prepared[0];
            return Err(exit::Error::NoGpu(no_gpu(p, cfg, &e.to_string())));
        }
    };
    Ok(match o.dtype {
        ir::DType::BF16 => run_typed::<bf16>(&dev, &prepared, o)?,
        _ => run_typed::<f16>(&dev, &prepared, o)?,
    })
}

fn names(all: &[&'static KernelDef]) -> String {
    all.iter().map(|d| d.name).collect::<Vec<_>>().join(", ")
}

/// Measures every (shape, kernel); prints a table and the `result` lines.
fn run_typed<T: Element>(
    dev: &Device,
    prepared: &[(Arc<Prepared>, Config)],
    o: &GemvOpts,
) -> Result<bool, String> {
    let info = dev.info().clone();
    let copy = copy_bandwidth(dev)?;
    println!(
        "device   {} ({} SMs, {}); measured copy bandwidth {copy:.2} TB/s (1 GiB device-to-device, read + write)",
        info.name, info.sm_count, info.arch
    );
    let cublas = CublasRef::new(dev).map_err(|e| e.to_string())?;
    let mut outcomes = Vec::new();
    for &(n, k) in &o.shapes {
        println!("shape    N = {n}, K = {k}");
        let mut s = Shape::<T>::new(dev, &cublas, n, k)?;
        for (p, default) in prepared {
            let mut cfg = default.clone();
            if o.tune {
                cfg = tune(&s, p, SWEEP_BUDGET)?.0;
            }
            let out = measure(dev, &cublas, &mut s, p, &cfg, o.runs)?;
            println!("verify   {}", out.verify);
            println!("{}", result_line(&out, o.dtype, copy));
            outcomes.push(out);
        }
    }
    println!("{}", table(&outcomes, copy));
    Ok(outcomes.iter().all(|x| x.verify.passed()))
}

/// Configurations a GEMV sweep times per (shape, kernel): all of them for the shipped GEMV kernels.
pub const SWEEP_BUDGET: usize = 64;

/// Sweeps `p` on shape `s` through the tuner (at most `budget` configurations, in worker
/// processes; the cached winner when the same sweep already ran); returns the winner and
/// whether it came from the cache.
fn tune<T: Element>(
    s: &Shape<T>,
    p: &Arc<Prepared>,
    budget: usize,
) -> Result<(Config, bool), String> {
    let dims = format!("N={},K={}", s.n, s.k);
    let def = p.def;
    let job = crate::jobs::keyed(|key| crate::jobs::gemv_job(def, T::DTYPE, key), &dims)?;
    crate::jobs::tune_job(job, budget)?
        .ok_or_else(|| format!("{}: no configuration passed verification", p.def.name))
}

/// The fastest kernel of `kernels` on one shape, swept (or cached) and timed against cuBLAS.
#[derive(Clone, Debug)]
pub struct GemvBest {
    pub outcome: GemvOutcome,
    /// The configuration came from an earlier sweep's cache.
    pub from_cache: bool,
}

/// For each `(N, K)` of `shapes`: every kernel of `kernels` swept by the tuner (at most
/// [`SWEEP_BUDGET`] configurations, or the cached winner of the same sweep), verified over the
/// full output and timed against cuBLAS; the fastest verified kernel's outcome (or, when none
/// verified, the fastest, which then reports the failure). f16 in and out, f32 accumulation;
/// `copy_tbps` (the measured copy bandwidth) is only for the printed `result` lines.
pub fn measure_best(
    dev: &Device,
    kernels: &[&'static KernelDef],
    shapes: &[(usize, usize)],
    runs: usize,
    copy_tbps: f64,
) -> Result<Vec<GemvBest>, String> {
    let cublas = CublasRef::new(dev).map_err(|e| e.to_string())?;
    let mut best = Vec::new();
    for &(n, k) in shapes {
        let mut s = Shape::<f16>::new(dev, &cublas, n, k)?;
        let mut row: Option<GemvBest> = None;
        for def in kernels {
            let p = Prepared::get(def, Variant::default()).map_err(|e| e.to_string())?;
            let (cfg, from_cache) = tune(&s, &p, SWEEP_BUDGET)?;
            let out = measure(dev, &cublas, &mut s, &p, &cfg, runs)?;
            println!("{}", result_line(&out, ir::DType::F16, copy_tbps));
            let better = match &row {
                None => true,
                Some(b) => {
                    let (ok, bok) = (out.verify.passed(), b.outcome.verify.passed());
                    (ok && !bok) || (ok == bok && out.tbps() > b.outcome.tbps())
                }
            };
            if better {
                row = Some(GemvBest {
                    outcome: out,
                    from_cache,
                });
            }
        }
        best.extend(row);
    }
    Ok(best)
}

/// Verifies `cfg` and times it against cuBLAS in interleaved rounds.
fn measure<T: Element>(
    dev: &Device,
    cublas: &CublasRef,
    s: &mut Shape<T>,
    p: &Arc<Prepared>,
    cfg: &Config,
    runs: usize,
) -> Result<GemvOutcome, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let (inst, args) = s.instance(dev, p, cfg)?;
    let verify = s.run_and_verify(dev, &inst, &args)?;
    let tc = TimingConfig { warmup: 5, runs };
    let (mut mine, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        mine.push(time_gpu(dev, &tc, None, || inst.launch(&args)).map_err(|x| e(&x))?);
        let (w, x, r) = (&s.w, &s.x, &mut s.reference);
        theirs.push(
            time_gpu(dev, &tc, None, || cublas.gemm_nt(w, x, r, GemmCompute::F32))
                .map_err(|x| e(&x))?,
        );
    }
    let bytes = gemv_bytes(s.n, s.k, T::DTYPE.size_bytes());
    Ok(GemvOutcome {
        kernel: p.def.name.to_string(),
        config: config_text(p.def, cfg),
        n: s.n,
        k: s.k,
        mine: combine(&mine, None),
        cublas: combine(&theirs, None),
        verify,
        bytes,
        copy_same_size: crate::bandwidth::copy_bandwidth(dev, (bytes / 2.0) as usize)?,
    })
}

/// One table over every (shape, kernel).
pub fn table(outcomes: &[GemvOutcome], copy: f64) -> String {
    let rows: Vec<Vec<String>> = outcomes
        .iter()
        .map(|o| {
            vec![
                o.kernel.clone(),
                format!("{}x{}", o.n, o.k),
                format!("{:.2}", o.mine.median_ms * 1e3),
                format!("{:.2}", o.tbps()),
                format!("{:.1}%", 100.0 * o.tbps() / copy.max(1e-9)),
                format!("{:.1}%", o.of_same_size_copy()),
                format!("{:.1}%", 100.0 * o.tbps() / o.cublas_tbps().max(1e-9)),
                if o.verify.passed() { "ok" } else { "FAIL" }.into(),
                o.config.clone(),
            ]
        })
        .collect();
    format!(
        "{}\n(cuBLAS: cublasGemmEx with N = 1; copy: {copy:.2} TB/s measured over 1 GiB; same-size copy: a copy moving the GEMV's bytes, timed alike)",
        tessel_runtime::tune::outcome::plain_table(
            &[
                "kernel",
                "N x K",
                "median us",
                "TB/s",
                "% copy",
                "% same-size copy",
                "vs cuBLAS",
                "verify",
                "config",
            ],
            &rows,
            &[0, 7],
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(v: &[&str]) -> Result<GemvOpts, clap::Error> {
        GemvCli::try_parse_from(std::iter::once("gemv").chain(v.iter().copied()))
            .map(|c| c.gemv.opts())
    }

    #[test]
    fn flags_and_units() {
        let o = parse(&[]).unwrap();
        assert_eq!(o.shapes, SHAPES.to_vec());
        assert!(o.tune);
        let o = parse(&["--shape", "64,128", "--dtype=bf16", "--no-tune"]).unwrap();
        assert_eq!(
            (o.shapes.clone(), o.dtype, o.tune),
            (vec![(64, 128)], ir::DType::BF16, false)
        );
        assert!(parse(&["--dtype", "f32"]).is_err());
        assert!(parse(&["--shape", "64"]).is_err());
        // 7168 × 16384 f16: 234.9 MB; in 70 µs that is 3.36 TB/s.
        let b = gemv_bytes(7168, 16384, 2);
        assert_eq!(b, ((7168 * 16384 + 16384 + 7168) * 2) as f64);
        assert!((tbps(b, 0.070) - 3.356).abs() < 1e-3);
    }
}
