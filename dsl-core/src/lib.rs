//! tessel's front end: the Croqtile parser, the typed IR, the semantic checks and the
//! lowering passes. A plain library: the proc macro, the CLI and the tests all call it.
//!
//! Pipeline: [`parse`] (tokens → [`ir::Module`]) → [`check`] (facts or diagnostics) →
//! [`lower`] (checked IR → a CUDA-shaped kernel that `codegen-cuda` renders).

pub mod check;
pub mod def;
pub mod diag;
pub mod ir;
pub mod lower;
pub mod parse;
pub mod render;
pub mod span;
mod suggest;
pub mod sym;
pub mod tunable;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use span::{LineCol, LineIndex, Span};
