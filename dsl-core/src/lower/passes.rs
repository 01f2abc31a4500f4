//! The passes over the lowered body, in order ([`PASSES`]), with the structure verifier
//! ([`super::kernel::verify`]) after each one. `TESSEL_DUMP_PASSES=1` prints the body after
//! every pass on stderr.
//!
//! - `async-copies`: per `parallel` body, the register stages of async transposed copies are
//!   declared, landed before each `dma.wait`, and every async copy is drained before the body
//!   ends (`super::simt::finish_async_copies`).
//! - `helpers`: the interior copy helper falls back to the basic one when the kernel needs no
//!   other register-tile helper (`super::simt::select_copy_helpers`).
//! - `versioning`: per `parallel` body, loops issuing grid-tile async copies are emitted twice,
//!   behind a test that picks the branch-free copies (`super::even::version_loops`).
//! - `regions`: the `parallel` marks are removed.
//!
//! After `plan` builds the kernel, `constants` drops the constants nothing uses
//! (`super::plan::drop_unused_constants`).

use super::kernel::{Line, Mark, Op, verify};
use super::lowered::Body;

pub type Pass = fn(&mut Body);

/// The passes, in order.
pub const PASSES: [(&str, Pass); 4] = [
    ("async-copies", |b| {
        per_region(b, super::simt::finish_async_copies)
    }),
    ("helpers", super::simt::select_copy_helpers),
    ("versioning", |b| per_region(b, super::even::version_loops)),
    ("regions", |b| {
        b.lines.retain(|l| !matches!(l.op, Op::Mark(_)))
    }),
];

/// Runs [`PASSES`], verifying the body before the first and after each one.
pub fn run(body: &mut Body) -> Result<(), String> {
    verify(&body.lines).map_err(|e| format!("after `body`: {e}"))?;
    for (name, pass) in PASSES {
        pass(body);
        verify(&body.lines).map_err(|e| format!("after `{name}`: {e}"))?;
        dump(name, &body.lines);
    }
    Ok(())
}

/// Prints `what` after pass `pass` when `TESSEL_DUMP_PASSES` is set.
pub fn dump_text(pass: &str, what: &str) {
    if std::env::var_os("TESSEL_DUMP_PASSES").is_some() {
        eprintln!("== after pass `{pass}`:\n{what}");
    }
}

/// The body as indented C++ (one node a line, marks included).
pub fn dump(pass: &str, lines: &[Line]) {
    if std::env::var_os("TESSEL_DUMP_PASSES").is_some() {
        let text: Vec<String> = lines
            .iter()
            .map(|l| format!("{}{}", "  ".repeat(l.indent), l.text()))
            .collect();
        dump_text(pass, &text.join("\n"));
    }
}

/// Calls `f(body, start, end)` for the nodes of each `parallel` body (between its marks),
/// innermost and earliest first, as the regions close.
fn per_region(body: &mut Body, f: fn(&mut Body, usize, usize)) {
    let mut k = 0;
    loop {
        // The k-th region to close, found again each time: `f` inserts nodes.
        let mut open = Vec::new();
        let mut seen = 0;
        let mut region = None;
        for (i, l) in body.lines.iter().enumerate() {
            match l.op {
                Op::Mark(Mark::ParallelStart) => open.push(i),
                Op::Mark(Mark::ParallelEnd) => {
                    let s = open.pop().expect("verified: regions are balanced");
                    if seen == k {
                        region = Some((s + 1, i));
                        break;
                    }
                    seen += 1;
                }
                _ => {}
            }
        }
        let Some((start, end)) = region else { return };
        f(body, start, end);
        k += 1;
    }
}
