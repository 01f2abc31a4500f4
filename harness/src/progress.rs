//! The tuner's progress line on stderr: redrawn in place on a terminal, a line per tenth of
//! the way when piped.

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use tessel_runtime::tune::progress::ProgressSink;

/// A sink that writes the tuner's progress to stderr.
pub fn stderr() -> ProgressSink {
    let in_place = std::io::stderr().is_terminal();
    ProgressSink {
        show: Arc::new(move |line: &str, last: bool| {
            let mut e = std::io::stderr().lock();
            let _ = if in_place {
                write!(e, "\r{line}\x1b[K{}", if last { "\n" } else { "" })
            } else {
                writeln!(e, "{line}")
            };
            let _ = e.flush();
        }),
        in_place,
    }
}
