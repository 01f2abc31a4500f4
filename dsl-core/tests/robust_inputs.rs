//! Inputs that once crashed or misled the front end, each kept as a regression test: the
//! result must be a parse, or diagnostics with codes and positions — never a panic.

use dsl_core::check::check;
use dsl_core::parse::{parse_str, parse_tokens};
use proc_macro2::TokenStream;

/// A SIMT kernel with `HEADER` spliced in before it.
fn simt_kernel(header: &str) -> String {
    format!(
        "{header}
tunable TILE in [16, 32] = 16;
const AREA = TILE * TILE + 1 - 1;
__co__ void matmul(global f32 [M, K] lhs, global f32 [N, K] rhs, global f32 [M, N] output) {{
  parallel {{bm, bn}} by [cdiv(M, TILE), cdiv(N, TILE)] : block,
           {{tm, tn}} by [TILE, TILE] : thread {{
    f32 acc = 0.0f;
    foreach {{k}} in [K]
      acc += lhs.at(bm # tm, k) * rhs.at(bn # tn, k);
    output.at(bm # tm, bn # tn) = acc;
  }}
}}
"
    )
}

#[test]
fn bare_persistent_header_then_binary_expressions() {
    // `persistent;` creates an expression (the switch `1`) of its own; the binary expressions
    // after it (`TILE * TILE + 1 - 1`) must still parse.
    for header in [
        "persistent;",
        "persistent;\npersistent;",
        "persistent 1 + 0;",
    ] {
        let text = simt_kernel(header);
        let parsed = parse_str(&text, Some("p.co")).unwrap_or_else(|d| panic!("{header}: {d}"));
        assert!(parsed.module.persistent.is_some());
        let ts: TokenStream = text.parse().expect("lexes");
        parse_tokens(ts).unwrap_or_else(|d| panic!("macro path, {header}: {d}"));
    }
}

#[test]
fn bare_persistent_before_a_deep_chain() {
    // The height table that bounds operator chains must stay aligned with the expressions.
    let text = simt_kernel(&format!(
        "persistent;\nconst LONG = 1{};",
        " + 1".repeat(300)
    ));
    let d = parse_str(&text, None).expect_err("chain too tall");
    assert!(d.iter().any(|d| d.code == "E0021"), "{d}");
}

#[test]
fn bare_persistent_checks_like_a_switch_of_one() {
    let text = simt_kernel("persistent;");
    let m = parse_str(&text, None).expect("parses").module;
    // Whatever the checker says of a persistent SIMT kernel, it says it with diagnostics.
    let _ = check(&m);
}
