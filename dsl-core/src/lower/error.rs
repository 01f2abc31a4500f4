//! The error of a lowering that cannot translate a construct.
//!
//! The checker reports every restriction of the lowering with its own code
//! (`check/lowerable.rs`), so a kernel that checks lowers: a `LowerError` after a passing check
//! is a tessel bug, reported as [`codes::LOWER_INTERNAL`] with the construct's span.

use crate::check::codes;
use crate::diag::Diagnostic;
use crate::span::Span;

/// A construct the lowering cannot translate although the checker accepted it.
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
        Diagnostic::new(codes::LOWER_INTERNAL, self.span, self.message).with_help(
            "the checker accepted this kernel, so lowering should translate it: this is a tessel bug, please report it with the kernel",
        )
    }
}
