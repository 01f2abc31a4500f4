//! I-tuples: one name for several indices. `foreach index in [A, B]`, `foreach index` over
//! `with index in [A, B]` (or `with index = {x, y} in …`) and `parallel p = {x, y} by [A, B]`
//! become loops and levels over one variable per dimension; a use of the tuple in a view
//! method's arguments stands for its elements, `index(d)` for element `d`. A parallel variable
//! given several bounds (`E1680`) and the tuple used as one value (`E1681`) are errors.

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn first_error(src: &str) -> dsl_core::Diagnostic {
    let d = match parse_str(src, None) {
        Err(d) => d,
        Ok(p) => {
            check::check_language(&p.module, &Config::defaults(&p.module), None, &Limits::SM90)
                .map(|_| ())
                .expect_err("expected an error")
        }
    };
    d.0[0].clone()
}

fn checks(m: &Module) {
    check::check_config(m, &Config::defaults(m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("check_config failed:\n{d}\n{m}"));
}

#[test]
fn a_loop_variable_over_a_shape_is_nested_loops_over_its_elements() {
    let m = parse(
        "__co__ void k(f32 [8, 4, 2] a, f32 [8, 4, 2] b) {\n  parallel p by 2 : block {\n    foreach ix in [a.span]\n      b.at(ix) = a.at(ix) * 2.0f;\n  }\n}\n",
    );
    let text = m.to_string();
    assert!(
        text.contains("foreach {ix_0, ix_1, ix_2} in [8, 4, 2] {"),
        "{text}"
    );
    assert!(
        text.contains("b.at(ix_0, ix_1, ix_2) = a.at(ix_0, ix_1, ix_2) * 2.0f;"),
        "{text}"
    );
    checks(&m);
    // Unbracketed `in a.span` and an explicit shape iterate the same way.
    for head in ["foreach ix in a.span", "foreach ix in [8, 4, 2]"] {
        let src = format!(
            "__co__ void k(f32 [8, 4, 2] a, f32 [8, 4, 2] b) {{\n  parallel p by 2 : block {{\n    {head}\n      b.at(ix) = a.at(ix);\n  }}\n}}\n"
        );
        let t = parse(&src).to_string();
        assert!(
            t.contains("foreach {ix_0, ix_1, ix_2} in [8, 4, 2] {"),
            "{t}"
        );
    }
}

#[test]
fn elements_are_picked_by_position_and_spliced_with_other_indices() {
    let m = parse(
        "__co__ void k(f32 [4, 6, 8] a, f32 [6, 8] b) {\n  parallel p by 4 : block {\n    foreach q in [6, 8]\n      if (q(0) < q(1))\n        b.at(q) = a.at(p, q) + a.chunkat(p, q(0), q(1)).at(0, 0, 0);\n  }\n}\n",
    );
    let text = m.to_string();
    assert!(text.contains("if (q_0 < q_1)"), "{text}");
    assert!(
        text.contains("b.at(q_0, q_1) = a.at(p, q_0, q_1)"),
        "{text}"
    );
    // An i-tuple value `{q, 1}` splices too.
    let t = parse(
        "__co__ void k(f32 [6, 8] b) {\n  parallel p by 1 : block {\n    foreach q in [6, 8] {\n      c = {q, 1};\n    }\n  }\n}\n",
    )
    .to_string();
    assert!(t.contains("let c = {q_0, q_1, 1};"), "{t}");
}

#[test]
fn with_tuples_iterate_their_elements_and_are_zero_outside_the_loop() {
    // `with index in [A, B]`: `foreach index` is two loops, `index` before it the first
    // value of each element (0).
    let m = parse(
        "__co__ void k(f32 [8, 12, 16] x, f32 [8, 12, 16] y) {\n  parallel p by 8 : block {\n    with index in [3, 4] {\n      f0 = dma.copy x.chunkat(p, index) => shared;\n      foreach index\n        y.at(p, index(0), index(1)) = f0.data.at(0, index);\n    }\n  }\n}\n",
    );
    let text = m.to_string();
    assert!(text.contains("x.chunkat(p, 0, 0)"), "{text}");
    assert!(
        text.contains("foreach {index_0, index_1} in [3, 4] {"),
        "{text}"
    );
    assert!(
        text.contains("y.at(p, index_0, index_1) = f0.data.at(0, index_0, index_1);"),
        "{text}"
    );
    // `with index = {x, y} in …`: the tuple names the user's elements.
    let named = parse(
        "__co__ void k(f32 [3, 4] a) {\n  parallel p by 1 : block {\n    with index = {i, j} in [3, 4] {\n      foreach index\n        a.at(index) = 1.0f;\n    }\n  }\n}\n",
    )
    .to_string();
    assert!(named.contains("foreach {i, j} in [3, 4] {"), "{named}");
    assert!(named.contains("a.at(i, j) = 1.0f;"), "{named}");
}

#[test]
fn parallel_tuples_name_their_level_variables() {
    let m = parse(
        "__co__ void k(f32 [8, 16] a, f32 [8, 16] b) {\n  parallel blk = {bx, by} by [2, 4] : block, t = {tx} by [4] : thread {\n    b.chunkat(blk).at(t, 0) = a.chunkat(blk).at(t, 0);\n  }\n}\n",
    );
    let text = m.to_string();
    assert!(
        text.contains("parallel {bx, by} by [2, 4] : block, {tx} by [4] : thread {"),
        "{text}"
    );
    assert!(text.contains("b.chunkat(bx, by).at(tx, 0)"), "{text}");
}

#[test]
fn element_names_never_capture_a_user_name() {
    // The user already has `ix_0`: the elements take the next free names.
    let m = parse(
        "__co__ void k(f32 [4, 4] a, int ix_0) {\n  parallel p by 1 : block {\n    foreach ix in [4, 4]\n      a.at(ix) = ix_0;\n  }\n}\n",
    );
    let text = m.to_string();
    assert!(
        text.contains("foreach {ix__0, ix__1} in [4, 4] {"),
        "{text}"
    );
    assert!(text.contains("a.at(ix__0, ix__1) = ix_0;"), "{text}");
    // Nested tuples of one name get distinct elements.
    let nested = parse(
        "__co__ void k(f32 [4, 4] a) {\n  parallel p by 1 : block {\n    foreach ix in [2, 2]\n      foreach ix in [2, 2]\n        a.at(ix) = 1.0f;\n  }\n}\n",
    )
    .to_string();
    assert!(
        nested.contains("foreach {ix__0, ix__1} in [2, 2]"),
        "{nested}"
    );
    assert!(nested.contains("a.at(ix__0, ix__1)"), "{nested}");
}

#[test]
fn a_parallel_variable_with_several_bounds_is_an_error() {
    let d = first_error(
        "__co__ void k(f32 [8, 4, 2] a) {\n  parallel q by [2, 4, 2] : thread {\n    a.at(0, 0, 0) = 1.0f;\n  }\n}\n",
    );
    assert_eq!(d.code, "E1680", "{d}");
    assert_eq!(
        d.message, "the parallel variable `q` is given 3 bounds",
        "{d}"
    );
    assert_eq!((d.span.start.line, d.span.start.col), (2, 11), "{d}");
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.contains("q = {q0, q1, q2}")),
        "{d}"
    );
    // Two variables over one extent stay the count error.
    let d = first_error(
        "__co__ void k(f32 [8] a) {\n  parallel {i, j} by [8] : thread {\n    a.at(i) = 1.0f;\n  }\n}\n",
    );
    assert_eq!(d.code, "E0020", "{d}");
}

#[test]
fn a_tuple_used_as_one_value_is_an_error() {
    for (body, what) in [
        (
            "a.at(0, 0) = ix;",
            "`ix` is an i-tuple of 2 indices, used here as one value",
        ),
        (
            "a.at(ix + 1) = 1.0f;",
            "`ix` is an i-tuple of 2 indices, used here as one value",
        ),
        (
            "a.at(ix(2), 0) = 1.0f;",
            "`ix(d)` takes an element index from 0 to 1",
        ),
    ] {
        let src = format!(
            "__co__ void k(f32 [4, 4] a) {{\n  parallel p by 1 : block {{\n    foreach ix in [4, 4]\n      {body}\n  }}\n}}\n"
        );
        let d = first_error(&src);
        assert_eq!(d.code, "E1681", "{body}: {d}");
        assert!(d.message.starts_with(what), "{body}: {d}");
        assert_eq!(d.span.start.line, 4, "{d}");
    }
}
