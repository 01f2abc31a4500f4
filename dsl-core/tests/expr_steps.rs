//! Increments inside expressions (`e.at(order++)`, `int j = ++i;`), the immutability of `int`
//! and `bool` scalars without `mutable`, `= ready` events, `event<N>` participant counts and
//! counters in the range check.

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn parse_err(text: &str) -> Vec<(&'static str, String)> {
    match parse_str(text, Some("t.co")) {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(d) => d.iter().map(|x| (x.code, x.message.clone())).collect(),
    }
}

fn check(m: &Module) -> Result<check::KernelInfo, dsl_core::Diagnostics> {
    check::check_config(m, &Config::defaults(m), None, &Limits::SM90)
}

/// A SIMT kernel around `body` (inside the thread level: `b`, `t`, `N`, `x`, `y`).
fn simt(body: &str) -> String {
    format!(
        "__co__ void k(global f32 [N] x, global f32 [N] y) {{\n  parallel b by cdiv(N, 128) : block, t by 128 : thread {{\n{body}\n  }}\n}}\n"
    )
}

/// The statements of the thread level as the IR prints them.
fn body_lines(m: &Module) -> Vec<String> {
    m.to_string()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("kernel") && !l.starts_with("parallel"))
        .filter(|l| *l != "}")
        .map(str::to_string)
        .collect()
}

#[test]
fn a_pre_increment_steps_before_its_statement_and_a_post_increment_after() {
    let m = parse(&simt(
        "    mutable int i = b * 128 + t;\n    int j = ++i;\n    int k = i--;\n    if (k < N) y.at(k) = x.at(j);",
    ));
    let lines = body_lines(&m);
    let at = |s: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(s))
            .unwrap_or_else(|| panic!("no `{s}` in {lines:#?}"))
    };
    // ++i: the step, then the declaration reads i.
    assert!(at("i += 1;") < at("int j = i;"), "{lines:#?}");
    // i--: the declaration reads i, then the step.
    assert!(at("int k = i;") < at("i -= 1;"), "{lines:#?}");
    check(&m).unwrap_or_else(|d| panic!("check failed:\n{d}"));
}

#[test]
fn an_event_generation_is_one_evaluated_value() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/ws_ready.co"),
    )
    .expect("kernels/ws_ready.co");
    let m = parse(&text);
    let ir = m.to_string();
    // `trigger full.at(order++) after a, b;` is the trigger of generation `order`, then the step.
    let trigger = ir.find("trigger full.at(order) after a, b;").expect(&ir);
    let step = ir[trigger..].find("order += 1;").expect(&ir);
    assert!(
        !ir[trigger..trigger + step].contains("wait"),
        "the step follows the trigger:\n{ir}"
    );
    // `= ready` belongs to `empty` alone: two declarations.
    assert!(ir.contains("shared event full[STAGES];"), "{ir}");
    assert!(ir.contains("shared event empty[STAGES] = ready;"), "{ir}");
    // `a_s[order % STAGES]` stays in range: `order` only grows from 0.
    check(&m).unwrap_or_else(|d| panic!("check failed:\n{d}"));
}

#[test]
fn increments_whose_order_is_not_defined_are_e0048() {
    let cases = [
        (
            "    mutable int i = t;\n    if (i < N) y.at(i) = x.at(i++);",
            "used again",
        ),
        (
            "    mutable int i = t;\n    if (i++ < N) y.at(t) = x.at(t);",
            "head of a statement",
        ),
        (
            "    int i = t;\n    f32 v = x.at(i)++;\n    y.at(i) = v;",
            "variable's name",
        ),
        (
            "    mutable int i = t;\n    int j = i++ + i++;\n    y.at(j) = 0.0f;",
            "used again",
        ),
    ];
    for (body, what) in cases {
        let errs = parse_err(&simt(body));
        assert!(
            errs.iter()
                .any(|(c, msg)| *c == "E0048" && msg.contains(what)),
            "{body}: {errs:?}"
        );
    }
}

#[test]
fn int_and_bool_need_mutable_to_be_assigned() {
    for body in [
        "    int i = t;\n    i += 1;\n    y.at(i) = 0.0f;",
        "    int i = t;\n    int j = ++i;\n    y.at(j) = 0.0f;",
        "    bool f = t < 4;\n    f = false;\n    if (f) y.at(t) = 0.0f;",
    ] {
        let m = parse(&simt(body));
        let d = check(&m).expect_err(body);
        let e = d
            .iter()
            .find(|x| x.code == "E0106")
            .unwrap_or_else(|| panic!("{body}: {d}"));
        assert!(e.message.contains("without `mutable`"), "{e}");
        assert!(!e.notes.is_empty(), "the declaration is pointed at: {e}");
    }
    // `mutable`, and data types, may be assigned.
    for body in [
        "    mutable int i = t;\n    i += 1;\n    if (i < N) y.at(i) = 0.0f;",
        "    s32 i = t;\n    i += 1;\n    if (i < N) y.at(i) = 0.0f;",
        "    f32 v = x.at(t);\n    v *= 2.0f;\n    y.at(t) = v;",
        "    mutable bool f = t < 4;\n    f = false;\n    if (f) y.at(t) = 0.0f;",
    ] {
        check(&parse(&simt(body))).unwrap_or_else(|d| panic!("{body}:\n{d}"));
    }
}

#[test]
fn a_counter_that_only_grows_indexes_in_range_and_one_that_shrinks_does_not() {
    let kernel = |step: &str| {
        format!(
            "__co__ void k(global f32 [N] x) {{\n  parallel b by 1 : block, t by 32 : thread {{\n    shared f32 [32] s[2];\n    mutable int c = 0;\n    foreach {{i}} in [4] {{\n      s[c % 2].at(t) = 1.0f;\n      {step}\n    }}\n    x.at(t) = s[0].at(t);\n  }}\n}}\n"
        )
    };
    check(&parse(&kernel("c++;"))).unwrap_or_else(|d| panic!("{d}"));
    check(&parse(&kernel("c += 2;"))).unwrap_or_else(|d| panic!("{d}"));
    let d = check(&parse(&kernel("c -= 1;"))).expect_err("a counter stepped down may go below 0");
    assert!(d.iter().any(|x| x.code == "E0701"), "{d}");
}

/// A producer thread and a consumer warpgroup around `shared event<N> full[2], empty[2] = ready;`.
fn participants_kernel(n: u32, producer: &str) -> String {
    format!(
        "__co__ void k(global f16 [M, K] a, global f16 [M, 64] out) {{\n  parallel b by cdiv(M, 64) : block {{\n    shared event<{n}> full[2], empty[2] = ready;\n    shared f16 [64, 64] s[2];\n    parallel p by 2 : group-4, t by 128 : thread {{\n      inthreads.async ({producer}) {{\n        foreach iv in [cdiv(K, 64)] {{\n          wait empty.at(iv);\n          l = tma.copy.async.swiz<128> a.subspan(64, 64).at(b, iv) => s[iv % 2];\n          trigger full.at(iv) after l;\n        }}\n      }}\n      inthreads.async (p == 1) {{\n        foreach iv in [cdiv(K, 64)] {{\n          wait full.at(iv);\n          trigger empty.at(iv);\n        }}\n      }}\n    }}\n  }}\n}}\n"
    )
}

#[test]
fn an_event_count_is_checked_against_the_threads_that_use_the_event() {
    let warnings = |text: &str| -> Vec<String> {
        let m = parse(text);
        assert!(m.to_string().contains("shared event<"), "{m}");
        check(&m)
            .unwrap_or_else(|d| panic!("check failed:\n{d}"))
            .warnings
            .iter()
            .filter(|w| w.code == "W1214")
            .map(|w| w.message.clone())
            .collect()
    };
    // A whole producer warpgroup and a consumer warpgroup: 256 take part in each event.
    assert!(warnings(&participants_kernel(256, "p == 0")).is_empty());
    // One producer thread: 129.
    let w = warnings(&participants_kernel(256, "p == 0 && t == 0"));
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].contains("states 256") && w[0].contains("129 threads"),
        "{w:?}"
    );
    assert!(warnings(&participants_kernel(129, "p == 0 && t == 0")).is_empty());
}

#[test]
fn a_counter_stepped_where_the_protocol_check_does_not_look_leaves_it_unchecked() {
    // The consumers step their counter under an `if` that holds no event: the protocol check
    // does not list that branch, so it must not run the ring with the counter's stale value.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/ws_ready.co"),
    )
    .expect("kernels/ws_ready.co")
    .replace(
        "          trigger empty.at(order++);",
        "          trigger empty.at(order);\n          if (kt >= 0) {\n            order += 1;\n          }",
    );
    assert!(text.contains("if (kt >= 0)"));
    check(&parse(&text)).unwrap_or_else(|d| panic!("check failed:\n{d}"));
}
