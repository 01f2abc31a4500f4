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
use tessel::runtime::device::Device;
use tessel::runtime::dsl::Prepared;
use tessel::runtime::dtype::{DType, Element};
use tessel_harness::regimes::{self, RegimeOptions, RegimeRow};

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
        input: Some(T::DTYPE.to_ir()),
        acc: Some(acc.to_ir()),
    };
    let p = Prepared::get(&matmul::KERNEL, variant).map_err(|x| (4, x.to_string()))?;
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
    let o = RegimeOptions {
        soak_s: a.soak,
        samples: a.samples,
        min_clock: a.min_clock,
        lt_candidates: a.lt_candidates,
    };
    let row = regimes::measure::<T>(dev, &p, &cfg, s, acc, &o)?;
    println!("config  {cfg}");
    for l in &row.log {
        println!("{l}");
    }
    let label = format!("{s}³ {} acc {acc}", T::DTYPE);
    for (name, t) in [("burst", &row.burst), ("sustained", &row.sustained)] {
        for l in RegimeRow::report(name, &label, t) {
            println!("{l}");
        }
    }
    Ok(())
}
