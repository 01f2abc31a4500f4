//! A tessel GEMM against the strongest vendor reference, in the burst and sustained regimes
//! (what `examples/regimes.rs` prints and `bench` adds to each GEMM row).
//!
//! The contenders: tessel's kernel at a configuration, `cublasGemmEx`, and cuBLASLt with the
//! fastest of its heuristic's top algorithms (32 MiB workspace; each candidate verified, then
//! timed back to back). Every contender's output is verified against `cublasGemmEx` over the
//! whole output; then all three are timed interleaved in the burst regime (idle, L2 flush,
//! boost-clock samples only) and the sustained regime (after a thermal soak, trimmed median of
//! rounds), with the SM clock, power and temperature (NVML). The ratio of a regime is tessel
//! against the faster reference of that regime.

use std::sync::Arc;

use dsl_core::check::Config;
use tessel_runtime::clocks::Clocks;
use tessel_runtime::cublas_ref::{CublasRef, GemmCompute, plan_nt};
use tessel_runtime::cublaslt_ref::LtRef;
use tessel_runtime::device::Device;
use tessel_runtime::dsl::{Instance, Prepared, module_cache};
use tessel_runtime::dtype::{DType, Element};
use tessel_runtime::regime::{self, BurstConfig, RegimeTiming, SustainedConfig, Work};
use tessel_runtime::tensor::DeviceTensor;
use tessel_runtime::timing::{TimingConfig, gemm_flops, time_gpu};
use tessel_runtime::verify::{gemm_tolerance, verify};

/// The contenders' names, in the order of [`RegimeRow`]'s timings.
pub const CONTENDERS: [&str; 3] = ["tessel", "cublasGemmEx", "cublasLt"];

/// How long and how carefully to time.
#[derive(Clone, Copy, Debug)]
pub struct RegimeOptions {
    /// Seconds of back-to-back running before the sustained rounds.
    pub soak_s: f64,
    /// Burst samples per contender.
    pub samples: usize,
    /// Burst: keep samples at or above this fraction of the maximum SM clock.
    pub min_clock: f64,
    /// cuBLASLt heuristic candidates to time.
    pub lt_candidates: usize,
}

impl Default for RegimeOptions {
    fn default() -> Self {
        RegimeOptions {
            soak_s: SustainedConfig::default().soak_s,
            samples: BurstConfig::default().samples,
            min_clock: BurstConfig::default().min_clock_frac,
            lt_candidates: 8,
        }
    }
}

/// One GEMM measured in both regimes.
#[derive(Clone, Debug)]
pub struct RegimeRow {
    /// What was measured on the way, one line each: tessel's verification, every cuBLASLt
    /// candidate (time, verified or not), the chosen algorithm, the maximum SM clock.
    pub log: Vec<String>,
    /// The fastest verified cuBLASLt algorithm.
    pub lt_best: String,
    /// Burst timings of [`CONTENDERS`].
    pub burst: Vec<RegimeTiming>,
    /// Sustained timings of [`CONTENDERS`].
    pub sustained: Vec<RegimeTiming>,
}

impl RegimeRow {
    /// tessel against the faster reference of `timings`: (ratio, the reference's name).
    pub fn ratio(timings: &[RegimeTiming]) -> (f64, &'static str) {
        let tf = |x: &RegimeTiming| x.tflops.unwrap_or(0.0);
        let (name, r) = if tf(&timings[1]) >= tf(&timings[2]) {
            (CONTENDERS[1], &timings[1])
        } else {
            (CONTENDERS[2], &timings[2])
        };
        (tf(&timings[0]) / tf(r).max(1e-9), name)
    }

    /// The lines `regimes` prints for one regime: each contender, then the ratio.
    pub fn report(regime: &str, label: &str, timings: &[RegimeTiming]) -> Vec<String> {
        let mut out: Vec<String> = CONTENDERS
            .iter()
            .zip(timings)
            .map(|(n, x)| format!("{regime:9} {label}  {n:13} {x}"))
            .collect();
        let (ratio, name) = Self::ratio(timings);
        let tf = |x: &RegimeTiming| x.tflops.unwrap_or(0.0);
        let best_ref = timings[1..].iter().map(tf).fold(0.0, f64::max);
        out.push(format!(
            "{regime:9} {label}  ratio {ratio:.3} (tessel {:.1} vs {name} {best_ref:.1} TFLOP/s)",
            tf(&timings[0])
        ));
        out
    }
}

fn e<E: std::fmt::Display>(x: E) -> (u8, String) {
    (4, x.to_string())
}

/// Measures `p` at `cfg` on an `s`³ NT GEMM with inputs `T` and accumulator `acc` against
/// both references in both regimes. Errors carry an exit code: 1 when an output fails its
/// verification, 4 otherwise.
pub fn measure<T: Element>(
    dev: &Device,
    p: &Arc<Prepared>,
    cfg: &Config,
    s: usize,
    acc: DType,
    o: &RegimeOptions,
) -> Result<RegimeRow, (u8, String)> {
    let mut log = Vec::new();
    let lhs = DeviceTensor::<T>::random(dev, &[s, s], 1).map_err(e)?;
    let rhs = DeviceTensor::<T>::random(dev, &[s, s], 2).map_err(e)?;
    let out = DeviceTensor::<T>::poisoned(dev, &[s, s]).map_err(e)?;
    let tensors = [lhs.as_arg(), rhs.as_arg(), out.as_arg()];
    let problem = p.bind(&tensors).map_err(e)?;
    let inst = Instance::new(dev, module_cache(), p.clone(), cfg, &problem).map_err(e)?;
    let kargs = inst.args(&tensors).map_err(e)?;
    let compute = if acc == DType::F16 {
        GemmCompute::F16
    } else {
        GemmCompute::F32
    };
    let blas = CublasRef::new(dev).map_err(e)?;
    let mut lt = LtRef::new(dev).map_err(e)?;
    let plan = plan_nt(s, s, s);
    let flops = gemm_flops(s, s, s);
    let tol = gemm_tolerance(T::DTYPE, acc, T::DTYPE, s);

    // Correctness of every contender against cublasGemmEx, over the whole output.
    let mut reference = DeviceTensor::<T>::poisoned(dev, &[s, s]).map_err(e)?;
    blas.gemm_nt(&lhs, &rhs, &mut reference, compute)
        .map_err(e)?;
    inst.launch(&kargs).map_err(e)?;
    dev.synchronize().map_err(e)?;
    let want = reference.to_host().map_err(e)?;
    let v = verify(&out.to_host().map_err(e)?, &want, tol).map_err(e)?;
    log.push(format!("tessel  {v}"));
    if !v.passed() {
        return Err((1, "tessel's output failed verification".into()));
    }

    // The fastest cuBLASLt algorithm, each candidate verified and timed back to back.
    let cands = lt
        .candidates(&plan, T::DTYPE, T::DTYPE, compute, o.lt_candidates)
        .map_err(e)?;
    let mut lt_out = DeviceTensor::<T>::poisoned(dev, &[s, s]).map_err(e)?;
    let (l, r, lo) = (lhs.device_ptr(), rhs.device_ptr(), lt_out.device_ptr());
    let tc = TimingConfig {
        warmup: 3,
        runs: 20,
    };
    let mut best: Option<(f64, usize)> = None;
    for (i, c) in cands.iter().enumerate() {
        lt_out.fill_poison().map_err(e)?;
        // SAFETY: the tensors are live, shaped [s, s], and the candidate is for this plan.
        unsafe { lt.run(&plan, T::DTYPE, T::DTYPE, compute, c, l, r, lo) }.map_err(e)?;
        dev.synchronize().map_err(e)?;
        let ok = verify(&lt_out.to_host().map_err(e)?, &want, tol).map_err(e)?;
        let t = time_gpu(dev, &tc, Some(flops), || unsafe {
            lt.run(&plan, T::DTYPE, T::DTYPE, compute, c, l, r, lo)
        })
        .map_err(e)?;
        log.push(format!(
            "lt #{}  {}  {}  {}",
            c.rank,
            c.desc,
            t,
            if ok.passed() { "verified" } else { "WRONG" }
        ));
        if ok.passed() && best.is_none_or(|(ms, _)| t.median_ms < ms) {
            best = Some((t.median_ms, i));
        }
    }
    let (_, bi) = best.ok_or((4, "no cuBLASLt candidate ran and verified".to_string()))?;
    let best_lt = cands[bi];
    let lt_best = format!("#{} {}", best_lt.rank, best_lt.desc);
    log.push(format!("lt best: {lt_best}"));

    let clocks = match Clocks::open(dev) {
        Ok(c) => Some(c),
        Err(x) => {
            log.push(format!("no clocks ({x}); burst samples cannot be filtered"));
            None
        }
    };
    let mut reference_out = DeviceTensor::<T>::poisoned(dev, &[s, s]).map_err(e)?;
    let mut w_tessel = || inst.launch(&kargs).map_err(|x| x.to_string());
    let mut w_blas = || {
        blas.gemm_nt(&lhs, &rhs, &mut reference_out, compute)
            .map_err(|x| x.to_string())
    };
    let mut w_lt = || unsafe {
        lt.run(&plan, T::DTYPE, T::DTYPE, compute, &best_lt, l, r, lo)
            .map_err(|x| x.to_string())
    };
    let mut work: [Work<'_>; 3] = [&mut w_tessel, &mut w_blas, &mut w_lt];
    let bcfg = BurstConfig {
        samples: o.samples,
        min_clock_frac: o.min_clock,
        ..BurstConfig::default()
    };
    let burst = regime::burst(dev, clocks.as_ref(), &bcfg, Some(flops), &mut work).map_err(e)?;
    let scfg = SustainedConfig {
        soak_s: o.soak_s,
        ..SustainedConfig::default()
    };
    let sustained =
        regime::sustained(dev, clocks.as_ref(), &scfg, Some(flops), &mut work).map_err(e)?;
    if let Some(c) = &clocks {
        log.push(format!("max SM clock {} MHz", c.max_sm_mhz));
    }
    Ok(RegimeRow {
        log,
        lt_best,
        burst,
        sustained,
    })
}

/// One tessel contender of [`measure_many`]: a label, a prepared kernel and its configuration.
pub struct Contender {
    pub label: String,
    pub prepared: Arc<Prepared>,
    pub cfg: Config,
}

/// Several tessel kernels and the two references, one GEMM, both regimes.
#[derive(Clone, Debug)]
pub struct ManyRow {
    /// Verification and cuBLASLt candidates, one line each (as [`RegimeRow::log`]).
    pub log: Vec<String>,
    /// The timed contenders' names: the tessel labels that verified, then `cublasGemmEx`,
    /// `cublasLt`.
    pub names: Vec<String>,
    /// Labels of tessel contenders whose output failed verification (not timed).
    pub wrong: Vec<String>,
    pub burst: Vec<RegimeTiming>,
    pub sustained: Vec<RegimeTiming>,
}

impl ManyRow {
    /// The lines for one regime: each contender with its ratio to the faster reference.
    pub fn report(&self, regime: &str, label: &str, timings: &[RegimeTiming]) -> Vec<String> {
        let tf = |x: &RegimeTiming| x.tflops.unwrap_or(0.0);
        let n = timings.len();
        let best_ref = timings[n - 2..].iter().map(tf).fold(0.0, f64::max);
        let ref_name = if tf(&timings[n - 2]) >= tf(&timings[n - 1]) {
            "cublasGemmEx"
        } else {
            "cublasLt"
        };
        self.names
            .iter()
            .zip(timings)
            .enumerate()
            .map(|(i, (name, x))| {
                let ratio = if i + 2 < n {
                    format!("  ratio {:.3} vs {ref_name}", tf(x) / best_ref.max(1e-9))
                } else {
                    String::new()
                };
                format!("{regime:9} {label}  {name:28} {x}{ratio}")
            })
            .collect()
    }
}

/// Measures each tessel contender on an `m × n × k` NT GEMM (inputs `T`, accumulator `acc`)
/// against `cublasGemmEx` and cuBLASLt's fastest verified candidate, all interleaved in both
/// regimes. Each contender's output is verified over the whole output first; one that fails
/// is reported in [`ManyRow::wrong`] and not timed. Errors carry an exit code (4).
pub fn measure_many<T: Element>(
    dev: &Device,
    contenders: &[Contender],
    (m, n, k): (usize, usize, usize),
    acc: DType,
    o: &RegimeOptions,
) -> Result<ManyRow, (u8, String)> {
    let mut log = Vec::new();
    let lhs = DeviceTensor::<T>::random(dev, &[m, k], 1).map_err(e)?;
    let rhs = DeviceTensor::<T>::random(dev, &[n, k], 2).map_err(e)?;
    let compute = if acc == DType::F16 {
        GemmCompute::F16
    } else {
        GemmCompute::F32
    };
    let blas = CublasRef::new(dev).map_err(e)?;
    let mut lt = LtRef::new(dev).map_err(e)?;
    let plan = plan_nt(m, n, k);
    let flops = gemm_flops(m, n, k);
    let tol = gemm_tolerance(T::DTYPE, acc, T::DTYPE, k);
    let mut reference = DeviceTensor::<T>::poisoned(dev, &[m, n]).map_err(e)?;
    blas.gemm_nt(&lhs, &rhs, &mut reference, compute)
        .map_err(e)?;
    dev.synchronize().map_err(e)?;
    let want = reference.to_host().map_err(e)?;

    // Each tessel contender: its own output, verified over the whole of it.
    let mut outs = Vec::new();
    let mut insts = Vec::new();
    let mut names = Vec::new();
    let mut wrong = Vec::new();
    for c in contenders {
        let out = DeviceTensor::<T>::poisoned(dev, &[m, n]).map_err(e)?;
        let tensors = [lhs.as_arg(), rhs.as_arg(), out.as_arg()];
        let problem = c.prepared.bind(&tensors).map_err(e)?;
        let inst = match Instance::new(dev, module_cache(), c.prepared.clone(), &c.cfg, &problem) {
            Ok(i) => i,
            Err(x) => {
                log.push(format!("{}  not built: {x}", c.label));
                continue;
            }
        };
        let kargs = inst.args(&tensors).map_err(e)?;
        inst.launch(&kargs).map_err(e)?;
        dev.synchronize().map_err(e)?;
        let v = verify(&out.to_host().map_err(e)?, &want, tol).map_err(e)?;
        log.push(format!("{}  {v}", c.label));
        if !v.passed() {
            wrong.push(c.label.clone());
            continue;
        }
        names.push(c.label.clone());
        insts.push((inst, kargs));
        outs.push(out);
    }

    let cands = lt
        .candidates(&plan, T::DTYPE, T::DTYPE, compute, o.lt_candidates)
        .map_err(e)?;
    let mut lt_out = DeviceTensor::<T>::poisoned(dev, &[m, n]).map_err(e)?;
    let (l, r, lo) = (lhs.device_ptr(), rhs.device_ptr(), lt_out.device_ptr());
    let tc = TimingConfig {
        warmup: 3,
        runs: 20,
    };
    let mut best: Option<(f64, usize)> = None;
    for (i, c) in cands.iter().enumerate() {
        lt_out.fill_poison().map_err(e)?;
        // SAFETY: the tensors are live, shaped for this plan, and the candidate is for it.
        unsafe { lt.run(&plan, T::DTYPE, T::DTYPE, compute, c, l, r, lo) }.map_err(e)?;
        dev.synchronize().map_err(e)?;
        let ok = verify(&lt_out.to_host().map_err(e)?, &want, tol).map_err(e)?;
        let t = time_gpu(dev, &tc, Some(flops), || unsafe {
            lt.run(&plan, T::DTYPE, T::DTYPE, compute, c, l, r, lo)
        })
        .map_err(e)?;
        log.push(format!(
            "lt #{}  {}  {}  {}",
            c.rank,
            c.desc,
            t,
            if ok.passed() { "verified" } else { "WRONG" }
        ));
        if ok.passed() && best.is_none_or(|(ms, _)| t.median_ms < ms) {
            best = Some((t.median_ms, i));
        }
    }
    let (_, bi) = best.ok_or((4, "no cuBLASLt candidate ran and verified".to_string()))?;
    let best_lt = cands[bi];
    log.push(format!("lt best: #{} {}", best_lt.rank, best_lt.desc));

    let clocks = match Clocks::open(dev) {
        Ok(c) => Some(c),
        Err(x) => {
            log.push(format!("no clocks ({x}); burst samples cannot be filtered"));
            None
        }
    };
    let mut reference_out = DeviceTensor::<T>::poisoned(dev, &[m, n]).map_err(e)?;
    let mut tessel_work: Vec<Box<dyn FnMut() -> Result<(), String> + '_>> = insts
        .iter()
        .map(|(inst, kargs)| {
            Box::new(move || inst.launch(kargs).map_err(|x| x.to_string()))
                as Box<dyn FnMut() -> Result<(), String>>
        })
        .collect();
    let mut w_blas = || {
        blas.gemm_nt(&lhs, &rhs, &mut reference_out, compute)
            .map_err(|x| x.to_string())
    };
    let mut w_lt = || unsafe {
        lt.run(&plan, T::DTYPE, T::DTYPE, compute, &best_lt, l, r, lo)
            .map_err(|x| x.to_string())
    };
    let mut work: Vec<Work<'_>> = tessel_work
        .iter_mut()
        .map(|w| &mut **w as Work<'_>)
        .collect();
    work.push(&mut w_blas);
    work.push(&mut w_lt);
    names.push("cublasGemmEx".into());
    names.push("cublasLt".into());
    let bcfg = BurstConfig {
        samples: o.samples,
        min_clock_frac: o.min_clock,
        ..BurstConfig::default()
    };
    let burst = regime::burst(dev, clocks.as_ref(), &bcfg, Some(flops), &mut work).map_err(e)?;
    let scfg = SustainedConfig {
        soak_s: o.soak_s,
        ..SustainedConfig::default()
    };
    let sustained =
        regime::sustained(dev, clocks.as_ref(), &scfg, Some(flops), &mut work).map_err(e)?;
    if let Some(c) = &clocks {
        log.push(format!("max SM clock {} MHz", c.max_sm_mhz));
    }
    drop(outs);
    Ok(ManyRow {
        log,
        names,
        wrong,
        burst,
        sustained,
    })
}
