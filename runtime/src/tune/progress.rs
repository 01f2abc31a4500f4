//! The sweep's progress line: `[#######.....]  compiled 40/120  timed 30  failed 3  ETA 25s`.
//! The library composes it and hands it to the caller's [`ProgressSink`] (it prints nothing
//! itself): where the sink redraws in place (a terminal), at most 10 times a second; otherwise
//! at every tenth of the way, so logs stay short.
//!
//! Hand-written rather than `indicatif`: indicatif draws nothing when its output is not a
//! terminal, and the piped mode (a line per tenth, for CI logs and `| tee`) is what batch
//! tuning needs.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where progress lines go.
#[derive(Clone)]
pub struct ProgressSink {
    /// Shows one line; the flag is set on the phase's last line.
    pub show: Arc<dyn Fn(&str, bool) + Send + Sync>,
    /// The sink redraws one line in place (a terminal): updates may come often.
    pub in_place: bool,
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProgressSink")
            .field("in_place", &self.in_place)
            .finish_non_exhaustive()
    }
}

/// The progress line of a phase.
#[derive(Debug)]
pub struct Progress {
    label: String,
    total: usize,
    /// Configs compiled (or resumed).
    pub compiled: usize,
    /// Configs timed.
    pub timed: usize,
    /// Configs failed.
    pub failed: usize,
    /// Cut by a time budget.
    pub skipped: usize,
    start: Instant,
    last: Option<Instant>,
    last_decile: usize,
    sink: Option<ProgressSink>,
}

impl Progress {
    /// A progress line for `total` configs, shown through `sink` (none: silent).
    pub fn new(label: &str, total: usize, sink: Option<ProgressSink>) -> Progress {
        Progress {
            label: label.to_string(),
            total,
            compiled: 0,
            timed: 0,
            failed: 0,
            skipped: 0,
            start: Instant::now(),
            last: None,
            last_decile: 0,
            sink,
        }
    }

    /// Configs in a final state.
    pub fn done(&self) -> usize {
        self.timed + self.failed + self.skipped
    }

    /// Seconds left at the current rate (`None` before anything finished).
    pub fn eta(&self) -> Option<Duration> {
        let done = self.done();
        if done == 0 || done >= self.total {
            return (done >= self.total).then_some(Duration::ZERO);
        }
        let per = self.start.elapsed().as_secs_f64() / done as f64;
        Some(Duration::from_secs_f64(per * (self.total - done) as f64))
    }

    /// The status line: label, progress bar, compiled / total, timed, failed and the estimated
    /// time left.
    pub fn line(&self) -> String {
        let width = 24;
        let filled = (self.done() * width)
            .checked_div(self.total)
            .unwrap_or(width)
            .min(width);
        let eta = match self.eta() {
            Some(d) => format!("{:.0}s", d.as_secs_f64()),
            None => "?".into(),
        };
        let mut s = format!(
            "{} [{}{}] compiled {}/{}  timed {}  failed {}",
            self.label,
            "#".repeat(filled),
            ".".repeat(width - filled),
            self.compiled,
            self.total,
            self.timed,
            self.failed
        );
        if self.skipped > 0 {
            s.push_str(&format!("  over budget {}", self.skipped));
        }
        s.push_str(&format!(
            "  {:.1}s  ETA {eta}",
            self.start.elapsed().as_secs_f64()
        ));
        s
    }

    /// Shows the line if due.
    pub fn tick(&mut self) {
        let Some(sink) = &self.sink else {
            return;
        };
        let now = Instant::now();
        if sink.in_place {
            if self
                .last
                .is_some_and(|t| now - t < Duration::from_millis(100))
            {
                return;
            }
            self.last = Some(now);
            (sink.show)(&self.line(), false);
        } else {
            let decile = (self.done() * 10).checked_div(self.total).unwrap_or(10);
            if decile > self.last_decile {
                self.last_decile = decile;
                (sink.show)(&self.line(), false);
            }
        }
    }

    /// Shows the final status line (unless the last periodic line already showed completion)
    /// and stops showing.
    pub fn finish(&mut self) {
        if let Some(sink) = self.sink.take()
            && (sink.in_place || self.last_decile < 10)
        {
            (sink.show)(&self.line(), true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_shows_counts_and_bar() {
        let shown = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = shown.clone();
        let sink = ProgressSink {
            show: Arc::new(move |l: &str, last| seen.lock().unwrap().push((l.to_string(), last))),
            in_place: false,
        };
        let mut p = Progress::new("sweep", 10, Some(sink));
        assert!(p.line().contains("compiled 0/10") && p.line().contains("ETA ?"));
        p.compiled = 6;
        p.timed = 4;
        p.failed = 1;
        let l = p.line();
        assert!(l.contains("[############............]"), "{l}");
        assert!(l.contains("timed 4  failed 1"), "{l}");
        assert!(p.eta().is_some());
        p.timed = 9;
        assert_eq!(p.eta(), Some(Duration::ZERO));
        p.tick();
        p.finish();
        p.finish();
        let shown = shown.lock().unwrap();
        // Piped: one line when the last tenth is reached; `finish` adds none after it.
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert!(shown[0].0.contains("timed 9"));
    }
}
