//! What a `__co__` function returns and from where: never from inside a `parallel` (`E1682`),
//! only data — a tensor or a scalar, not a future, a placeholder, an index or an i-tuple
//! (`E1683`); a returned scalar is one "not supported yet" (`E1302`), nothing else.

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::lower::launch_form;
use dsl_core::parse::parse_str;

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn codes(m: &Module) -> Vec<&'static str> {
    match check::check_config(m, &Config::defaults(m), None, &Limits::SM90) {
        Ok(_) => Vec::new(),
        Err(d) => d.0.iter().map(|x| x.code).collect(),
    }
}

const BODY: &str = "  parallel p by 1 : block {\n    a.at(0) = 1.0f;\n  }\n";

#[test]
fn returns_inside_a_parallel_are_errors_at_any_depth() {
    for inner in [
        "    return a;\n",
        "    parallel q by 2 : thread {\n      if (q == 0) return a;\n    }\n",
        "    foreach k in [2] { return; }\n",
    ] {
        let m = parse(&format!(
            "__co__ auto f(f32 [8] a) {{\n  parallel p by 1 : block {{\n{inner}  }}\n}}\n"
        ));
        let got = codes(&m);
        assert_eq!(got, vec!["E1682"], "{inner}");
    }
}

#[test]
fn only_data_is_returned() {
    for (tail, what) in [
        ("  with k in [4] {\n    return k;\n  }\n", "a bounded index"),
        ("  return {8, 1};\n", "an i-tuple"),
        ("  t = {8, 1};\n  return t;\n", "an i-tuple"),
        ("  f = dma.any;\n  return f;\n", "a placeholder future"),
    ] {
        let m = parse(&format!("__co__ auto f(f32 [8] a) {{\n{BODY}{tail}}}\n"));
        let d =
            check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90).expect_err(tail);
        let r: Vec<_> = d.0.iter().filter(|x| x.code == "E1683").collect();
        assert_eq!(r.len(), 1, "{tail}: {d}");
        assert!(r[0].message.ends_with(what), "{tail}: {d}");
    }
}

#[test]
fn a_returned_scalar_is_one_not_supported_yet() {
    // Declared (`__co__ int`): at the return type; inferred (`__co__ auto`): at the `return`.
    for (head, tail, line) in [
        ("__co__ int f(f32 [8] a, int n)", "  return n + 1;\n", 1),
        ("__co__ auto f(f32 [8] a, int n)", "  return n + 1;\n", 5),
    ] {
        for m in [
            parse(&format!("{head} {{\n{BODY}{tail}}}\n")),
            launch_form(parse(&format!("{head} {{\n{BODY}{tail}}}\n"))),
        ] {
            let d = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
                .expect_err(head);
            assert_eq!(d.0.len(), 1, "{head}: {d}");
            assert_eq!(d.0[0].code, "E1302", "{d}");
            assert_eq!(d.0[0].span.start.line, line, "{d}");
        }
    }
    // A returned tensor is the launch form's output: nothing to say.
    let m = launch_form(parse(&format!(
        "__co__ auto f(f32 [8] a) {{\n  f32 [8] out;\n  parallel p by 1 : block {{\n    out.at(0) = a.at(0);\n  }}\n  return out;\n}}\n"
    )));
    assert_eq!(codes(&m), Vec::<&str>::new());
}

/// The launch form drops `return x;` only where `x` is a tensor parameter (the output the
/// caller passes in). A scalar parameter's value has nowhere to go: its return stays, and the
/// lowering's gate reports it, instead of a `void` kernel losing the result.
#[test]
fn the_launch_form_keeps_the_return_of_a_scalar_parameter() {
    let scalar = launch_form(parse(&format!(
        "__co__ auto f(int n, f32 [8] a) {{\n{BODY}  return n;\n}}\n"
    )));
    assert_eq!(codes(&scalar), vec!["E1302"]);
    let tensor = launch_form(parse(&format!(
        "__co__ auto f(int n, f32 [8] a) {{\n{BODY}  return a;\n}}\n"
    )));
    assert_eq!(codes(&tensor), Vec::<&str>::new());
}
