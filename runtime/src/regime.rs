//! Timing in two regimes, the way a power-limited GPU needs it: *burst* and *sustained*.
//!
//! * **Burst** ([`burst`]): before every sample the GPU idles (`idle_ms`) and the L2 is flushed
//!   (a memset over a buffer larger than the L2), then one call is timed between two events.
//!   The SM clock is read (NVML) right after; a sample whose clock fell below `min_clock_frac`
//!   of the board's maximum SM clock is discarded, as nvbench does. The result is the median of
//!   the kept samples: what a short job after idle sees.
//! * **Sustained** ([`sustained`]): the contenders first run back to back for `soak_s` seconds so
//!   the board reaches its thermal and power steady state, then `repeats` rounds time `runs`
//!   back-to-back calls of each contender in turn; the result is the trimmed median of the
//!   per-round medians: what a long training or inference job sees.
//!
//! Both take several contenders (tessel's kernel and its references) and interleave them, so
//! every contender sees the same clocks; each result carries the median SM clock, power and
//! the highest temperature its samples saw.

use std::time::{Duration, Instant};

use cudarc::driver::sys::CUevent_flags;

use crate::clocks::{Clocks, Sample};
use crate::device::{Device, DeviceError, guard};
use crate::timing::median;

/// Which regime a timing was taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    /// After idle, L2 flushed, boost-clock samples only.
    Burst,
    /// After a thermal soak, trimmed median of repeats.
    Sustained,
}

impl std::fmt::Display for Regime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Regime::Burst => "burst",
            Regime::Sustained => "sustained",
        })
    }
}

/// Settings of the burst regime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BurstConfig {
    /// Timed samples per contender (before discarding).
    pub samples: usize,
    /// Idle time before each sample, ms.
    pub idle_ms: u64,
    /// A sample is kept when its SM clock is at least this fraction of the maximum SM clock.
    pub min_clock_frac: f64,
    /// Bytes written before each sample to flush the L2 (larger than any L2: 50 MB on H100/H200).
    pub flush_bytes: usize,
    /// The fewest kept samples a result may rest on.
    pub min_kept: usize,
}

impl Default for BurstConfig {
    fn default() -> Self {
        Self {
            samples: 40,
            idle_ms: 100,
            min_clock_frac: 0.90,
            flush_bytes: 256 << 20,
            min_kept: 8,
        }
    }
}

/// Settings of the sustained regime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SustainedConfig {
    /// Back-to-back running of all contenders before timing, s.
    pub soak_s: f64,
    /// Timed rounds.
    pub repeats: usize,
    /// Back-to-back timed calls per contender per round.
    pub runs: usize,
    /// Round medians dropped at each end before the median is taken.
    pub trim: usize,
}

impl Default for SustainedConfig {
    fn default() -> Self {
        Self {
            soak_s: 15.0,
            repeats: 9,
            runs: 20,
            trim: 2,
        }
    }
}

/// One contender's timing in one regime.
#[derive(Clone, Debug, PartialEq)]
pub struct RegimeTiming {
    /// The regime the timing was taken in.
    pub regime: Regime,
    /// Median time, ms.
    pub median_ms: f64,
    /// Throughput at the median, when the FLOP count was given.
    pub tflops: Option<f64>,
    /// Samples (burst) or rounds (sustained) the median rests on.
    pub kept: usize,
    /// Samples discarded for a low clock (burst) or trimmed (sustained).
    pub discarded: usize,
    /// Median SM clock over the kept samples, MHz (0 without NVML).
    pub sm_mhz: u32,
    /// Median board power over the kept samples, W (0 without NVML).
    pub power_w: f64,
    /// Highest GPU temperature seen, °C (0 without NVML).
    pub temp_c: u32,
}

impl std::fmt::Display for RegimeTiming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} median {:.3} ms", self.regime, self.median_ms)?;
        if let Some(t) = self.tflops {
            write!(f, " {t:.1} TFLOP/s")?;
        }
        write!(
            f,
            " ({} kept, {} dropped; SM {} MHz, {:.0} W, {} °C)",
            self.kept, self.discarded, self.sm_mhz, self.power_w, self.temp_c
        )
    }
}

/// Errors of the regime timers.
#[derive(Debug, thiserror::Error)]
pub enum RegimeError {
    /// A driver call failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// NVML failed while sampling.
    #[error(transparent)]
    Clocks(#[from] crate::clocks::ClocksError),
    /// A contender's work failed.
    #[error("contender {index} failed: {message}")]
    Work {
        /// Which contender.
        index: usize,
        /// Its error.
        message: String,
    },
    /// Too few samples held the clock.
    #[error(
        "burst: contender {index} kept {kept} of {samples} samples at ≥ {min_mhz} MHz (need {need}); \
         lower min_clock_frac or idle longer"
    )]
    ClockTooLow {
        /// Which contender.
        index: usize,
        /// Kept samples.
        kept: usize,
        /// Samples taken.
        samples: usize,
        /// The clock threshold.
        min_mhz: u32,
        /// The fewest needed.
        need: usize,
    },
    /// A setting that cannot give a result.
    #[error("regime settings: {0}")]
    Settings(&'static str),
}

/// A contender: enqueues one call of its work on the device's stream.
pub type Work<'a> = &'a mut dyn FnMut() -> Result<(), String>;

/// One timed sample with the clocks read after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimedSample {
    /// Elapsed time, ms.
    pub ms: f64,
    /// The clocks after it (zeros without NVML).
    pub clocks: Sample,
}

/// The burst statistic over one contender's samples (pure: see the module doc).
pub fn burst_statistic(
    samples: &[TimedSample],
    min_mhz: u32,
    flops: Option<f64>,
) -> (Option<RegimeTiming>, usize) {
    let kept: Vec<&TimedSample> = samples
        .iter()
        .filter(|s| min_mhz == 0 || s.clocks.sm_mhz >= min_mhz)
        .collect();
    let discarded = samples.len() - kept.len();
    let ms: Vec<f64> = kept.iter().map(|s| s.ms).collect();
    let Some(m) = median(&ms) else {
        return (None, discarded);
    };
    (
        Some(summary(
            Regime::Burst,
            m,
            &kept,
            kept.len(),
            discarded,
            flops,
        )),
        discarded,
    )
}

/// The sustained statistic: the median of the round medians after dropping `trim` at each end.
pub fn trimmed_median(round_medians: &[f64], trim: usize) -> Option<f64> {
    let mut v: Vec<f64> = round_medians.to_vec();
    v.sort_by(f64::total_cmp);
    if v.len() <= 2 * trim {
        return None;
    }
    median(&v[trim..v.len() - trim])
}

fn summary(
    regime: Regime,
    median_ms: f64,
    samples: &[&TimedSample],
    kept: usize,
    discarded: usize,
    flops: Option<f64>,
) -> RegimeTiming {
    let clocks: Vec<f64> = samples.iter().map(|s| f64::from(s.clocks.sm_mhz)).collect();
    let power: Vec<f64> = samples.iter().map(|s| s.clocks.power_w).collect();
    RegimeTiming {
        regime,
        median_ms,
        tflops: flops
            .filter(|_| median_ms > 0.0)
            .map(|f| f / (median_ms * 1e-3) / 1e12),
        kept,
        discarded,
        sm_mhz: median(&clocks).unwrap_or(0.0) as u32,
        power_w: median(&power).unwrap_or(0.0),
        temp_c: samples.iter().map(|s| s.clocks.temp_c).max().unwrap_or(0),
    }
}

fn read(clocks: Option<&Clocks>) -> Result<Sample, RegimeError> {
    Ok(match clocks {
        Some(c) => c.sample()?,
        None => Sample::default(),
    })
}

fn call(work: &mut [Work<'_>], index: usize) -> Result<(), RegimeError> {
    (work[index])().map_err(|message| RegimeError::Work { index, message })
}

/// Times `runs` back-to-back calls of one contender between two events, ms per call.
fn time_back_to_back(
    dev: &Device,
    work: &mut [Work<'_>],
    index: usize,
    runs: usize,
) -> Result<f64, RegimeError> {
    let ctx = dev.context();
    let stream = dev.stream();
    let ev = |_| {
        guard("cuEventCreate", || {
            ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        })
    };
    let (start, stop) = (ev(0)?, ev(1)?);
    guard("cuEventRecord", || start.record(stream))?;
    for _ in 0..runs {
        call(work, index)?;
    }
    guard("cuEventRecord", || stop.record(stream))?;
    dev.synchronize()?;
    let ms = guard("cuEventElapsedTime", || start.elapsed_ms(&stop))?;
    Ok(f64::from(ms) / runs as f64)
}

/// Times every contender in the burst regime, interleaved sample by sample (module doc).
pub fn burst(
    dev: &Device,
    clocks: Option<&Clocks>,
    cfg: &BurstConfig,
    flops: Option<f64>,
    work: &mut [Work<'_>],
) -> Result<Vec<RegimeTiming>, RegimeError> {
    if cfg.samples == 0 || cfg.min_kept == 0 {
        return Err(RegimeError::Settings(
            "burst needs samples ≥ 1 and min_kept ≥ 1",
        ));
    }
    let mut flush = guard("cuMemAlloc", || {
        dev.stream().alloc_zeros::<u8>(cfg.flush_bytes.max(1))
    })?;
    // Warm every contender once (module load, first-call costs) before any sample.
    for i in 0..work.len() {
        call(work, i)?;
    }
    dev.synchronize()?;
    let mut samples = vec![Vec::with_capacity(cfg.samples); work.len()];
    for _ in 0..cfg.samples {
        for (i, out) in samples.iter_mut().enumerate() {
            std::thread::sleep(Duration::from_millis(cfg.idle_ms));
            guard("cuMemsetD8", || dev.stream().memset_zeros(&mut flush))?;
            let ms = time_back_to_back(dev, work, i, 1)?;
            out.push(TimedSample {
                ms,
                clocks: read(clocks)?,
            });
        }
    }
    let min_mhz = clocks
        .map(|c| (f64::from(c.max_sm_mhz) * cfg.min_clock_frac) as u32)
        .unwrap_or(0);
    samples
        .iter()
        .enumerate()
        .map(|(index, s)| match burst_statistic(s, min_mhz, flops) {
            (Some(t), _) if t.kept >= cfg.min_kept => Ok(t),
            (t, _) => Err(RegimeError::ClockTooLow {
                index,
                kept: t.map_or(0, |t| t.kept),
                samples: s.len(),
                min_mhz,
                need: cfg.min_kept,
            }),
        })
        .collect()
}

/// Times every contender in the sustained regime, interleaved round by round (module doc).
pub fn sustained(
    dev: &Device,
    clocks: Option<&Clocks>,
    cfg: &SustainedConfig,
    flops: Option<f64>,
    work: &mut [Work<'_>],
) -> Result<Vec<RegimeTiming>, RegimeError> {
    if cfg.runs == 0 || cfg.repeats <= 2 * cfg.trim {
        return Err(RegimeError::Settings(
            "sustained needs runs ≥ 1 and repeats > 2 × trim",
        ));
    }
    let soak = Instant::now();
    while soak.elapsed().as_secs_f64() < cfg.soak_s {
        for i in 0..work.len() {
            for _ in 0..cfg.runs {
                call(work, i)?;
            }
        }
        dev.synchronize()?;
    }
    let mut rounds = vec![Vec::with_capacity(cfg.repeats); work.len()];
    for _ in 0..cfg.repeats {
        for (i, out) in rounds.iter_mut().enumerate() {
            let ms = time_back_to_back(dev, work, i, cfg.runs)?;
            out.push(TimedSample {
                ms,
                clocks: read(clocks)?,
            });
        }
    }
    Ok(rounds
        .iter()
        .map(|r| {
            let ms: Vec<f64> = r.iter().map(|s| s.ms).collect();
            let m = trimmed_median(&ms, cfg.trim).expect("repeats > 2 × trim was checked");
            let all: Vec<&TimedSample> = r.iter().collect();
            summary(
                Regime::Sustained,
                m,
                &all,
                r.len() - 2 * cfg.trim,
                2 * cfg.trim,
                flops,
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(ms: f64, sm_mhz: u32) -> TimedSample {
        TimedSample {
            ms,
            clocks: Sample {
                sm_mhz,
                power_w: 600.0,
                temp_c: 60,
                ..Sample::default()
            },
        }
    }

    #[test]
    fn burst_drops_samples_below_the_clock_threshold() {
        let v = [
            s(1.0, 1980),
            s(1.1, 1950),
            s(2.0, 1400),
            s(1.2, 1900),
            s(3.0, 1200),
        ];
        let (t, dropped) = burst_statistic(&v, 1782, Some(2e12));
        let t = t.unwrap();
        assert_eq!((t.kept, dropped), (3, 2));
        assert_eq!(t.median_ms, 1.1);
        assert_eq!(t.sm_mhz, 1950);
        assert!((t.tflops.unwrap() - 2e12 / 1.1e-3 / 1e12).abs() < 1e-9);
    }

    #[test]
    fn burst_without_nvml_keeps_every_sample() {
        let v = [s(1.0, 0), s(3.0, 0), s(2.0, 0)];
        let (t, dropped) = burst_statistic(&v, 0, None);
        assert_eq!((t.unwrap().median_ms, dropped), (2.0, 0));
    }

    #[test]
    fn burst_with_every_sample_throttled_has_no_result() {
        let v = [s(1.0, 1000), s(1.0, 1100)];
        assert_eq!(burst_statistic(&v, 1782, None), (None, 2));
    }

    #[test]
    fn trimmed_median_drops_both_ends() {
        assert_eq!(trimmed_median(&[9.0, 1.0, 5.0, 4.0, 100.0], 1), Some(5.0));
        assert_eq!(trimmed_median(&[1.0, 2.0], 1), None);
        assert_eq!(trimmed_median(&[2.0, 1.0, 4.0, 3.0], 0), Some(2.5));
    }
}
