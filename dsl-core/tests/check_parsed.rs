//! The ladder's kernels as files: parsed by `parse_str`, then checked with their defaults; and
//! `parallel wg by 3` with CONSUMERS = 1 (one warpgroup too many) as a compile error.

use dsl_core::check::{self, codes as c};
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

fn load(name: &str) -> String {
    let path = format!("{}/../kernels/{name}.co", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse(text: &str) -> Module {
    match parse_str(text, Some("kernel.co")) {
        Ok(p) => p.module,
        Err(d) => panic!("parse failed:\n{d}"),
    }
}

#[test]
fn seed_kernels_pass_with_defaults() {
    for (name, threads) in [
        ("v0_naive", 1024),
        ("v1_shared", 1024),
        ("v2_tma_wgmma", 128),
        ("v3_warpspec", 256),
        ("v4_tuned", 384),
    ] {
        let m = parse(&load(name));
        match check::check(&m) {
            Ok(info) => assert_eq!(info.threads_per_block, threads, "{name}"),
            Err(d) => panic!("{name} failed the check:\n{d}"),
        }
    }
}

#[test]
fn v4_with_wg_by_3_and_one_consumer() {
    let text = load("v4_tuned")
        .replace(
            "parallel wg by CONSUMERS + 1 : group-4",
            "parallel wg by 3 : group-4",
        )
        .replace(
            "tunable CONSUMERS in [1, 2] = 2;",
            "tunable CONSUMERS in [1, 2] = 1;",
        );
    let m = parse(&text);
    let d = check::check(&m).expect_err("the crash config must not check");
    assert_eq!(d.len(), 1, "{d}");
    let e = &d.0[0];
    assert_eq!(e.code, c::ARRAY_RANGE);
    // The span is the `cidx` of `mma.store mc…, output_s[cidx];`.
    let line = text
        .lines()
        .position(|l| l.contains("mma.store mc") && l.contains(", output_s[cidx];"))
        .unwrap() as u32
        + 1;
    assert_eq!(e.span.start.line, line, "{d}");
    let col = text
        .lines()
        .nth(line as usize - 1)
        .unwrap()
        .find("cidx]")
        .unwrap() as u32;
    assert_eq!(e.span.start.col, col, "{d}");
    assert!(
        e.help
            .as_deref()
            .unwrap_or("")
            .contains("make the warpgroup count `CONSUMERS + 1`"),
        "{d}"
    );
    // The same file with the count written `CONSUMERS + 1` is fine for CONSUMERS = 1 and 2.
    let ok = parse(&load("v4_tuned").replace(
        "tunable CONSUMERS in [1, 2] = 2;",
        "tunable CONSUMERS in [1, 2] = 1;",
    ));
    check::check(&ok).unwrap();
}

#[test]
fn v4_warp_n_180() {
    let text = load("v4_tuned").replace(
        "tunable WARP_N in 128..=256 step 8 = 192;",
        "tunable WARP_N in [176, 180, 184] = 180;",
    );
    let m = parse(&text);
    let d = check::check(&m).expect_err("N = 180 is not a WGMMA shape");
    let e = d
        .iter()
        .find(|e| e.code == c::WGMMA_N)
        .unwrap_or_else(|| panic!("{d}"));
    assert_eq!(
        e.message,
        "WGMMA N must be a multiple of 8 in 8..=256; WARP_N = 180 here — try 176 or 184"
    );
}
