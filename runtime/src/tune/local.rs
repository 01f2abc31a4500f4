//! The in-process sweep: for kernels whose caller launches, verifies and times each config
//! itself (the f32 SGEMM and GEMV harnesses), with the same legality filter, strategy module
//! and cache file format as the process-isolated [`super::Tuner`].
//!
//! ```text
//! legal       every tunable assignment that passes every check for this problem and device
//! coarse      three quarters of the budget by an even stride through the legal list (the
//!             default config always among them) — all of them when they fit
//! compile     NVRTC on all cores (rayon) into the module cache
//! evaluate    the caller's `eval` per config: (verified, median ms) or an error
//! local       the rest of the budget on the neighbors of the three fastest verified configs
//! winner      the fastest verified; stored with every trial in the tune cache
//! ```
//!
//! A later sweep of the same kernel source, device, problem and at most the same budget is
//! answered by the cached winner ([`LocalSweep::cached`]), provided the winner matches a
//! recorded passing trial.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dsl_core::check::{Config, Limits, Problem};
use rayon::prelude::*;

use crate::cache::ModuleCache;
use crate::device::DeviceInfo;
use crate::dsl::Prepared;
use crate::nvrtc::{self, CompileRequest};

use super::lookup::problem_key;
use super::record::{FailureKind, Phase, TimeStats, TrialRecord, VerifyRecord, WinnerRecord};
use super::store::{CacheKey, FORMAT, TuneStore};
use super::strategy::{legal_configs, neighbor_round, stride_pick};
use super::target::code_only;

/// One evaluated config.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalTrial {
    /// The config.
    pub config: Config,
    /// Median time of the caller's timing.
    pub median_ms: f64,
    /// Whether the output verified.
    pub verified: bool,
}

/// What an in-process sweep found.
#[derive(Clone, Debug, Default)]
pub struct LocalOutcome {
    /// Legal configs for this problem and device.
    pub legal: usize,
    /// Configs of the coarse pass.
    pub coarse: usize,
    /// Configs of the local (neighbor) pass.
    pub local: usize,
    /// Evaluated configs, fastest first.
    pub trials: Vec<LocalTrial>,
    /// Configs that did not compile, launch or time, with the reason.
    pub failed: Vec<(Config, String)>,
    /// The fastest verified config.
    pub winner: Option<Config>,
    /// The winner came from the cache; nothing was evaluated.
    pub from_cache: bool,
    /// The cache file.
    pub cache_path: PathBuf,
    /// Cache writes that failed (the sweep still finished).
    pub warnings: Vec<String>,
}

/// An in-process sweep of one prepared DSL kernel on one problem and device.
pub struct LocalSweep {
    prepared: Arc<Prepared>,
    problem: Problem,
    limits: Limits,
    store: TuneStore,
    budget: usize,
}

/// The text a cached local winner is matched on.
fn selection(budget: usize) -> String {
    format!("local budget={budget}")
}

fn budget_of(selection: &str) -> Option<usize> {
    selection.strip_prefix("local budget=")?.parse().ok()
}

/// The cache key of an in-process sweep of `p` on `problem` and the device `info`.
pub fn cache_key(p: &Prepared, problem: &Problem, info: &DeviceInfo) -> CacheKey {
    let params = &p.module.kernel.params;
    let dtypes = params
        .iter()
        .map(|x| x.dtype.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut h = crate::hash::StableHasher::new();
    h.str(p.def.name).str(&code_only(&p.cuda)).str(&dtypes);
    CacheKey {
        format: FORMAT,
        gpu_name: info.name.clone(),
        compute_capability: info.compute_capability,
        driver_version: info.driver_version,
        nvrtc_version: nvrtc::nvrtc_version().unwrap_or((0, 0)),
        kernel: p.def.name.to_string(),
        source_hash: h.finish().to_string(),
        problem: problem_key(problem),
        dtypes,
        settings: "in-process".into(),
    }
}

impl LocalSweep {
    /// A sweep of at most `budget` configs, cached in `cache_dir` under `key`.
    pub fn new(
        prepared: Arc<Prepared>,
        problem: Problem,
        max_smem_per_block: u64,
        key: CacheKey,
        cache_dir: &Path,
        budget: usize,
    ) -> LocalSweep {
        LocalSweep {
            prepared,
            problem,
            limits: Limits {
                max_smem_per_block,
                ..Limits::default()
            },
            store: TuneStore::open(cache_dir, key, false),
            budget: budget.max(1),
        }
    }

    /// The cached winner of an earlier sweep with at least this budget, when it matches a
    /// recorded passing trial.
    pub fn cached(&self) -> Option<Config> {
        let w = self.store.trusted_winner()?;
        (budget_of(&w.selection)? >= self.budget).then(|| Config {
            values: w.config.clone(),
        })
    }

    /// The cache file.
    pub fn cache_path(&self) -> &Path {
        self.store.path()
    }

    /// Runs the sweep (see the module doc); `arch` is what NVRTC compiles for, `eval` launches,
    /// verifies and times one config.
    pub fn run(
        mut self,
        modules: &ModuleCache,
        arch: nvrtc::Arch,
        mut eval: impl FnMut(&Config) -> Result<(bool, f64), String>,
    ) -> LocalOutcome {
        let p = self.prepared.clone();
        let mut out = LocalOutcome {
            cache_path: self.store.path().to_path_buf(),
            ..LocalOutcome::default()
        };
        let legal = legal_configs(&p.module, &self.problem, &self.limits);
        out.legal = legal.len();
        let coarse_budget = if legal.len() <= self.budget {
            self.budget
        } else {
            self.budget - self.budget / 4
        };
        let coarse = stride_pick(&legal, coarse_budget.max(1), &p.def.default_config());
        out.coarse = coarse.len();
        self.pass(&coarse, modules, arch, &mut eval, &mut out);
        let left = self.budget.saturating_sub(coarse.len());
        if left > 0 && coarse.len() < legal.len() {
            let best: Vec<Config> = out
                .trials
                .iter()
                .filter(|t| t.verified)
                .take(3)
                .map(|t| t.config.clone())
                .collect();
            let local = neighbor_round(&p.module, &legal, &best, &coarse, left);
            out.local = local.len();
            self.pass(&local, modules, arch, &mut eval, &mut out);
        }
        out.winner = out
            .trials
            .iter()
            .find(|t| t.verified)
            .map(|t| t.config.clone());
        if let Some(w) = &out.winner {
            let ms = out
                .trials
                .iter()
                .find(|t| &t.config == w)
                .map(|t| t.median_ms);
            let rec = WinnerRecord {
                config: w.values.clone(),
                median_ms: ms.unwrap_or(f64::NAN),
                tflops: None,
                finalists: Vec::new(),
                noise_band: 0.0,
                selection: selection(self.budget),
                cublas: None,
            };
            if let Err(e) = self.store.set_winner(rec) {
                out.warnings
                    .push(format!("{}: {e}", self.store.path().display()));
            }
        }
        out
    }

    /// Compiles `configs` in parallel, then evaluates those that compiled, one by one.
    fn pass(
        &mut self,
        configs: &[Config],
        modules: &ModuleCache,
        arch: nvrtc::Arch,
        eval: &mut impl FnMut(&Config) -> Result<(bool, f64), String>,
        out: &mut LocalOutcome,
    ) {
        let p = &self.prepared;
        let compiled: Vec<Result<(), String>> = configs
            .par_iter()
            .map(|cfg| {
                let expr = p.kernel.name_expression(&p.template_values(cfg));
                let req = CompileRequest::new(p.cuda.clone(), arch).name_expression(expr);
                modules
                    .get_or_compile(&req)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
            .collect();
        for (cfg, c) in configs.iter().zip(compiled) {
            let mut rec = TrialRecord::new(cfg.values.clone(), Phase::Full);
            let result = c
                .map_err(|e| (FailureKind::CompileError, e))
                .and_then(|()| eval(cfg).map_err(|e| (FailureKind::LaunchError, e)));
            match result {
                Ok((verified, median_ms)) => {
                    rec.time = Some(TimeStats {
                        median_ms,
                        min_ms: median_ms,
                        max_ms: median_ms,
                        mean_ms: median_ms,
                        runs: 0,
                        tflops: None,
                    });
                    rec.verification = Some(VerifyRecord {
                        passed: verified,
                        rel_error: f64::NAN,
                        tolerance: f64::NAN,
                        max_abs_error: f64::NAN,
                        poisoned: 0,
                        nans: 0,
                        infs: 0,
                        summary: if verified { "PASS" } else { "FAIL" }.into(),
                    });
                    if !verified {
                        rec = rec.failed(FailureKind::WrongResult, "verification failed");
                    }
                    out.trials.push(LocalTrial {
                        config: cfg.clone(),
                        median_ms,
                        verified,
                    });
                }
                Err((kind, e)) => {
                    rec = rec.failed(kind, e.clone());
                    out.failed.push((cfg.clone(), e));
                }
            }
            if let Err(e) = self.store.record(rec) {
                out.warnings
                    .push(format!("{}: {e}", self.store.path().display()));
            }
        }
        out.trials
            .sort_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
    }
}
