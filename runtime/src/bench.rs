//! The `bench` example: one process, one table — the tuned tessel kernels next to cuBLAS (same
//! layout and precision, measured in this process, interleaved), plus the device's copy
//! bandwidth as the memory roofline.
//!
//! GEMM rows: fp16 and bf16 at 8192³ and 4096³ with f32 accumulation, and fp16 with f16
//! accumulation (seed 004's choice). Each row's configuration is the tuner's winner for that
//! (dtype, shape) on this GPU — from the tune cache when present, tuned first otherwise — then
//! re-verified and re-timed here. Extra rows (the SGEMM ladder's top rung, GEMV) are added by
//! the callers that own those kernels through [`BenchRow`].

use std::fmt::Write as _;

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir::DType;
use half::{bf16, f16};

use crate::device::Device;
use crate::dsl::Prepared;
use crate::example::{GemmMeasurement, measure_gemm};
use crate::tune::cli::{SEED_004_SPACE, parse_tune_flags};
use crate::tune::{Shape, Target, TuneOptions, Tuner};

/// One line of the table.
#[derive(Clone, Debug)]
pub struct BenchRow {
    pub workload: String,
    pub shape: String,
    pub dtype: String,
    /// tessel's rate (TFLOP/s, or TB/s when `bandwidth`).
    pub tessel: f64,
    /// The reference's rate in the same unit (cuBLAS, or the copy bandwidth).
    pub reference: f64,
    pub bandwidth: bool,
    /// % of the roofline ceiling (measured ceilings: the best dense-GEMM rate seen, the copy bandwidth).
    pub roofline_pct: Option<f64>,
    pub verified: bool,
    pub config: String,
}

pub fn render(rows: &[BenchRow]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<24} {:<16} {:<14} {:>10} {:>10} {:>7} {:>8} {:>6}  config",
        "workload", "shape", "dtype", "tessel", "reference", "ratio", "roofline", "verify"
    );
    for r in rows {
        let unit = if r.bandwidth { "TB/s" } else { "TF/s" };
        let _ = writeln!(
            t,
            "{:<24} {:<16} {:<14} {:>5.1} {unit} {:>5.1} {unit} {:>7.3} {:>8} {:>6}  {}",
            r.workload,
            r.shape,
            r.dtype,
            r.tessel,
            r.reference,
            r.tessel / r.reference.max(1e-12),
            r.roofline_pct
                .map(|p| format!("{p:.1}%"))
                .unwrap_or_else(|| "-".into()),
            if r.verified { "ok" } else { "FAIL" },
            r.config
        );
    }
    t
}

/// Device-to-device copy bandwidth (bytes read + written per second, TB/s) over `bytes`.
pub fn copy_bandwidth(dev: &Device, bytes: usize) -> Result<f64, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let stream = dev.stream();
    let src = stream.alloc_zeros::<u8>(bytes).map_err(|x| e(&x))?;
    let mut dst = stream.alloc_zeros::<u8>(bytes).map_err(|x| e(&x))?;
    let tc = crate::timing::TimingConfig {
        warmup: 3,
        runs: 20,
    };
    let t = crate::timing::time_gpu(dev, &tc, None, || stream.memcpy_dtod(&src, &mut dst))
        .map_err(|x| e(&x))?;
    Ok(2.0 * bytes as f64 / (t.median_ms * 1e-3) / 1e12)
}

/// The GEMM rows for `def` (a kernel with the seed-004 tunables).
pub fn gemm_rows(
    dev: &Device,
    def: &'static KernelDef,
    args: &[String],
    rows: &mut Vec<BenchRow>,
) -> Result<(), String> {
    let f = parse_tune_flags(args)?;
    let cases = [
        (DType::F16, DType::F32, 8192),
        (DType::BF16, DType::F32, 8192),
        (DType::F16, DType::F32, 4096),
        (DType::BF16, DType::F32, 4096),
        (DType::F16, DType::F16, 8192),
        (DType::F16, DType::F16, 4096),
    ];
    for (input, acc, s) in cases {
        let variant = Variant {
            input: Some(input),
            acc: Some(acc),
        };
        let mut target = Target::dsl(def, variant).map_err(|e| e.to_string())?;
        let pins: Vec<(String, i64)> = target
            .tunables
            .iter()
            .filter(|t| !SEED_004_SPACE.contains(&t.name.as_str()))
            .map(|t| (t.name.clone(), t.default))
            .collect();
        for (n, v) in pins {
            target.pin(&n, v).map_err(|e| e.to_string())?;
        }
        let opts = TuneOptions {
            strategy: f.strategy,
            budget: f.budget,
            seed: f.seed,
            retune: f.retune,
            gpus: f.gpus.clone(),
            progress: false,
            ..TuneOptions::default()
        };
        let outcome = Tuner::new(target, Shape::new(s, s, s), opts)
            .run()
            .map_err(|e| e.to_string())?;
        let w = outcome
            .winner
            .as_ref()
            .ok_or_else(|| format!("no legal configuration won for {input}/{acc} {s}³"))?;
        let cfg = Config {
            values: w.config.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        };
        let p = Prepared::get(def, variant).map_err(|e| e.to_string())?;
        let m: GemmMeasurement = match input {
            DType::BF16 => measure_gemm::<bf16>(dev, &p, &cfg, (s, s, s), 20)?,
            _ => measure_gemm::<f16>(dev, &p, &cfg, (s, s, s), 20)?,
        };
        let cfg_text = cfg
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        rows.push(BenchRow {
            workload: format!(
                "GEMM {} (v4, tuned{})",
                def.name,
                if outcome.from_cache { ", cached" } else { "" }
            ),
            shape: format!("{s}x{s}x{s}"),
            dtype: format!("{input} acc {acc}"),
            tessel: m.tessel.tflops.unwrap_or(0.0),
            reference: m.cublas.tflops.unwrap_or(0.0),
            bandwidth: false,
            roofline_pct: None,
            verified: m.verification.passed(),
            config: cfg_text,
        });
        eprintln!(
            "bench    {}",
            render(&rows[rows.len() - 1..]).lines().nth(1).unwrap_or("")
        );
    }
    Ok(())
}

/// Fills each GEMM row's roofline column with the % of the best dense rate measured in the run
/// (tessel or cuBLAS, any dtype): the measured compute ceiling.
pub fn fill_rooflines(rows: &mut [BenchRow], copy_tbs: f64) {
    let peak = rows
        .iter()
        .filter(|r| !r.bandwidth)
        .flat_map(|r| [r.tessel, r.reference])
        .fold(0.0, f64::max);
    for r in rows.iter_mut() {
        r.roofline_pct =
            Some(100.0 * r.tessel / if r.bandwidth { copy_tbs } else { peak }.max(1e-12));
    }
}

/// `main` of the bench example: copy bandwidth, the GEMM rows, then `extra` (rows measured by
/// the caller's own kernels), one table. Returns the exit code.
pub fn bench_main(
    def: &'static KernelDef,
    args: &[String],
    extra: &dyn Fn(&Device, &mut Vec<BenchRow>) -> Result<(), String>,
) -> i32 {
    let run = || -> Result<bool, String> {
        let dev = Device::open(0).map_err(|e| format!("no GPU to run on ({e})"))?;
        let info = dev.info();
        println!(
            "device   {} ({} SMs, {}, driver {})",
            info.name, info.sm_count, info.arch, info.driver_version
        );
        let copy = copy_bandwidth(&dev, 1 << 30)?;
        let mut rows = vec![BenchRow {
            workload: "device copy (memcpy dtod)".into(),
            shape: "1 GiB".into(),
            dtype: "bytes".into(),
            tessel: copy,
            reference: copy,
            bandwidth: true,
            roofline_pct: None,
            verified: true,
            config: "read + write bytes / time".into(),
        }];
        gemm_rows(&dev, def, args, &mut rows)?;
        extra(&dev, &mut rows)?;
        fill_rooflines(&mut rows, copy);
        print!("{}", render(&rows));
        Ok(rows.iter().all(|r| r.verified))
    };
    match run() {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("bench: {e}");
            1
        }
    }
}
