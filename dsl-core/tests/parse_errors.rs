//! Malformed inputs: each must yield the expected diagnostic code at the right line/column,
//! with a message and a help; recoverable errors must all be reported in one run.

use dsl_core::Diagnostic;
use dsl_core::parse::{parse_str, parse_tokens};

/// 1-based line and 0-based column of the first occurrence of `needle` in `src`.
fn at(src: &str, needle: &str) -> (u32, u32) {
    let off = src
        .find(needle)
        .unwrap_or_else(|| panic!("needle {needle:?} not in source"));
    let before = &src[..off];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() as u32;
    (line, col)
}

fn errors(src: &str) -> Vec<Diagnostic> {
    match parse_str(src, Some("case.co")) {
        Ok(p) => panic!("expected an error, parsed:\n{}", p.module),
        Err(d) => d.0,
    }
}

/// Asserts that the first diagnostic has `code` and starts at `pos`, and carries a help.
#[track_caller]
fn expect_first(src: &str, code: &str, pos: (u32, u32)) -> Diagnostic {
    let ds = errors(src);
    let d = ds[0].clone();
    let all: Vec<String> = ds.iter().map(|d| d.to_string()).collect();
    assert_eq!(d.code, code, "wrong code; diagnostics:\n{}", all.join("\n"));
    assert_eq!(
        (d.span.start.line, d.span.start.col),
        pos,
        "wrong position; diagnostics:\n{}",
        all.join("\n")
    );
    assert!(d.help.is_some(), "no help in {d}");
    assert!(!d.message.is_empty());
    d
}

/// A kernel around `body` (the body starts on line 3).
fn kernel(body: &str) -> String {
    format!(
        "__co__ void k(global f16 [M, K] a, global f16 [M, K] b) {{\n  parallel {{i}} by [M] : block {{\n{body}\n  }}\n}}\n"
    )
}

#[test]
fn missing_semicolon_points_after_the_statement() {
    let src = kernel("    f16 acc = 0.0f\n    foreach {k} in [K] acc += a.at(i, k);");
    let d = expect_first(&src, "E0004", (3, 18));
    assert!(d.message.contains("found `foreach`"), "{d}");
    // A `;` missing before more tokens on the same line points at them.
    let src = kernel("    x = 1 y = 2;");
    expect_first(&src, "E0004", at(&src, "y = 2"));
}

#[test]
fn bad_parallel_level() {
    let src = "__co__ void k(global f16 [M] a) {\n  parallel {i} by [M] : group-3 { x = i; }\n}\n";
    let d = expect_first(src, "E0006", at(src, "group-3"));
    assert!(d.message.contains("group-3"));
    assert!(d.help.unwrap().contains("group-4"));
    let src = "__co__ void k(global f16 [M] a) {\n  parallel {i} by [M] : warp { }\n}\n";
    let d = expect_first(src, "E0006", at(src, "warp"));
    assert!(d.message.contains("`warp`"));
}

#[test]
fn parallel_levels_need_commas() {
    let src = kernel("    parallel {t} by [4] : group {u} by [32] : thread { x = t; }");
    let d = expect_first(&src, "E0003", at(&src, " {u}"));
    assert!(d.message.contains("`,` between parallel levels"));
    let src = kernel("    parallel w by 4 : group-4 t by 128 : thread { x = w; }");
    expect_first(&src, "E0003", at(&src, " t by"));
}

#[test]
fn statements_have_no_value() {
    let src = kernel("    x = sync.shared;");
    let d = expect_first(&src, "E0017", at(&src, "sync"));
    assert!(d.message.contains("`sync.…` is a statement"));
}

#[test]
fn unknown_method_suggests_the_nearest() {
    let src = kernel("    y = a.chunk_at(i, _);");
    let d = expect_first(&src, "E0007", at(&src, "chunk_at"));
    assert!(d.help.unwrap().contains("did you mean `chunkat`?"));
}

#[test]
fn unknown_field() {
    let src = kernel("    y = a.dat;");
    let d = expect_first(&src, "E0008", at(&src, "dat;"));
    assert!(d.help.unwrap().contains("`.data`"));
}

#[test]
fn foreach_without_in() {
    let src = kernel("    foreach {k} [K] { z = k; }");
    let d = expect_first(&src, "E0003", at(&src, "[K]"));
    assert!(
        d.message.contains("`in`") && d.message.contains("found `[`"),
        "{d}"
    );
}

#[test]
fn unbalanced_delimiters_in_file_mode() {
    // `(` closed by `}`: points at the `}` with a note at the `(`.
    let src = kernel("    x = a.at(i, 0;");
    let d = expect_first(&src, "E0002", (4, 2));
    assert_eq!(d.notes.len(), 1);
    assert_eq!(
        (d.notes[0].0.start.line, d.notes[0].0.start.col),
        at(&src, "(i, 0;")
    );
    // A `{` never closed points at the `{`.
    let src = "__co__ void k(global f16 [M] a) {\n  x = 1;\n";
    expect_first(src, "E0002", at(src, "{"));
    // A stray `)`.
    let src = "tunable A in [1] = 1;)\n";
    let d = expect_first(src, "E0002", at(src, ")"));
    assert!(d.message.contains("unexpected closing delimiter"));
}

#[test]
fn unknown_statement_keyword() {
    let src = kernel("    forech {k} in [K] { z = k; }");
    let d = expect_first(&src, "E0005", at(&src, "forech"));
    assert!(d.help.unwrap().contains("`foreach`"));
    let src = kernel("    dma.cpy a => b;");
    let d = expect_first(&src, "E0005", at(&src, "cpy"));
    assert!(d.help.unwrap().contains("`dma.copy`"));
}

#[test]
fn bad_tunable_domains() {
    let cases = [
        ("tunable A in [] = 1;\n", "[]"),
        ("tunable A in 10..=5 = 7;\n", "10..=5"),
        ("tunable A in 1..=9 step 0 = 1;\n", "1..=9"),
        ("tunable A = 4;\n", "= 4"),
        ("tunable A in [1, B] = 1;\n", "B]"),
        ("tunable A in 1..=100000 = 1;\n", "1..="),
    ];
    for (header, needle) in cases {
        let src = format!("{header}__co__ void k(global f16 [M] a) {{ }}\n");
        expect_first(&src, "E0010", at(&src, needle));
    }
}

#[test]
fn tunable_default_must_be_a_literal() {
    let src = "tunable A in [1, 2] = B;\n__co__ void k(global f16 [M] a) { }\n";
    let d = expect_first(src, "E0011", at(src, "B;"));
    assert!(d.help.unwrap().contains("= 1"));
}

#[test]
fn copies_need_an_arrow() {
    let src = kernel("    tma.copy a.at(i, 0) b;");
    let d = expect_first(&src, "E0015", at(&src, "b;"));
    assert!(d.message.contains("`=>`"));
    let src = kernel("    dma.copy a => global;");
    expect_first(&src, "E0015", at(&src, "global;"));
    let src = kernel("    tma.load.async a => b;");
    expect_first(&src, "E0015", at(&src, "async"));
}

#[test]
fn unknown_dtype_and_missing_space() {
    let src = "__co__ void k(global f17 [M] a) { }\n";
    let d = expect_first(src, "E0013", at(src, "f17"));
    assert!(d.help.unwrap().contains("`f16`"));
    let src = "__co__ void k(42 [M] a) { }\n";
    expect_first(src, "E0014", at(src, "42"));
    let src = kernel("    event e;");
    expect_first(&src, "E0014", at(&src, "event"));
}

#[test]
fn functions_are_checked() {
    let src = kernel("    x = foo(1, 2);");
    expect_first(&src, "E0009", at(&src, "foo"));
    let src = kernel("    x = cdiv(M);");
    let d = expect_first(&src, "E0009", at(&src, "cdiv"));
    assert!(d.message.contains("2 arguments"));
}

#[test]
fn mma_statements() {
    let src = kernel("    mma.fill.f16 0.0f;");
    expect_first(&src, "E0016", at(&src, "fill"));
    let src = kernel("    mc = mma.store x, y;");
    expect_first(&src, "E0016", at(&src, "store"));
    let src = kernel("    mma.row.diag mc, ma, mb;");
    expect_first(&src, "E0016", at(&src, "diag"));
    // `mma.store` stores an accumulator or a view of one, not an array element.
    let src = kernel("    mma.store mc[0].chunkat(_, h), o;");
    let d = expect_first(&src, "E0016", at(&src, "mc[0]"));
    assert!(d.message.contains("view of its columns"), "{d}");
    let src = kernel("    mma.store , o;");
    expect_first(&src, "E0003", at(&src, ", o"));
}

#[test]
fn modifiers() {
    let src = kernel("    ma = mma.load.swiz<128>.swiz<64> a;");
    let d = expect_first(&src, "E0022", at(&src, "swiz<64>"));
    assert!(d.message.contains("twice"));
    let src = kernel("    dma.copy.swizzle<4> a => b;");
    expect_first(&src, "E0022", at(&src, "swizzle"));
    let src = kernel("    inthreads.sync (i == 0) { }");
    expect_first(&src, "E0022", at(&src, "sync"));
}

#[test]
fn assignment_targets() {
    let src = kernel("    a.subspan(4, 4) = b;");
    expect_first(&src, "E0017", at(&src, "a.subspan"));
}

#[test]
fn kernel_errors() {
    let src = "tunable A in [1] = 1;\n";
    let d = expect_first(src, "E0018", (1, 21));
    assert!(d.message.contains("no `__co__` kernel"));
    let src = "__co__ void k(global f16 [M] a) { }\nx = 1;\n";
    expect_first(src, "E0018", (2, 0));
    let src = "void k(global f16 [M] a) { }\n";
    expect_first(src, "E0018", (1, 0));
    let src = "__co__ 42 k(global f16 [M] a) { }\n";
    expect_first(src, "E0018", at(src, "42"));
}

#[test]
fn header_errors() {
    let src = "#pragma once\ntunable T in [1] = 1;\n#foo\n__co__ void k(global f16 [M] a) { }\n";
    let d = expect_first(src, "E0019", (3, 0));
    assert!(d.message.contains("#foo"));
    let src = "const A = 1;\n__co__ void k(global f16 [M] a) { }\nconst B = 2;\n";
    expect_first(src, "E0019", (3, 0));
}

#[test]
fn count_mismatch() {
    let src = kernel("    foreach {k, l} in [K] { }");
    let d = expect_first(&src, "E0020", at(&src, "k, l"));
    assert_eq!(d.message, "2 variables but 1 extent");
}

#[test]
fn bad_literals() {
    let src = kernel("    x = 2f;");
    let d = expect_first(&src, "E0012", at(&src, "2f"));
    assert!(d.help.unwrap().contains("2.0f"));
    let src = kernel("    x = 99999999999999999999;");
    expect_first(&src, "E0012", at(&src, "999"));
}

#[test]
fn lexer_errors() {
    let src = kernel("    x = 2 × 3;");
    let d = expect_first(&src, "E0001", at(&src, "×"));
    assert!(d.message.contains('×'));
    let src = kernel("    /* never closed");
    expect_first(&src, "E0001", at(&src, "/*"));
}

#[test]
fn nesting_limit() {
    let deep = format!("    x = {}1{};", "(".repeat(300), ")".repeat(300));
    let src = kernel(&deep);
    let ds = errors(&src);
    assert_eq!(ds.iter().filter(|d| d.code == "E0021").count(), 1, "{ds:?}");
}

#[test]
fn several_errors_in_one_run() {
    let src = kernel(
        "    y = a.chunk_at(i, _);\n    foreach {k} [K] { z = k; }\n    forech {k} in [K] { z = k; }\n    tma.copy a b;\n    w = foo(1, 2);\n    f16 acc = 0.0f\n    acc += 1;",
    );
    let ds = errors(&src);
    let codes: Vec<&str> = ds.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        ["E0007", "E0003", "E0005", "E0015", "E0009", "E0004"],
        "{ds:#?}"
    );
    let lines: Vec<u32> = ds.iter().map(|d| d.span.start.line).collect();
    assert_eq!(lines, [3, 4, 5, 6, 7, 8]);
}

#[test]
fn head_errors_still_check_the_body() {
    let src = kernel("    parallel {t} by [4] : group-3 {\n      x = a.chunk_at(t, _);\n    }");
    let codes: Vec<&str> = errors(&src).iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0006", "E0007"]);
}

#[test]
fn file_mode_spans_carry_file_positions() {
    let src = "// a comment line\n\n/* block\n   comment */ tunable A in [1, 2] = 1;\n__co__ void k(global f16 [M] a) {\n      x = a.at(0) +;\n}\n";
    let ds = errors(src);
    assert_eq!(ds.len(), 1, "{ds:?}");
    let d = &ds[0];
    assert_eq!((d.span.start.line, d.span.start.col), (6, 19));
    assert!(
        d.to_string()
            .starts_with("6:20: [E0003] expected an expression, found `;`"),
        "{d}"
    );
    // The parsed module's spans also use the file's positions.
    let ok = "// x\n\ntunable A in [1, 2] = 1;\n__co__ void k(global f16 [M] a) { }\n";
    let p = parse_str(ok, Some("f.co")).expect("parses");
    let t = &p.module.tunables[0];
    assert_eq!((t.name.span.start.line, t.name.span.start.col), (3, 8));
    assert_eq!(
        (t.default_span.start.line, t.default_span.start.col),
        (3, 22)
    );
    assert_eq!(p.module.source.file.as_deref(), Some("f.co"));
}

#[test]
fn macro_mode_errors_map_to_token_spans() {
    let src = kernel("    x = a.at(i, 0)\n    y = a.chunk_at(i);");
    let ts: proc_macro2::TokenStream = src.parse().unwrap();
    let ds = match parse_tokens(ts) {
        Err(d) => d.0,
        Ok(_) => panic!("expected errors"),
    };
    assert_eq!(
        ds.iter().map(|d| d.code).collect::<Vec<_>>(),
        ["E0004", "E0007"]
    );
    // Every span's tokens are real tokens of the stream, and `token_spans` (what the macro
    // uses when parsing fails) indexes them: the table entry starts where the diagnostic does.
    let ts: proc_macro2::TokenStream = src.parse().unwrap();
    let n = count_tokens(ts.clone());
    let table = dsl_core::parse::token_spans(ts);
    assert_eq!(table.spans.len(), n);
    for d in &ds {
        assert!(
            d.span.first_token <= d.span.last_token && (d.span.last_token as usize) < n,
            "{d:?}"
        );
    }
    let method = table
        .get(ds[1].span.first_token)
        .expect("a real token")
        .start();
    assert_eq!(
        (method.line as u32, method.column as u32),
        (ds[1].span.start.line, ds[1].span.start.col)
    );
    // The missing `;` points at the end of the token before it.
    let before = table
        .get(ds[0].span.first_token)
        .expect("a real token")
        .end();
    assert_eq!(
        (before.line as u32, before.column as u32),
        (ds[0].span.start.line, ds[0].span.start.col)
    );
    assert!(table.get(u32::MAX).is_none());
}

/// Tokens as the parser counts them: delimiters are two tokens, `None` groups none.
fn count_tokens(ts: proc_macro2::TokenStream) -> usize {
    ts.into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 2 + count_tokens(g.stream()),
            _ => 1,
        })
        .sum()
}

#[test]
fn none_delimited_groups_are_transparent() {
    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
    // What a `macro_rules!` `$e:expr` fragment looks like to a proc macro: `x = ⟦M + 1⟧;`.
    let fragment = TokenTree::Group(Group::new(Delimiter::None, "M + 1".parse().unwrap()));
    let body: TokenStream = "x ="
        .parse::<TokenStream>()
        .unwrap()
        .into_iter()
        .chain([fragment])
        .chain(";".parse::<TokenStream>().unwrap())
        .collect();
    let head: TokenStream = "__co__ void k(global f16 [M] a)".parse().unwrap();
    let ts: TokenStream = head
        .into_iter()
        .chain([TokenTree::Group(Group::new(Delimiter::Brace, body))])
        .collect();
    let p = parse_tokens(ts).expect("parses");
    assert!(
        p.module.to_string().contains("let x = M + 1;"),
        "{}",
        p.module
    );
}

#[test]
fn doc_comments_are_ignored() {
    let src = "/// The block size.\ntunable A in [1, 2] = 1;\n__co__ void k(global f16 [M] a) {\n  //! inner\n  x = A;\n}\n";
    let p = parse_str(src, None).expect("parses");
    assert_eq!(p.module.tunables.len(), 1);
}

/// Croqtile's heterogeneous launches (`: device(cpu)`) are recognised and not supported yet,
/// with their own code, rather than an unknown level.
#[test]
fn a_device_level_is_not_supported_yet() {
    for level in ["device(cpu)", "device(gpu)", "device"] {
        let src = format!(
            "__co__ void k(f32 [8] a) {{\n  parallel.async by 1 : {level} {{\n    a.at(0) = 1.0f;\n  }}\n}}\n"
        );
        let d = expect_first(&src, "E1688", at(&src, level));
        assert_eq!(
            d.message,
            format!("not supported yet: a `: {level}` level (a launch on a chosen device)")
        );
    }
}
