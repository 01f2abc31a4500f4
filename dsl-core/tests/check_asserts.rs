//! `assert(cond, "message")`: decided by the checker when it can be (E1010 when false, nothing
//! in the kernel when true), checked at launch when it reads problem sizes, and not supported
//! yet over values the kernel computes (E1123).

use dsl_core::check::{self, Config, Limits, Problem};
use dsl_core::ir::Module;

fn parse(src: &str) -> Module {
    dsl_core::parse::parse_str(src, Some("k.co"))
        .unwrap_or_else(|d| panic!("does not parse:\n{d}\n{src}"))
        .module
}

/// A kernel over `x: [M, 64]` with `asserts` at its top and `inner` inside its `parallel`.
fn kernel(asserts: &str, inner: &str) -> String {
    format!(
        "tunable T in [32, 64] = 64;\n__co__ void k(global f32 [M, 64] x, global f32 [M, 64] y) {{\n{asserts}\n  parallel {{b}} by [M] : block, {{t}} by [T] : thread {{\n    shared f32 [4, T] s;\n{inner}\n    y.at(b, t) = x.at(b, t);\n  }}\n}}\n"
    )
}

fn codes(src: &str, problem: Option<&Problem>) -> Vec<&'static str> {
    let m = parse(src);
    match check::check_config(&m, &Config::defaults(&m), problem, &Limits::SM90) {
        Ok(_) => Vec::new(),
        Err(d) => d.iter().map(|x| x.code).collect(),
    }
}

fn launch_checks(src: &str) -> Vec<String> {
    let m = parse(src);
    let info = check::check(&m).unwrap_or_else(|d| panic!("{d}\n{src}"));
    let k = dsl_core::lower::lower(&m, &info).unwrap();
    k.plan
        .launch_requires
        .iter()
        .map(|(_, t)| t.clone())
        .collect()
}

#[test]
fn a_static_assertion_is_decided_by_the_checker() {
    let ok = kernel("", "    assert(x.span(1) == T, \"one row per block\");");
    assert_eq!(codes(&ok, None), Vec::<&str>::new());
    assert!(launch_checks(&ok).is_empty(), "{:?}", launch_checks(&ok));
    // Shared tiles' extents and `#t` are static too.
    let tile = kernel("", "    assert(s.span(0) * #t <= 256 && s.span(1) == 64);");
    assert_eq!(codes(&tile, None), Vec::<&str>::new());
    let bad = kernel(
        "",
        "    assert(x.span(1) == 2 * T, \"two rows per block\");",
    );
    let m = parse(&bad);
    let d = check::check(&m).unwrap_err();
    assert_eq!(d.iter().map(|x| x.code).collect::<Vec<_>>(), ["E1010"]);
    let text = d.to_string();
    assert!(
        text.contains("assertion failed: two rows per block"),
        "{text}"
    );
    assert!(text.contains("T = 64"), "{text}");
    // Under another configuration it holds.
    let cfg = Config::defaults(&m).with("T", 32);
    assert!(check::check_config(&m, &cfg, None, &Limits::SM90).is_ok());
}

#[test]
fn an_assertion_over_problem_sizes_is_checked_at_launch() {
    let src = kernel("  assert(M % 4 == 0, \"M must be a multiple of 4\");", "");
    assert_eq!(codes(&src, None), Vec::<&str>::new());
    assert_eq!(
        launch_checks(&src),
        ["assert(M % 4 == 0, \"M must be a multiple of 4\")"]
    );
    // With the problem given, the checker decides it too.
    assert_eq!(
        codes(&src, Some(&Problem::default().with("M", 100))),
        Vec::<&str>::new()
    );
    assert_eq!(
        codes(&src, Some(&Problem::default().with("M", 101))),
        ["E1010"]
    );
    // A dimension of a parameter is its size.
    let span = kernel("", "    assert(x.span(0) >= 16);");
    assert_eq!(launch_checks(&span), ["assert(M >= 16)"]);
}

#[test]
fn an_assertion_over_kernel_values_is_not_supported_yet() {
    for cond in ["t < 64", "b < M", "x.at(b, 0) > 0.0f"] {
        let src = kernel("", &format!("    assert({cond}, \"in range\");"));
        assert_eq!(codes(&src, None), ["E1123"], "{cond}");
    }
}
