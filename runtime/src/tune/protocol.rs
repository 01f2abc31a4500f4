//! The parent ↔ worker protocol: one JSON object per line.
//!
//! The parent writes [`Request`]s to the worker's stdin; the worker answers each with one
//! [`Reply`] on stdout, prefixed by [`TAG`] so that anything else a library prints there is
//! ignored. The worker answers `Setup` with `Ready` (or `SetupFailed`), `Trial` with `Trial`,
//! `Retime` with `Retime` (cuBLAS timed in the same rounds). After a sticky CUDA error it answers, then exits: the parent starts
//! a fresh worker for the next request.

use serde::{Deserialize, Serialize};

use super::probe::GpuInfo;
use super::record::{ConfigMap, ReferenceRecord, RetimeEntry, TimeStats, TrialRecord};
use super::target::Shape;

/// The environment variable that turns a process into a worker.
pub const WORKER_ENV: &str = "TESSEL_TUNE_WORKER";

/// The prefix of every reply line.
pub const TAG: &str = "@@tessel-tune ";

/// What the worker tunes (it must find the kernel among those it was given).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetSpec {
    /// The name of the kernel to tune, as the worker's own targets name it.
    pub kernel: String,
    /// Must equal the worker's own `Target::source_hash` (the same binary).
    pub source_hash: String,
    /// Variant input / accumulator dtype names (`f16`, `bf16`, `f32`), if not the declared ones.
    pub input: Option<String>,
    /// The accumulator dtype name, if not the declared one.
    pub acc: Option<String>,
}

/// A general job by name and problem-size key ([`super::job::JobBuilder`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRef {
    /// The name its builder is registered under.
    pub name: String,
    /// The problem-size key the builder is called with.
    pub key: String,
}

/// How many calls to make when timing.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingSpec {
    /// Untimed calls first.
    pub warmup: usize,
    /// Timed calls.
    pub runs: usize,
    /// Early stop: when set, a short probe comes first, and a config whose probe median is
    /// above this many milliseconds is not timed further (see [`super::TuneOptions::early_stop`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cutoff_ms: Option<f64>,
}

/// Parent → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// Allocate inputs, compute the cuBLAS reference, measure cuBLAS and the copy bandwidth.
    Setup {
        /// What to tune.
        target: TargetSpec,
        /// The GEMM problem shape.
        shape: Shape,
        /// The disk module cache the parent compiled into.
        module_dir: Option<String>,
        /// GPU index (among the parent's) to record in trials.
        gpu: usize,
        /// How to time the reference.
        reference_timing: TimingSpec,
        /// A general job instead of the GEMM `shape`: the worker rebuilds it from its
        /// registered builder.
        #[serde(default)]
        job: Option<JobRef>,
    },
    /// Compile (a cache hit), launch once, verify over the full output, then time.
    Trial {
        /// The request's number (the answer repeats it).
        id: u64,
        /// The configuration.
        config: ConfigMap,
        /// How to time.
        timing: TimingSpec,
        /// Refuse configs whose ptxas report shows spills.
        reject_spills: bool,
        /// Run the full trial as the brief phase (recorded as such by the parent).
        brief: bool,
    },
    /// Time already-verified configs interleaved: `rounds` × (each config once).
    Retime {
        /// The request's number (the answer repeats it).
        id: u64,
        /// The configs.
        configs: Vec<ConfigMap>,
        /// Interleaved rounds.
        rounds: usize,
        /// How to time.
        timing: TimingSpec,
    },
}

/// Worker → parent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// Set up: the GPU and the reference measurement.
    Ready {
        /// The GPU.
        gpu: GpuInfo,
        /// cuBLAS's measurement (GEMM targets; a job has none).
        #[serde(default)]
        reference: Option<ReferenceRecord>,
    },
    /// Could not set up.
    SetupFailed {
        /// Why.
        message: String,
    },
    /// One trial's record.
    Trial {
        /// The request's number (the answer repeats it).
        id: u64,
        /// The trial.
        record: TrialRecord,
    },
    /// The finalists re-timed.
    Retime {
        /// The request's number (the answer repeats it).
        id: u64,
        /// The finalists, fastest first.
        entries: Vec<RetimeEntry>,
        /// cuBLAS timed in the same rounds (median of its round medians).
        #[serde(default)]
        cublas: Option<TimeStats>,
        /// What went wrong, if anything.
        error: Option<String>,
    },
}

/// A request as one line (no trailing newline).
pub fn encode_request(r: &Request) -> String {
    serde_json::to_string(r).unwrap_or_default()
}

/// A reply as one tagged line (no trailing newline).
pub fn encode_reply(r: &Reply) -> String {
    format!("{TAG}{}", serde_json::to_string(r).unwrap_or_default())
}

/// A reply from a stdout line: `None` for lines without the tag (someone else's output),
/// `Some(Err)` for a tagged line that does not parse.
pub fn decode_reply(line: &str) -> Option<Result<Reply, String>> {
    let body = line.trim_end().strip_prefix(TAG)?;
    Some(serde_json::from_str(body).map_err(|e| format!("bad reply `{body}`: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::record::{FailureKind, Phase};

    #[test]
    fn lines_round_trip_and_untagged_output_is_ignored() {
        let mut rec = TrialRecord::new([("STAGES".to_string(), 2)].into(), Phase::Full);
        rec = rec.failed(FailureKind::CudaFault, "CUDA_ERROR_ILLEGAL_ADDRESS");
        let r = Reply::Trial { id: 7, record: rec };
        let line = encode_reply(&r);
        assert!(!line.contains('\n'));
        assert_eq!(decode_reply(&line), Some(Ok(r)));
        assert_eq!(decode_reply("cuBLAS warning: something"), None);
        assert!(matches!(decode_reply("@@tessel-tune {oops"), Some(Err(_))));
        let q = Request::Trial {
            id: 1,
            config: ConfigMap::new(),
            timing: TimingSpec {
                cutoff_ms: None,
                warmup: 3,
                runs: 20,
            },
            reject_spills: true,
            brief: false,
        };
        let back: Request = serde_json::from_str(&encode_request(&q)).unwrap();
        assert_eq!(back, q);
    }

    #[test]
    fn an_early_stop_cutoff_travels_and_older_requests_have_none() {
        let q = Request::Trial {
            id: 2,
            config: ConfigMap::new(),
            timing: TimingSpec {
                warmup: 3,
                runs: 20,
                cutoff_ms: Some(1.875),
            },
            reject_spills: true,
            brief: false,
        };
        let back: Request = serde_json::from_str(&encode_request(&q)).unwrap();
        assert_eq!(back, q);
        let old: TimingSpec = serde_json::from_str(r#"{"warmup":3,"runs":20}"#).unwrap();
        assert_eq!(old.cutoff_ms, None);
        // A record that stopped early says so, and a cache line without the field reads as
        // a full timing.
        let mut rec = TrialRecord::new(ConfigMap::new(), Phase::Full);
        rec.early_stop_ms = Some(1.875);
        let line = serde_json::to_string(&rec).unwrap();
        assert!(line.contains("early_stop_ms"));
        let plain =
            serde_json::to_string(&TrialRecord::new(ConfigMap::new(), Phase::Full)).unwrap();
        assert!(!plain.contains("early_stop_ms") && !plain.contains("phases"));
        let back: TrialRecord = serde_json::from_str(&plain).unwrap();
        assert_eq!(back.early_stop_ms, None);
    }
}
