//! Shared and local buffers sized at launch (`shared f32 [M] s;` over a problem size, `local
//! f32 [n] l;` over an `int` parameter) are Croqtile's dynamic shared memory and run-time
//! local buffers: legal, not lowered yet (`E1686`, a note for `tessel check`). A dimension
//! over loop, parallel or local variables, or a float, stays an error (`E0502`), as in
//! Croqtile ("the dimension of a span can only be a constant integer").

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn kernel(decl: &str) -> Module {
    parse(&format!(
        "__co__ void k(f32 [M, 8] a, int n) {{\n  parallel p by 2 : block, t by 4 : thread {{\n    {decl}\n    s.at(0) = a.at(p, t);\n  }}\n}}\n"
    ))
}

#[test]
fn buffers_sized_at_launch_are_noted_not_rejected() {
    for decl in [
        "shared f32 [M] s;",
        "local f32 [n * 2] s;",
        "shared f32 [M / 2 + n] s;",
    ] {
        let m = kernel(decl);
        let (_, notes) = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
            .unwrap_or_else(|d| panic!("{decl}: {d}"));
        let n: Vec<_> = notes.0.iter().filter(|d| d.code == "E1686").collect();
        assert_eq!(n.len(), 1, "{decl}: {notes}");
        assert!(
            n[0].message
                .starts_with("not supported yet: a shared or local buffer sized at launch"),
            "{}",
            n[0]
        );
        let err =
            check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90).expect_err(decl);
        assert!(err.0.iter().any(|d| d.code == "E1686"), "{decl}: {err}");
    }
}

#[test]
fn dimensions_over_variables_are_errors() {
    for decl in [
        "shared f32 [t + 1] s;",
        "shared f32 [p] s;",
        "int w = n;\n    shared f32 [w] s;",
    ] {
        let m = kernel(decl);
        let d = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
            .map(|_| ())
            .expect_err(decl);
        assert!(d.0.iter().any(|x| x.code == "E0502"), "{decl}: {d}");
    }
}
