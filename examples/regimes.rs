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
//!
//! Schedules side by side: `--contender KERNEL[:NAME=V,…]` (repeatable; KERNEL is `coop`, the
//! cooperative `kernels/v4_tuned.co`, `pingpong`, `kernels/v4_pingpong.co`, `pingpong128`,
//! `kernels/v4_pingpong_m128.co`, `streamk`, `kernels/v4_streamk.co`, or `cluster`,
//! `kernels/v4_cluster.co`: clusters as a parallel level; `m256`, `kernels/v4_coop_m256.co`: 256-row
//! block tiles; `wide`, `kernels/v4_wide.co`: block tiles two WGMMAs wide; `warp`, the warp-level `mma.sync` kernel
//! `kernels/v2_warp_tma.co`, or `warpws`, `kernels/v2_warp_ws.co`, the same with a producer
//! warpgroup, or `warpws16`, `kernels/v2_warp_ws_f16acc.co`, that one accumulating in f16) times every contender at once, interleaved with both
//! references, on each `--shape MxNxK` (repeatable; default `--size`³). Every contender's output
//! is verified over the whole output; one that fails is reported and the program exits 1.

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

/// The ping-pong schedule, 64-row tiles.
mod pingpong {
    tessel::gemm_kernel!(file = "kernels/v4_pingpong.co");
}

/// The ping-pong schedule, 128-row tiles.
mod pingpong128 {
    tessel::gemm_kernel!(file = "kernels/v4_pingpong_m128.co");
}

/// The cooperative schedule with stream-K for the last wave (f32 accumulator only).
mod streamk {
    tessel::gemm_kernel!(file = "kernels/v4_streamk.co");
}

/// Clusters as a parallel level: the multicast operand(s) picked by `MULTICAST`.
mod cluster {
    tessel::gemm_kernel!(file = "kernels/v4_cluster.co");
}

/// The cooperative schedule with 256-row block tiles (two 128-row consumers).
mod m256 {
    tessel::gemm_kernel!(file = "kernels/v4_coop_m256.co");
}

/// The cooperative schedule with block tiles two WGMMAs wide (128 × 2·HALF_N).
mod wide {
    tessel::gemm_kernel!(file = "kernels/v4_wide.co");
}

/// Warp-level `mma.sync` fed by TMA; one lane of a computing warp issues the copies.
mod warp {
    tessel::gemm_kernel!(file = "kernels/v2_warp_tma.co");
}

/// Warp-level `mma.sync` fed by TMA from a producer warpgroup.
mod warpws {
    tessel::gemm_kernel!(file = "kernels/v2_warp_ws.co");
}

/// The same, accumulating in f16: warp tiles up to 64 × 128 (run it with `--acc f16`).
mod warpws16 {
    tessel::gemm_kernel!(file = "kernels/v2_warp_ws_f16acc.co");
}

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
    /// A tessel contender, `KERNEL[:NAME=V,…]` (KERNEL: coop, pingpong, pingpong128, streamk, cluster,
    /// m256, wide, warp, warpws, warpws16);
    /// repeatable.
    #[arg(long = "contender", value_name = "KERNEL[:NAME=V,…]")]
    contenders: Vec<String>,
    /// A GEMM shape for the contenders, `MxNxK`; repeatable (default: the size cubed).
    #[arg(long = "shape", value_name = "MxNxK")]
    shapes: Vec<String>,
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
    // Usage errors before the device: every shape and contender parses and checks.
    for sh in &a.shapes {
        shape(sh)?;
    }
    let variant = Variant {
        input: Some(input.to_ir()),
        acc: Some(acc.to_ir()),
    };
    for c in &a.contenders {
        contender(c, variant)?;
    }
    let dev = Device::open(0).map_err(|x| (3, x.to_string()))?;
    match input {
        DType::BF16 => run_typed::<bf16>(a, &dev, acc),
        _ => run_typed::<f16>(a, &dev, acc),
    }
}

fn run_typed<T: Element>(a: &Args, dev: &Device, acc: DType) -> Result<(), (u8, String)> {
    if !a.contenders.is_empty() {
        return run_contenders::<T>(a, dev, acc);
    }
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

/// `MxNxK` → (m, n, k).
fn shape(s: &str) -> Result<(usize, usize, usize), (u8, String)> {
    let bad = || (2, format!("--shape takes MxNxK, got `{s}`"));
    let v: Vec<usize> = s
        .split('x')
        .map(|x| x.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    match v.as_slice() {
        [m, n, k] => Ok((*m, *n, *k)),
        _ => Err(bad()),
    }
}

/// `KERNEL[:NAME=V,…]` → a contender of the variant.
fn contender(spec: &str, variant: Variant) -> Result<regimes::Contender, (u8, String)> {
    let (kernel, sets) = spec.split_once(':').unwrap_or((spec, ""));
    let def = match kernel {
        "coop" => &matmul::KERNEL,
        "pingpong" => &pingpong::matmul::KERNEL,
        "pingpong128" => &pingpong128::matmul::KERNEL,
        "streamk" => &streamk::matmul::KERNEL,
        "cluster" => &cluster::matmul::KERNEL,
        "m256" => &m256::matmul::KERNEL,
        "wide" => &wide::matmul::KERNEL,
        "warp" => &warp::matmul::KERNEL,
        "warpws" => &warpws::matmul::KERNEL,
        "warpws16" => &warpws16::matmul::KERNEL,
        _ => {
            return Err((
                2,
                format!(
                    "--contender: unknown kernel `{kernel}` (coop, pingpong, pingpong128, streamk, cluster, m256, wide, warp, warpws, warpws16)"
                ),
            ));
        }
    };
    let p = Prepared::get(def, variant).map_err(|x| (4, x.to_string()))?;
    let mut cfg = Config::defaults(&p.module);
    for kv in sets.split(',').filter(|x| !x.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or((2, format!("--contender {spec}: `{kv}` is not NAME=V")))?;
        let v: i64 = v
            .parse()
            .map_err(|_| (2, format!("--contender {spec}: `{v}` is not an integer")))?;
        if !p.module.tunables.iter().any(|t| t.name.name == k) {
            return Err((
                2,
                format!("--contender {spec}: `{kernel}` has no tunable `{k}`"),
            ));
        }
        cfg.values.insert(k.to_string(), v);
    }
    Ok(regimes::Contender {
        label: format!("{kernel} {cfg}"),
        prepared: p,
        cfg,
    })
}

fn run_contenders<T: Element>(a: &Args, dev: &Device, acc: DType) -> Result<(), (u8, String)> {
    let variant = Variant {
        input: Some(T::DTYPE.to_ir()),
        acc: Some(acc.to_ir()),
    };
    let contenders = a
        .contenders
        .iter()
        .map(|s| contender(s, variant))
        .collect::<Result<Vec<_>, _>>()?;
    let shapes = if a.shapes.is_empty() {
        vec![(a.size, a.size, a.size)]
    } else {
        a.shapes
            .iter()
            .map(|s| shape(s))
            .collect::<Result<_, _>>()?
    };
    let o = RegimeOptions {
        soak_s: a.soak,
        samples: a.samples,
        min_clock: a.min_clock,
        lt_candidates: a.lt_candidates,
    };
    let mut failed = false;
    for (m, n, k) in shapes {
        let row = regimes::measure_many::<T>(dev, &contenders, (m, n, k), acc, &o)?;
        let label = format!("{m}x{n}x{k} {} acc {acc}", T::DTYPE);
        for l in &row.log {
            println!("{label}  {l}");
        }
        for w in &row.wrong {
            println!("{label}  WRONG OUTPUT: {w}");
        }
        failed |= !row.wrong.is_empty();
        for (name, t) in [("burst", &row.burst), ("sustained", &row.sustained)] {
            for l in row.report(name, &label, t) {
                println!("{l}");
            }
        }
    }
    if failed {
        return Err((1, "a contender's output failed verification".into()));
    }
    Ok(())
}
