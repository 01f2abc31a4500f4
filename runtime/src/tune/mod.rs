//! The autotuner: sweep a kernel's tunables with a legality filter, compile in parallel, time
//! each config in a fault-isolated worker process, keep a persistent per-device cache.
//!
//! ```no_run
//! use tessel_runtime::tune::{self, Shape, Strategy, Target, TuneOptions, Tuner};
//! # static KERNEL: dsl_core::def::KernelDef = dsl_core::def::KernelDef::INVALID;
//! fn main() -> Result<(), tune::TuneError> {
//!     tune::worker_main_if_requested(&[&KERNEL]); // first: a re-launched copy serves trials
//!     let opts = TuneOptions { strategy: Strategy::Brute, ..TuneOptions::default() };
//!     let target = Target::dsl(&KERNEL, Default::default())?;
//!     let outcome = Tuner::new(target, Shape::cube(8192), opts).run()?; // or the cached answer
//!     print!("{}", outcome.table(10));             // top 10, % of cuBLAS, failures by kind
//!     println!("{}", outcome.winner_line());
//!     outcome.write_exports("target/tune".as_ref(), "matmul", "STAGES").ok(); // CSV JSON SVG
//!     Ok(())
//! }
//! ```
//!
//! The pieces, one module each, in pipeline order:
//!
//! * `target.rs` — what is tuned: a DSL GEMM (`gemm_kernel!`), a hand-written templated CUDA
//!   GEMM ([`CudaTemplate`]), or any DSL kernel through a general [`Job`] (`job.rs`: the
//!   user's tensors, dtypes, reference, tolerances and problem-size key); all take the same
//!   path below.
//! * `filter.rs` — the cross product of the tunable domains minus what the checker rules out
//!   (restrictions, shared memory against the device's opt-in limit, threads, WGMMA shapes,
//!   swizzle, TMA boxes), counted per rule; spills and compile errors are counted after NVRTC.
//! * `strategy.rs` — brute force, random with a budget (count or seconds), successive halving,
//!   local (an even stride, then the neighbors of the fastest); deterministic for a seed.
//!   [`TuneOptions::shard`] splits a plan over machines.
//! * `sweep.rs` — NVRTC on all cores (rayon, each compile under a watchdog) feeds a queue; one
//!   lane per GPU (`lane.rs`) runs each config in its worker (`worker.rs` with `bench.rs` for
//!   GEMMs against cuBLAS, `job_worker.rs` for jobs against their reference): launch once on a
//!   poisoned output, verify the full output (on the GPU for GEMMs, `fullcheck.rs`), then
//!   warm-up and the median of ≥ 20 timed runs — unless the early stop's short probe shows
//!   the config slower than the best so far by the margin ([`TuneOptions::early_stop`]).
//!   Finalists are re-timed interleaved and verified again; the winner is picked with a noise
//!   band (`winner.rs`).
//! * Fault isolation: the worker is this executable re-launched with `TESSEL_TUNE_WORKER=1`
//!   ([`worker_main_if_requested`], [`worker_main_jobs`] or [`worker_main`] must be the first
//!   call in `main`); it exits when its parent dies. A sticky CUDA error makes it answer and
//!   exit; a hang is killed by the parent's watchdog; either way the failure is recorded
//!   (`cuda_fault`, `crash`, `timeout`; the last two are retried once on resume) and a fresh
//!   worker goes on. A reply must answer the request it was sent for.
//! * `store.rs` — the JSON Lines cache, keyed by GPU name, compute capability, driver, NVRTC,
//!   kernel source hash, problem-size key, dtypes and failure-deciding settings; locked,
//!   merged and atomically rewritten on every write; decoded line by line; resume; `retune`.
//! * `cachedir.rs` — list, export, import, merge and clear cache folders.
//! * `lookup.rs` — [`winner_for`]: the cached winner for a kernel and problem-size key, for a
//!   launch to pick.
//! * `outcome.rs`, `svg.rs`, `progress.rs` — table, CSV / JSON / SVG exports, roofline line,
//!   progress line.
//!
//! Several GPUs of one model: one worker per GPU (`CUDA_VISIBLE_DEVICES`), trials spread over
//! them; [`TuneOptions::gpus`] limits which. The final re-timing runs on the first.

use std::path::PathBuf;
use std::time::Duration;

/// Timed runs of the early stop's probe ([`TuneOptions::early_stop`]).
pub const EARLY_STOP_PROBE_RUNS: usize = 3;

pub mod bench;
pub mod cachedir;
mod export;
pub mod filter;
pub mod fullcheck;
pub mod job;
pub mod job_worker;
pub mod lane;
pub mod legality;
pub mod lookup;
pub mod outcome;
pub mod planted;
pub mod probe;
pub mod progress;
pub mod protocol;
pub mod queue;
pub mod record;
pub mod store;
pub mod strategy;
pub mod svg;
pub mod sweep;
pub mod target;
pub mod winner;
pub mod worker;

pub use filter::{FilterReport, FilterRule};
pub use job::{Job, JobBuilder};
pub use lane::WorkerCommand;
pub use lookup::{problem_key, winner_for};
pub use outcome::TuneOutcome;
pub use protocol::TimingSpec;
pub use record::{FailureKind, TrialPhases, TrialRecord, WinnerRecord};
pub use strategy::{Budget, Strategy};
pub use target::{CudaTemplate, Shape, Target, TuneSource};
pub use worker::{worker_main, worker_main_if_requested, worker_main_jobs, worker_main_with};

/// Tuner errors.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// The kernel cannot be tuned (not a GEMM of the supported shape, failed to prepare …).
    #[error("{0}")]
    Target(String),
    /// No usable GPU.
    #[error("no GPU to tune on: {0}")]
    NoGpu(String),
    /// NVRTC is missing or broken.
    #[error("NVRTC: {0}")]
    Compile(String),
    /// Workers could not be started or kept alive.
    #[error("tuning workers: {0}")]
    Worker(String),
    /// The cache could not be written.
    #[error("tuning cache: {0}")]
    Cache(String),
}

/// How to tune.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// How configs are chosen.
    pub strategy: Strategy,
    /// A limit on the sweep (count or seconds).
    pub budget: Option<Budget>,
    /// Seed of the random strategy.
    pub seed: u64,
    /// Ignore the cache (and overwrite it).
    pub retune: bool,
    /// GPU indices to use (all of the first one's model when `None`).
    pub gpus: Option<Vec<usize>>,
    /// The tuning cache folder (default: [`store::default_dir`]).
    pub cache_dir: Option<PathBuf>,
    /// Where compiled modules go (default: the module cache's folder, else `<cache>/modules`).
    pub module_dir: Option<PathBuf>,
    /// Timing of a trial (and of cuBLAS).
    pub timing: TimingSpec,
    /// Halving's first round.
    pub brief_timing: TimingSpec,
    /// Halving's second round.
    pub long_timing: TimingSpec,
    /// Early stop: a config whose short probe (a warm-up and [`EARLY_STOP_PROBE_RUNS`] timed
    /// runs) is slower than the best verified time of its GPU so far by more than this
    /// fraction is not timed further; its record keeps the probe's time and says so
    /// (`TrialRecord::early_stop_ms`). It cannot be the winner: the winner is at most the best
    /// time so far. `None`: every config gets the full timing.
    pub early_stop: Option<f64>,
    /// How many configs reach the interleaved final round.
    pub finalists: usize,
    /// Rounds of the final interleaved re-timing.
    pub retime_rounds: usize,
    /// Finalists within this relative band of the fastest count as tied.
    pub noise_band: f64,
    /// Watchdog per trial.
    pub trial_timeout: Duration,
    /// Watchdog for a worker's start (inputs, cuBLAS reference).
    pub setup_timeout: Duration,
    /// Watchdog per NVRTC compile.
    pub compile_timeout: Duration,
    /// Remove configs whose ptxas report shows spills.
    pub reject_spills: bool,
    /// Compile threads (0: all cores).
    pub compile_threads: usize,
    /// Where the progress line goes (none: silent; the library prints nothing itself).
    pub progress: Option<progress::ProgressSink>,
    /// How to start a worker (default: this executable).
    pub worker: Option<WorkerCommand>,
    /// Use these GPUs instead of asking the driver (tests with a stand-in worker).
    pub devices: Option<Vec<probe::GpuInfo>>,
    /// Time only this shard of the plan (`--shard i/n`); no winner is picked (merge the
    /// shards' caches, then run unsharded: every trial is then answered from the cache).
    pub shard: Option<Shard>,
}

impl TuneOptions {
    /// The settings that decide whether a trial fails, as they enter the cache key.
    pub fn settings_text(&self) -> String {
        format!(
            "trial_timeout={}ms setup_timeout={}ms compile_timeout={}ms spills={}",
            self.trial_timeout.as_millis(),
            self.setup_timeout.as_millis(),
            self.compile_timeout.as_millis(),
            if self.reject_spills {
                "reject"
            } else {
                "allow"
            }
        )
    }
}

/// One of `count` disjoint parts of a sweep's plan: shard `index` takes the plan's positions
/// `index, index + count, …`, so shards of any plan are balanced and cover it exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based.
    pub index: usize,
    /// At least 1.
    pub count: usize,
}

impl Shard {
    /// Whether the plan position `pos` is this shard's.
    pub fn owns(&self, pos: usize) -> bool {
        pos % self.count == self.index
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    /// `i/n` with `0 <= i < n`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("shard `{s}`: use i/n with 0 <= i < n (e.g. 0/4)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            strategy: Strategy::Brute,
            budget: None,
            seed: 0,
            retune: false,
            gpus: None,
            cache_dir: None,
            module_dir: None,
            timing: TimingSpec {
                cutoff_ms: None,
                warmup: 3,
                runs: 20,
            },
            brief_timing: TimingSpec {
                cutoff_ms: None,
                warmup: 1,
                runs: 20,
            },
            long_timing: TimingSpec {
                cutoff_ms: None,
                warmup: 5,
                runs: 60,
            },
            early_stop: Some(0.25),
            finalists: 3,
            retime_rounds: 11,
            noise_band: 0.02,
            trial_timeout: Duration::from_secs(15),
            setup_timeout: Duration::from_secs(180),
            compile_timeout: Duration::from_secs(300),
            reject_spills: true,
            compile_threads: 0,
            progress: None,
            worker: None,
            devices: None,
            shard: None,
        }
    }
}

/// A sweep of one target on one problem: a GEMM shape, or a general [`Job`].
pub struct Tuner {
    /// The kernel being tuned and its tunables.
    pub target: Target,
    /// The GEMM problem (all zero for a job).
    pub shape: Shape,
    /// Strategy, budget, seed, GPUs and cache folder of the sweep.
    pub opts: TuneOptions,
    /// The general job, when tuning one.
    pub job: Option<Job>,
}

impl Tuner {
    /// A GEMM target on `shape`.
    pub fn new(target: Target, shape: Shape, opts: TuneOptions) -> Tuner {
        Tuner {
            target,
            shape,
            opts,
            job: None,
        }
    }

    /// A general job (any DSL kernel, the job's tensors and reference); its builder must be
    /// registered with [`worker_main_jobs`] in this program.
    pub fn job(job: Job, opts: TuneOptions) -> Result<Tuner, TuneError> {
        job.validate().map_err(TuneError::Target)?;
        Ok(Tuner {
            target: Target::for_job(&job)?,
            shape: Shape::new(0, 0, 0),
            opts,
            job: Some(job),
        })
    }

    /// The problem-size key results are cached under: the job's key, or
    /// [`lookup::problem_key`] of the GEMM shape's binding (`K=… M=… N=…`).
    pub fn problem_key(&self) -> String {
        match &self.job {
            Some(j) => j.key.clone(),
            None => self
                .target
                .problem(&self.shape)
                .map(|p| lookup::problem_key(&p))
                .unwrap_or_else(|_| self.shape.text()),
        }
    }
}
