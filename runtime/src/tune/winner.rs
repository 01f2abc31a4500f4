//! Choosing the finalists and the winner.
//!
//! The finalists are the fastest verified configs of the sweep (their full-phase medians,
//! ties broken by config). They are re-timed interleaved — round after round, each finalist
//! once per round — so that clock and thermal drift hits them all alike; each finalist's time
//! is the median of its round medians. Every finalist within the noise band of the fastest
//! (`median ≤ fastest · (1 + band)`) counts as tied, and among the tied the one that uses the
//! least shared memory, then the fewest registers, then the first in config order wins. So two
//! runs whose measurements differ by noise still pick the same config.

use super::record::{ConfigMap, RetimeEntry, TrialRecord};

/// The `n` fastest verified trials, fastest first.
pub fn finalists(trials: &[&TrialRecord], n: usize) -> Vec<ConfigMap> {
    let mut ok: Vec<(&TrialRecord, f64)> = trials
        .iter()
        .filter_map(|t| t.median_ms().map(|m| (*t, m)))
        .collect();
    ok.sort_by(|a, b| {
        a.1.total_cmp(&b.1)
            .then_with(|| a.0.config.cmp(&b.0.config))
    });
    ok.into_iter()
        .take(n)
        .map(|(t, _)| t.config.clone())
        .collect()
}

/// Resources of a config, for the tie-break: (shared memory bytes, registers).
pub type Resources = (u64, u32);

/// Index of the winner among `entries` (see the module doc), leaving out those whose output
/// failed the check after their timing rounds; `None` when none is left.
pub fn pick(
    entries: &[RetimeEntry],
    band: f64,
    resources: impl Fn(&ConfigMap) -> Resources,
) -> Option<usize> {
    let fastest = entries
        .iter()
        .filter(|e| e.reverified != Some(false))
        .map(|e| e.median_ms)
        .filter(|m| m.is_finite())
        .min_by(f64::total_cmp)?;
    let limit = fastest * (1.0 + band.max(0.0));
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.median_ms <= limit && e.reverified != Some(false))
        .min_by(|(_, a), (_, b)| {
            let (ra, rb) = (resources(&a.config), resources(&b.config));
            ra.cmp(&rb).then_with(|| a.config.cmp(&b.config))
        })
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::record::{Phase, TimeStats};

    fn cfg(v: i64) -> ConfigMap {
        [("X".to_string(), v)].into()
    }

    fn entry(v: i64, ms: f64) -> RetimeEntry {
        RetimeEntry {
            config: cfg(v),
            median_ms: ms,
            rounds_ms: vec![ms],
            tflops: None,
            reverified: Some(true),
        }
    }

    #[test]
    fn ties_inside_the_band_go_to_the_lighter_config() {
        let smem = |c: &ConfigMap| (c["X"] as u64 * 1000, 0);
        // 3 is fastest, 1 is within 2 %, 2 is outside.
        let e = vec![entry(3, 1.00), entry(1, 1.015), entry(2, 1.05)];
        assert_eq!(pick(&e, 0.02, smem), Some(1));
        // The same measurements with noise swapping 3 and 1 pick the same config.
        let e2 = vec![entry(1, 1.00), entry(3, 1.012), entry(2, 1.05)];
        assert_eq!(e2[pick(&e2, 0.02, smem).unwrap()].config, cfg(1));
        // No band: the fastest.
        assert_eq!(pick(&e, 0.0, smem), Some(0));
        assert_eq!(pick(&[], 0.02, smem), None);
        // A finalist whose output fails the check after its timing rounds never wins.
        let mut e3 = e.clone();
        e3[1].reverified = Some(false);
        assert_eq!(pick(&e3, 0.02, smem), Some(0));
    }

    #[test]
    fn finalists_are_the_fastest_verified() {
        let mut recs = Vec::new();
        for (v, ms, ok) in [
            (1, 3.0, true),
            (2, 1.0, false),
            (3, 2.0, true),
            (4, 2.0, true),
        ] {
            let mut t = TrialRecord::new(cfg(v), Phase::Full);
            t.time = Some(TimeStats {
                median_ms: ms,
                min_ms: ms,
                max_ms: ms,
                mean_ms: ms,
                runs: 20,
                tflops: None,
            });
            if !ok {
                t = t.failed(crate::tune::record::FailureKind::WrongResult, "bad");
            }
            recs.push(t);
        }
        let refs: Vec<&TrialRecord> = recs.iter().collect();
        assert_eq!(finalists(&refs, 2), vec![cfg(3), cfg(4)]);
        assert_eq!(finalists(&refs, 9).len(), 3);
    }
}
