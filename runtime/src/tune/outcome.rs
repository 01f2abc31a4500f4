//! What a sweep hands back ([`TuneOutcome`]) and what users see of it: the top-N table with
//! TFLOP/s, % of cuBLAS, registers and shared memory; failure counts by kind; the roofline
//! line; CSV and JSON exports (the SVG chart is `svg.rs`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use super::filter::FilterReport;
use super::probe::GpuInfo;
use super::record::{
    ConfigMap, FailureKind, Phase, ReferenceRecord, TrialRecord, WinnerRecord, config_text,
};
use super::store::CacheKey;
use super::target::Shape;

/// The result of [`super::Tuner::run`].
#[derive(Clone, Debug, Serialize)]
pub struct TuneOutcome {
    /// The tuned kernel's name.
    pub kernel: String,
    /// The GEMM problem shape.
    pub shape: Shape,
    /// The problem-size key (`8192x8192x8192` for a GEMM, the job's own key otherwise).
    pub problem: String,
    /// The dtypes, as text.
    pub dtypes: String,
    /// Tunable names, in template-parameter order.
    pub tunables: Vec<String>,
    /// Bytes per input element (for the roofline).
    pub element_bytes: usize,
    /// The key the trials are cached under.
    pub key: CacheKey,
    /// The cache file the trials were read from and written to.
    pub cache_path: PathBuf,
    /// The GPUs the trials ran on.
    pub gpus: Vec<GpuInfo>,
    /// A note on GPUs left out.
    pub gpu_note: Option<String>,
    /// The legality filter's report.
    pub filter: FilterReport,
    /// The reference measurement or output.
    pub reference: Option<ReferenceRecord>,
    /// Every trial in the cache for this key (this run's and earlier ones').
    pub trials: Vec<TrialRecord>,
    /// The chosen configuration; `None` when none was chosen (no configuration passed, or a
    /// shard's run, whose winner is picked once the shards' caches are merged).
    pub winner: Option<WinnerRecord>,
    /// The winner came from the cache; nothing ran.
    pub from_cache: bool,
    /// Trials reused from the cache (resume).
    pub resumed: usize,
    /// Worker processes started (more than the GPU count means restarts).
    pub worker_starts: usize,
    /// Configs not run because the time budget ran out.
    pub over_budget: usize,
    /// Wall-clock seconds of the run.
    pub elapsed_s: f64,
    /// What went wrong without stopping the sweep (a cache that could not be written, a
    /// finalist that could not be re-timed); the caller decides whether to show it.
    pub warnings: Vec<String>,
}

impl TuneOutcome {
    /// Where the trials' time went on the workers, summed over the trials run in this sweep
    /// (not those answered from the cache): `None` when no trial recorded its phases.
    pub fn phase_line(&self) -> Option<String> {
        let phases: Vec<_> = self.trials.iter().filter_map(|t| t.phases).collect();
        if phases.is_empty() {
            return None;
        }
        let sum = |f: fn(&super::TrialPhases) -> f64| phases.iter().map(f).sum::<f64>() / 1e3;
        let n = phases.len() as f64;
        let total = sum(super::TrialPhases::total_ms);
        let stopped = self
            .trials
            .iter()
            .filter(|t| t.phases.is_some() && t.early_stop_ms.is_some())
            .count();
        let early = if stopped > 0 {
            format!(
                "; {stopped} stopped early (a {}-run probe slower than the best so far by the early-stop margin)",
                super::EARLY_STOP_PROBE_RUNS
            )
        } else {
            String::new()
        };
        Some(format!(
            "trials   {} run on the workers, {:.1} s ({:.0} ms each): load {:.1} s, first launch {:.1} s, full-output check {:.1} s, timing {:.1} s{}",
            phases.len(),
            total,
            1e3 * total / n,
            sum(|p| p.load_ms),
            sum(|p| p.run_ms),
            sum(|p| p.verify_ms),
            sum(|p| p.time_ms),
            early,
        ))
    }

    /// Per config, its full-phase trial if any, else its brief one.
    pub fn latest(&self) -> Vec<&TrialRecord> {
        let mut by: BTreeMap<&ConfigMap, &TrialRecord> = BTreeMap::new();
        for t in &self.trials {
            match by.get(&t.config) {
                Some(old) if old.phase == Phase::Full && t.phase == Phase::Brief => {}
                _ => {
                    by.insert(&t.config, t);
                }
            }
        }
        by.into_values().collect()
    }

    /// Verified and timed, fastest first.
    pub fn ranked(&self) -> Vec<&TrialRecord> {
        let mut v: Vec<&TrialRecord> = self
            .latest()
            .into_iter()
            .filter(|t| t.median_ms().is_some())
            .collect();
        v.sort_by(|a, b| {
            a.median_ms()
                .unwrap_or(f64::INFINITY)
                .total_cmp(&b.median_ms().unwrap_or(f64::INFINITY))
                .then_with(|| a.config.cmp(&b.config))
        });
        v
    }

    /// Failed configs per kind.
    pub fn failure_counts(&self) -> BTreeMap<FailureKind, usize> {
        let mut m = BTreeMap::new();
        for t in self.latest() {
            if let Some(k) = t.failure {
                *m.entry(k).or_default() += 1;
            }
        }
        m
    }

    /// cuBLAS's TFLOP/s on this problem, when measured.
    pub fn cublas_tflops(&self) -> Option<f64> {
        self.reference.as_ref().and_then(|r| r.cublas.tflops)
    }

    /// `tflops` as a percentage of cuBLAS.
    pub fn pct_cublas(&self, tflops: Option<f64>) -> Option<f64> {
        Some(100.0 * tflops? / self.cublas_tflops().filter(|c| *c > 0.0)?)
    }

    /// `WARP_N=192 STAGES=2 …` in template-parameter order.
    pub fn label(&self, c: &ConfigMap) -> String {
        if self.tunables.len() != c.len() || self.tunables.iter().any(|t| !c.contains_key(t)) {
            return config_text(c);
        }
        self.tunables
            .iter()
            .map(|t| format!("{t}={}", c[t]))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn trial_of(&self, c: &ConfigMap) -> Option<&TrialRecord> {
        self.latest().into_iter().find(|t| &t.config == c)
    }

    /// The top `n` as a table, then failure counts.
    pub fn table(&self, n: usize) -> String {
        let top: Vec<&TrialRecord> = self.ranked().into_iter().take(n).collect();
        let win = self.winner.as_ref().map(|w| &w.config);
        let mut rows: Vec<Vec<String>> = top
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                let tf = t.tflops();
                vec![
                    format!("{}{}", i + 1, if win == Some(&t.config) { "*" } else { "" }),
                    self.label(&t.config),
                    match t.early_stop_ms {
                        Some(_) => format!("{:.4} (probe)", t.median_ms().unwrap_or(f64::NAN)),
                        None => format!("{:.4}", t.median_ms().unwrap_or(f64::NAN)),
                    },
                    format!("{:.1}", tf.unwrap_or(f64::NAN)),
                    opt(self.pct_cublas(tf).map(|p| format!("{p:.1}%"))),
                    opt(t.registers),
                    format!(
                        "{:.1}",
                        t.smem_bytes.map_or(f64::NAN, |b| b as f64 / 1024.0)
                    ),
                    opt(t.spill_bytes),
                ]
            })
            .collect();
        if let Some(c) = &self.reference {
            rows.push(vec![
                String::new(),
                "cuBLAS".into(),
                format!("{:.4}", c.cublas.median_ms),
                format!("{:.1}", c.cublas.tflops.unwrap_or(f64::NAN)),
                "100.0%".into(),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
        let mut s = plain_table(
            &[
                "rank",
                "config",
                "median ms",
                "TFLOP/s",
                "% cuBLAS",
                "regs",
                "smem KiB",
                "spills",
            ],
            &rows,
            &[1],
        );
        s.push('\n');
        let fails = self.failure_counts();
        let total: usize = fails.values().sum();
        let _ = write!(s, "failures {total}");
        for k in FailureKind::ALL {
            if let Some(n) = fails.get(&k) {
                let _ = write!(s, ", {k} {n}");
            }
        }
        s.push('\n');
        s
    }

    /// `winner WARP_N=192 … 1.41 ms 779.2 TFLOP/s = 103.1% of cuBLAS (…)`; the percentage uses
    /// cuBLAS timed in the final interleaved rounds when available.
    pub fn winner_line(&self) -> String {
        let Some(w) = &self.winner else {
            return "winner   none (no config verified)".into();
        };
        let mut s = format!(
            "winner   {}  {:.4} ms  {:.1} TFLOP/s",
            self.label(&w.config),
            w.median_ms,
            w.tflops.unwrap_or(f64::NAN)
        );
        match (w.tflops, w.cublas.as_ref().and_then(|c| c.tflops)) {
            (Some(t), Some(c)) if c > 0.0 => {
                let _ = write!(
                    s,
                    " = {:.1}% of cuBLAS ({c:.1}, timed in the same rounds)",
                    100.0 * t / c
                );
            }
            _ => {
                if let (Some(p), Some(c)) = (self.pct_cublas(w.tflops), self.cublas_tflops()) {
                    let _ = write!(s, " = {p:.1}% of cuBLAS ({c:.1})");
                }
            }
        }
        if let Some(t) = self.trial_of(&w.config) {
            let _ = write!(
                s,
                ", {} regs, {:.1} KiB smem",
                opt(t.registers),
                t.smem_bytes.unwrap_or(0) as f64 / 1024.0
            );
        }
        s
    }

    /// The roofline line (needs the reference measurement).
    pub fn roofline(&self) -> Option<String> {
        let r = self.reference.as_ref()?;
        let Shape { m, n, k } = self.shape;
        if m * n * k == 0 {
            return None;
        }
        let bytes = ((m * k + n * k + m * n) * self.element_bytes) as f64;
        let ai = self.shape.flops() / bytes;
        let peak = r.cublas.tflops? * 1e12;
        let bw = r.bandwidth_gbs? * 1e9;
        let ridge = peak / bw;
        let ceiling = peak.min(ai * bw);
        let bound = if ai < ridge {
            "memory-bound"
        } else {
            "compute-bound"
        };
        let mut s = format!(
            "roofline arithmetic intensity {ai:.0} FLOP/B, ridge {ridge:.0} FLOP/B (cuBLAS {:.1} TFLOP/s, copy {:.0} GB/s): {bound}",
            peak / 1e12,
            bw / 1e9
        );
        if let Some(w) = &self.winner
            && let Some(tf) = w.tflops
        {
            // The compute ceiling measured next to the winner, when the final round timed it.
            let ceiling = match w.cublas.as_ref().and_then(|c| c.tflops) {
                Some(c) => (c * 1e12).min(ai * bw),
                None => ceiling,
            };
            let _ = write!(
                s,
                "; winner at {:.1}% of the measured ceiling {:.1} TFLOP/s",
                100.0 * tf * 1e12 / ceiling,
                ceiling / 1e12
            );
        }
        Some(s)
    }

    /// Every trial as CSV (one column per tunable), written by the `csv` crate (quoting,
    /// embedded newlines and commas handled by it).
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> = self.tunables.clone();
        header.extend(
            [
                "phase",
                "median_ms",
                "min_ms",
                "max_ms",
                "runs",
                "early_stop_ms",
                "tflops",
                "pct_cublas",
                "registers",
                "spill_bytes",
                "smem_bytes",
                "threads",
                "verified",
                "rel_error",
                "gpu",
                "failure",
                "error",
            ]
            .map(String::from),
        );
        let _ = w.write_record(&header);
        let num = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
        let some = |v: Option<String>| v.unwrap_or_default();
        for t in &self.trials {
            let tm = t.time.as_ref();
            let mut row: Vec<String> = self
                .tunables
                .iter()
                .map(|name| some(t.config.get(name).map(|v| v.to_string())))
                .collect();
            row.extend([
                if t.phase == Phase::Full {
                    "full"
                } else {
                    "brief"
                }
                .to_string(),
                num(tm.map(|x| x.median_ms)),
                num(tm.map(|x| x.min_ms)),
                num(tm.map(|x| x.max_ms)),
                some(tm.map(|x| x.runs.to_string())),
                num(t.early_stop_ms),
                num(t.tflops()),
                num(self.pct_cublas(t.tflops())),
                some(t.registers.map(|x| x.to_string())),
                some(t.spill_bytes.map(|x| x.to_string())),
                some(t.smem_bytes.map(|x| x.to_string())),
                some(t.threads.map(|x| x.to_string())),
                some(t.verification.as_ref().map(|v| v.passed.to_string())),
                num(t.verification.as_ref().map(|v| v.rel_error)),
                some(t.gpu.map(|x| x.to_string())),
                t.failure.map(|f| f.name()).unwrap_or("").to_string(),
                // One line per trial: a compile log's newlines become spaces.
                t.error
                    .as_deref()
                    .unwrap_or("")
                    .chars()
                    .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
                    .take(300)
                    .collect(),
            ]);
            let _ = w.write_record(&row);
        }
        // Writing to a Vec cannot fail.
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// The whole outcome as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "-".into())
}

/// A plain text table (no borders, columns padded by one space) through `comfy-table`:
/// columns whose index is in `left` are left-aligned, the others right-aligned.
pub fn plain_table(header: &[&str], rows: &[Vec<String>], left: &[usize]) -> String {
    use comfy_table::{CellAlignment, Table, presets::NOTHING};
    let mut t = Table::new();
    t.load_style(NOTHING);
    t.set_header(header.to_vec());
    for r in rows {
        t.add_row(r.clone());
    }
    for (i, c) in t.column_iter_mut().enumerate() {
        c.set_cell_alignment(if left.contains(&i) {
            CellAlignment::Left
        } else {
            CellAlignment::Right
        });
    }
    t.lines()
        .map(|l| l.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}
