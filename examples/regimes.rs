//! tessel's v4 GEMM against the strongest vendor reference, in the burst and sustained regimes.
//!
//! For each row: tessel's kernel at the given configuration, `cublasGemmEx`, and cuBLASLt with
//! each of its heuristic's top algorithms (32 MiB workspace). Every contender's output is
//! verified against `cublasGemmEx` over the whole output; the fastest cuBLASLt algorithm (timed
//! back to back) joins `cublasGemmEx` as a reference, and all three are timed interleaved in
//! the burst regime (idle, L2 flush, boost-clock samples only) and the sustained regime (after a
//! thermal soak, trimmed median of rounds), with the SM clock, power and temperature (NVML).
//! The ratio is tessel against the faster reference of each regime.
//!
//! Run: `cargo run --release --example regimes -- [--size 8192] [--dtype f16|bf16] [--acc f16|f32]
//!       [--set NAME=V …] [--soak 15] [--samples 40]`

use std::process::ExitCode;

use clap::Parser;
use half::{bf16, f16};
use tessel::dsl_core::check::Config;
use tessel::dsl_core::def::Variant;
use tessel::dsl_core::ir;
use tessel::runtime::clocks::Clocks;
use tessel::runtime::cublas_ref::{CublasRef, GemmCompute, plan_nt};
use tessel::runtime::cublaslt_ref::LtRef;
use tessel::runtime::device::Device;
use tessel::runtime::dsl::{Instance, Prepared, module_cache};
use tessel::runtime::dtype::{DType, Element};
use tessel::runtime::regime::{self, BurstConfig, RegimeTiming, SustainedConfig, Work};
use tessel::runtime::tensor::DeviceTensor;
use tessel::runtime::timing::{TimingConfig, gemm_flops, time_gpu};
use tessel::runtime::verify::{gemm_tolerance, verify};

tessel::gemm_kernel!(file = "kernels/v4_tuned.co");

#[derive(Parser, Debug)]
#[command(
    version,
    about = "v4 against cuBLAS and cuBLASLt, burst and sustained",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
struct Args {
    /// M = N = K.
    #[arg(long, default_value_t = 8192)]
    size: usize,
    /// Input element type: f16 or bf16.
    #[arg(long, default_value = "f16")]
    dtype: String,
    /// Accumulator: f16 or f32.
    #[arg(long, default_value = "f32")]
    acc: String,
    /// Pin a tunable: NAME=V (repeatable).
    #[arg(long = "set", value_name = "NAME=V")]
    sets: Vec<String>,
    /// Seconds of back-to-back running before the sustained rounds.
    #[arg(long, default_value_t = 15.0)]
    soak: f64,
    /// Burst samples per contender.
    #[arg(long, default_value_t = 40)]
    samples: usize,
    /// Burst: keep samples at or above this fraction of the maximum SM clock.
    #[arg(long, default_value_t = 0.90)]
    min_clock: f64,
    /// cuBLASLt heuristic candidates to time.
    #[arg(long, default_value_t = 8)]
    lt_candidates: usize,
}

fn dtype(s: &str) -> Result<DType, String> {
    match s {
        "f16" => Ok(DType::F16),
        "bf16" => Ok(DType::BF16),
        "f32" => Ok(DType::F32),
        _ => Err(format!("unknown dtype `{s}` (f16, bf16, f32)")),
    }
}

fn ir_dtype(d: DType) -> ir::DType {
    match d {
        DType::F16 => ir::DType::F16,
        DType::BF16 => ir::DType::BF16,
        DType::F32 => ir::DType::F32,
        DType::F8E4M3 => ir::DType::F8E4M3,
        DType::F8E5M2 => ir::DType::F8E5M2,
        DType::S8 => ir::DType::S8,
        DType::S32 => ir::DType::I32,
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, msg)) => {
            eprintln!("regimes: {msg}");
            ExitCode::from(code)
        }
    }
}

fn e<E: std::fmt::Display>(x: E) -> (u8, String) {
    (4, x.to_string())
}

fn run(a: &Args) -> Result<(), (u8, String)> {
    let input = dtype(&a.dtype).map_err(|m| (2, m))?;
    let acc = dtype(&a.acc).map_err(|m| (2, m))?;
    let dev = Device::open(0).map_err(|x| (3, x.to_string()))?;
    match input {
        DType::BF16 => run_typed::<bf16>(a, &dev, acc),
        _ => run_typed::<f16>(a, &dev, acc),
    }
}

fn run_typed<T: Element>(a: &Args, dev: &Device, acc: DType) -> Result<(), (u8, String)> {
    let s = a.size;
    let variant = Variant {
        input: Some(ir_dtype(T::DTYPE)),
        acc: Some(ir_dtype(acc)),
    };
    let p = Prepared::get(&matmul::KERNEL, variant).map_err(e)?;
    let mut cfg = Config::defaults(&p.module);
    for kv in &a.sets {
        let (k, v) = kv
            .split_once('=')
            .ok_or((2, format!("--set takes NAME=V, got `{kv}`")))?;
        let v: i64 = v
            .parse()
            .map_err(|_| (2, format!("--set {k}: `{v}` is not an integer")))?;
        cfg.values.insert(k.to_string(), v);
    }
    let lhs = DeviceTensor::<T>::random(dev, &[s, s], 1).map_err(e)?;
    let rhs = DeviceTensor::<T>::random(dev, &[s, s], 2).map_err(e)?;
    let out = DeviceTensor::<T>::poisoned(dev, &[s, s]).map_err(e)?;
    let tensors = [lhs.as_arg(), rhs.as_arg(), out.as_arg()];
    let problem = p.bind(&tensors).map_err(e)?;
    let inst = Instance::new(dev, module_cache(), p.clone(), &cfg, &problem).map_err(e)?;
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
    println!("tessel  {} ({})", v, cfg_text(&cfg));
    if !v.passed() {
        return Err((1, "tessel's output failed verification".into()));
    }

    // The fastest cuBLASLt algorithm, each candidate verified and timed back to back.
    let cands = lt
        .candidates(&plan, T::DTYPE, T::DTYPE, compute, a.lt_candidates)
        .map_err(e)?;
    let mut lt_out = DeviceTensor::<T>::poisoned(dev, &[s, s]).map_err(e)?;
    let (l, r, o) = (lhs.device_ptr(), rhs.device_ptr(), lt_out.device_ptr());
    let tc = TimingConfig {
        warmup: 3,
        runs: 20,
    };
    let mut best: Option<(f64, usize)> = None;
    for (i, c) in cands.iter().enumerate() {
        lt_out.fill_poison().map_err(e)?;
        // SAFETY: the tensors are live, shaped [s, s], and the candidate is for this plan.
        unsafe { lt.run(&plan, T::DTYPE, T::DTYPE, compute, c, l, r, o) }.map_err(e)?;
        dev.synchronize().map_err(e)?;
        let ok = verify(&lt_out.to_host().map_err(e)?, &want, tol).map_err(e)?;
        let t = time_gpu(dev, &tc, Some(flops), || unsafe {
            lt.run(&plan, T::DTYPE, T::DTYPE, compute, c, l, r, o)
        })
        .map_err(e)?;
        println!(
            "lt #{}  {}  {}  {}",
            c.rank,
            c.desc,
            t,
            if ok.passed() { "verified" } else { "WRONG" }
        );
        if ok.passed() && best.is_none_or(|(ms, _)| t.median_ms < ms) {
            best = Some((t.median_ms, i));
        }
    }
    let (_, bi) = best.ok_or((4, "no cuBLASLt candidate ran and verified".to_string()))?;
    let best_lt = cands[bi];
    println!("lt best: #{} {}", best_lt.rank, best_lt.desc);

    let clocks = match Clocks::open(dev) {
        Ok(c) => Some(c),
        Err(x) => {
            eprintln!("regimes: no clocks ({x}); burst samples cannot be filtered");
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
        lt.run(&plan, T::DTYPE, T::DTYPE, compute, &best_lt, l, r, o)
            .map_err(|x| x.to_string())
    };
    let mut work: [Work<'_>; 3] = [&mut w_tessel, &mut w_blas, &mut w_lt];
    let bcfg = BurstConfig {
        samples: a.samples,
        min_clock_frac: a.min_clock,
        ..BurstConfig::default()
    };
    let burst = regime::burst(dev, clocks.as_ref(), &bcfg, Some(flops), &mut work).map_err(e)?;
    let scfg = SustainedConfig {
        soak_s: a.soak,
        ..SustainedConfig::default()
    };
    let sustained =
        regime::sustained(dev, clocks.as_ref(), &scfg, Some(flops), &mut work).map_err(e)?;
    if let Some(c) = &clocks {
        println!("max SM clock {} MHz", c.max_sm_mhz);
    }
    for (name, t) in [("burst", &burst), ("sustained", &sustained)] {
        report(name, s, T::DTYPE, acc, t);
    }
    Ok(())
}

fn cfg_text(cfg: &Config) -> String {
    cfg.values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn report(regime: &str, s: usize, input: DType, acc: DType, t: &[RegimeTiming]) {
    let names = ["tessel", "cublasGemmEx", "cublasLt"];
    for (n, x) in names.iter().zip(t) {
        println!("{regime:9} {s}³ {input} acc {acc}  {n:13} {x}");
    }
    let tf = |x: &RegimeTiming| x.tflops.unwrap_or(0.0);
    let (ref_name, ref_t) = if tf(&t[1]) >= tf(&t[2]) {
        (names[1], &t[1])
    } else {
        (names[2], &t[2])
    };
    println!(
        "{regime:9} {s}³ {input} acc {acc}  ratio {:.3} (tessel {:.1} vs {ref_name} {:.1} TFLOP/s)",
        tf(&t[0]) / tf(ref_t).max(1e-9),
        tf(&t[0]),
        tf(ref_t)
    );
}
