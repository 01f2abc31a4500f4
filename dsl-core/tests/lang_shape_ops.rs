//! Shapes inside expressions: the element count `|x|` (the product of `x`'s dimensions, sugar;
//! a shape the parser does not know is `E1684`) and a window with strides,
//! `t.view(A, B : SA, SB)` (checked; not lowered).

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn parse_error(text: &str) -> dsl_core::Diagnostic {
    parse_str(text, Some("t.co")).expect_err("a parse error").0[0].clone()
}

fn language(m: &Module) -> Result<dsl_core::Diagnostics, dsl_core::Diagnostics> {
    check::check_language(m, &Config::defaults(m), None, &Limits::SM90).map(|(_, gate)| gate)
}

#[test]
fn an_element_count_is_the_product_of_the_dimensions() {
    let m = parse(
        "__co__ void k(f32 [8, 4] a, s32 [6] out) {\n  tile : [2, 3];\n  parallel p by 1 : block {\n    f = dma.copy a.chunkat(p, _) => shared;\n    out.at(0) = |a|;\n    out.at(1) = |a.span|;\n    out.at(2) = |tile|;\n    out.at(3) = |f.span| + 1;\n    out.at(4) = |a.span(1)|;\n  }\n}\n",
    );
    let text = m.to_string();
    for want in [
        "out.at(0) = 8 * 4;",
        "out.at(1) = 8 * 4;",
        "out.at(2) = 2 * 3;",
        "out.at(3) = 8 / 1 * 4 + 1;",
        "out.at(4) = 4;",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    language(&m).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn an_element_count_of_an_unknown_shape_is_not_supported_yet() {
    let d = parse_error(
        "__co__ void k(f32 [8] a, s32 [1] out) {\n  parallel p by 1 : block {\n    f = dma.any;\n    out.at(0) = |f.span|;\n  }\n}\n",
    );
    assert_eq!(d.code, "E1684", "{d}");
    assert!(
        d.message
            .starts_with("not supported yet: the element count of `f.span`"),
        "{d}"
    );
    assert_eq!((d.span.start.line, d.span.start.col + 1), (4, 18), "{d}");
    // Unbracketed after `in`, Croqtile's grammar has no element count.
    let d = parse_error(
        "__co__ void k(s32 [1, 2, 3] s) {\n  parallel p by 1 : block {\n    with b in |s.span| { }\n  }\n}\n",
    );
    assert_eq!(d.code, "E0003", "{d}");
    assert!(
        d.help.as_deref().is_some_and(|h| h.contains("[|x.span|]")),
        "{d}"
    );
}

#[test]
fn a_window_with_strides_checks_and_prints_as_written() {
    let m = parse(
        "__co__ void k(f32 [32, 32] a) {\n  parallel p by 1 : block {\n    shared f32 [17, 3] s;\n    dma.copy a.view(17, 3 : 7, 2).from(11, 10) => s;\n  }\n}\n",
    );
    let text = m.to_string();
    assert!(
        text.contains("dma.copy a.view(17, 3 : 7, 2).from(11, 10) => s;"),
        "{text}"
    );
    let gate = language(&m).unwrap_or_else(|d| panic!("{d}"));
    assert!(gate.0.iter().any(|d| d.code == "E1307"), "{gate}");
    // One stride per extent.
    let d = parse_error(
        "__co__ void k(f32 [32, 32] a) {\n  parallel p by 1 : block {\n    shared f32 [17, 3] s;\n    dma.copy a.view(17, 3 : 7).from(11, 10) => s;\n  }\n}\n",
    );
    assert_eq!(d.code, "E0020", "{d}");
    assert_eq!(d.message, "2 extents but 1 strides", "{d}");
}

#[test]
fn shape_arithmetic_is_written_out_per_dimension() {
    let m = parse(
        "__co__ void k(f32 [8, 12] a) {\n  half : a.span / 2;\n  parallel p by 2 : block, q by 3 : thread {\n    local f32 [a.span / {#p, #q}] l;\n    shared f32 [a.span + 1] s;\n    shared f32 [(a.span - half) * 2, 4] t;\n    l.at(0, 0) = 1.0f;\n    s.at(0, 0) = 1.0f;\n    t.at(0, 0, 0) = 1.0f;\n  }\n}\n",
    );
    let text = m.to_string();
    for want in [
        "local f32 [8 / 2, 12 / 3] l;",
        "shared f32 [8 + 1, 12 + 1] s;",
        "shared f32 [(8 - 8 / 2) * 2, (12 - 12 / 2) * 2, 4] t;",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    language(&m).unwrap_or_else(|d| panic!("{d}"));
    // Shapes of different ranks, and a shape the parser does not know, are errors.
    for (decl, msg) in [
        (
            "shared f32 [a.span / {2, 2, 2}] s;",
            "shape arithmetic on a shape of 2 dimensions and one of 3",
        ),
        (
            "shared f32 [f.span + 1] s;",
            "arithmetic on the whole shape `f.span`, whose dimensions are not known here",
        ),
    ] {
        let d = parse_error(&format!(
            "__co__ void k(f32 [8, 12] a) {{\n  parallel p by 1 : block {{\n    f = dma.any;\n    {decl}\n  }}\n}}\n"
        ));
        assert_eq!(d.code, "E0045", "{d}");
        assert_eq!(d.message, msg, "{d}");
    }
}

#[test]
fn a_with_bound_below_one_is_an_error() {
    let m = parse(
        "__co__ void k(f32 [2, 2] a) {\n  tile : [4, 4];\n  parallel p by 1 : block {\n    with t in [a.span / tile] { a.at(0, 0) = 1.0f; }\n  }\n}\n",
    );
    let d = language(&m).expect_err("a zero bound");
    assert_eq!(d.0[0].code, "E1204", "{d}");
    assert!(
        d.0[0].message.starts_with("this `with` bound is 2 / 4 = 0"),
        "{d}"
    );
}

#[test]
fn a_derived_shape_names_the_dimensions_of_its_base_in_parentheses() {
    let k = |line: &str| {
        format!(
            "__co__ void k(f32 [8, 12, 4] x) {{\n  base : [5, 1, 6];\n  {line}\n  parallel p by 1 : block {{\n    shared f32 [d] t;\n  }}\n}}\n"
        )
    };
    for (line, want) in [
        ("d : x.span[(1), (0)];", "shared f32 [12, 8] t;"),
        ("d : x[(2), (0) * 2, 3];", "shared f32 [4, 8 * 2, 3] t;"),
        (
            "d : base[(0) / 5, 3 + (2)];",
            "shared f32 [5 / 5, 3 + 6] t;",
        ),
        // Parentheses around other expressions group as usual.
        ("d : base[(1 + 1), (2)];", "shared f32 [1 + 1, 6] t;"),
    ] {
        let m = parse(&k(line));
        assert!(m.to_string().contains(want), "{line}: {want}:\n{m}");
        language(&m).unwrap_or_else(|d| panic!("{line}: {d}"));
    }
    let d = parse_error(&k("d : base[(3)];"));
    assert_eq!(d.code, "E0045");
    assert!(
        d.message.contains("dimension 3 of a shape of 3"),
        "{}",
        d.message
    );
    // Outside a derivation `(1)` is the number 1.
    let m = parse(&k("d : [(1), 2];"));
    assert!(m.to_string().contains("shared f32 [1, 2] t;"), "{m}");
}
