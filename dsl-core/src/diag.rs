//! Diagnostics: every pass collects all of its errors as [`Diagnostic`]s (never stopping at
//! the first) and returns them together as [`Diagnostics`].

use crate::span::Span;
use std::fmt;

/// Whether a diagnostic stops compilation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input is rejected.
    #[default]
    Error,
    /// The input is accepted, but probably not what was meant (a data race, a redundant
    /// store); warnings travel beside a result, never in an `Err`.
    Warning,
}

/// One message pinned to a DSL span, with optional help and secondary labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code, e.g. `E0101` (or `W1201` for a warning); the README lists them.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// "how to fix it", shown as `help:`.
    pub help: Option<String>,
    /// Other places that explain the error (shown as notes).
    pub notes: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn new(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            help: None,
            notes: Vec::new(),
        }
    }
    /// A warning: the same fields, [`Severity::Warning`].
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::new(code, span, message)
        }
    }
    pub fn is_warning(&self) -> bool {
        self.severity == Severity::Warning
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn with_note(mut self, span: Span, note: impl Into<String>) -> Self {
        self.notes.push((span, note.into()));
        self
    }
    /// The message as rustc shows it inside `compile_error!`: message, then help and notes.
    pub fn rendered_message(&self) -> String {
        let mut s = format!("[{}] {}", self.code, self.message);
        for (span, note) in &self.notes {
            if span.is_dummy() {
                s.push_str(&format!("\n  note: {note}"));
            } else {
                s.push_str(&format!("\n  note: {note} (at {span})"));
            }
        }
        if let Some(h) = &self.help {
            s.push_str(&format!("\n  help: {h}"));
        }
        s
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.span, self.rendered_message())
    }
}

/// A non-empty list of diagnostics, sorted by position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }
    /// `Ok(v)` when empty, else the sorted diagnostics.
    pub fn into_result<T>(mut self, v: T) -> Result<T, Diagnostics> {
        if self.0.is_empty() {
            Ok(v)
        } else {
            self.0.sort_by_key(|d| (d.span.start, d.code));
            self.0.dedup();
            Err(self)
        }
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
