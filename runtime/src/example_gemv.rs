//! The shared `main` of the GEMV example (seed 003): `y[N] = W[N,K] · x[K]`, f16 or bf16 in
//! and out, f32 accumulation, over the seed's shapes (7168, 16384), (18432, 7168),
//! (28672, 8192), (57344, 7168) and (1024, 1024).
//!
//! GEMV reads every byte of W once and does 2 FLOPs per element: it is bound by memory
//! bandwidth, so it is reported in TB/s (`(N·K + K + N) · 2 bytes / time`) and as a percentage of
//! the device's *measured* copy bandwidth (a device-to-device `cuMemcpy` of 1 GiB timed with
//! events, read + write bytes), next to cuBLAS (`cublasGemmEx` with N = 1, f32 compute).
//!
//! For every shape and kernel the legal configurations (rows per block, loads in flight, stages
//! …) are swept ([`crate::example_sweep::sweep_with`]), each verified over the full output
//! against cuBLAS; the fastest is timed against cuBLAS in interleaved rounds.

use std::sync::Arc;

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir;
use half::{bf16, f16};

use crate::cublas_ref::{CublasRef, GemmCompute};
use crate::device::{Device, guard};
use crate::dsl::{Instance, Prepared, TensorArg, module_cache};
use crate::dtype::Element;
use crate::example_sweep::{
    ROUNDS, combine, config_text, config_with, no_gpu, parse_set, sweep_cached, sweep_with,
    write_cuda,
};
use crate::tensor::DeviceTensor;
use crate::timing::{Timing, TimingConfig, time_gpu};
use crate::verify::{Verification, gemm_tolerance, verify};

/// Seed 003's shapes `(N, K)`.
pub const SHAPES: [(usize, usize); 5] = [
    (7168, 16384),
    (18432, 7168),
    (28672, 8192),
    (57344, 7168),
    (1024, 1024),
];

pub const GEMV_USAGE: &str = "flags: --shape N,K (repeatable; default: seed 003's five), --dtype f16|bf16, --kernel NAME (repeatable; default: all), --set NAME=V, --no-tune, --runs R";

#[derive(Clone, Debug)]
pub struct GemvOpts {
    pub shapes: Vec<(usize, usize)>,
    pub dtype: ir::DType,
    pub kernels: Vec<String>,
    pub sets: Vec<(String, i64)>,
    pub tune: bool,
    pub runs: usize,
}

pub fn parse_opts(args: &[String]) -> Result<GemvOpts, String> {
    let mut o = GemvOpts {
        shapes: Vec::new(),
        dtype: ir::DType::F16,
        kernels: Vec::new(),
        sets: Vec::new(),
        tune: true,
        runs: 50,
    };
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--no-tune" {
            o.tune = false;
            i += 1;
            continue;
        }
        let flag = args[i].as_str();
        let v = args
            .get(i + 1)
            .ok_or_else(|| format!("`{flag}` needs a value"))?;
        match flag {
            "--shape" => {
                let (n, k) = v.split_once(',').ok_or("--shape takes N,K")?;
                let p = |s: &str| {
                    s.trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|x| *x > 0)
                        .ok_or_else(|| format!("`{s}` is not a positive integer"))
                };
                o.shapes.push((p(n)?, p(k)?));
            }
            "--dtype" => {
                o.dtype = ir::DType::from_name(v)
                    .filter(|d| matches!(d, ir::DType::F16 | ir::DType::BF16))
                    .ok_or(format!("--dtype takes f16 or bf16, not `{v}`"))?
            }
            "--kernel" => o.kernels.push(v.clone()),
            "--set" => o.sets.push(parse_set(v)?),
            "--runs" => {
                o.runs = v
                    .parse::<usize>()
                    .map_err(|_| format!("`{v}` is not a positive integer"))?
                    .max(20)
            }
            other => return Err(format!("unknown flag `{other}`")),
        }
        i += 2;
    }
    if o.shapes.is_empty() {
        o.shapes = SHAPES.to_vec();
    }
    if !o.sets.is_empty() {
        o.tune = false;
    }
    Ok(o)
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
    let bytes: usize = 1 << 30;
    let stream = dev.stream().clone();
    let src = guard("cuMemAlloc", || stream.alloc_zeros::<u8>(bytes)).map_err(|e| e.to_string())?;
    let mut dst =
        guard("cuMemAlloc", || stream.alloc_zeros::<u8>(bytes)).map_err(|e| e.to_string())?;
    let t = time_gpu(
        dev,
        &TimingConfig {
            warmup: 3,
            runs: 20,
        },
        None,
        || stream.memcpy_dtod(&src, &mut dst),
    )
    .map_err(|e| e.to_string())?;
    Ok(tbps(2.0 * bytes as f64, t.median_ms))
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
}

impl GemvOutcome {
    pub fn tbps(&self) -> f64 {
        tbps(self.bytes, self.mine.median_ms)
    }
    pub fn cublas_tbps(&self) -> f64 {
        tbps(self.bytes, self.cublas.median_ms)
    }
}

/// The `result` line of one (shape, kernel).
pub fn result_line(o: &GemvOutcome, dtype: ir::DType, copy_tbps: f64) -> String {
    format!(
        "result   {} {}x{} {dtype} {:.2} TB/s = {:.1}% of copy ({:.2} TB/s) = {:.3}x cuBLAS ({:.2} TB/s) verify={} config {}",
        o.kernel,
        o.n,
        o.k,
        o.tbps(),
        100.0 * o.tbps() / copy_tbps.max(1e-9),
        copy_tbps,
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
    ) -> Result<(Instance, Vec<crate::launch::KernelArg>), String> {
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
        args: &[crate::launch::KernelArg],
    ) -> Result<Verification, String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        self.y.fill_poison().map_err(|x| e(&x))?;
        inst.launch(args).map_err(|x| e(&x))?;
        dev.synchronize().map_err(|x| e(&x))?;
        let tol = gemm_tolerance(T::DTYPE, crate::dtype::DType::F32, T::DTYPE, self.k);
        verify(&self.y.to_host().map_err(|x| e(&x))?, &self.ref_host, tol).map_err(|x| e(&x))
    }
}

/// Runs the GEMV example over `kernels`; returns the process exit code.
pub fn gemv_main(kernels: &[&'static KernelDef], example: &str, args: &[String]) -> i32 {
    match run_example(kernels, example, args) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(msg) => {
            eprintln!("{example}: {msg}");
            1
        }
    }
}

fn run_example(all: &[&'static KernelDef], example: &str, args: &[String]) -> Result<bool, String> {
    let o = parse_opts(args).map_err(|e| format!("{e}\n{GEMV_USAGE}"))?;
    let kernels: Vec<&'static KernelDef> = if o.kernels.is_empty() {
        all.to_vec()
    } else {
        o.kernels
            .iter()
            .map(|k| {
                all.iter()
                    .copied()
                    .find(|d| d.name == k)
                    .ok_or_else(|| format!("no kernel `{k}` (kernels: {})", names(all)))
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
        let cfg = config_with(def, &sets)?;
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
            return Err(no_gpu(p, cfg, &e.to_string()));
        }
    };
    match o.dtype {
        ir::DType::BF16 => run_typed::<bf16>(&dev, &prepared, &o),
        _ => run_typed::<f16>(&dev, &prepared, &o),
    }
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
                cfg = tune(dev, &mut s, p, SWEEP_BUDGET, false)?.0;
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

/// Configurations a GEMV sweep times per (shape, kernel): all of them for the seed's kernels.
pub const SWEEP_BUDGET: usize = 64;

/// Sweeps `p` on shape `s` (at most `budget` configurations; with `cached`, the remembered
/// winner of an earlier sweep at least that large instead); returns the winner and whether it
/// came from the cache.
fn tune<T: Element>(
    dev: &Device,
    s: &mut Shape<T>,
    p: &Arc<Prepared>,
    budget: usize,
    cached: bool,
) -> Result<(Config, bool), String> {
    let info = dev.info().clone();
    let problem = p.bind(&s.tensors()).map_err(|e| e.to_string())?;
    let eval = |c: &Config| {
        let (inst, args) = s.instance(dev, p, c)?;
        let v = s.run_and_verify(dev, &inst, &args)?;
        let t = time_gpu(
            dev,
            &TimingConfig {
                warmup: 2,
                runs: 20,
            },
            None,
            || inst.launch(&args),
        )
        .map_err(|x| x.to_string())?;
        Ok((v.passed(), t.median_ms))
    };
    let found = if cached {
        sweep_cached(p, &problem, &info, budget, eval)?
    } else {
        sweep_with(p, &problem, &info, budget, eval)?.map(|c| (c, false))
    };
    found.ok_or_else(|| format!("{}: no configuration passed verification", p.def.name))
}

/// The fastest kernel of `kernels` on one shape, swept (or remembered) and timed against cuBLAS.
#[derive(Clone, Debug)]
pub struct GemvBest {
    pub outcome: GemvOutcome,
    /// The configuration came from an earlier sweep's cache.
    pub from_cache: bool,
}

/// For each `(N, K)` of `shapes`: every kernel of `kernels` swept (the remembered winner when
/// an earlier sweep of at least [`SWEEP_BUDGET`] configurations found one), verified over the
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
            let (cfg, from_cache) = tune(dev, &mut s, &p, SWEEP_BUDGET, true)?;
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
    Ok(GemvOutcome {
        kernel: p.def.name.to_string(),
        config: config_text(p.def, cfg),
        n: s.n,
        k: s.k,
        mine: combine(&mine, None),
        cublas: combine(&theirs, None),
        verify,
        bytes: gemv_bytes(s.n, s.k, T::DTYPE.size_bytes()),
    })
}

/// One table over every (shape, kernel).
pub fn table(outcomes: &[GemvOutcome], copy: f64) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<12} {:>14} {:>10} {:>8} {:>9} {:>9} {:>7}  config",
        "kernel", "N x K", "median us", "TB/s", "% copy", "vs cuBLAS", "verify"
    );
    for o in outcomes {
        let _ = writeln!(
            t,
            "{:<12} {:>14} {:>10.2} {:>8.2} {:>8.1}% {:>8.1}% {:>7}  {}",
            o.kernel,
            format!("{}x{}", o.n, o.k),
            o.mine.median_ms * 1e3,
            o.tbps(),
            100.0 * o.tbps() / copy.max(1e-9),
            100.0 * o.tbps() / o.cublas_tbps().max(1e-9),
            if o.verify.passed() { "ok" } else { "FAIL" },
            o.config
        );
    }
    let _ = write!(
        t,
        "(cuBLAS: cublasGemmEx with N = 1; copy: {copy:.2} TB/s measured)"
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_and_units() {
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let o = parse_opts(&a(&[])).unwrap();
        assert_eq!(o.shapes, SHAPES.to_vec());
        assert!(o.tune);
        let o = parse_opts(&a(&["--shape", "64,128", "--dtype", "bf16", "--no-tune"])).unwrap();
        assert_eq!(
            (o.shapes.clone(), o.dtype, o.tune),
            (vec![(64, 128)], ir::DType::BF16, false)
        );
        assert!(parse_opts(&a(&["--dtype", "f32"])).is_err());
        assert!(parse_opts(&a(&["--shape", "64"])).is_err());
        // 7168 × 16384 f16: 234.9 MB; in 70 µs that is 3.36 TB/s.
        let b = gemv_bytes(7168, 16384, 2);
        assert_eq!(b, ((7168 * 16384 + 16384 + 7168) * 2) as f64);
        assert!((tbps(b, 0.070) - 3.356).abs() < 1e-3);
    }
}
