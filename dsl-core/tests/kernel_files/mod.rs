//! The repository's `.co` kernels, read and parsed for the tests that start from them.
#![allow(dead_code)]

use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

/// The text of `kernels/<name>.co`.
pub fn kernel_file(name: &str) -> String {
    let path = format!("{}/../kernels/{name}.co", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Parses `.co` text (panics with the diagnostics if it does not parse).
pub fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}
