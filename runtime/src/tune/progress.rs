//! The progress bar on stderr: `[#######.....]  compiled 40/120  timed 30  failed 3  ETA 25s`.
//! On a terminal it redraws one line (at most 10 times a second); otherwise it prints a line
//! at every tenth of the way, so logs stay short.
//!
//! Hand-written rather than `indicatif`: indicatif draws nothing when stderr is not a terminal,
//! and the piped mode (a line per tenth, for CI logs and `| tee`) is what batch tuning needs.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

#[derive(Debug)]
/// The progress line of a phase.
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
    tty: bool,
    enabled: bool,
}

impl Progress {
    /// A progress display for `total` configs (`enabled`: draw at all).
    pub fn new(label: &str, total: usize, enabled: bool) -> Progress {
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
            tty: std::io::stderr().is_terminal(),
            enabled,
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

    /// The status line.
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

    /// Redraws if due.
    pub fn tick(&mut self) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if self.tty {
            if self
                .last
                .is_some_and(|t| now - t < Duration::from_millis(100))
            {
                return;
            }
            self.last = Some(now);
            eprint!("\r{}\x1b[K", self.line());
            let _ = std::io::stderr().flush();
        } else {
            let decile = (self.done() * 10).checked_div(self.total).unwrap_or(10);
            if decile > self.last_decile {
                self.last_decile = decile;
                eprintln!("{}", self.line());
            }
        }
    }

    /// The final line.
    pub fn finish(&mut self) {
        if !self.enabled {
            return;
        }
        if self.tty {
            eprintln!("\r{}\x1b[K", self.line());
        } else if self.last_decile < 10 {
            eprintln!("{}", self.line());
        }
        self.enabled = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_shows_counts_and_bar() {
        let mut p = Progress::new("sweep", 10, false);
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
    }
}
