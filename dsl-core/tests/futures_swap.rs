//! Placeholder futures (`f = dma.any;`), `swap(a, b)` of futures, ranged loops over a `with`
//! bound (`foreach k(1:)`) and bounded values (`k(-1)`): parsing, the checks and their errors,
//! and what the lowering emits. Also device `println`/`print`, lowered on the same path.

use dsl_core::check::{self, codes as c};
use dsl_core::diag::Diagnostics;
use dsl_core::ir::{ExtStmt, Module, Stmt};
use dsl_core::lower::launch_form;

fn parse(text: &str) -> Module {
    dsl_core::parse::parse_str(text, None)
        .unwrap_or_else(|d| panic!("does not parse:\n{d}\n{text}"))
        .module
}

fn parse_err(text: &str) -> Diagnostics {
    match dsl_core::parse::parse_str(text, None) {
        Ok(_) => panic!("parses, but should not:\n{text}"),
        Err(d) => d,
    }
}

fn check_err(text: &str) -> Diagnostics {
    match check::check(&launch_form(parse(text))) {
        Ok(_) => panic!("checks, but should not:\n{text}"),
        Err(d) => d,
    }
}

fn has(d: &Diagnostics, code: &str) -> String {
    d.0.iter()
        .find(|x| x.code == code)
        .map(|x| x.message.clone())
        .unwrap_or_else(|| panic!("no {code} in:\n{d}"))
}

/// The C++ lines of the lowered kernel body.
fn lowered(text: &str) -> Vec<String> {
    let m = launch_form(parse(text));
    let info = check::check(&m).unwrap_or_else(|d| panic!("does not check:\n{d}\n{text}"));
    let k = dsl_core::lower::lower(&m, &info).unwrap_or_else(|d| panic!("does not lower:\n{d}"));
    k.body.iter().map(|l| l.op.to_string()).collect::<Vec<_>>()
}

/// A warp-level GEMM over `with kt in cdiv(K, 32)`; `body` goes inside the `with`.
fn kernel(body: &str) -> String {
    format!(
        "__co__ void g(f16 [M, K] a, f16 [N, K] b, f32 [M, N] o) {{
  parallel {{bm, bn}} by [cdiv(M, 32), cdiv(N, 32)] : block, {{w}} by [2] : group {{
    acc = mma.fill 0.0f;
    with kt in cdiv(K, 32) {{
{body}
    }}
    mma.store acc, o.subspan(16, 32).at(bm#w, bn);
  }}
}}
"
    )
}

const STEP: &str = "
        wait x, y;
        ma = mma.load x.chunkat(w, _);
        mb = mma.load y;
        mma.row.row acc, ma, mb;";

fn double_buffered(swap: &str) -> String {
    kernel(&format!(
        "      x = dma.copy.async a.subspan(32, 32).at(bm, 0) => shared;
      y = dma.copy.async b.subspan(32, 32).at(bn, 0) => shared;
      nx = dma.any;
      ny = dma.any;
      foreach kt(1:) {{
        nx = dma.copy.async a.subspan(32, 32).at(bm, kt) => shared;
        ny = dma.copy.async b.subspan(32, 32).at(bn, kt) => shared;
{STEP}
        {swap}
      }}
{STEP}"
    ))
}

#[test]
fn placeholders_swaps_and_ranges_parse() {
    let m = parse(&double_buffered("swap(x, nx); swap y, ny;"));
    let stmts: Vec<&Stmt> = m.stmts.iter().map(|(_, s)| s).collect();
    let anys = stmts
        .iter()
        .filter(|s| matches!(s, Stmt::Ext(ExtStmt::AnyFuture { tma: false, .. })))
        .count();
    let swaps = stmts
        .iter()
        .filter(|s| matches!(s, Stmt::Ext(ExtStmt::Swap { .. })))
        .count();
    assert_eq!((anys, swaps), (2, 2));
    assert_eq!(m.loop_ranges.len(), 1);
    let dump = m.to_string();
    assert!(dump.contains("nx = dma.any;"), "{dump}");
    assert!(dump.contains("swap(x, nx);"), "{dump}");
    assert!(
        dump.contains("foreach {kt} in [cdiv(K, 32)] range kt(1:cdiv(K, 32))"),
        "{dump}"
    );
    // `tma.any` parses too (and is not lowered).
    let t = parse(&kernel("      f = tma.any;\n      swap(f, f);"));
    assert!(t.to_string().contains("f = tma.any;"));
}

#[test]
fn ranges_count_from_the_bound() {
    let m = parse(&kernel(
        "      foreach kt(1:-1) { }\n      foreach kt(:-2) { }\n      x = kt(-1);",
    ));
    let dump = m.to_string();
    assert!(dump.contains("range kt(1:cdiv(K, 32) - 1)"), "{dump}");
    assert!(dump.contains("range kt(0:cdiv(K, 32) - 2)"), "{dump}");
    assert!(dump.contains("x = cdiv(K, 32) - 1;"), "{dump}");
    assert_eq!(m.bounded_values.len(), 1);
}

#[test]
fn a_bounded_value_counts_from_the_start_or_back_from_the_end() {
    let m = parse(&kernel(
        "      x = kt(2);\n      y = kt(-2);\n      z = kt(0);",
    ));
    let dump = m.to_string();
    assert!(dump.contains("x = 2;"), "{dump}");
    assert!(dump.contains("y = cdiv(K, 32) - 2;"), "{dump}");
    assert!(dump.contains("z = 0;"), "{dump}");
    assert_eq!(m.bounded_values.len(), 3);
}

#[test]
fn malformed_ranges_and_values_are_parse_errors() {
    for bad in [
        "      foreach kt(1:2:3) { }",
        "      foreach kt(1) { }",
        "      x = kt(M);",
        "      x = kt(-1 + 1);",
    ] {
        let d = parse_err(&kernel(bad));
        has(&d, "E0047");
    }
    // A range needs a `with` bound: `foreach k(1:) in [4]` and an unbounded name are errors.
    let d = parse_err(&kernel("      foreach j(1:) { }"));
    has(&d, "E0047");
    let d = parse_err(&kernel("      foreach kt(1:) in [4] { }"));
    has(&d, "E0047");
    let d = parse_err(&kernel("      swap(x);"));
    has(&d, "E0032");
}

#[test]
fn swap_names_two_futures() {
    let text = double_buffered("swap(x, acc); swap(y, ny);");
    let d = check_err(&text);
    assert!(has(&d, c::BAD_SWAP).contains("`acc` is not one"));
    let d = check_err(&double_buffered("swap(x, x); swap(y, ny);"));
    assert!(has(&d, c::BAD_SWAP).contains("with itself"));
}

#[test]
fn a_placeholder_nothing_fills_is_an_error() {
    let text = kernel(&format!(
        "      x = dma.copy.async a.subspan(32, 32).at(bm, kt) => shared;
      y = dma.copy.async b.subspan(32, 32).at(bn, kt) => shared;
      z = dma.any;
{STEP}"
    ));
    let d = check_err(&text);
    assert!(has(&d, c::ANY_FUTURE_UNUSED).contains("`z`"));
}

#[test]
fn a_shifted_chunk_index_stays_in_its_extent() {
    // `kt - 1` over the whole bound reaches -1; over `kt(1:)` it does not.
    let step = |range: &str| {
        kernel(&format!(
            "      foreach kt{range} {{
        x = dma.copy.async a.subspan(32, 64).at(bm, 0) => shared;
        y = dma.copy.async b.subspan(32, 32).at(bn, 0) => shared;
        wait x, y;
        ma = mma.load x.chunkat(w, kt - 1);
        mb = mma.load y;
        mma.row.row acc, ma, mb;
      }}"
        ))
        .replace("cdiv(K, 32)", "2")
    };
    let d = check_err(&step(""));
    assert!(has(&d, "E0702").contains("`kt - 1`"));
    let lines = lowered(&step("(1:)"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("for (int kt = 1; kt < 2; ++kt)")),
        "{lines:#?}"
    );
}

#[test]
fn swaps_of_other_futures_are_not_lowered_yet() {
    // Buffers of different shapes cannot trade places.
    let text = kernel(
        "      x = dma.copy.async a.subspan(32, 32).at(bm, 0) => shared;
      y = dma.copy.async b.subspan(32, 32).at(bn, 0) => shared;
      nx = dma.copy.async a.subspan(32, 64).at(bm, 0) => shared;
      wait x, y, nx;
      ma = mma.load x.chunkat(w, _);
      mb = mma.load y;
      mma.row.row acc, ma, mb;
      swap(x, nx);",
    );
    let d = check_err(&text);
    has(&d, c::NOT_LOWERED_SWAP);
    let info = check::check_language(
        &launch_form(parse(&text)),
        &check::Config::defaults(&parse(&text)),
        None,
        &check::Limits::SM90,
    );
    assert!(info.is_ok(), "the language accepts it");
}

#[test]
fn swap_lowers_to_a_pointer_exchange_and_waits_leave_the_next_copies_in_flight() {
    let lines = lowered(&double_buffered("swap(x, nx); swap(y, ny);"));
    let text = lines.join("\n");
    // Each future's buffer pointer is declared once, before the loop, so that a swap inside
    // the loop carries over to the next iteration.
    for f in ["x", "y", "nx", "ny"] {
        let decl = format!("tsl_f16* {f} = reinterpret_cast<tsl_f16*>(tsl_smem + tsl_smem_{f})");
        assert_eq!(text.matches(&decl).count(), 1, "{f}:\n{text}");
    }
    assert!(
        text.contains("{ tsl_f16* const tsl_t = x; x = nx; nx = tsl_t; }"),
        "{text}"
    );
    // In the loop, `wait x, y` after the copies into `nx`, `ny` leaves those two in flight;
    // after the loop every copy is waited for.
    assert!(text.contains("tsl_cp_async_wait<2>()"), "{text}");
    let pos = |p: &str| text.find(p).unwrap_or_else(|| panic!("no {p}:\n{text}"));
    assert!(pos("tsl_cp_async_wait_all()") > pos("tsl_cp_async_wait<2>()"));
    assert!(
        text.contains("for (int kt = 1; kt < tsl_cdiv(K, 32); ++kt)"),
        "{text}"
    );
}

#[test]
fn a_with_name_outside_its_loops_is_its_first_value() {
    let m = parse(&kernel(
        "      x = dma.copy.async a.subspan(32, 32).at(bm, kt) => shared;
      foreach kt(1:) {
        y = dma.copy.async a.subspan(32, 32).at(bm, kt) => shared;
      }",
    ));
    let dump = m.to_string();
    assert!(
        dump.contains("x = dma.copy.async a.subspan(32, 32).at(bm, 0) => shared;"),
        "{dump}"
    );
    assert!(
        dump.contains("y = dma.copy.async a.subspan(32, 32).at(bm, kt) => shared;"),
        "{dump}"
    );
}

#[test]
fn println_lowers_to_device_printf() {
    let lines = lowered(
        "__co__ void show(f32 [N] x, int tag, f32 [N] y) {
  parallel {b} by [cdiv(N, 32)] : block, {t} by [32] : thread {
    println(\"b \", b, \" tag \", tag, \": \", x.at(b#t), \" 5%\");
    print(\"no newline\");
    y.at(b#t) = x.at(b#t);
  }
}
",
    );
    let text = lines.join("\n");
    assert!(
        text.contains(
            "printf(\"b %d tag %d: %f 5%%\\n\", (int)(b), (int)(tag), (double)(tsl_ld_or_zero(x, b * 32 + t, 0, N, 1)));"
        ),
        "{text}"
    );
    assert!(text.contains("printf(\"no newline\");"), "{text}");
    // A whole tensor is not a printable value: not lowered yet.
    let d = check_err(
        "__co__ void show(f32 [N] x, f32 [N] y) {
  parallel {b} by [cdiv(N, 32)] : block, {t} by [32] : thread {
    println(x);
    y.at(b#t) = x.at(b#t);
  }
}
",
    );
    has(&d, c::NOT_LOWERED_STMT);
}

#[test]
fn apply_over_an_accumulator_span_takes_one_dimension_per_variable() {
    let m = parse(
        "__co__ void f(f16 [M, K] a, f16 [N, K] b, f32 [M, N] o) {
  parallel {bm} by [cdiv(M, 64)] : block, {w} by [1] : group-4 {
    acc = mma.fill.f32 0.0f;
    apply {i, j} in acc.span
      acc.at(i, j) = 0.0f;
  }
}
",
    );
    let dump = m.to_string();
    assert!(
        dump.contains("foreach {i, j} in [acc.span(0), acc.span(1)] : unroll"),
        "{dump}"
    );
}

#[test]
fn fragment_copies_and_reductions_check_and_are_gated() {
    let text = "__co__ void f(f32 [64, 64] x, f32 [64] o) {
  parallel {b} by [1] : block, {t} by [64] : thread {
    local f32 [64, 64] s;
    local f32 [64, 64] d;
    local f32 [64] m;
    copy(d, s);
    reduce_max(m, s, 1);
    reduce_sum(m, s, 1);
    o.at(t) = __exp2f(x.at(t, 0));
  }
}
";
    let m = parse(text);
    let dump = m.to_string();
    assert!(dump.contains("copy(d, s);"), "{dump}");
    assert!(dump.contains("reduce_max(m, s, 1);"), "{dump}");
    assert!(dump.contains("__exp2f(x.at(t, 0))"), "{dump}");
    let d = check_err(text);
    assert!(has(&d, c::NOT_LOWERED_STMT).contains("`copy` between fragments"));
    let d = parse_err(&text.replace("reduce_max(m, s, 1)", "reduce_max(m, s)"));
    assert!(has(&d, "E0032").contains("`reduce_max` takes 3 operands"));
}
