//! The sweep pipeline ([`Tuner::run`]):
//!
//! 1. probe the GPUs (no context), build the cache key, open the cache — a finished sweep with
//!    the same selection answers here, with no worker and no compilation;
//! 2. the legality filter (device opt-in shared memory) and the strategy's plan;
//! 3. one phase: compile threads (all cores) push compiled configs into a queue, after
//!    rejecting spills from the ptxas report; one lane per GPU pops and runs each as a trial in
//!    its worker under the watchdog; the main thread records every result in the cache (atomic
//!    rewrite) and draws the progress. Configs already in the cache are skipped (resume);
//! 4. halving runs a brief phase first, then a full phase on the best third;
//! 5. the finalists are re-timed interleaved on the first GPU and the winner is picked with the
//!    noise band (`winner.rs`) and recorded.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, Instant};

use dsl_core::check::Limits;

use crate::cache::ModuleCache;
use crate::nvrtc::{self, Arch};

use super::filter::{Legal, filter_space};
use super::lane::{Lane, LaneError, WorkerCommand};
use super::outcome::TuneOutcome;
use super::probe::{self, GpuInfo};
use super::progress::Progress;
use super::protocol::{JobRef, Reply, Request, TargetSpec, TimingSpec};
use super::record::{
    ConfigMap, FailureKind, Phase, ReferenceRecord, TrialRecord, WinnerRecord, config_text,
};
use super::store::{self, CacheKey, TuneStore};
use super::strategy::{self, Strategy};
use super::{TuneError, Tuner, winner};

enum Event {
    Compiled,
    Record(TrialRecord),
    Ready(ReferenceRecord),
    OverBudget,
    LaneDown(String),
}

impl Tuner {
    /// Runs (or answers from the cache) the sweep; see the module doc.
    pub fn run(&self) -> Result<TuneOutcome, TuneError> {
        let t0 = Instant::now();
        let o = &self.opts;
        let all = match &o.devices {
            Some(d) => d.clone(),
            None => probe::probe().map_err(|e| TuneError::NoGpu(e.to_string()))?,
        };
        let (gpus, gpu_note) = probe::select(&all, o.gpus.as_deref()).map_err(TuneError::NoGpu)?;
        let gpu0 = gpus[0].clone();
        let arch = self
            .target
            .arch_for(gpu0.compute_capability)
            .ok_or_else(|| {
                TuneError::NoGpu(format!(
                    "{} (compute capability {}.{}) cannot run `{}`",
                    gpu0.name,
                    gpu0.compute_capability.0,
                    gpu0.compute_capability.1,
                    self.target.name()
                ))
            })?;
        let nvrtc_version =
            nvrtc::nvrtc_version().map_err(|e| TuneError::Compile(e.to_string()))?;
        let key = CacheKey {
            format: store::FORMAT,
            gpu_name: gpu0.name.clone(),
            compute_capability: gpu0.compute_capability,
            driver_version: gpu0.driver_version,
            nvrtc_version,
            kernel: self.target.name().to_string(),
            source_hash: self.target.source_hash(),
            problem: self.problem_key(),
            dtypes: self.target.dtypes(),
            settings: o.settings_text(),
        };
        let cache_dir = o.cache_dir.clone().unwrap_or_else(store::default_dir);
        let mut st = TuneStore::open(&cache_dir, key, o.retune);
        let limits = Limits {
            max_smem_per_block: gpu0.max_smem_per_block_optin.max(0) as u64,
            ..Limits::default()
        };
        let problem = self.target.problem(&self.shape)?;
        let mut selection = strategy::selection_text(o.strategy, o.budget, o.seed);
        if !self.target.pinned().is_empty() {
            selection.push_str(&format!(" pinned {}", config_text(self.target.pinned())));
        }
        // A cached winner answers before the space is filtered again: the filter's report
        // travels with it.
        let cached = st
            .trusted_winner()
            .filter(|w| o.shard.is_none() && w.selection == selection)
            .and_then(|w| w.space.clone());
        if let Some(space) = cached {
            let mut out = self.outcome(&st, gpus, gpu_note, space);
            out.from_cache = true;
            out.elapsed_s = t0.elapsed().as_secs_f64();
            return Ok(out);
        }
        let (legal, filter) = filter_space(&self.target, &self.shape, &problem, &limits);
        let mut out = self.outcome(&st, gpus.clone(), gpu_note, filter);
        if o.shard.is_none()
            && st
                .trusted_winner()
                .is_some_and(|w| w.selection == selection)
        {
            out.from_cache = true;
            out.elapsed_s = t0.elapsed().as_secs_f64();
            return Ok(out);
        }
        let module_dir = o
            .module_dir
            .clone()
            .or_else(|| ModuleCache::from_env().dir().map(PathBuf::from))
            .unwrap_or_else(|| cache_dir.join("modules"));
        let modules = std::sync::Arc::new(ModuleCache::with_dir(&module_dir));
        let cmd = match &o.worker {
            Some(c) => c.clone(),
            None => WorkerCommand::current_exe().map_err(|e| TuneError::Worker(e.to_string()))?,
        };
        let spec = TargetSpec {
            kernel: self.target.name().to_string(),
            source_hash: self.target.source_hash(),
            input: self.target.variant.input.map(|d| d.to_string()),
            acc: self.target.variant.acc.map(|d| d.to_string()),
        };
        let mut lanes: Vec<Lane> = gpus
            .iter()
            .map(|g| {
                let setup = Request::Setup {
                    target: spec.clone(),
                    shape: self.shape,
                    module_dir: Some(module_dir.display().to_string()),
                    gpu: g.index,
                    reference_timing: o.timing,
                    job: self.job.as_ref().map(|j| JobRef {
                        name: j.name.clone(),
                        key: j.key.clone(),
                    }),
                };
                Lane::new(g.index, cmd.clone(), setup, o.setup_timeout)
            })
            .collect();
        let mut plan = strategy::plan(o.strategy, o.budget, o.seed, legal.len());
        if o.strategy == Strategy::Local {
            // The coarse pass always includes the default config.
            let default = self.target.default_config();
            let keep = legal.iter().position(|l| l.config == default);
            plan.order = strategy::stride_indices(legal.len(), plan.order.len(), keep);
        }
        let deadline = plan.deadline.map(|d| t0 + d);
        let mut chosen: Vec<Legal> = plan
            .order
            .iter()
            .enumerate()
            .filter(|(pos, _)| o.shard.is_none_or(|s| s.owns(*pos)))
            .map(|(_, &i)| legal[i].clone())
            .collect();
        let mut resumed = 0;
        let mut over = 0;
        let first = if o.strategy == Strategy::Halving {
            Phase::Brief
        } else {
            Phase::Full
        };
        let timing = if first == Phase::Brief {
            o.brief_timing
        } else {
            o.timing
        };
        let smem = limits.max_smem_per_block;
        let (r, b) = self.phase(
            &mut lanes,
            &mut st,
            &modules,
            arch,
            &chosen,
            first,
            timing,
            deadline,
            smem,
            &mut out.warnings,
        )?;
        resumed += r;
        over += b;
        if first == Phase::Brief {
            let timed: Vec<(usize, f64)> = chosen
                .iter()
                .enumerate()
                .filter_map(|(i, l)| Some((i, st.trial(&l.config, Phase::Brief)?.median_ms()?)))
                .collect();
            let keep: Vec<Legal> = strategy::survivors(&timed)
                .into_iter()
                .map(|i| chosen[i].clone())
                .collect();
            let (r, b) = self.phase(
                &mut lanes,
                &mut st,
                &modules,
                arch,
                &keep,
                Phase::Full,
                o.long_timing,
                deadline,
                smem,
                &mut out.warnings,
            )?;
            resumed += r;
            over += b;
        }
        if o.strategy == Strategy::Local {
            let left = match o.budget {
                Some(strategy::Budget::Count(c)) => c.saturating_sub(plan.order.len()),
                _ => 0,
            };
            let mut timed: Vec<(&ConfigMap, f64)> = chosen
                .iter()
                .filter_map(|l| Some((&l.config, st.trial(&l.config, Phase::Full)?.median_ms()?)))
                .collect();
            timed.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
            let best: Vec<ConfigMap> = timed.iter().take(3).map(|t| t.0.clone()).collect();
            let domains: Vec<(String, Vec<i64>)> = self
                .target
                .tunables
                .iter()
                .map(|t| (t.name.clone(), t.domain.clone()))
                .collect();
            let configs: Vec<ConfigMap> = legal.iter().map(|l| l.config.clone()).collect();
            let next: Vec<Legal> =
                strategy::local_round(&domains, &configs, &best, &plan.order, left)
                    .into_iter()
                    .enumerate()
                    .filter(|(pos, _)| o.shard.is_none_or(|s| s.owns(*pos)))
                    .map(|(_, i)| legal[i].clone())
                    .collect();
            if !next.is_empty() {
                let (r, b) = self.phase(
                    &mut lanes,
                    &mut st,
                    &modules,
                    arch,
                    &next,
                    Phase::Full,
                    o.timing,
                    deadline,
                    smem,
                    &mut out.warnings,
                )?;
                resumed += r;
                over += b;
                chosen.extend(next);
            }
        }
        let full: Vec<&TrialRecord> = chosen
            .iter()
            .filter_map(|l| st.trial(&l.config, Phase::Full))
            .collect();
        let fin = winner::finalists(&full, o.finalists);
        // A shard times its part only: the winner is picked once the shards' caches are merged.
        if !fin.is_empty() && o.shard.is_none() {
            let w = self.final_round(
                &mut lanes[0],
                &mut st,
                &legal,
                fin,
                selection,
                &mut out.warnings,
            )?;
            let w = WinnerRecord {
                space: Some(out.filter.clone()),
                ..w
            };
            st.set_winner(w).map_err(|e| self.store_err(&st, e))?;
        }
        let starts = lanes.iter().map(|l| l.started).sum();
        drop(lanes);
        let warnings = std::mem::take(&mut out.warnings);
        let mut out = self.outcome(&st, out.gpus, out.gpu_note, out.filter);
        out.warnings.extend(warnings);
        out.resumed = resumed;
        out.worker_starts = starts;
        out.over_budget = over;
        out.elapsed_s = t0.elapsed().as_secs_f64();
        Ok(out)
    }

    fn store_err(&self, st: &TuneStore, e: std::io::Error) -> TuneError {
        TuneError::Cache(format!("{}: {e}", st.path().display()))
    }

    fn outcome(
        &self,
        st: &TuneStore,
        gpus: Vec<GpuInfo>,
        gpu_note: Option<String>,
        mut filter: super::filter::FilterReport,
    ) -> TuneOutcome {
        let count = |k: FailureKind| st.trials.iter().filter(|t| t.failure == Some(k)).count();
        filter.spills = count(FailureKind::Spills);
        filter.compile_errors = count(FailureKind::CompileError);
        filter.static_smem = count(FailureKind::SmemLimit);
        TuneOutcome {
            kernel: self.target.name().to_string(),
            shape: self.shape,
            problem: self.problem_key(),
            dtypes: self.target.dtypes(),
            tunables: self
                .target
                .tunables
                .iter()
                .map(|t| t.name.clone())
                .collect(),
            element_bytes: self.target.input.size_bytes(),
            key: st.key().clone(),
            cache_path: st.path().to_path_buf(),
            gpus,
            gpu_note,
            filter,
            reference: st.reference.clone(),
            trials: st.trials.clone(),
            winner: st.winner.clone(),
            from_cache: false,
            resumed: 0,
            worker_starts: 0,
            over_budget: 0,
            elapsed_s: 0.0,
            warnings: Vec::new(),
        }
    }

    /// One phase over `todo`; returns (configs resumed from the cache, configs over budget).
    #[allow(clippy::too_many_arguments)]
    fn phase(
        &self,
        lanes: &mut [Lane],
        st: &mut TuneStore,
        modules: &std::sync::Arc<ModuleCache>,
        arch: Arch,
        todo: &[Legal],
        phase: Phase,
        timing: TimingSpec,
        deadline: Option<Instant>,
        smem_limit: u64,
        warnings: &mut Vec<String>,
    ) -> Result<(usize, usize), TuneError> {
        let label = if phase == Phase::Brief {
            "brief"
        } else {
            "sweep"
        };
        let mut progress = Progress::new(label, todo.len(), self.opts.progress.clone());
        let mut fresh = Vec::new();
        for l in todo {
            match st.trial(&l.config, phase) {
                Some(t) if t.retry_worthy() => fresh.push(l.clone()),
                Some(t) if t.failure.is_some() => progress.failed += 1,
                Some(_) => progress.timed += 1,
                None => fresh.push(l.clone()),
            }
        }
        let resumed = todo.len() - fresh.len();
        progress.compiled = resumed;
        let queue = super::queue::WorkQueue::<Legal>::default();
        let (tx, rx) = channel::<Event>();
        let threads = match self.opts.compile_threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let past = |d: Option<Instant>| d.is_some_and(|d| Instant::now() >= d);
        let mut lane_errors = Vec::new();
        let mut write_error = None;
        // Set when every lane is down: compiling more would be wasted.
        let abort = std::sync::atomic::AtomicBool::new(false);
        let lanes_total = lanes.len();
        std::thread::scope(|s| {
            {
                let tx = tx.clone();
                let (queue, fresh, abort) = (&queue, &fresh, &abort);
                s.spawn(move || {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
                    let work = || {
                        use rayon::prelude::*;
                        fresh.par_iter().for_each_with(tx.clone(), |tx, l| {
                            if abort.load(Ordering::Relaxed) {
                                return;
                            }
                            if past(deadline) {
                                let _ = tx.send(Event::OverBudget);
                                return;
                            }
                            match self.compile(modules, arch, l, phase, smem_limit) {
                                Ok(()) => {
                                    let _ = tx.send(Event::Compiled);
                                    queue.push(l.clone());
                                }
                                Err(rec) => {
                                    let _ = tx.send(Event::Record(*rec));
                                }
                            }
                        })
                    };
                    match pool {
                        Ok(p) => p.install(work),
                        Err(_) => work(),
                    }
                    queue.close();
                });
            }
            for lane in lanes.iter_mut() {
                let tx = tx.clone();
                let queue = &queue;
                s.spawn(move || self.lane_loop(lane, queue, &tx, phase, timing, deadline));
            }
            drop(tx);
            for ev in rx {
                match ev {
                    Event::Compiled => progress.compiled += 1,
                    Event::OverBudget => progress.skipped += 1,
                    Event::Ready(r) => {
                        if st.reference.is_none() {
                            let _ = st.set_reference(r);
                        }
                    }
                    Event::LaneDown(m) => {
                        lane_errors.push(m);
                        if lane_errors.len() >= lanes_total.max(1) {
                            abort.store(true, Ordering::Relaxed);
                        }
                    }
                    Event::Record(mut rec) => {
                        if let Some(old) = st.trial(&rec.config, rec.phase) {
                            rec.attempts = old.attempts.saturating_add(1);
                        }
                        if rec.failure.is_some() {
                            progress.failed += 1;
                        } else {
                            progress.timed += 1;
                        }
                        if let Err(e) = st.record(rec)
                            && write_error.is_none()
                        {
                            write_error = Some(format!("{}: {e}", st.path().display()));
                        }
                    }
                }
                progress.tick();
            }
        });
        progress.finish();
        if let Some(e) = write_error {
            warnings.push(format!(
                "the tuning cache could not be written ({e}); results are kept in memory only"
            ));
        }
        let left = queue.drain();
        if !left.is_empty() || abort.load(Ordering::Relaxed) {
            return Err(TuneError::Worker(format!(
                "{} configs left untimed: {}",
                (fresh.len() + resumed).saturating_sub(progress.done()),
                lane_errors.join("; ")
            )));
        }
        Ok((resumed, progress.skipped))
    }

    /// Compiles one config into the shared module cache; `Err` is the failure record.
    fn compile(
        &self,
        modules: &std::sync::Arc<ModuleCache>,
        arch: Arch,
        l: &Legal,
        phase: Phase,
        smem_limit: u64,
    ) -> Result<(), Box<TrialRecord>> {
        let mut rec = TrialRecord::new(l.config.clone(), phase);
        rec.smem_bytes = Some(l.facts.smem_bytes);
        rec.threads = Some(l.facts.threads);
        let req = self.target.compile_request(&l.config, arch);
        // NVRTC runs under a watchdog: a compile that does not finish in time is recorded as a
        // timeout and left to finish on its own thread (an in-process NVRTC call cannot be
        // cancelled); the sweep goes on.
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let (modules2, req2) = (modules.clone(), req.clone());
        std::thread::spawn(move || {
            let _ = done_tx.send(modules2.get_or_compile(&req2).map(|(m, _)| m));
        });
        let module = match done_rx.recv_timeout(self.opts.compile_timeout) {
            Ok(Ok(m)) => m,
            Err(_) => {
                let msg = format!(
                    "NVRTC did not finish within {:.1}s (compile watchdog)",
                    self.opts.compile_timeout.as_secs_f64()
                );
                return Err(Box::new(rec.failed(FailureKind::Timeout, msg)));
            }
            Ok(Err(e)) => {
                let msg: String = e.to_string().chars().take(2000).collect();
                return Err(Box::new(rec.failed(FailureKind::CompileError, msg)));
            }
        };
        let expr = self.target.name_expression(&l.config);
        if let Some(r) = module.resources_for(&expr) {
            rec.registers = Some(r.registers);
            rec.spill_bytes = Some(r.spill_stores + r.spill_loads);
            let total = l.facts.smem_bytes + u64::from(r.smem_bytes);
            if total > smem_limit {
                let msg = format!(
                    "{} B of dynamic + {} B of static shared memory exceed the device's opt-in limit of {smem_limit} B",
                    l.facts.smem_bytes, r.smem_bytes
                );
                return Err(Box::new(rec.failed(FailureKind::SmemLimit, msg)));
            }
            if self.opts.reject_spills && r.spill_stores + r.spill_loads > 0 {
                let msg = format!(
                    "ptxas: {} B spill stores, {} B spill loads at {} registers",
                    r.spill_stores, r.spill_loads, r.registers
                );
                return Err(Box::new(rec.failed(FailureKind::Spills, msg)));
            }
        }
        Ok(())
    }

    fn lane_loop(
        &self,
        lane: &mut Lane,
        queue: &super::queue::WorkQueue<Legal>,
        tx: &Sender<Event>,
        phase: Phase,
        timing: TimingSpec,
        deadline: Option<Instant>,
    ) {
        let mut id = 0u64;
        let mut setup_failures = 0;
        // The best verified full timing of this lane so far: the early stop's reference.
        let mut best: Option<f64> = None;
        while let Some(l) = queue.pop() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                let _ = tx.send(Event::OverBudget);
                continue;
            }
            id += 1;
            let mut timing = timing;
            if phase == Phase::Full
                && let (Some(margin), Some(b)) = (self.opts.early_stop, best)
            {
                timing.cutoff_ms = Some(b * (1.0 + margin));
            }
            let req = Request::Trial {
                id,
                config: l.config.clone(),
                timing,
                reject_spills: self.opts.reject_spills,
                brief: phase == Phase::Brief,
            };
            let gpu = lane.gpu;
            let base = || {
                let mut r = TrialRecord::new(l.config.clone(), phase);
                r.smem_bytes = Some(l.facts.smem_bytes);
                r.threads = Some(l.facts.threads);
                r.gpu = Some(gpu);
                r
            };
            let result = lane.request(&req, self.opts.trial_timeout);
            if let Some((_, Some(r))) = lane.take_ready() {
                let _ = tx.send(Event::Ready(r));
            }
            let rec = match result {
                Ok(Reply::Trial { id: rid, record }) if rid != id || record.config != l.config => {
                    // Not the answer to this request: the worker is confused; start afresh.
                    lane.retire();
                    base().failed(
                        FailureKind::Crash,
                        format!(
                            "the worker answered another request (id {rid}, config {}) instead of id {id}",
                            config_text(&record.config)
                        ),
                    )
                }
                Ok(Reply::Trial { record, .. }) => {
                    setup_failures = 0;
                    if record.failure == Some(FailureKind::CudaFault) {
                        lane.retire();
                    }
                    let mut rec = record;
                    // The parent knows what it asked for.
                    rec.config = l.config.clone();
                    rec.phase = phase;
                    rec.smem_bytes = rec.smem_bytes.or(Some(l.facts.smem_bytes));
                    rec.threads = rec.threads.or(Some(l.facts.threads));
                    rec
                }
                Ok(other) => base().failed(
                    FailureKind::Crash,
                    format!("unexpected answer from the worker: {other:?}"),
                ),
                Err(LaneError::Timeout(t)) => base().failed(
                    FailureKind::Timeout,
                    format!(
                        "no answer within {:.1}s (hang?): worker killed",
                        t.as_secs_f64()
                    ),
                ),
                Err(LaneError::Died(m)) => {
                    base().failed(FailureKind::Crash, format!("worker died: {m}"))
                }
                Err(LaneError::Setup(m)) => {
                    setup_failures += 1;
                    queue.push_front(l);
                    if setup_failures >= 2 {
                        let _ = tx.send(Event::LaneDown(format!("GPU {}: {m}", lane.gpu)));
                        return;
                    }
                    continue;
                }
            };
            if rec.early_stop_ms.is_none()
                && let Some(m) = rec.median_ms()
            {
                best = Some(best.map_or(m, |b| b.min(m)));
            }
            let _ = tx.send(Event::Record(rec));
        }
    }

    /// Re-times the finalists interleaved and picks the winner.
    fn final_round(
        &self,
        lane: &mut Lane,
        st: &mut TuneStore,
        legal: &[Legal],
        fin: Vec<ConfigMap>,
        selection: String,
        warnings: &mut Vec<String>,
    ) -> Result<WinnerRecord, TuneError> {
        let o = &self.opts;
        let req = Request::Retime {
            id: 0,
            configs: fin.clone(),
            rounds: o.retime_rounds,
            timing: o.timing,
        };
        let budget = o.trial_timeout * (o.retime_rounds.max(1) * fin.len()).max(2) as u32;
        let result = lane.request(&req, budget.min(Duration::from_secs(600)));
        if let Some((_, Some(r))) = lane.take_ready()
            && st.reference.is_none()
        {
            let _ = st.set_reference(r);
        }
        let (entries, cublas) = match result {
            // The answer to this request: its id, and only the finalists asked for.
            Ok(Reply::Retime {
                id: 0,
                entries,
                cublas,
                error,
            }) if !entries.is_empty() && entries.iter().all(|e| fin.contains(&e.config)) => {
                if let Some(e) = error {
                    warnings.push(format!("retime: {e}"));
                }
                (entries, cublas)
            }
            other => {
                let why = match other {
                    Ok(Reply::Retime { id: 0, entries, .. })
                        if entries.iter().any(|e| !fin.contains(&e.config)) =>
                    {
                        "the worker re-timed configs it was not asked for".to_string()
                    }
                    Ok(Reply::Retime { id: 0, error, .. }) => error.unwrap_or_default(),
                    Ok(Reply::Retime { id, entries, .. }) => format!(
                        "the worker answered another request (id {id}, {} entries)",
                        entries.len()
                    ),
                    Ok(r) => format!("{r:?}"),
                    Err(e) => e.to_string(),
                };
                return Err(TuneError::Worker(format!(
                    "re-timing the finalists ({}) failed: {why}",
                    fin.iter().map(config_text).collect::<Vec<_>>().join("; ")
                )));
            }
        };
        let resources = |c: &ConfigMap| {
            let smem = legal
                .iter()
                .find(|l| &l.config == c)
                .map_or(u64::MAX, |l| l.facts.smem_bytes);
            let regs = st
                .trial(c, Phase::Full)
                .and_then(|t| t.registers)
                .unwrap_or(u32::MAX);
            (smem, regs)
        };
        let i = winner::pick(&entries, o.noise_band, resources)
            .ok_or_else(|| TuneError::Worker("no finalist could be timed".into()))?;
        let w = &entries[i];
        Ok(WinnerRecord {
            config: w.config.clone(),
            median_ms: w.median_ms,
            tflops: w.tflops,
            finalists: entries.clone(),
            noise_band: o.noise_band,
            selection,
            cublas,
            space: None,
        })
    }
}
