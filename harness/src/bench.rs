//! The `bench` example: one process, one table — the tuned tessel kernels next to cuBLAS (same
//! layout and precision, measured in this process, interleaved), plus the device's copy
//! bandwidth as the memory roofline.
//!
//! GEMM rows: fp16 and bf16 at 8192³ and 4096³ with f32 accumulation, and fp16 with f16
//! accumulation. Each row's configuration is the tuner's winner for that
//! (dtype, shape) on this GPU — from the tune cache when present, tuned first otherwise — then
//! re-verified and re-timed here. Extra rows (the SGEMM ladder's top rung, GEMV) are added by
//! the callers that own those kernels through [`BenchRow`]: [`sgemm_row`] (f32 4096³ against
//! cuBLAS SGEMM without TF32, the configuration swept by the tuner with the `--budget`
//! count, or its cached winner) and [`gemv_rows`] (the standard GEMV shapes, the faster of
//! the GEMV kernels per shape, TB/s against cuBLAS's TB/s, roofline = % of the copy bandwidth).

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir::DType;
use half::{bf16, f16};

use crate::exit;
use crate::gemm::{GemmMeasurement, measure_gemm};
use crate::regimes::{self, RegimeOptions, RegimeRow};
use crate::tune::{TuneArgs, restrict};
use tessel_runtime::device::Device;
use tessel_runtime::dsl::Prepared;
use tessel_runtime::tune::outcome::plain_table;
use tessel_runtime::tune::{Shape, Target, TuneOptions, Tuner};

/// One line of the bench table.
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
    /// tessel against the strongest reference (`cublasGemmEx` or the fastest cuBLASLt
    /// algorithm) in the burst and the sustained regime (`regimes.rs`), when measured.
    pub regimes: Option<RegimeRatios>,
}

/// A GEMM row's two regime ratios and the reference each was taken against.
#[derive(Clone, Debug)]
pub struct RegimeRatios {
    pub burst: (f64, &'static str),
    pub sustained: (f64, &'static str),
    /// SM clock (MHz) and board power (W) of tessel's samples in each regime.
    pub burst_clock: (u32, f64),
    pub sustained_clock: (u32, f64),
}

/// The bench table.
pub fn render(rows: &[BenchRow]) -> String {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let unit = if r.bandwidth { "TB/s" } else { "TF/s" };
            let rate = |x: f64| {
                if r.bandwidth {
                    format!("{x:.2} {unit}")
                } else {
                    format!("{x:.1} {unit}")
                }
            };
            vec![
                r.workload.clone(),
                r.shape.clone(),
                r.dtype.clone(),
                rate(r.tessel),
                rate(r.reference),
                format!("{:.3}", r.tessel / r.reference.max(1e-12)),
                r.roofline_pct
                    .map(|p| format!("{p:.1}%"))
                    .unwrap_or_else(|| "-".into()),
                if r.verified { "ok" } else { "FAIL" }.into(),
                regime_cell(r.regimes.as_ref().map(|x| (x.burst, x.burst_clock))),
                regime_cell(r.regimes.as_ref().map(|x| (x.sustained, x.sustained_clock))),
                r.config.clone(),
            ]
        })
        .collect();
    let mut t = plain_table(
        &[
            "workload",
            "shape",
            "dtype",
            "tessel",
            "reference",
            "ratio",
            "roofline",
            "verify",
            "burst",
            "sustained",
            "config",
        ],
        &body,
        &[0, 1, 2, 10],
    );
    t.push('\n');
    t
}

/// `0.996 vs cublasLt (1980 MHz 700 W)`, or `-` when the row has no regime timing.
fn regime_cell(x: Option<((f64, &'static str), (u32, f64))>) -> String {
    match x {
        Some(((ratio, name), (mhz, w))) => format!("{ratio:.3} vs {name} ({mhz} MHz {w:.0} W)"),
        None => "-".into(),
    }
}

/// The bench's command line.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "One process, one table: the tuned tessel kernels next to cuBLAS and the device's copy bandwidth",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct BenchCli {
    #[command(flatten)]
    pub tune: TuneArgs,
    /// Pin a GEMM tunable: NAME=VALUE (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = crate::sweep::parse_set)]
    pub sets: Vec<(String, i64)>,
    /// Skip the burst and sustained timings of the GEMM rows against the strongest reference
    /// (about 35 s a row)
    #[arg(long)]
    pub no_regimes: bool,
    /// Seconds of thermal soak before each GEMM row's sustained rounds
    #[arg(long, default_value_t = 15.0)]
    pub soak: f64,
}

impl BenchCli {
    /// The sweep budget for the SIMT rows: a `--budget` count is that many configurations;
    /// seconds, or no budget, the SGEMM examples' default (256).
    pub fn sweep_budget(&self) -> usize {
        match self.tune.budget {
            Some(tessel_runtime::tune::Budget::Count(n)) => n.max(1),
            _ => 256,
        }
    }
}

/// The GEMM rows for `def` (a Hopper GEMM kernel with [`crate::tune::DEFAULT_SPACE`]'s tunables).
pub fn gemm_rows(
    dev: &Device,
    def: &'static KernelDef,
    cli: &BenchCli,
    rows: &mut Vec<BenchRow>,
) -> Result<(), String> {
    let f = &cli.tune;
    let sets = &cli.sets;
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
        restrict(&mut target, f.sweep.as_deref(), sets, def.name)?;
        let opts = TuneOptions {
            strategy: f.strategy,
            budget: f.budget,
            seed: f.seed,
            retune: f.retune,
            gpus: f.gpu_list(),
            progress: None,
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
        let cfg_text = cfg.to_string();
        let regimes = if cli.no_regimes {
            None
        } else {
            let o = RegimeOptions {
                soak_s: cli.soak,
                ..RegimeOptions::default()
            };
            let acc_rt = tessel_runtime::dtype::DType::from_ir(acc)
                .unwrap_or(tessel_runtime::dtype::DType::F32);
            let rt = match input {
                DType::BF16 => regimes::measure::<bf16>(dev, &p, &cfg, s, acc_rt, &o),
                _ => regimes::measure::<f16>(dev, &p, &cfg, s, acc_rt, &o),
            }
            .map_err(|(_, m)| m)?;
            for l in &rt.log {
                eprintln!("regimes  {l}");
            }
            let label = format!("{s}³ {input} acc {acc}");
            for (name, t) in [("burst", &rt.burst), ("sustained", &rt.sustained)] {
                for l in RegimeRow::report(name, &label, t) {
                    eprintln!("regimes  {l}");
                }
            }
            Some(RegimeRatios {
                burst: RegimeRow::ratio(&rt.burst),
                sustained: RegimeRow::ratio(&rt.sustained),
                burst_clock: (rt.burst[0].sm_mhz, rt.burst[0].power_w),
                sustained_clock: (rt.sustained[0].sm_mhz, rt.sustained[0].power_w),
            })
        };
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
            regimes,
        });
        eprintln!(
            "bench    {}",
            render(&rows[rows.len() - 1..]).lines().nth(1).unwrap_or("")
        );
    }
    Ok(())
}

/// Fills each GEMM row's roofline column with the % of the best dense rate measured in the run
/// (tessel or cuBLAS): the measured compute ceiling — over the tensor-core rows (f16, bf16) for
/// those, over the f32 rows (FFMA) for an f32 row. Bandwidth rows get the % of `copy_tbs`.
pub fn fill_rooflines(rows: &mut [BenchRow], copy_tbs: f64) {
    let simt = |r: &BenchRow| r.dtype.starts_with("f32");
    let peak = |f32_rows: bool| {
        rows.iter()
            .filter(|r| !r.bandwidth && simt(r) == f32_rows)
            .flat_map(|r| [r.tessel, r.reference])
            .fold(0.0, f64::max)
    };
    let (tensor_peak, f32_peak) = (peak(false), peak(true));
    for r in rows.iter_mut() {
        let ceiling = match (r.bandwidth, simt(r)) {
            (true, _) => copy_tbs,
            (false, true) => f32_peak,
            (false, false) => tensor_peak,
        };
        r.roofline_pct = Some(100.0 * r.tessel / ceiling.max(1e-12));
    }
}

/// A row that could not be measured: shown as FAIL with the reason in the config column.
fn failed_row(
    workload: String,
    shape: String,
    dtype: &str,
    bandwidth: bool,
    why: &str,
) -> BenchRow {
    BenchRow {
        workload,
        shape,
        dtype: dtype.into(),
        tessel: 0.0,
        reference: 0.0,
        bandwidth,
        roofline_pct: None,
        verified: false,
        config: format!("not measured: {}", crate::sweep::first_line(why)),
        regimes: None,
    }
}

/// The SGEMM ladder's top rung `def` at 4096³ (f32, cuBLAS SGEMM without TF32 as the
/// reference), swept by the tuner with `budget` or cached ([`crate::sgemm::measure_tuned`]);
/// verified over the full output and by an f64 host spot check.
pub fn sgemm_row(dev: &Device, def: &'static KernelDef, budget: usize) -> BenchRow {
    let s = 4096;
    let workload = |cached: bool| {
        format!(
            "SGEMM {} (tuned{})",
            def.name,
            if cached { ", cached" } else { "" }
        )
    };
    let shape = format!("{s}x{s}x{s}");
    let dtype = "f32 acc f32";
    let row = match crate::sgemm::measure_tuned(dev, def, (s, s, s), budget) {
        Ok((o, cached)) => BenchRow {
            workload: workload(cached),
            shape,
            dtype: dtype.into(),
            tessel: o.tflops(),
            reference: o.cublas_tflops(),
            bandwidth: false,
            roofline_pct: None,
            verified: o.passed(),
            config: o.config.clone(),
            regimes: None,
        },
        Err(e) => failed_row(workload(false), shape, dtype, false, &e),
    };
    eprintln!(
        "bench    {}",
        render(std::slice::from_ref(&row))
            .lines()
            .nth(1)
            .unwrap_or("")
    );
    row
}

/// The standard GEMV shapes (f16, f32 accumulation), one row each: the faster of `kernels` on that
/// shape, each swept by the tuner or cached ([`crate::gemv::measure_best`]) and verified, in TB/s
/// against cuBLAS's TB/s (`copy_tbs` is the run's measured copy bandwidth, for the log lines).
pub fn gemv_rows(dev: &Device, kernels: &[&'static KernelDef], copy_tbs: f64) -> Vec<BenchRow> {
    use crate::gemv::{SHAPES, measure_best};
    let dtype = "f16 acc f32";
    let mut rows = Vec::new();
    for &(n, k) in &SHAPES {
        let row = match measure_best(dev, kernels, &[(n, k)], 50, copy_tbs) {
            Ok(best) if !best.is_empty() => {
                let b = &best[0];
                BenchRow {
                    workload: format!(
                        "GEMV {} (tuned{})",
                        b.outcome.kernel,
                        if b.from_cache { ", cached" } else { "" }
                    ),
                    shape: format!("{n}x{k}"),
                    dtype: dtype.into(),
                    tessel: b.outcome.tbps(),
                    reference: b.outcome.cublas_tbps(),
                    bandwidth: true,
                    roofline_pct: None,
                    verified: b.outcome.verify.passed(),
                    config: b.outcome.config.clone(),
                    regimes: None,
                }
            }
            Ok(_) => failed_row("GEMV".into(), format!("{n}x{k}"), dtype, true, "no kernel"),
            Err(e) => failed_row("GEMV".into(), format!("{n}x{k}"), dtype, true, &e),
        };
        eprintln!(
            "bench    {}",
            render(std::slice::from_ref(&row))
                .lines()
                .nth(1)
                .unwrap_or("")
        );
        rows.push(row);
    }
    rows
}

/// Rows measured by the caller's own kernels: (device, SIMT sweep budget, rows).
pub type ExtraRows = dyn Fn(&Device, usize, &mut Vec<BenchRow>) -> Result<(), String>;

/// `main` of the bench example: copy bandwidth, the GEMM rows, then `extra` (rows measured by
/// the caller's own kernels, given the SIMT sweep budget), one table. Returns the exit code.
pub fn bench_main(def: &'static KernelDef, args: &[String], extra: &ExtraRows) -> i32 {
    let cli = match exit::parse::<BenchCli>("bench", args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let run = || -> Result<bool, exit::Error> {
        let dev =
            Device::open(0).map_err(|e| exit::Error::NoGpu(format!("no GPU to run on ({e})")))?;
        let info = dev.info();
        println!(
            "device   {} ({} SMs, {}, driver {})",
            info.name, info.sm_count, info.arch, info.driver_version
        );
        let copy = crate::bandwidth::copy_bandwidth(&dev, 1 << 30)?;
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
            regimes: None,
        }];
        gemm_rows(&dev, def, &cli, &mut rows)?;
        extra(&dev, cli.sweep_budget(), &mut rows)?;
        fill_rooflines(&mut rows, copy);
        print!("{}", render(&rows));
        Ok(rows.iter().all(|r| r.verified))
    };
    exit::finish("bench", run())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(dtype: &str, tessel: f64, reference: f64, bandwidth: bool) -> BenchRow {
        BenchRow {
            workload: "w".into(),
            shape: "s".into(),
            dtype: dtype.into(),
            tessel,
            reference,
            bandwidth,
            roofline_pct: None,
            verified: true,
            config: String::new(),
            regimes: None,
        }
    }

    #[test]
    fn rooflines_per_kind_of_row() {
        let mut rows = vec![
            row("bytes", 4.0, 4.0, true),
            row("f16 acc f32", 600.0, 800.0, false),
            row("bf16 acc f32", 700.0, 650.0, false),
            row("f32 acc f32", 40.0, 50.0, false),
            row("f16 acc f32", 3.6, 3.8, true),
        ];
        fill_rooflines(&mut rows, 4.0);
        let pct: Vec<f64> = rows.iter().map(|r| r.roofline_pct.unwrap()).collect();
        // Copy and GEMV: % of the copy bandwidth; tensor-core rows: % of the best tensor-core
        // rate (800); the f32 row: % of the best f32 rate (cuBLAS's 50).
        assert_eq!(pct, vec![100.0, 75.0, 87.5, 80.0, 90.0]);
    }

    #[test]
    fn bandwidth_rows_print_two_decimals_and_failures_say_fail() {
        let mut r = row("f16 acc f32", 3.756, 3.8, true);
        r.verified = false;
        let t = render(&[r]);
        let line = t.lines().nth(1).unwrap();
        assert!(
            line.contains(" 3.76 TB/s") && line.contains(" 3.80 TB/s"),
            "{line}"
        );
        assert!(line.contains("FAIL"), "{line}");
    }

    #[test]
    fn set_flags_pin_tunables_and_other_flags_are_refused() {
        use clap::Parser;
        let parse = |v: &[&str]| {
            BenchCli::try_parse_from(std::iter::once("bench").chain(v.iter().copied()))
        };
        let c = parse(&["--set", "CONSUMERS=2", "--set=TILE_K=64"]).unwrap();
        assert_eq!(
            c.sets,
            vec![("CONSUMERS".to_string(), 2), ("TILE_K".to_string(), 64)]
        );
        assert!(parse(&["--m", "4096"]).is_err());
        assert!(parse(&["--set", "TILE_K"]).is_err());
        assert!(parse(&["--set"]).is_err());
        let c = parse(&["--sweep", "WARP_N,GROUP_M", "--set", "STAGES=4"]).unwrap();
        assert_eq!(
            c.tune.sweep,
            Some(vec!["WARP_N".to_string(), "GROUP_M".to_string()])
        );
        assert_eq!(parse(&["--budget", "12"]).unwrap().sweep_budget(), 12);
        assert_eq!(
            parse(&["--strategy", "random"]).unwrap().sweep_budget(),
            256
        );
        assert_eq!(parse(&["--budget", "30s"]).unwrap().sweep_budget(), 256);
        assert!(parse(&["--budget"]).is_err());
    }

    #[test]
    fn regime_cells_name_the_reference_and_the_clock() {
        let mut r = row("f16 acc f32", 700.0, 690.0, false);
        r.regimes = Some(RegimeRatios {
            burst: (0.996, "cublasLt"),
            sustained: (0.972, "cublasGemmEx"),
            burst_clock: (1980, 700.4),
            sustained_clock: (1755, 699.6),
        });
        let t = render(&[r, row("bytes", 3.0, 3.0, true)]);
        assert!(t.contains("0.996 vs cublasLt (1980 MHz 700 W)"), "{t}");
        assert!(t.contains("0.972 vs cublasGemmEx (1755 MHz 700 W)"), "{t}");
        assert!(t.lines().next().unwrap().contains("sustained"), "{t}");
    }
}
