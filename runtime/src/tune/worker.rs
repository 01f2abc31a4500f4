//! The worker process: the same executable re-launched by the tuner with
//! `TESSEL_TUNE_WORKER=1` and one GPU visible. It reads [`Request`]s from stdin and answers
//! each on stdout (see `protocol.rs`). A trial that hits a sticky CUDA error (illegal address,
//! trap …) is answered as [`FailureKind::CudaFault`] and the process exits, because its context
//! is poisoned; a hang is never answered — the parent's watchdog kills the process.
//!
//! Call [`worker_main_if_requested`] first thing in `main` of any program that tunes: it
//! returns at once in a normal run and never returns in a worker.

use std::io::{BufRead, Write};
use std::time::Instant;

use dsl_core::check::{Config, Problem};
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir;
use half::{bf16, f16};

use crate::cache::ModuleCache;
use crate::device::Device;
use crate::dsl::Instance;
use crate::dtype::{DType, Element};
use crate::launch::{KernelArg, LaunchConfig, LoadedModule};
use crate::timing::TimingConfig;

use super::bench::{Bench, Msg, StepError};
use super::job::JobBuilder;
use super::job_worker::JobSession;
use super::probe::GpuInfo;
use super::protocol::{JobRef, Reply, Request, TargetSpec, TimingSpec, WORKER_ENV, encode_reply};
use super::record::{
    ConfigMap, FailureKind, Phase, RetimeEntry, TimeStats, TrialPhases, TrialRecord, VerifyRecord,
};
use super::target::{Shape, Target, TuneSource};
use crate::timing::median;

/// In a worker process (`TESSEL_TUNE_WORKER=1`): serve trials for these DSL kernels and exit.
/// Otherwise: return at once.
pub fn worker_main_if_requested(kernels: &[&'static KernelDef]) {
    let sources: Vec<TuneSource> = kernels.iter().map(|&k| TuneSource::Dsl(k)).collect();
    worker_main_with(&sources);
}

/// Same, for any mix of DSL kernels and CUDA templates.
pub fn worker_main_with(sources: &[TuneSource]) {
    worker_main(sources, &[]);
}

/// In a worker process: serve trials of these general jobs (each builder under the name its
/// [`Job`](super::job::Job)s carry) and exit. Otherwise: return at once. Call it first thing
/// in `main` of a program that tunes jobs.
pub fn worker_main_jobs(jobs: &[(&str, &JobBuilder)]) {
    worker_main(&[], jobs);
}

/// In a worker process: serve trials of these DSL kernels or CUDA templates and of these
/// general jobs, then exit. Otherwise: return at once.
pub fn worker_main(sources: &[TuneSource], jobs: &[(&str, &JobBuilder)]) {
    if std::env::var(WORKER_ENV).as_deref() != Ok("1") {
        return;
    }
    exit_with_parent();
    let mut w = Worker {
        sources: sources.to_vec(),
        jobs,
        session: None,
        job: None,
        poisoned: false,
    };
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Request>(&line) {
            Ok(req) => w.handle(req),
            Err(e) => Reply::SetupFailed {
                message: format!("worker: bad request `{line}`: {e}"),
            },
        };
        send(&reply);
        if w.poisoned {
            std::process::exit(3);
        }
    }
    std::process::exit(0);
}

/// Makes this process exit as soon as its parent dies (it is then re-parented, and would keep
/// its GPU busy for nobody): a thread watches the parent's process id.
///
/// Hand-written rather than `PR_SET_PDEATHSIG`: that signal fires when the *thread* that
/// spawned the worker ends, and the tuner spawns workers from short-lived lane threads.
pub fn exit_with_parent() {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if std::os::unix::process::parent_id() != parent {
                    std::process::exit(5);
                }
            }
        });
    }
}

fn send(r: &Reply) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", encode_reply(r));
    let _ = out.flush();
}

/// (entries fastest first, cuBLAS interleaved, errors, context poisoned)
type Retimed = (Vec<RetimeEntry>, Option<TimeStats>, Option<String>, bool);

struct Worker<'a> {
    sources: Vec<TuneSource>,
    jobs: &'a [(&'a str, &'a JobBuilder)],
    session: Option<Session>,
    job: Option<JobSession>,
    /// A sticky CUDA error happened: answer, then exit.
    poisoned: bool,
}

/// What a worker holds for one (target, shape).
struct Session {
    dev: Device,
    target: Target,
    shape: Shape,
    problem: Problem,
    gpu: usize,
    cache: ModuleCache,
    bench: AnyBench,
}

enum AnyBench {
    F16(Bench<f16>),
    BF16(Bench<bf16>),
}

/// A compiled, loaded config with its arguments.
enum Launchable {
    Dsl(Box<Instance>, Vec<KernelArg>),
    Cuda(crate::launch::Kernel, LaunchConfig, Vec<KernelArg>),
}

impl Launchable {
    fn launch(&self) -> Result<(), Msg> {
        match self {
            Launchable::Dsl(i, args) => i.launch(args).map_err(|e| Msg(e.to_string())),
            // SAFETY: CUDA templates take (lhs, rhs, out, M, N, K) by contract
            // (`CudaTemplate`), and the pointers are the bench's live tensors of those shapes.
            Launchable::Cuda(k, cfg, args) => {
                unsafe { k.launch(cfg, args) }.map_err(|e| Msg(e.to_string()))
            }
        }
    }
}

impl Worker<'_> {
    fn handle(&mut self, req: Request) -> Reply {
        match req {
            Request::Setup {
                target,
                module_dir,
                gpu,
                job: Some(job),
                ..
            } => match self.setup_job(&target, &job, module_dir, gpu) {
                Ok(r) => r,
                Err(message) => Reply::SetupFailed { message },
            },
            Request::Setup {
                target,
                shape,
                module_dir,
                gpu,
                reference_timing,
                job: None,
            } => match self.setup(&target, shape, module_dir, gpu, reference_timing) {
                Ok(r) => r,
                Err(message) => Reply::SetupFailed { message },
            },
            Request::Trial {
                id,
                config,
                timing,
                reject_spills,
                brief,
            } => {
                let phase = if brief { Phase::Brief } else { Phase::Full };
                let tc = TimingConfig {
                    warmup: timing.warmup,
                    runs: timing.runs,
                };
                let record = match (self.session.as_mut(), self.job.as_mut()) {
                    (Some(s), _) => s.trial(config, phase, timing, reject_spills),
                    (None, Some(j)) => j.trial(config, phase, &tc, reject_spills),
                    (None, None) => TrialRecord::new(config, phase)
                        .failed(FailureKind::LaunchError, "worker: trial before setup"),
                };
                if record.failure == Some(FailureKind::CudaFault) {
                    self.poisoned_flag();
                }
                Reply::Trial { id, record }
            }
            Request::Retime {
                id,
                configs,
                rounds,
                timing,
            } if self.job.is_some() => {
                let tc = TimingConfig {
                    warmup: timing.warmup,
                    runs: timing.runs,
                };
                let flops = self.job.as_ref().and_then(|j| j.flops());
                match self.job.as_mut().map(|j| j.retime(&configs, rounds, &tc)) {
                    Some(Ok((timed, errors))) => {
                        let mut entries: Vec<RetimeEntry> = timed
                            .into_iter()
                            .filter_map(|(config, rounds_ms, ok)| {
                                let median_ms = median(&rounds_ms)?;
                                Some(RetimeEntry {
                                    config,
                                    median_ms,
                                    rounds_ms,
                                    tflops: flops
                                        .filter(|_| median_ms > 0.0)
                                        .map(|f| f / (median_ms * 1e-3) / 1e12),
                                    reverified: Some(ok),
                                })
                            })
                            .collect();
                        entries.sort_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
                        Reply::Retime {
                            id,
                            entries,
                            cublas: None,
                            error: (!errors.is_empty()).then(|| errors.join("; ")),
                        }
                    }
                    other => {
                        self.poisoned_flag();
                        Reply::Retime {
                            id,
                            entries: Vec::new(),
                            cublas: None,
                            error: Some(match other {
                                Some(Err(e)) => e,
                                _ => "worker: retime before setup".into(),
                            }),
                        }
                    }
                }
            }
            Request::Retime {
                id,
                configs,
                rounds,
                timing,
            } => match self.session.as_mut() {
                Some(s) => {
                    let (entries, cublas, error, fault) = s.retime(&configs, rounds, timing);
                    if fault {
                        self.poisoned_flag();
                    }
                    Reply::Retime {
                        id,
                        entries,
                        cublas,
                        error,
                    }
                }
                None => Reply::Retime {
                    id,
                    entries: Vec::new(),
                    cublas: None,
                    error: Some("worker: retime before setup".into()),
                },
            },
        }
    }

    /// After a sticky error: never touch the context again (not even to free memory: the
    /// session is leaked, the process exits right after the answer).
    fn poisoned_flag(&mut self) {
        if let Some(s) = self.session.take() {
            std::mem::forget(s);
        }
        if let Some(j) = self.job.take() {
            std::mem::forget(j);
        }
        self.poisoned = true;
    }

    fn setup_job(
        &mut self,
        spec: &TargetSpec,
        job: &JobRef,
        module_dir: Option<String>,
        gpu: usize,
    ) -> Result<Reply, String> {
        self.session = None;
        self.job = None;
        let build = self
            .jobs
            .iter()
            .find(|(n, _)| *n == job.name)
            .map(|(_, b)| *b)
            .ok_or_else(|| format!("worker: no job `{}` registered", job.name))?;
        let j = build(&job.key)?;
        let target = Target::for_job(&j).map_err(|e| e.to_string())?;
        if target.source_hash() != spec.source_hash {
            return Err(format!(
                "worker: job `{}` differs from the parent's (another build?)",
                job.name
            ));
        }
        let session = JobSession::new(j, module_dir, gpu)?;
        let info = session.device().info();
        let ready = Reply::Ready {
            gpu: GpuInfo {
                index: gpu,
                name: info.name.clone(),
                compute_capability: info.compute_capability,
                driver_version: info.driver_version,
                sm_count: info.sm_count,
                max_smem_per_block_optin: info.max_smem_per_block_optin,
            },
            reference: None,
        };
        self.job = Some(session);
        Ok(ready)
    }

    fn setup(
        &mut self,
        spec: &TargetSpec,
        shape: Shape,
        module_dir: Option<String>,
        gpu: usize,
        timing: TimingSpec,
    ) -> Result<Reply, String> {
        self.session = None;
        self.job = None;
        let source = self
            .sources
            .iter()
            .copied()
            .find(|s| s.name() == spec.kernel)
            .ok_or_else(|| format!("worker: no kernel `{}` registered", spec.kernel))?;
        let dtype = |n: &Option<String>| -> Result<Option<ir::DType>, String> {
            n.as_deref()
                .map(|n| ir::DType::from_name(n).ok_or(format!("unknown dtype `{n}`")))
                .transpose()
        };
        let variant = Variant {
            input: dtype(&spec.input)?,
            acc: dtype(&spec.acc)?,
        };
        let target = Target::new(source, variant).map_err(|e| e.to_string())?;
        if target.source_hash() != spec.source_hash {
            return Err(format!(
                "worker: kernel `{}` differs from the parent's (another build?)",
                spec.kernel
            ));
        }
        let problem = target.problem(&shape).map_err(|e| e.to_string())?;
        let dev = Device::open(0).map_err(|e| e.to_string())?;
        let tc = TimingConfig {
            warmup: timing.warmup,
            runs: timing.runs,
        };
        let cache = match module_dir {
            Some(d) => ModuleCache::with_dir(d),
            None => ModuleCache::in_memory(),
        };
        let (bench, reference) = match target.input {
            DType::F16 => Bench::<f16>::new(&dev, &cache, &shape, target.acc, &tc)
                .map(|(b, r)| (AnyBench::F16(b), r))?,
            DType::BF16 => Bench::<bf16>::new(&dev, &cache, &shape, target.acc, &tc)
                .map(|(b, r)| (AnyBench::BF16(b), r))?,
            other => return Err(format!("worker: {other} inputs are not supported")),
        };
        let info = dev.info();
        let ready = Reply::Ready {
            gpu: GpuInfo {
                index: gpu,
                name: info.name.clone(),
                compute_capability: info.compute_capability,
                driver_version: info.driver_version,
                sm_count: info.sm_count,
                max_smem_per_block_optin: info.max_smem_per_block_optin,
            },
            reference: Some(reference),
        };
        self.session = Some(Session {
            dev,
            target,
            shape,
            problem,
            gpu,
            cache,
            bench,
        });
        Ok(ready)
    }
}

impl Session {
    fn tensors(&self) -> Vec<crate::dsl::TensorArg> {
        match &self.bench {
            AnyBench::F16(b) => vec![b.lhs.as_arg(), b.rhs.as_arg(), b.out.as_arg()],
            AnyBench::BF16(b) => vec![b.lhs.as_arg(), b.rhs.as_arg(), b.out.as_arg()],
        }
    }

    /// Compiles (a disk-cache hit when the parent compiled it) and loads a config.
    fn load(
        &self,
        config: &ConfigMap,
        rec: &mut TrialRecord,
    ) -> Result<Launchable, (FailureKind, String)> {
        let launch_err = |e: &dyn std::fmt::Display| (FailureKind::LaunchError, e.to_string());
        if let Some(p) = self.target.prepared() {
            let cfg = Config {
                values: config.clone(),
            };
            let inst = Instance::new(&self.dev, &self.cache, p.clone(), &cfg, &self.problem)
                .map_err(|e| match e {
                    crate::dsl::DslError::Compile(c) => (FailureKind::CompileError, c.to_string()),
                    other => launch_err(&other),
                })?;
            if let Some(r) = &inst.resources {
                rec.registers = Some(r.registers);
                rec.spill_bytes = Some(r.spill_stores + r.spill_loads);
            }
            rec.smem_bytes = Some(u64::from(inst.launch.dynamic_smem_bytes));
            rec.threads = Some(inst.launch.block.0);
            let args = inst.args(&self.tensors()).map_err(|e| launch_err(&e))?;
            return Ok(Launchable::Dsl(Box::new(inst), args));
        }
        let TuneSource::Cuda(t) = self.target.source else {
            return Err(launch_err(&"DSL kernel not prepared"));
        };
        let arch = self
            .target
            .arch_for(self.dev.info().compute_capability)
            .ok_or_else(|| launch_err(&"this GPU cannot run the kernel"))?;
        let req = self.target.compile_request(config, arch);
        let (module, _) = self
            .cache
            .get_or_compile(&req)
            .map_err(|e| (FailureKind::CompileError, e.to_string()))?;
        let expr = self.target.name_expression(config);
        let lowered = module
            .lowered_name(&expr)
            .ok_or_else(|| launch_err(&format!("no lowered name for `{expr}`")))?
            .to_string();
        if let Some(r) = module.resources_for(&lowered) {
            rec.registers = Some(r.registers);
            rec.spill_bytes = Some(r.spill_stores + r.spill_loads);
        }
        let kernel = LoadedModule::load(&self.dev, &module.cubin)
            .and_then(|m| m.kernel(&lowered))
            .map_err(|e| launch_err(&e))?;
        let lc = (t.launch)(config, &self.shape);
        rec.smem_bytes = Some(u64::from(lc.dynamic_smem_bytes));
        rec.threads = Some(lc.block.0 * lc.block.1 * lc.block.2);
        let t_ = self.tensors();
        let args = vec![
            KernelArg::Ptr(t_[0].ptr),
            KernelArg::Ptr(t_[1].ptr),
            KernelArg::Ptr(t_[2].ptr),
            KernelArg::I32(self.shape.m as i32),
            KernelArg::I32(self.shape.n as i32),
            KernelArg::I32(self.shape.k as i32),
        ];
        Ok(Launchable::Cuda(kernel, lc, args))
    }

    fn trial(
        &mut self,
        config: ConfigMap,
        phase: Phase,
        timing: TimingSpec,
        reject_spills: bool,
    ) -> TrialRecord {
        let mut rec = TrialRecord::new(config.clone(), phase);
        rec.gpu = Some(self.gpu);
        let mut phases = TrialPhases::default();
        let clock = Instant::now();
        let l = match self.load(&config, &mut rec) {
            Ok(l) => l,
            Err((kind, msg)) => return rec.failed(kind, msg),
        };
        phases.load_ms = ms_since(clock);
        if reject_spills && rec.spill_bytes.unwrap_or(0) > 0 {
            let msg = format!(
                "ptxas: {} B of spills at {} registers",
                rec.spill_bytes.unwrap_or(0),
                rec.registers.unwrap_or(0)
            );
            return rec.failed(FailureKind::Spills, msg);
        }
        let launch = || l.launch();
        let tc = TimingConfig {
            warmup: timing.warmup,
            runs: timing.runs,
        };
        let flops = self.shape.flops();
        let dev = &self.dev;
        let cutoff = timing.cutoff_ms;
        let result = match &mut self.bench {
            AnyBench::F16(b) => run_trial(b, dev, &launch, &tc, cutoff, flops, &mut phases),
            AnyBench::BF16(b) => run_trial(b, dev, &launch, &tc, cutoff, flops, &mut phases),
        };
        rec.phases = Some(phases);
        match result {
            Ok((v, t, stopped)) => {
                rec.verification = Some(v);
                rec.time = Some(t);
                rec.early_stop_ms = stopped;
                rec
            }
            Err((kind, msg, v)) => {
                rec.verification = v;
                rec.failed(kind, msg)
            }
        }
    }

    /// Times `configs` and cuBLAS interleaved; returns the entries (fastest first), cuBLAS's
    /// median of round medians, an error message for configs that could not be timed, and
    /// whether the context is poisoned.
    fn retime(&mut self, configs: &[ConfigMap], rounds: usize, timing: TimingSpec) -> Retimed {
        let mut loaded = Vec::new();
        let mut errors = Vec::new();
        for c in configs {
            let mut rec = TrialRecord::new(c.clone(), Phase::Full);
            match self.load(c, &mut rec) {
                Ok(l) => loaded.push((c.clone(), l, Vec::new())),
                Err((_, e)) => errors.push(format!("{}: {e}", super::record::config_text(c))),
            }
        }
        let tc = TimingConfig {
            warmup: timing.warmup,
            runs: timing.runs,
        };
        let flops = self.shape.flops();
        let mut cublas_ms = Vec::new();
        for _ in 0..rounds.max(1) {
            let c = match &mut self.bench {
                AnyBench::F16(b) => b.time_cublas(&self.dev, &tc, flops),
                AnyBench::BF16(b) => b.time_cublas(&self.dev, &tc, flops),
            };
            match c {
                Ok(t) => cublas_ms.push(t.median_ms),
                Err(e) => errors.push(format!("cuBLAS: {e}")),
            }
            for (c, l, medians) in loaded.iter_mut() {
                let launch = || l.launch();
                let r = match &self.bench {
                    AnyBench::F16(b) => b.time(&self.dev, &tc, flops, &launch),
                    AnyBench::BF16(b) => b.time(&self.dev, &tc, flops, &launch),
                };
                match r {
                    Ok(t) => medians.push(t.median_ms),
                    Err(StepError::Launch(e)) => {
                        errors.push(format!("{}: {e}", super::record::config_text(c)))
                    }
                    Err(StepError::Fault(e)) => return (Vec::new(), None, Some(e), true),
                }
            }
        }
        // Each finalist's output is verified again after its timing rounds: a config that only
        // goes wrong when run back to back (races, uninitialised shared memory) cannot win.
        let mut entries = Vec::new();
        for (config, l, rounds_ms) in loaded {
            let Some(median_ms) = median(&rounds_ms) else {
                continue;
            };
            let launch = || l.launch();
            let check = match &mut self.bench {
                AnyBench::F16(b) => reverify(b, &self.dev, &launch),
                AnyBench::BF16(b) => reverify(b, &self.dev, &launch),
            };
            let reverified = match check {
                Ok(ok) => ok,
                Err(StepError::Fault(e)) => return (Vec::new(), None, Some(e), true),
                Err(StepError::Launch(e)) => {
                    errors.push(format!("{}: {e}", super::record::config_text(&config)));
                    false
                }
            };
            entries.push(RetimeEntry {
                config,
                median_ms,
                rounds_ms,
                tflops: (median_ms > 0.0).then(|| flops / (median_ms * 1e-3) / 1e12),
                reverified: Some(reverified),
            });
        }
        entries.sort_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
        let error = (!errors.is_empty()).then(|| errors.join("; "));
        let cublas = median(&cublas_ms).map(|m| TimeStats {
            median_ms: m,
            min_ms: cublas_ms.iter().copied().fold(f64::INFINITY, f64::min),
            max_ms: cublas_ms.iter().copied().fold(0.0, f64::max),
            mean_ms: cublas_ms.iter().sum::<f64>() / cublas_ms.len() as f64,
            runs: cublas_ms.len() * tc.runs,
            tflops: (m > 0.0).then(|| flops / (m * 1e-3) / 1e12),
        });
        (entries, cublas, error, false)
    }
}

/// One more launch on a poisoned output, verified against the reference.
fn reverify<T: Element>(
    b: &mut Bench<T>,
    dev: &Device,
    launch: &dyn Fn() -> Result<(), Msg>,
) -> Result<bool, StepError> {
    b.run_once(dev, launch)?;
    Ok(b.verify(dev)?.passed())
}

/// A verified trial's record, time and early-stop cutoff (when the probe exceeded it), or
/// the failure.
type TrialResult =
    Result<(VerifyRecord, TimeStats, Option<f64>), (FailureKind, String, Option<VerifyRecord>)>;

/// One launch on a poisoned output, its full output compared with the reference on the
/// device, then the timing (the time counts only if the verification passed). `phases`
/// receives each step's wall time.
fn run_trial<T: Element>(
    b: &mut Bench<T>,
    dev: &Device,
    launch: &dyn Fn() -> Result<(), Msg>,
    tc: &TimingConfig,
    cutoff_ms: Option<f64>,
    flops: f64,
    phases: &mut TrialPhases,
) -> TrialResult {
    let kind = |e: StepError| match e {
        StepError::Launch(m) => (FailureKind::LaunchError, m),
        StepError::Fault(m) => (FailureKind::CudaFault, m),
    };
    let clock = Instant::now();
    b.run_once(dev, launch).map_err(|e| {
        let (k, m) = kind(e);
        (k, m, None)
    })?;
    phases.run_ms = ms_since(clock);
    let clock = Instant::now();
    let v = b.verify(dev).map_err(|e| {
        let (k, m) = kind(e);
        (k, m, None)
    })?;
    phases.verify_ms = ms_since(clock);
    let vr = VerifyRecord::from(&v);
    if !v.passed() {
        return Err((FailureKind::WrongResult, v.to_string(), Some(vr)));
    }
    let clock = Instant::now();
    let t = match cutoff_ms {
        Some(cutoff) => match b.probe(dev, flops, launch) {
            Ok(p) if p.median_ms > cutoff => Ok((p, Some(cutoff))),
            Ok(_) => b.time(dev, tc, flops, launch).map(|t| (t, None)),
            Err(e) => Err(e),
        },
        None => b.time(dev, tc, flops, launch).map(|t| (t, None)),
    };
    phases.time_ms = ms_since(clock);
    match t {
        Err(StepError::Fault(m)) => Err((FailureKind::CudaFault, m, Some(vr))),
        Err(e) => {
            let (k, m) = kind(e);
            Err((k, m, Some(vr)))
        }
        Ok((t, stopped)) => Ok((vr, TimeStats::from(&t), stopped)),
    }
}

/// Milliseconds since `t`.
fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
