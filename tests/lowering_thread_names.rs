//! Sibling thread levels that reuse a variable's name with another index, on the Hopper path
//! (`tests/data/thread_names/`): the lambdas that count the threads reaching each `trigger`
//! declare only the variables of the levels around it, and global element stores from those
//! levels bring their guarded-store helper. Each `.cu` equals its golden
//! (`tests/golden/thread_names/`, `TESSEL_BLESS=1` to refresh) and compiles with NVRTC for
//! sm_90a to the WGMMA and TMA instructions, without local memory.

mod common;

use common::{
    assert_ops, clean_sass, emit_source, golden, nvrtc_and_nvdisasm_available, parse_file,
};
use dsl_core::check::Config;
use tessel_runtime::nvrtc::Arch;

/// (kernel, a line its `.cu` must hold).
const KERNELS: &[(&str, &str)] = &[
    (
        "two_indexes",
        "constexpr auto tsl_reach_full = [](int tsl_tid) {  return true; };",
    ),
    (
        "ws_epilogue",
        "constexpr auto tsl_reach_empty = [](int tsl_tid) { const int wg = tsl_tid / 128; (void)wg; const int t = tsl_tid % 128; (void)t; return (wg >= 1); };",
    ),
    (
        "element_stores",
        "tsl_st_guarded(output, bm * 64, bn * 128 + t, M, N, out_s[t]);",
    ),
];

fn emit(name: &str) -> (String, String) {
    let rel = format!("tests/data/thread_names/{name}.co");
    let m = parse_file(&rel);
    let (_, cu, expr) = emit_source(&m, &rel, &Config::defaults(&m));
    (cu, expr)
}

#[test]
fn each_lambda_declares_the_levels_around_its_trigger() {
    let mut failures = Vec::new();
    for (name, line) in KERNELS {
        let (cu, _) = emit(name);
        assert!(
            cu.lines().any(|l| l.trim().starts_with(line)),
            "{name}: no `{line}`:\n{cu}"
        );
        if let Err(e) = golden(&format!("tests/golden/thread_names/{name}.cu"), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sibling_thread_names_compile_for_sm90a() {
    if !nvrtc_and_nvdisasm_available("sibling_thread_names_compile_for_sm90a") {
        return;
    }
    for (name, _) in KERNELS {
        let (cu, expr) = emit(name);
        let c = clean_sass(name, &cu, &expr, Arch::Sm90a);
        assert_ops(name, &c.sass, &["HGMMA", "UTMALDG"]);
    }
}
