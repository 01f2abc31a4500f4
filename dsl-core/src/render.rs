//! Diagnostics rendered for a terminal: `error[CODE]: message`, `file:line:col`, the source
//! line and a caret under the DSL token (codespan-reporting), as the CLI and any tool that
//! checks `.co` files print them.
//!
//! The cost is bounded whatever the input: spans map to bytes through one [`LineIndex`] built
//! per call (no rescan of the text per diagnostic), at most [`MAX_RENDERED`] diagnostics are
//! rendered (then one line says how many more there are), and a diagnostic on a source line
//! longer than [`MAX_SNIPPET_LINE`] bytes is shown without the line itself.

use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::span::{LineIndex, Span};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

/// Diagnostics rendered in full; the rest are counted.
pub const MAX_RENDERED: usize = 50;
/// Source lines longer than this (bytes) are not shown under a diagnostic.
pub const MAX_SNIPPET_LINE: usize = 4096;

/// Renders `diags` (errors and warnings) on `text`, the contents of `file`: at most
/// [`MAX_RENDERED`], then `… and K more`.
pub fn render(file: &str, text: &str, diags: &Diagnostics) -> String {
    render_capped(file, text, diags.iter(), MAX_RENDERED)
}

/// [`render`] with an explicit cap.
pub fn render_capped<'a>(
    file: &str,
    text: &str,
    diags: impl IntoIterator<Item = &'a Diagnostic>,
    max: usize,
) -> String {
    let index = LineIndex::new(text);
    let f = SimpleFile::new(file, text);
    let config = term::Config::default();
    let mut out = String::new();
    let mut rest = 0usize;
    let mut counts = [0usize; 2];
    for (i, d) in diags.into_iter().enumerate() {
        counts[usize::from(d.severity == Severity::Warning)] += 1;
        if i >= max {
            rest += 1;
            continue;
        }
        if long_line(&index, d.span) || d.notes.iter().any(|(s, _)| long_line(&index, *s)) {
            out.push_str(&compact(file, d));
            continue;
        }
        let cd = codespan(&index, text, d);
        let _ = term::emit_to_string(&mut out, &config, &f, &cd);
    }
    if rest > 0 {
        let what = match counts {
            [_, 0] => "errors",
            [0, _] => "warnings",
            _ => "diagnostics",
        };
        out.push_str(&format!(
            "… and {rest} more {what} ({} errors, {} warnings in all)\n",
            counts[0], counts[1]
        ));
    }
    out
}

/// Whether a span starts or ends on a line too long to show.
fn long_line(index: &LineIndex, s: Span) -> bool {
    !s.is_dummy()
        && [s.start.line, s.end.line].iter().any(|&l| {
            index
                .line_range(l)
                .is_some_and(|r| r.len() > MAX_SNIPPET_LINE)
        })
}

fn codespan(index: &LineIndex, text: &str, d: &Diagnostic) -> CsDiagnostic<()> {
    let mut labels = vec![Label::primary((), index.range(text, d.span))];
    for (s, n) in &d.notes {
        if !s.is_dummy() {
            labels.push(Label::secondary((), index.range(text, *s)).with_message(n.clone()));
        }
    }
    let mut notes: Vec<String> = d
        .notes
        .iter()
        .filter(|(s, _)| s.is_dummy())
        .map(|(_, n)| n.clone())
        .collect();
    if let Some(h) = &d.help {
        notes.push(format!("help: {h}"));
    }
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
    };
    base.with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels)
        .with_notes(notes)
}

/// One diagnostic without a source snippet: `error[CODE]: message`, ` --> file:line:col`,
/// notes and help.
fn compact(file: &str, d: &Diagnostic) -> String {
    let kind = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut s = format!(
        "{kind}[{}]: {}\n  --> {file}:{}\n",
        d.code, d.message, d.span
    );
    for (span, n) in &d.notes {
        if span.is_dummy() {
            s.push_str(&format!("  = {n}\n"));
        } else {
            s.push_str(&format!("  = {n} ({file}:{span})\n"));
        }
    }
    if let Some(h) = &d.help {
        s.push_str(&format!("  = help: {h}\n"));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::LineCol;

    fn at(line: u32, col: u32, len: u32) -> Span {
        Span {
            start: LineCol { line, col },
            end: LineCol {
                line,
                col: col + len,
            },
            first_token: 0,
            last_token: 0,
        }
    }

    #[test]
    fn caret_under_the_token_and_a_cap() {
        let text = "a = b;\nc = d;\n";
        let diags = Diagnostics(
            (0..5)
                .map(|i| Diagnostic::new("E0101", at(1 + i % 2, 4, 1), format!("unknown {i}")))
                .collect(),
        );
        let out = render_capped("f.co", text, diags.iter(), 2);
        assert_eq!(out.matches("error[E0101]").count(), 2, "{out}");
        assert!(out.contains("f.co:1:5"), "{out}");
        assert!(out.contains("    ^"), "{out}");
        assert!(
            out.ends_with("… and 3 more errors (5 errors, 0 warnings in all)\n"),
            "{out}"
        );
    }

    #[test]
    fn warnings_render_as_warnings() {
        let text = "x = 1;\n";
        let d = Diagnostic::warning("W1201", at(1, 0, 1), "a race").with_help("fix it");
        let out = render_capped("f.co", text, [&d], 10);
        assert!(out.starts_with("warning[W1201]: a race"), "{out}");
        assert!(out.contains("help: fix it"), "{out}");
    }

    #[test]
    fn long_lines_are_not_copied_into_the_output() {
        let text = format!("x = {};\n", "1 + ".repeat(10_000));
        let d = Diagnostic::new("E0003", at(1, 20_000, 1), "unexpected");
        let out = render("f.co", &text, &Diagnostics(vec![d.clone(), d.clone(), d]));
        assert!(out.len() < 1000, "{} bytes", out.len());
        assert!(out.contains("f.co:1:20001"), "{out}");
    }
}
