//! The shared `main` of the f32 GEMM examples — the SGEMM ladder (`sgemm_k1_naive` …
//! `sgemm_k8_warptile`) and the Kernel Tuner trio (`kt_naive`, `kt_shared`, `kt_tiled`) — and
//! of the `ladder` example, which runs a whole ladder on one problem and prints one table.
//!
//! The problem is `C[M,N] = A[M,K] · B[K,N]`, f32, row-major ("NN"), 4096³ by default. A run
//! writes the instantiated `.cu` to `target/tessel/<example>/`, then on a GPU:
//!
//! 1. (tuned rungs) **sweeps** ([`crate::sweep`]): every tunable assignment is checked
//!    for this device and problem — the kernel's `require`s and every other check are the
//!    legality filter — a budget of the legal ones is compiled in parallel with NVRTC, and each
//!    is launched on poisoned output, verified over the full output and timed (median);
//! 2. verifies the chosen configuration against cuBLAS SGEMM with
//!    `CUBLAS_COMPUTE_32F_PEDANTIC` (true f32, no TF32) over every element, plus an f64 host
//!    spot check that does not trust cuBLAS;
//! 3. times it and cuBLAS in interleaved rounds and prints one `result` line.
//!
//! Without a GPU it compiles the instance with NVRTC, says so in one sentence and exits 1.

use std::sync::Arc;

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};

use crate::exit;
pub use crate::sweep::{
    ROUNDS, combine, config_text, config_with, first_line, no_gpu, parse_set, write_cuda,
};
use tessel_runtime::cublas_ref::CublasRef;
use tessel_runtime::device::Device;
use tessel_runtime::dsl::{Instance, Prepared, module_cache};
use tessel_runtime::tensor::DeviceTensor;
use tessel_runtime::timing::{Timing, TimingConfig, gemm_flops, time_gpu};
use tessel_runtime::tune::outcome::plain_table;
use tessel_runtime::verify::{Verification, gemm_tolerance, verify};

/// Command-line options of an f32 GEMM example.
#[derive(Clone, Debug)]
pub struct SgemmOpts {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// The reduction dimension.
    pub k: usize,
    /// Pinned tunables.
    pub sets: Vec<(String, i64)>,
    /// Timed runs per round.
    pub runs: usize,
    /// Sweep the legal configurations and keep the fastest verified one.
    pub tune: bool,
    /// Most configurations a sweep compiles and times.
    pub budget: usize,
}

/// The f32 GEMM examples' flags.
#[derive(clap::Args, Clone, Debug)]
pub struct SgemmArgs {
    /// Rows of A and C
    #[arg(long, default_value_t = 4096, value_parser = crate::flags::positive)]
    pub m: usize,
    /// Columns of B and C
    #[arg(long, default_value_t = 4096, value_parser = crate::flags::positive)]
    pub n: usize,
    /// Reduction dimension
    #[arg(long, default_value_t = 4096, value_parser = crate::flags::positive)]
    pub k: usize,
    /// Set a tunable: NAME=VALUE (repeatable; turns the sweep off)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub sets: Vec<(String, i64)>,
    /// Timed runs per round (at least 20)
    #[arg(long, default_value_t = 20, value_parser = crate::flags::positive)]
    pub runs: usize,
    /// Sweep the legal configurations (the default of the tuned examples)
    #[arg(long, conflicts_with = "no_tune")]
    pub tune: bool,
    /// Run the default configuration, no sweep
    #[arg(long)]
    pub no_tune: bool,
    /// Most configurations a sweep compiles and times
    #[arg(long, default_value_t = 256, value_parser = crate::flags::positive)]
    pub budget: usize,
}

/// An f32 GEMM example's command line.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Runs a tessel f32 GEMM kernel (C = A·B, row-major): writes its .cu, optionally sweeps its tunables, verifies against cuBLAS SGEMM (no TF32) and times both",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct SgemmCli {
    #[command(flatten)]
    pub sgemm: SgemmArgs,
}

impl SgemmArgs {
    /// The options; `tuned` is the example's default for `--tune`. A forced `--tune` /
    /// `--no-tune` is also returned.
    pub fn opts(&self, tuned: bool) -> (SgemmOpts, Option<bool>) {
        let forced = if self.tune {
            Some(true)
        } else if self.no_tune {
            Some(false)
        } else {
            None
        };
        let o = SgemmOpts {
            m: self.m,
            n: self.n,
            k: self.k,
            sets: self.sets.clone(),
            runs: self.runs.max(20),
            tune: forced.unwrap_or(tuned) && self.sets.is_empty(),
            budget: self.budget,
        };
        (o, forced)
    }
}

// ---- the f32 GEMM bench ----------------------------------------------------------------------

/// What one rung measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub kernel: String,
    pub config: String,
    pub mine: Timing,
    pub cublas: Timing,
    pub verify: Verification,
    /// Host f64 spot check: (samples, max error relative to max |reference|).
    pub spot: (usize, f64),
}

impl Outcome {
    pub fn tflops(&self) -> f64 {
        self.mine.tflops.unwrap_or(0.0)
    }
    pub fn cublas_tflops(&self) -> f64 {
        self.cublas.tflops.unwrap_or(0.0)
    }
    pub fn passed(&self) -> bool {
        self.verify.passed() && self.spot.1 < 1e-4
    }
}

/// A, B, C and the cuBLAS reference on one device.
pub struct SgemmBench {
    pub dev: Device,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    cublas: CublasRef,
    a: DeviceTensor<f32>,
    b: DeviceTensor<f32>,
    c: DeviceTensor<f32>,
    reference: DeviceTensor<f32>,
    ref_host: Vec<f32>,
    a_host: Vec<f32>,
    b_host: Vec<f32>,
    pub runs: usize,
}

impl SgemmBench {
    /// Random A and B, poisoned C, and cuBLAS's C (pedantic f32).
    pub fn new(dev: Device, m: usize, n: usize, k: usize, runs: usize) -> Result<Self, String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        let cublas = CublasRef::new(&dev).map_err(|x| e(&x))?;
        let a = DeviceTensor::<f32>::random(&dev, &[m, k], 1).map_err(|x| e(&x))?;
        let b = DeviceTensor::<f32>::random(&dev, &[k, n], 2).map_err(|x| e(&x))?;
        let c = DeviceTensor::<f32>::poisoned(&dev, &[m, n]).map_err(|x| e(&x))?;
        let mut reference = DeviceTensor::<f32>::poisoned(&dev, &[m, n]).map_err(|x| e(&x))?;
        cublas.sgemm_nn(&a, &b, &mut reference).map_err(|x| e(&x))?;
        dev.synchronize().map_err(|x| e(&x))?;
        let ref_host = reference.to_host().map_err(|x| e(&x))?;
        let (a_host, b_host) = (
            a.to_host().map_err(|x| e(&x))?,
            b.to_host().map_err(|x| e(&x))?,
        );
        Ok(SgemmBench {
            dev,
            m,
            n,
            k,
            cublas,
            a,
            b,
            c,
            reference,
            ref_host,
            a_host,
            b_host,
            runs,
        })
    }

    pub fn flops(&self) -> f64 {
        gemm_flops(self.m, self.n, self.k)
    }

    fn instance(
        &self,
        p: &Arc<Prepared>,
        cfg: &Config,
    ) -> Result<(Instance, Vec<tessel_runtime::launch::KernelArg>), String> {
        let tensors = [self.a.as_arg(), self.b.as_arg(), self.c.as_arg()];
        let problem = p.bind(&tensors).map_err(|x| x.to_string())?;
        let inst = Instance::new(&self.dev, module_cache(), p.clone(), cfg, &problem)
            .map_err(|x| x.to_string())?;
        let args = inst.args(&tensors).map_err(|x| x.to_string())?;
        Ok((inst, args))
    }

    /// Launches `cfg` once on poisoned C and compares C with cuBLAS's over every element.
    fn run_and_verify(
        &mut self,
        inst: &Instance,
        args: &[tessel_runtime::launch::KernelArg],
    ) -> Result<Verification, String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        self.c.fill_poison().map_err(|x| e(&x))?;
        inst.launch(args).map_err(|x| e(&x))?;
        self.dev.synchronize().map_err(|x| e(&x))?;
        let out = self.c.to_host().map_err(|x| e(&x))?;
        let tol = gemm_tolerance(
            tessel_runtime::dtype::DType::F32,
            tessel_runtime::dtype::DType::F32,
            tessel_runtime::dtype::DType::F32,
            self.k,
        );
        verify(&out, &self.ref_host, tol).map_err(|x| e(&x))
    }

    /// Sweeps the legal configurations of `def` through the tuner (at most `budget`, the
    /// local strategy, in worker processes; the cached winner when the same sweep already
    /// ran); returns the fastest verified and whether it came from the cache.
    pub fn sweep(
        &mut self,
        def: &'static KernelDef,
        budget: usize,
    ) -> Result<Option<(Config, bool)>, String> {
        let dims = format!("M={},N={},K={}", self.m, self.n, self.k);
        let job = crate::jobs::keyed(|key| crate::jobs::sgemm_job(def, key), &dims)?;
        crate::jobs::tune_job(job, budget)
    }

    /// Verifies `cfg` of `def` and times it against cuBLAS.
    pub fn run(&mut self, def: &'static KernelDef, cfg: &Config) -> Result<Outcome, String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        let p = Prepared::get(def, Variant::default()).map_err(|x| e(&x))?;
        let (inst, args) = self.instance(&p, cfg)?;
        let verify = self.run_and_verify(&inst, &args)?;
        let spot = self.spot_check()?;
        // A slow rung (the naive kernels take ~100 ms at 4096³) gets one round.
        let probe = time_gpu(
            &self.dev,
            &TimingConfig {
                warmup: 1,
                runs: 20,
            },
            None,
            || inst.launch(&args),
        )
        .map_err(|x| e(&x))?;
        let rounds = if probe.median_ms > 20.0 { 1 } else { ROUNDS };
        let tc = TimingConfig {
            warmup: 3,
            runs: self.runs,
        };
        let flops = self.flops();
        let (mut mine, mut theirs) = (vec![probe], Vec::new());
        if rounds > 1 {
            mine.clear();
        }
        for _ in 0..rounds {
            if rounds > 1 {
                mine.push(
                    time_gpu(&self.dev, &tc, Some(flops), || inst.launch(&args))
                        .map_err(|x| e(&x))?,
                );
            }
            let (a, b, r) = (&self.a, &self.b, &mut self.reference);
            let cb = &self.cublas;
            theirs.push(
                time_gpu(&self.dev, &tc, Some(flops), || cb.sgemm_nn(a, b, r))
                    .map_err(|x| e(&x))?,
            );
        }
        Ok(Outcome {
            kernel: def.name.to_string(),
            config: config_text(def, cfg),
            mine: combine(&mine, Some(flops)),
            cublas: combine(&theirs, Some(flops)),
            verify,
            spot,
        })
    }

    /// 512 outputs recomputed in f64 on the host from the inputs.
    fn spot_check(&self) -> Result<(usize, f64), String> {
        let out = self.c.to_host().map_err(|x| x.to_string())?;
        let (m, n, k) = (self.m, self.n, self.k);
        let mut rng = tessel_runtime::dtype::SplitMix64::new(7);
        let samples = 512.min(m * n);
        let (mut worst, mut scale) = (0.0f64, 0.0f64);
        for _ in 0..samples {
            let (i, j) = ((rng.next_u64() as usize) % m, (rng.next_u64() as usize) % n);
            let r: f64 = (0..k)
                .map(|p| f64::from(self.a_host[i * k + p]) * f64::from(self.b_host[p * n + j]))
                .sum();
            worst = worst.max((f64::from(out[i * n + j]) - r).abs());
            scale = scale.max(r.abs());
        }
        Ok((samples, worst / scale.max(1e-30)))
    }
}

/// The bench's SGEMM row: `def` on an `m`×`n`×`k` f32 problem, swept by the tuner (at most `budget`
/// configurations, or the cached winner of the same sweep), then
/// verified over the full output (and by the f64 spot check) and timed against cuBLAS in
/// interleaved rounds. Returns the outcome and whether the configuration came from the cache.
pub fn measure_tuned(
    dev: &Device,
    def: &'static KernelDef,
    (m, n, k): (usize, usize, usize),
    budget: usize,
) -> Result<(Outcome, bool), String> {
    let mut bench = SgemmBench::new(dev.clone(), m, n, k, 20)?;
    let (cfg, cached) = bench
        .sweep(def, budget)?
        .ok_or_else(|| format!("{}: no configuration passed verification", def.name))?;
    Ok((bench.run(def, &cfg)?, cached))
}

/// The `result` line of an f32 GEMM rung.
pub fn result_line(o: &Outcome, m: usize, n: usize, k: usize) -> String {
    format!(
        "result   {} {m}x{n}x{k} f32 {:.2} TFLOP/s = {:.3}x cuBLAS ({:.2}) verify={} config {}",
        o.kernel,
        o.tflops(),
        o.tflops() / o.cublas_tflops().max(1e-9),
        o.cublas_tflops(),
        if o.passed() { "ok" } else { "FAIL" },
        o.config
    )
}

/// Runs one f32 GEMM example; returns the process exit code (see [`crate::exit`]).
/// `tuned`: sweep by default.
pub fn sgemm_main(def: &'static KernelDef, example: &str, tuned: bool, args: &[String]) -> i32 {
    // First: a copy of this program re-launched by the tuner serves trials and exits here.
    crate::jobs::serve(&[], &[def], &[]);
    let cli = match exit::parse::<SgemmCli>(example, args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    exit::finish(example, run_example(def, example, &cli.sgemm.opts(tuned).0))
}

fn run_example(def: &'static KernelDef, example: &str, o: &SgemmOpts) -> Result<bool, exit::Error> {
    let p = Prepared::get(def, Variant::default()).map_err(|e| e.to_string())?;
    let mut cfg = config_with(def, &o.sets).map_err(exit::Error::Usage)?;
    let path = write_cuda(&p, example, &cfg)?;
    println!(
        "kernel   {} (f32), config {}",
        def.name,
        config_text(def, &cfg)
    );
    println!("cuda     {}", path.display());
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => return Err(exit::Error::NoGpu(no_gpu(&p, &cfg, &e.to_string()))),
    };
    let info = dev.info().clone();
    println!(
        "device   {} ({} SMs, {}), problem {}x{}x{} f32, C = A·B row-major",
        info.name, info.sm_count, info.arch, o.m, o.n, o.k
    );
    let mut bench = SgemmBench::new(dev, o.m, o.n, o.k, o.runs)?;
    if o.tune {
        match bench.sweep(def, o.budget)? {
            Some((best, _)) => {
                cfg = best;
                let path = write_cuda(&p, example, &cfg)?;
                println!("winner   {} ({})", config_text(def, &cfg), path.display());
            }
            None => return Err("no configuration passed verification".into()),
        }
    }
    let out = bench.run(def, &cfg)?;
    print_outcome(&out);
    println!("{}", result_line(&out, o.m, o.n, o.k));
    Ok(out.passed())
}

/// One rung of a ladder: the kernel, its example's name, and whether it is swept by default.
#[derive(Clone, Copy)]
pub struct Rung {
    pub def: &'static KernelDef,
    pub example: &'static str,
    pub tuned: bool,
}

/// Runs every rung on one problem (one set of A, B and cuBLAS reference) and prints one table:
/// rung, configuration, time, TFLOP/s, % of cuBLAS, verification. `--tune` / `--no-tune` in
/// `args` apply to every rung; by default each rung follows its example. Returns `Ok(verified)`.
pub fn run_ladder(title: &str, rungs: &[Rung], args: &SgemmArgs) -> Result<bool, exit::Error> {
    let (o, forced) = args.opts(false);
    if !o.sets.is_empty() {
        return Err(exit::Error::Usage(
            "--set names one kernel's tunable; use the rung's own example".into(),
        ));
    }
    let mut plans = Vec::new();
    for r in rungs {
        let p = Prepared::get(r.def, Variant::default()).map_err(|e| e.to_string())?;
        let cfg = r.def.default_config();
        let path = write_cuda(&p, r.example, &cfg)?;
        println!("rung     {:<18} {}", r.example, path.display());
        plans.push((r, p, cfg));
    }
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => {
            let mut compiled = Vec::new();
            for (_, p, cfg) in &plans {
                compiled.push(no_gpu(p, cfg, "none"));
            }
            let ok = compiled.iter().filter(|c| c.contains("compiled `")).count();
            return Err(exit::Error::NoGpu(format!(
                "no GPU to run on ({e}); wrote the .cu of every rung and compiled {ok} of {} with NVRTC.",
                plans.len()
            )));
        }
    };
    let info = dev.info().clone();
    println!(
        "device   {} ({} SMs, {}), problem {}x{}x{} f32, C = A·B row-major",
        info.name, info.sm_count, info.arch, o.m, o.n, o.k
    );
    let mut bench = SgemmBench::new(dev, o.m, o.n, o.k, o.runs)?;
    let mut rows = Vec::new();
    for (r, _, cfg) in plans {
        println!("== {}", r.example);
        let mut cfg = cfg;
        if forced.unwrap_or(r.tuned) {
            match bench.sweep(r.def, o.budget)? {
                Some((best, _)) => cfg = best,
                None => {
                    return Err(
                        format!("{}: no configuration passed verification", r.def.name).into(),
                    );
                }
            }
        }
        let out = bench.run(r.def, &cfg)?;
        println!("{}", result_line(&out, o.m, o.n, o.k));
        rows.push((r.example, out));
    }
    println!("{}", ladder_table(title, &rows));
    Ok(rows.iter().all(|(_, o)| o.passed()))
}

/// The ladder's table.
pub fn ladder_table(title: &str, rows: &[(&str, Outcome)]) -> String {
    let mut body: Vec<Vec<String>> = rows
        .iter()
        .map(|(name, o)| {
            vec![
                name.to_string(),
                format!("{:.4}", o.mine.median_ms),
                format!("{:.2}", o.tflops()),
                format!("{:.1}%", 100.0 * o.tflops() / o.cublas_tflops().max(1e-9)),
                if o.passed() { "ok" } else { "FAIL" }.into(),
                o.config.clone(),
            ]
        })
        .collect();
    if let Some((_, o)) = rows.last() {
        body.push(vec![
            "cuBLAS".into(),
            format!("{:.4}", o.cublas.median_ms),
            format!("{:.2}", o.cublas_tflops()),
            "100.0%".into(),
            String::new(),
            "SGEMM, CUBLAS_COMPUTE_32F_PEDANTIC: no TF32".into(),
        ]);
    }
    format!(
        "ladder {title}\n{}",
        plain_table(
            &[
                "rung",
                "median ms",
                "TFLOP/s",
                "% cuBLAS",
                "verify",
                "config"
            ],
            &body,
            &[0, 5],
        )
    )
}

/// The verification and timing lines of one outcome.
pub fn print_outcome(o: &Outcome) {
    println!("verify   {}", o.verify);
    println!(
        "host     f64 spot check of {} outputs: max relative error {:.2e}",
        o.spot.0, o.spot.1
    );
    println!("{}", timing_table(&o.mine, &o.cublas, true));
}

/// tessel's and cuBLAS's timings side by side (TFLOP/s with two decimals when `fine`).
pub fn timing_table(mine: &Timing, cublas: &Timing, fine: bool) -> String {
    let ratio = 100.0 * mine.tflops.unwrap_or(0.0) / cublas.tflops.unwrap_or(0.0).max(1e-9);
    let rows: Vec<Vec<String>> = [("tessel", mine, ratio), ("cuBLAS", cublas, 100.0)]
        .into_iter()
        .map(|(name, t, pct)| {
            let tf = t.tflops.unwrap_or(0.0);
            vec![
                name.to_string(),
                format!("{:.4}", t.median_ms),
                format!("{:.4}", t.min_ms),
                format!("{:.4}", t.max_ms),
                if fine {
                    format!("{tf:.2}")
                } else {
                    format!("{tf:.1}")
                },
                format!("{pct:.1}%"),
            ]
        })
        .collect();
    plain_table(
        &["", "median ms", "min ms", "max ms", "TFLOP/s", "vs cuBLAS"],
        &rows,
        &[0],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(v: &[&str]) -> Result<SgemmCli, clap::Error> {
        SgemmCli::try_parse_from(std::iter::once("x").chain(v.iter().copied()))
    }

    #[test]
    fn flags() {
        let (o, forced) = parse(&["--m", "512", "--no-tune"])
            .unwrap()
            .sgemm
            .opts(true);
        assert_eq!((o.m, o.n, o.tune, forced), (512, 4096, false, Some(false)));
        let (o, _) = parse(&["--m=512", "--set", "BK=16"])
            .unwrap()
            .sgemm
            .opts(true);
        assert_eq!(o.m, 512);
        assert!(!o.tune, "--set fixes the configuration");
        assert!(parse(&["--m"]).is_err());
        assert!(parse(&["--bogus", "1"]).is_err());
        assert!(parse(&["--m", "0"]).is_err());
        assert!(parse(&["--tune", "--no-tune"]).is_err());
    }
}
