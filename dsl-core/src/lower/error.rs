//! The error of a lowering that cannot translate a construct.

use crate::diag::Diagnostic;
use crate::span::Span;

/// A construct the lowering cannot translate (the checker accepted it, but no path implements it).
#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    pub span: Span,
    pub message: String,
}

impl LowerError {
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        LowerError {
            span,
            message: message.into(),
        }
    }
    pub fn into_diagnostic(self) -> Diagnostic {
        Diagnostic::new("E0900", self.span, self.message)
    }
}
