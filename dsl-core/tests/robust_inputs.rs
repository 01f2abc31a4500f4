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

#[test]
fn limits_give_coded_errors_before_any_work() {
    // Ten million nested parentheses: refused before the lexer builds a group per pair.
    let deep = simt_kernel("").replace(
        "f32 acc = 0.0f;",
        &format!(
            "f32 acc = {}1{};",
            "(".repeat(5_000_000),
            ")".repeat(5_000_000)
        ),
    );
    let d = parse_str(&deep, None).expect_err("too deep");
    assert_eq!(d.0[0].code, "E0021", "{d}");
    assert_eq!(d.0[0].span.start.line, 7);
    // Too many tokens, and too many bytes.
    let many = simt_kernel(&"const X = 1 + 1;\n".repeat(200_000));
    let d = parse_str(&many, None).expect_err("too many tokens");
    assert_eq!(d.0[0].code, "E0090", "{d}");
    let big = format!("{}{}", " ".repeat(17 << 20), simt_kernel(""));
    let d = parse_str(&big, None).expect_err("too large");
    assert_eq!(d.0[0].code, "E0090", "{d}");
    assert!(d.0[0].message.contains("bytes"), "{d}");
}

#[test]
fn suggestions_for_very_long_names_are_bounded() {
    // Two 40,000-character names one edit apart: no |a|×|b| table (it would take 12.8 GB).
    let name = "n".repeat(40_000);
    let typo = format!("{}m", "n".repeat(39_999));
    let text = simt_kernel(&format!("const {name} = 1;"))
        .replace("acc += lhs", &format!("acc += {typo} * lhs"));
    let m = parse_str(&text, None).expect("parses").module;
    let d = check(&m).expect_err("unknown name");
    assert_eq!(d.0[0].code, "E0101", "{d}");
    assert!(
        !d.0[0]
            .help
            .as_deref()
            .unwrap_or("")
            .contains("did you mean")
    );
}

#[test]
fn many_errors_render_capped() {
    let body: String = (0..2000).map(|i| format!("    acc += zz{i};\n")).collect();
    let text = simt_kernel("").replace(
        "    f32 acc = 0.0f;\n",
        &format!("    f32 acc = 0.0f;\n{body}"),
    );
    let m = parse_str(&text, Some("many.co")).expect("parses").module;
    let d = check(&m).expect_err("unknown names");
    assert_eq!(d.len(), 2000);
    let out = dsl_core::render::render("many.co", &text, &d);
    assert_eq!(
        out.matches("error[E0101]").count(),
        dsl_core::render::MAX_RENDERED
    );
    assert!(
        out.ends_with("… and 1950 more errors (2000 errors, 0 warnings in all)\n"),
        "{}",
        &out[out.len() - 200..]
    );
}

#[test]
fn a_composed_chunk_index_over_a_zero_extent() {
    // `a # b` with `a` ranging over nothing: the chunk count is 0, and the chunk size must not
    // be divided out of it.
    let text = "const WIDE = 65536;
const PARTS = 64 / WIDE;
__co__ void zc(global f32 [M, K] src, global f32 [M, K] dst) {
  parallel {bm} by [cdiv(M, 64)] : block, {t} by [64] : thread {
    shared f32 [64, 64] tile_s;
    foreach {a, b} in [PARTS, 4] {
      tile_s.chunkat(a # b, _).at(0, t) = 1.0f;
    }
  }
}
";
    let parsed = parse_str(text, Some("z.co")).expect("parses");
    let d = check(&parsed.module).expect_err("no chunk size");
    assert!(d.iter().all(|e| !e.code.is_empty()), "{d}");
}

#[test]
fn an_event_generation_takes_one_index() {
    // `e.at()` and `e.at(k, 1)` passed the checker and stopped the lowering (E1199).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/lowered/trigger_compose.co"
    );
    let text = std::fs::read_to_string(path).expect("the kernel");
    assert!(text.contains("wait loaded.at(k);"));
    for (bad, n) in [("wait loaded.at();", 0), ("wait loaded.at(k, 1);", 2)] {
        let src = text.replace("wait loaded.at(k);", bad);
        let parsed = parse_str(&src, Some("t.co")).expect("parses");
        let d = check(&parsed.module).expect_err("one index");
        assert!(
            d.iter()
                .any(|e| e.code == "E0104" && e.message.contains(&format!("found {n}"))),
            "{d}"
        );
    }
}

#[test]
fn division_by_zero_is_an_error_in_a_kernel_the_lowering_does_not_support() {
    // A body-declared global tensor is "not supported yet" (a note); `cdiv(N, 0)` is an error
    // of the program all the same (before, only `emit` said so).
    let text = "__co__ auto twice(f32 [N] x) {
  f32 [x.span] y;
  parallel b by cdiv(N, 0) : block, t by 64 : thread {
    if (b # t < N)
      y.at(b # t) = x.at(b # t) * 2.0f;
  }
}
";
    let m = parse_str(text, Some("z.co")).expect("parses").module;
    let cfg = dsl_core::check::Config::defaults(&m);
    let d = dsl_core::check::check_language(&m, &cfg, None, &dsl_core::check::Limits::SM90)
        .expect_err("division by zero");
    assert!(d.iter().any(|e| e.code == "E1205"), "{d}");
}
