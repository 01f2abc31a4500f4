//! Kernels from DSL source for the lowering tests: parsed, checked under the default
//! configuration for sm_90, and lowered — or the diagnostics' codes and messages.
#![allow(dead_code)]

use dsl_core::check::{self, Config, Limits};
use dsl_core::lower::CudaKernel;
use dsl_core::parse::parse_str;

/// The lowered kernel of `src`, or its diagnostics (code, message); a kernel that checks must
/// lower.
pub fn lowered(src: &str) -> Result<CudaKernel, Vec<(&'static str, String)>> {
    let m = parse_str(src, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module;
    match check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok(info) => Ok(dsl_core::lower::lower(&m, &info).expect("check ok ⇒ lower ok")),
        Err(d) => Err(d.iter().map(|x| (x.code, x.message.clone())).collect()),
    }
}

/// The kernel body's C++ statements, one a line.
pub fn body(k: &CudaKernel) -> String {
    k.body.iter().map(|l| format!("{}\n", l.op)).collect()
}
