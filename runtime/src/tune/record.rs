//! What the tuner records: one [`TrialRecord`] per timed (or failed) configuration, the cuBLAS
//! [`ReferenceRecord`] and the [`WinnerRecord`]. The same types travel over the worker protocol
//! and are stored in the cache, so a trial measured in a worker is written exactly as received.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::legality::FilterReport;
use crate::timing::Timing;
use crate::verify::Verification;

/// Floats that survive JSON: finite values as numbers, NaN and ±infinity as the strings
/// `"NaN"`, `"inf"`, `"-inf"` (JSON has no such numbers and `serde_json` would write `null`,
/// which then fails to read back and loses the whole record).
pub mod float {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Num(f64),
        Text(String),
        Null(()),
    }

    fn to_repr(v: f64) -> Repr {
        if v.is_nan() {
            Repr::Text("NaN".into())
        } else if v.is_infinite() {
            Repr::Text(if v > 0.0 { "inf" } else { "-inf" }.into())
        } else {
            Repr::Num(v)
        }
    }

    fn from_repr(r: Repr) -> f64 {
        match r {
            Repr::Num(v) => v,
            Repr::Text(t) => match t.as_str() {
                "inf" | "+inf" | "Infinity" => f64::INFINITY,
                "-inf" | "-Infinity" => f64::NEG_INFINITY,
                _ => f64::NAN,
            },
            Repr::Null(()) => f64::NAN,
        }
    }

    /// `#[serde(with = "float")]` for `f64`.
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        to_repr(*v).serialize(s)
    }

    /// `#[serde(with = "float")]` for `f64`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Repr::deserialize(d).map(from_repr)
    }

    /// `#[serde(with = "float::opt")]` for `Option<f64>`.
    pub mod opt {
        use super::*;

        /// Serializes `None` as `null`, a value as [`super::serialize`] does.
        pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
            v.map(to_repr).serialize(s)
        }

        /// Reads `null` (or a missing field) as `None`.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
            Ok(Option::<Repr>::deserialize(d)?.and_then(|r| match r {
                Repr::Null(()) => None,
                r => Some(from_repr(r)),
            }))
        }
    }

    /// `#[serde(with = "float::vec")]` for `Vec<f64>`.
    pub mod vec {
        use super::*;

        /// Each element as [`super::serialize`] does.
        pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
            v.iter()
                .map(|x| to_repr(*x))
                .collect::<Vec<_>>()
                .serialize(s)
        }

        /// Each element as [`super::deserialize`] does.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            Ok(Vec::<Repr>::deserialize(d)?
                .into_iter()
                .map(from_repr)
                .collect())
        }
    }
}

/// A configuration: tunable name → value (sorted by name, so equal configs compare equal).
pub type ConfigMap = dsl_core::tunable::ConfigValues;

/// Why a configuration has no time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// NVRTC rejected the instantiation.
    CompileError,
    /// ptxas reported register spills (local memory) and spills are not allowed.
    Spills,
    /// The kernel's static shared memory (ptxas) plus its dynamic shared memory exceed the
    /// device's opt-in limit: found after compiling, the launch would be refused.
    SmemLimit,
    /// The launch was refused before running (invalid configuration, missing kernel …); the
    /// CUDA context is still usable.
    LaunchError,
    /// The kernel faulted (illegal address, trap …): a sticky error that poisons the context.
    CudaFault,
    /// The worker process died without reporting (signal, abort, panic).
    Crash,
    /// The worker did not answer within the watchdog timeout (a hang); it was killed.
    Timeout,
    /// The output differs from the cuBLAS reference (or was never written).
    WrongResult,
}

impl FailureKind {
    /// Every kind, in report order.
    pub const ALL: [FailureKind; 8] = [
        FailureKind::CompileError,
        FailureKind::Spills,
        FailureKind::SmemLimit,
        FailureKind::LaunchError,
        FailureKind::CudaFault,
        FailureKind::Crash,
        FailureKind::Timeout,
        FailureKind::WrongResult,
    ];

    /// The snake_case name used in the cache, CSV and tables.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::CompileError => "compile_error",
            FailureKind::Spills => "spills",
            FailureKind::SmemLimit => "smem_limit",
            FailureKind::LaunchError => "launch_error",
            FailureKind::CudaFault => "cuda_fault",
            FailureKind::Crash => "crash",
            FailureKind::Timeout => "timeout",
            FailureKind::WrongResult => "wrong_result",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Timing statistics of one trial (milliseconds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeStats {
    /// Median time, ms.
    #[serde(with = "float")]
    pub median_ms: f64,
    /// Fastest run, ms.
    #[serde(with = "float")]
    pub min_ms: f64,
    /// Slowest run, ms.
    #[serde(with = "float")]
    pub max_ms: f64,
    /// Mean, ms.
    #[serde(with = "float")]
    pub mean_ms: f64,
    /// Timed calls.
    pub runs: usize,
    /// Throughput at the median.
    #[serde(with = "float::opt", default)]
    pub tflops: Option<f64>,
}

impl From<&Timing> for TimeStats {
    fn from(t: &Timing) -> Self {
        TimeStats {
            median_ms: t.median_ms,
            min_ms: t.min_ms,
            max_ms: t.max_ms,
            mean_ms: t.mean_ms,
            runs: t.runs,
            tflops: t.tflops,
        }
    }
}

/// The verification of a trial's output against cuBLAS (over the full output).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerifyRecord {
    /// Whether the output verified.
    pub passed: bool,
    /// Largest relative error.
    #[serde(with = "float")]
    pub rel_error: f64,
    /// The tolerance the comparison uses.
    #[serde(with = "float")]
    pub tolerance: f64,
    /// Largest absolute error.
    #[serde(with = "float")]
    pub max_abs_error: f64,
    /// Output elements never written.
    pub poisoned: usize,
    /// NaN outputs.
    pub nans: usize,
    /// Infinite outputs.
    pub infs: usize,
    /// [`Verification`]'s one-line summary.
    pub summary: String,
}

impl From<&Verification> for VerifyRecord {
    fn from(v: &Verification) -> Self {
        VerifyRecord {
            passed: v.passed(),
            rel_error: v.rel_error,
            tolerance: v.tolerance,
            max_abs_error: v.max_abs_error,
            poisoned: v.poisoned,
            nans: v.nans,
            infs: v.infs,
            summary: v.to_string(),
        }
    }
}

/// Which timing a trial record holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Successive halving's first, short timing.
    Brief,
    /// The sweep's timing (brute force, random, halving's second round).
    Full,
}

/// One configuration's trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// The tunable values (name → value) tried.
    pub config: ConfigMap,
    /// Which timing the record holds.
    pub phase: Phase,
    /// Present when the trial verified and was timed.
    pub time: Option<TimeStats>,
    /// How the output compared with the reference; `None` when the trial failed before its
    /// output was checked.
    pub verification: Option<VerifyRecord>,
    /// Registers per thread (ptxas).
    pub registers: Option<u32>,
    /// Spill stores + loads in bytes (ptxas).
    pub spill_bytes: Option<u32>,
    /// Dynamic shared memory per block, bytes.
    pub smem_bytes: Option<u64>,
    /// Threads per block.
    pub threads: Option<u32>,
    /// Why the config has no time.
    pub failure: Option<FailureKind>,
    /// The failure's message (compile log excerpt, driver error, verification summary …).
    pub error: Option<String>,
    /// The GPU (index among the tuner's GPUs) that ran it.
    pub gpu: Option<usize>,
    /// How many times the config was tried (a transient timeout or crash is retried once on
    /// resume).
    #[serde(default = "one")]
    pub attempts: u32,
    /// Set when the early stop skipped the full timing: the cutoff (ms) the probe's median
    /// exceeded. `time` then holds the probe's few runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_stop_ms: Option<f64>,
    /// Where the trial's wall time went, on the worker (absent in records of older caches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<TrialPhases>,
}

/// The wall time of one trial's steps on the worker, in milliseconds: what a sweep's time is
/// made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrialPhases {
    /// Preparing the launch: the module (from the compile cache), its arguments.
    pub load_ms: f64,
    /// Poisoning the output, the first launch and its completion.
    pub run_ms: f64,
    /// Comparing the full output with the reference.
    pub verify_ms: f64,
    /// Warm-up and timed launches.
    pub time_ms: f64,
}

impl TrialPhases {
    /// The sum of the phases.
    pub fn total_ms(&self) -> f64 {
        self.load_ms + self.run_ms + self.verify_ms + self.time_ms
    }
}

fn one() -> u32 {
    1
}

impl TrialRecord {
    /// A record with only a config and a phase.
    pub fn new(config: ConfigMap, phase: Phase) -> Self {
        TrialRecord {
            config,
            phase,
            time: None,
            verification: None,
            registers: None,
            spill_bytes: None,
            smem_bytes: None,
            threads: None,
            failure: None,
            error: None,
            gpu: None,
            attempts: 1,
            early_stop_ms: None,
            phases: None,
        }
    }

    /// Whether the failure may be transient (a hang or a crash of the worker process) and is
    /// worth one more try on resume.
    pub fn retry_worthy(&self) -> bool {
        matches!(
            self.failure,
            Some(FailureKind::Timeout | FailureKind::Crash)
        ) && self.attempts < 2
    }

    /// A failed record.
    pub fn failed(mut self, kind: FailureKind, error: impl Into<String>) -> Self {
        self.failure = Some(kind);
        self.error = Some(error.into());
        self
    }

    /// The median time, for a verified and timed trial.
    pub fn median_ms(&self) -> Option<f64> {
        match (&self.failure, &self.time) {
            (None, Some(t)) => Some(t.median_ms),
            _ => None,
        }
    }

    /// Throughput at the median, when timed.
    pub fn tflops(&self) -> Option<f64> {
        self.time.as_ref().and_then(|t| t.tflops)
    }
}

/// cuBLAS on the same problem, and the memory bandwidth measured by a device copy: the
/// baselines for "% of cuBLAS" and the roofline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceRecord {
    /// cuBLAS on the same problem.
    pub cublas: TimeStats,
    /// Device-to-device copy bandwidth, GB/s (bytes read + written).
    #[serde(with = "float::opt", default)]
    pub bandwidth_gbs: Option<f64>,
}

/// One of the final candidates re-timed interleaved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetimeEntry {
    /// The candidate's tunable values (name → value).
    pub config: ConfigMap,
    /// Median over the rounds' medians.
    #[serde(with = "float")]
    pub median_ms: f64,
    /// Each round's median.
    #[serde(with = "float::vec")]
    pub rounds_ms: Vec<f64>,
    /// Throughput at the median, TFLOP/s.
    #[serde(with = "float::opt", default)]
    pub tflops: Option<f64>,
    /// The output verified again after the timing rounds (`None`: not checked).
    #[serde(default)]
    pub reverified: Option<bool>,
}

/// The chosen configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WinnerRecord {
    /// The winning tunable values (name → value).
    pub config: ConfigMap,
    /// Median time, ms.
    #[serde(with = "float")]
    pub median_ms: f64,
    /// Throughput at the median, TFLOP/s.
    #[serde(with = "float::opt", default)]
    pub tflops: Option<f64>,
    /// The interleaved re-timing of the finalists, fastest first.
    pub finalists: Vec<RetimeEntry>,
    /// Relative band (e.g. 0.02) inside which finalists count as tied.
    #[serde(with = "float")]
    pub noise_band: f64,
    /// The strategy and budget that produced it (a cached winner is reused only for the same).
    pub selection: String,
    /// cuBLAS timed in the same interleaved rounds as the finalists.
    #[serde(default)]
    pub cublas: Option<TimeStats>,
    /// What the legality filter found before the sweep, so a cached answer need not filter the
    /// space again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<FilterReport>,
}

pub use dsl_core::tunable::config_text;
