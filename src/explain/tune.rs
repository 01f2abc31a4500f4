//! Tuning results for the page. The tuner's cache API is the only dependency, and it is kept
//! to [`summaries`]: find the cache files of this exact kernel (same name and source hash, any
//! GPU and shape), load them, and let the tuner's own outcome type draw the chart and write
//! the winner and roofline lines.

use std::path::{Path, PathBuf};

use dsl_core::def::{KernelDef, Variant};
use tessel_runtime::tune::filter::FilterReport;
use tessel_runtime::tune::store::{CacheKey, Loaded, TuneStore};
use tessel_runtime::tune::{Shape, Target, TuneOutcome, svg};

use super::roofline::Roofline;

/// One config of the top list.
#[derive(Clone, Debug, PartialEq)]
pub struct TopConfig {
    /// The config, `NAME=V …`.
    pub label: String,
    /// Its median time, ms.
    pub median_ms: f64,
    /// Its throughput.
    pub tflops: Option<f64>,
    /// Its throughput as a percentage of cuBLAS's.
    pub pct_cublas: Option<f64>,
    /// Registers per thread.
    pub registers: Option<u32>,
    /// Shared memory per block, bytes.
    pub smem_bytes: Option<u64>,
}

/// What one cache file says about the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneSummary {
    /// The cache file read.
    pub cache_file: PathBuf,
    /// The GPU it was tuned on.
    pub gpu: String,
    /// The problem shape.
    pub shape: String,
    /// Input and accumulator types.
    pub dtypes: String,
    /// Configs with a result (timed or failed).
    pub configs: usize,
    /// The sweep chart (SVG text).
    pub svg: String,
    /// Fastest verified configs, at most 10.
    pub top: Vec<TopConfig>,
    /// The winner against cuBLAS, as the tuner words it.
    pub winner: String,
    /// Where the winner sits on the roofline, when the reference was measured (the tuner's
    /// sentence, and the numbers for the chart).
    pub roofline: Option<String>,
    /// The winner's point on the roofline chart.
    pub roofline_point: Option<Roofline>,
}

/// The GEMM shape of a problem key (`K=4096 M=4096 N=4096`; a dimension it lacks is 1).
fn gemm_shape(problem: &str) -> Shape {
    let dim = |name: &str| {
        problem
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1)
    };
    Shape::new(dim("M"), dim("N"), dim("K"))
}

/// The tuning results in `dir` for the kernel of `source` (empty when there are none, when the
/// kernel is not something the tuner runs, or when the folder cannot be read).
pub fn summaries(source: &str, path: &str, dir: &Path) -> Vec<TuneSummary> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let Some(target) = target(source, path) else {
        return Vec::new();
    };
    let (name, hash) = (target.name(), target.source_hash());
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Some(key) = header(&f) else { continue };
        if key.kernel != name || key.source_hash != hash {
            continue;
        }
        let store = TuneStore::open(dir, key.clone(), false);
        if store.loaded != Loaded::Matched {
            continue;
        }
        let outcome = TuneOutcome {
            kernel: key.kernel.clone(),
            shape: gemm_shape(&key.problem),
            problem: key.problem.clone(),
            dtypes: key.dtypes.clone(),
            tunables: target.tunables.iter().map(|t| t.name.clone()).collect(),
            element_bytes: target.input.size_bytes(),
            key: key.clone(),
            cache_path: store.path().to_path_buf(),
            gpus: Vec::new(),
            gpu_note: None,
            filter: FilterReport::default(),
            reference: store.reference.clone(),
            trials: store.trials.clone(),
            winner: store.winner.clone(),
            from_cache: true,
            resumed: 0,
            worker_starts: 0,
            over_budget: 0,
            elapsed_s: 0.0,
            warnings: Vec::new(),
        };
        let top = outcome
            .ranked()
            .into_iter()
            .take(10)
            .map(|t| TopConfig {
                label: outcome.label(&t.config),
                median_ms: t.median_ms().unwrap_or(f64::NAN),
                tflops: t.tflops(),
                pct_cublas: outcome.pct_cublas(t.tflops()),
                registers: t.registers,
                smem_bytes: t.smem_bytes,
            })
            .collect();
        out.push(TuneSummary {
            cache_file: store.path().to_path_buf(),
            gpu: format!(
                "{} (sm_{}{})",
                key.gpu_name, key.compute_capability.0, key.compute_capability.1
            ),
            shape: key.problem.clone(),
            dtypes: key.dtypes.clone(),
            configs: outcome.latest().len(),
            svg: svg::chart(&outcome, &color_by(&outcome)),
            top,
            winner: outcome.winner_line(),
            roofline: outcome.roofline(),
            roofline_point: roofline_point(&outcome),
        });
    }
    out
}

/// The kernel name and source hash a tune cache file must carry to be this kernel's
/// (`None` when the tuner cannot run the kernel).
pub fn identity(source: &str, path: &str) -> Option<(String, String)> {
    let t = target(source, path)?;
    Some((t.name().to_string(), t.source_hash()))
}

/// The chart's numbers: the problem's intensity (inputs and output moved once), cuBLAS as the
/// compute ceiling (timed next to the winner when the final rounds did), the copy bandwidth.
fn roofline_point(o: &TuneOutcome) -> Option<Roofline> {
    let r = o.reference.as_ref()?;
    let s = o.shape;
    let bytes = ((s.m * s.k + s.n * s.k + s.m * s.n) * o.element_bytes) as f64;
    let winner_cublas = o.winner.as_ref().and_then(|w| w.cublas.as_ref()?.tflops);
    Some(Roofline {
        intensity: s.flops() / bytes,
        peak_tflops: winner_cublas.or(r.cublas.tflops)?,
        bandwidth_gbs: r.bandwidth_gbs?,
        winner_tflops: o.winner.as_ref().and_then(|w| w.tflops),
    })
}

/// The tuner's view of the kernel. `Target` wants a `&'static KernelDef` (what
/// `gemm_kernel!` expands to); a `.co` text read at run time has none, so one is leaked per
/// call: a few hundred bytes, once per page.
fn target(source: &str, path: &str) -> Option<Target> {
    let module =
        dsl_core::lower::launch_form(dsl_core::parse::parse_str(source, Some(path)).ok()?.module);
    let def: &'static KernelDef = Box::leak(Box::new(KernelDef {
        name: Box::leak(module.kernel.name.name.clone().into_boxed_str()),
        dsl: Box::leak(source.to_string().into_boxed_str()),
        file: Some(Box::leak(path.to_string().into_boxed_str())),
        ..KernelDef::INVALID
    }));
    Target::dsl(def, Variant::default()).ok()
}

/// The key in a cache file's first line.
fn header(path: &Path) -> Option<CacheKey> {
    use std::io::BufRead;
    let f = std::fs::File::open(path).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(f).read_line(&mut line).ok()?;
    let v: serde_json::Value = serde_json::from_str(&line).ok()?;
    if v.get("type")?.as_str()? != "header" {
        return None;
    }
    serde_json::from_value(v).ok()
}

/// The tunable the chart colours by: the one with the most distinct values among the trials
/// that the palette can still tell apart (at most 10).
fn color_by(o: &TuneOutcome) -> String {
    o.tunables
        .iter()
        .map(|t| {
            let n = o
                .trials
                .iter()
                .filter_map(|r| r.config.get(t))
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            (t, n)
        })
        .filter(|(_, n)| (2..=10).contains(n))
        .max_by_key(|(_, n)| *n)
        .map(|(t, _)| t.clone())
        .unwrap_or_default()
}
