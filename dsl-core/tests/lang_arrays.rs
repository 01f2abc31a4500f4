//! Arrays of several dimensions (`shared f32 [32] s[4][2];`, `shared event e[2][3];`): the
//! count is the product and `s[i][j]` the flat element `i * 2 + j`; each index is held
//! within its own dimension (`E0701`); fewer indices than dimensions are not supported yet
//! (`E1687`), more are an error (`E0020`).

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn language(m: &Module) -> Result<dsl_core::Diagnostics, dsl_core::Diagnostics> {
    check::check_language(m, &Config::defaults(m), None, &Limits::SM90).map(|(_, gate)| gate)
}

fn kernel(body: &str) -> String {
    format!(
        "__co__ void k(f32 [2, 8] a) {{\n  parallel p by 3 : block, q by 2 : thread {{\n    local f32 [2, 8] b[2][3];\n{body}\n  }}\n}}\n"
    )
}

#[test]
fn the_count_is_the_product_and_an_element_its_flat_index() {
    let m = parse(&kernel(
        "    shared event e[2][2];\n    dma.copy a => b[q][p];\n    trigger e[q][1];\n    wait e[1][q];",
    ));
    let text = m.to_string();
    for want in [
        "local f32 [2, 8] b[2 * 3];",
        "shared event e[2 * 2];",
        "dma.copy a => b[q * 3 + p];",
        "trigger e[q * 2 + 1];",
        "wait e[1 * 2 + q];",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    assert_eq!(m.array_indices.len(), 3);
}

#[test]
fn each_index_stays_within_its_dimension() {
    // `b[1][-1]` is element 2 of the flat six, but index -1 of the second dimension.
    for (body, msg) in [
        (
            "    dma.copy a => b[1][-1];",
            "dimension 1 of the 2-dimensional tensor array `b` has 3 elements",
        ),
        (
            "    dma.copy b[0][3] => a;",
            "dimension 1 of the 2-dimensional tensor array `b` has 3 elements",
        ),
        // `p` runs over 3 values, the first dimension has 2.
        (
            "    dma.copy a => b[p][q];",
            "dimension 0 of the 2-dimensional tensor array `b` has 2 elements",
        ),
    ] {
        let m = parse(&kernel(body));
        let d = language(&m).expect_err(body);
        assert_eq!(d.0[0].code, "E0701", "{body}: {d}");
        assert!(d.0[0].message.contains(msg), "{body}: {d}");
    }
    language(&parse(&kernel("    dma.copy a => b[q][p];"))).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn an_index_per_dimension() {
    let d = parse_str(&kernel("    dma.copy a => b[1];"), Some("t.co")).expect_err("partial");
    assert_eq!(d.0[0].code, "E1687", "{d}");
    assert_eq!(
        d.0[0].message, "not supported yet: `b` has 2 array dimensions, indexed here with 1",
        "{d}"
    );
    let d =
        parse_str(&kernel("    dma.copy a => b[1][1][0];"), Some("t.co")).expect_err("too many");
    assert_eq!(d.0[0].code, "E0020", "{d}");
}
