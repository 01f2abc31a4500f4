//! Timing GPU work with CUDA events.
//!
//! ```no_run
//! use tessel_runtime::{device::Device, timing::{gemm_flops, time_gpu, TimingConfig}};
//! # fn launch() -> Result<(), std::io::Error> { Ok(()) }
//! let dev = Device::open(0)?;
//! let t = time_gpu(&dev, &TimingConfig::default(), Some(gemm_flops(8192, 8192, 8192)), launch)?;
//! println!("{t}"); // median 2.240 ms (min 2.210, max 2.300; 20 runs) 490.9 TFLOP/s
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `warmup` untimed calls, then `runs` (≥ [`MIN_TIMED_RUNS`]) calls, each between two events
//! recorded on the device's stream (so the gaps between calls are not counted). Statistics come from [`Timing::from_samples`] (pure): the
//! median of an even count is the mean of the two middle samples; TFLOP/s uses the median.

use std::fmt;

use cudarc::driver::sys::CUevent_flags;

use crate::device::{Device, DeviceError, guard};

/// The fewest timed runs a reported timing may rest on.
pub const MIN_TIMED_RUNS: usize = 20;

/// How many calls to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingConfig {
    /// Untimed calls first.
    pub warmup: usize,
    /// Timed calls (≥ [`MIN_TIMED_RUNS`]).
    pub runs: usize,
}

impl Default for TimingConfig {
    fn default() -> Self {
        Self {
            warmup: 5,
            runs: MIN_TIMED_RUNS,
        }
    }
}

/// Timing statistics in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// Median of the timed runs.
    pub median_ms: f64,
    /// Fastest run.
    pub min_ms: f64,
    /// Slowest run.
    pub max_ms: f64,
    /// Mean of the timed runs.
    pub mean_ms: f64,
    /// Number of timed runs.
    pub runs: usize,
    /// Throughput at the median time, when the FLOP count was given.
    pub tflops: Option<f64>,
}

/// Timing errors.
#[derive(Debug, thiserror::Error)]
pub enum TimingError {
    /// Too few runs, or an empty/invalid sample list.
    #[error("timing needs at least {min} runs, got {got}")]
    TooFewRuns {
        /// Required.
        min: usize,
        /// Given.
        got: usize,
    },
    /// A sample that is negative or not finite.
    #[error("invalid time sample {0} ms")]
    BadSample(f64),
    /// A driver call failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The timed work failed.
    #[error("timed work failed: {0}")]
    Work(Box<dyn std::error::Error + Send + Sync>),
}

/// `2·M·N·K`.
pub fn gemm_flops(m: usize, n: usize, k: usize) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64
}

/// Median (mean of the two middle values for an even count); `None` when empty.
pub fn median(samples: &[f64]) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let mid = s.len() / 2;
    Some(if s.len().is_multiple_of(2) {
        (s[mid - 1] + s[mid]) / 2.0
    } else {
        s[mid]
    })
}

impl Timing {
    /// Statistics of samples (milliseconds); at least one sample, all finite and ≥ 0.
    pub fn from_samples(samples: &[f64], flops: Option<f64>) -> Result<Timing, TimingError> {
        if let Some(&bad) = samples.iter().find(|s| !s.is_finite() || **s < 0.0) {
            return Err(TimingError::BadSample(bad));
        }
        let median_ms = median(samples).ok_or(TimingError::TooFewRuns { min: 1, got: 0 })?;
        let min_ms = samples.iter().copied().fold(f64::INFINITY, f64::min);
        let max_ms = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean_ms = samples.iter().sum::<f64>() / samples.len() as f64;
        let tflops = flops
            .filter(|_| median_ms > 0.0)
            .map(|f| f / (median_ms * 1e-3) / 1e12);
        Ok(Timing {
            median_ms,
            min_ms,
            max_ms,
            mean_ms,
            runs: samples.len(),
            tflops,
        })
    }
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "median {:.3} ms (min {:.3}, max {:.3}; {} runs)",
            self.median_ms, self.min_ms, self.max_ms, self.runs
        )?;
        if let Some(t) = self.tflops {
            write!(f, " {t:.1} TFLOP/s")?;
        }
        Ok(())
    }
}

/// Times `work` (which enqueues GPU work on the device's stream); see the module doc.
pub fn time_gpu<E>(
    dev: &Device,
    cfg: &TimingConfig,
    flops: Option<f64>,
    work: impl FnMut() -> Result<(), E>,
) -> Result<Timing, TimingError>
where
    E: std::error::Error + Send + Sync + 'static,
{
    if cfg.runs < MIN_TIMED_RUNS {
        return Err(TimingError::TooFewRuns {
            min: MIN_TIMED_RUNS,
            got: cfg.runs,
        });
    }
    timed_runs(dev, cfg, flops, work)
}

/// A short look at `work`'s time (any number of runs, at least one): what the tuner's early
/// stop compares with the best time so far, to skip the full timing of a config that cannot
/// win. Never a kernel's reported time: that rests on [`time_gpu`]'s ≥ [`MIN_TIMED_RUNS`].
pub fn probe_gpu<E>(
    dev: &Device,
    cfg: &TimingConfig,
    flops: Option<f64>,
    work: impl FnMut() -> Result<(), E>,
) -> Result<Timing, TimingError>
where
    E: std::error::Error + Send + Sync + 'static,
{
    if cfg.runs == 0 {
        return Err(TimingError::TooFewRuns { min: 1, got: 0 });
    }
    timed_runs(dev, cfg, flops, work)
}

fn timed_runs<E>(
    dev: &Device,
    cfg: &TimingConfig,
    flops: Option<f64>,
    mut work: impl FnMut() -> Result<(), E>,
) -> Result<Timing, TimingError>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let run =
        |w: &mut dyn FnMut() -> Result<(), E>| w().map_err(|e| TimingError::Work(Box::new(e)));
    for _ in 0..cfg.warmup {
        run(&mut work)?;
    }
    dev.synchronize()?;
    let ctx = dev.context();
    let stream = dev.stream();
    let events = (0..cfg.runs * 2)
        .map(|_| {
            guard("cuEventCreate", || {
                ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    for pair in events.chunks_exact(2) {
        guard("cuEventRecord", || pair[0].record(stream))?;
        run(&mut work)?;
        guard("cuEventRecord", || pair[1].record(stream))?;
    }
    dev.synchronize()?;
    let samples = events
        .chunks_exact(2)
        .map(|p| guard("cuEventElapsedTime", || p[0].elapsed_ms(&p[1])).map(f64::from))
        .collect::<Result<Vec<_>, _>>()?;
    Timing::from_samples(&samples, flops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[5.0]), Some(5.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn statistics_and_tflops() {
        let samples: Vec<f64> = (1..=20).map(f64::from).collect();
        let t = Timing::from_samples(&samples, Some(gemm_flops(1000, 1000, 1000))).unwrap();
        assert_eq!(t.median_ms, 10.5);
        assert_eq!((t.min_ms, t.max_ms, t.runs), (1.0, 20.0, 20));
        assert_eq!(t.mean_ms, 10.5);
        // 2e9 FLOP in 10.5 ms = 0.190476 TFLOP/s.
        assert!((t.tflops.unwrap() - 2e9 / 10.5e-3 / 1e12).abs() < 1e-12);
        let s = t.to_string();
        assert!(
            s.contains("median 10.500 ms") && s.contains("20 runs") && s.contains("TFLOP/s"),
            "{s}"
        );
    }

    #[test]
    fn gemm_flops_is_2mnk() {
        assert_eq!(gemm_flops(8192, 8192, 8192), 2.0 * 8192f64.powi(3));
        // 8192^3 in 2.24 ms is ~490.9 TFLOP/s.
        let t = Timing::from_samples(&[2.24; 20], Some(gemm_flops(8192, 8192, 8192))).unwrap();
        assert!((t.tflops.unwrap() - 490.87).abs() < 0.1);
    }

    #[test]
    fn rejects_bad_samples() {
        assert!(matches!(
            Timing::from_samples(&[], None),
            Err(TimingError::TooFewRuns { .. })
        ));
        assert!(matches!(
            Timing::from_samples(&[1.0, f64::NAN], None),
            Err(TimingError::BadSample(_))
        ));
        assert!(matches!(
            Timing::from_samples(&[-1.0], None),
            Err(TimingError::BadSample(_))
        ));
        let t = Timing::from_samples(&[0.0], Some(1.0)).unwrap();
        assert_eq!(t.tflops, None, "no throughput from a zero time");
    }
}
