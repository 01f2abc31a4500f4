//! `promote P;` (two-level accumulation of 8-bit float WGMMAs): legal on a kernel with an f8
//! `mma` into an f32 accumulator at every P of its domain, lowered only there; an error
//! (E1423) with a negative P or nothing to promote.

use dsl_core::check::{Config, Limits, check_config, codes};
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

fn kernel(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("kernels")
        .join(format!("{name}.co"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn module(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

#[test]
fn v4_fp8_checks_and_lowers_with_and_without_promotion() {
    let m = module(&kernel("v4_fp8"));
    assert!(m.promote.is_some());
    for p in [0, 1] {
        // The partial sums double the accumulators: promotion needs WARP_N <= 192.
        let cfg = Config::defaults(&m).with("PROMOTE", p).with("WARP_N", 192);
        let info = check_config(&m, &cfg, None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
        let k = dsl_core::lower::lower(&m, &info).unwrap_or_else(|e| panic!("{e}"));
        let calls: Vec<String> = k
            .body
            .iter()
            .filter_map(|l| match &l.op {
                dsl_core::lower::Op::Call(c) => Some(c.name.clone()),
                _ => None,
            })
            .collect();
        // The promotion is in the kernel at every P (an `if constexpr` picks it).
        assert!(calls.iter().any(|c| c == "tsl_acc_promote"), "{calls:?}");
    }
}

#[test]
fn promote_without_an_f8_f32_mma_is_an_error() {
    let text = kernel("v2_tma_wgmma").replace("__co__", "promote 1;\n__co__");
    let m = module(&text);
    let d = check_config(&m, &Config::defaults(&m), None, &Limits::SM90).unwrap_err();
    assert_eq!(d.len(), 1, "{d}");
    assert_eq!(d.0[0].code, codes::PROMOTE);
    assert!(d.0[0].message.contains("nothing to promote"), "{d}");
}

#[test]
fn negative_promote_interval_is_an_error() {
    let text = kernel("v4_fp8").replace("promote PROMOTE;", "promote PROMOTE - 1;");
    let m = module(&text);
    let d = check_config(&m, &Config::defaults(&m), None, &Limits::SM90).unwrap_err();
    assert_eq!(d.len(), 1, "{d}");
    assert_eq!(d.0[0].code, codes::PROMOTE);
    assert!(d.0[0].message.contains("not PROMOTE - 1 = -1"), "{d}");
}

#[test]
fn promote_prints_back_in_the_header() {
    let m = module(&kernel("v4_fp8"));
    assert!(m.to_string().contains("promote PROMOTE"), "{m}");
}
