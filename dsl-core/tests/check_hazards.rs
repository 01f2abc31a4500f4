//! Static hazards (`E12xx`, `W12xx`): each class is found in a wrong kernel, with the span on
//! the token at fault, and none is found in the repository's kernels under any legal
//! configuration.

mod kernel_files;

use dsl_core::check::{Config, Limits, Problem, check, check_config, codes as c};
use dsl_core::ir::Module;
use dsl_core::span::LineCol;
use dsl_core::{Diagnostic, Diagnostics};
use kernel_files::{kernel_file, parse};

/// Every `kernels/*.co` file name without the extension.
fn kernel_names() -> Vec<String> {
    let dir = format!("{}/../kernels", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<String> = std::fs::read_dir(&dir)
        .expect("kernels/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Up to `max` configurations: the cross product of the tunables' domains.
fn configs(m: &Module, max: usize) -> Vec<Config> {
    let mut out = vec![Config::defaults(m)];
    let mut all = vec![Config::defaults(m)];
    for t in &m.tunables {
        let mut next = Vec::new();
        for c in &all {
            for &v in &t.domain {
                next.push(c.clone().with(&t.name.name, v));
                if next.len() > max {
                    break;
                }
            }
        }
        all = next;
    }
    out.extend(all);
    out
}

fn is_hazard(code: &str) -> bool {
    code.starts_with("E12") || code.starts_with("W12")
}

#[test]
fn repository_kernels_have_no_hazards_in_any_legal_configuration() {
    for name in kernel_names() {
        // The launch form, as `tessel` and the macro check it.
        let m = dsl_core::lower::launch_form(parse(&kernel_file(&name)));
        let info = check(&m).unwrap_or_else(|d| panic!("{name}:\n{d}"));
        assert!(info.warnings.is_empty(), "{name}: {:?}", info.warnings);
        for cfg in configs(&m, 120) {
            for p in [
                None,
                Some(
                    Problem::default()
                        .with("M", 4096)
                        .with("N", 4096)
                        .with("K", 4096),
                ),
            ] {
                match check_config(&m, &cfg, p.as_ref(), &Limits::SM90) {
                    Ok(info) => assert!(
                        info.warnings.is_empty(),
                        "{name} {cfg:?}: {:?}",
                        info.warnings
                    ),
                    Err(d) => assert!(
                        !d.iter().all(|d| is_hazard(d.code)),
                        "{name} {cfg:?}: only hazards reject this configuration:\n{d}"
                    ),
                }
            }
        }
    }
}

/// `text` with `from` replaced by `to` (which must occur).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in the kernel");
    text.replacen(from, to, 1)
}

/// The single error of `text` under the defaults: its code, and the source it spans.
fn one_error(text: &str) -> (Diagnostic, String) {
    let m = parse(text);
    let d = check(&m).expect_err("the checker must reject it");
    assert_eq!(d.len(), 1, "one error expected:\n{d}");
    let e = d.0[0].clone();
    (e.clone(), spanned(text, &e))
}

/// The source text a diagnostic's span covers (single-line spans).
fn spanned(text: &str, d: &Diagnostic) -> String {
    let LineCol { line, col } = d.span.start;
    let l = text.lines().nth(line as usize - 1).expect("span line");
    let end = if d.span.end.line == line {
        d.span.end.col as usize
    } else {
        l.chars().count()
    };
    l.chars()
        .skip(col as usize)
        .take(end - col as usize)
        .collect()
}

fn warnings(text: &str) -> Vec<Diagnostic> {
    check(&parse(text))
        .unwrap_or_else(|d| panic!("accepted with warnings expected:\n{d}"))
        .warnings
}

fn codes(d: &[Diagnostic]) -> Vec<&str> {
    d.iter().map(|d| d.code).collect()
}

#[test]
fn a_thread_tile_that_does_not_divide_the_block_tile() {
    // 100 rows per block in threads of 8 rows: 100 / 8 = 12 threads cover 96 rows.
    let text = edit(
        &kernel_file("sgemm_k5_2d_tiling"),
        "require BM % TM == 0 && BN % TN == 0;",
        "",
    );
    let text = edit(
        &text,
        "tunable BM in [64, 128] = 128;",
        "tunable BM in [64, 100] = 100;",
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::TILE_COVER, "{e}");
    assert_eq!(at, "BM / TM");
    assert!(
        e.message.contains("BM = 100") && e.message.contains("TM = 8"),
        "{e}"
    );
    assert!(
        e.help
            .as_deref()
            .unwrap_or("")
            .contains("require BM % TM == 0"),
        "{e}"
    );
    // The tuner's filter sees it per configuration: BM = 64 is fine.
    let m = parse(&text);
    let cfg = Config::defaults(&m).with("BM", 64);
    check_config(&m, &cfg, None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn a_shared_tile_read_but_never_written() {
    let text = edit(
        &kernel_file("v1_shared"),
        "      dma.copy rhs.subspan(TILE_N, TILE_K)\n        .at(block_n, iv_k) => rhs_s;\n",
        "",
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::UNINIT_READ, "{e}");
    assert_eq!(at, "rhs_s");
    assert!(e.message.contains("nothing ever writes it"), "{e}");
    // The parameter it came from is no longer used: said, not dropped in silence.
    let m = parse(&edit(
        &text,
        "acc += lhs_s.at(thr_m, ik) * rhs_s.at(thr_n, ik);",
        "acc += lhs_s.at(thr_m, ik);",
    ));
    let w = check(&m).unwrap_or_else(|d| panic!("{d}")).warnings;
    assert_eq!(codes(&w), vec![c::UNUSED_PARAM], "{w:?}");
    assert!(w[0].message.contains("`rhs`"), "{w:?}");
}

#[test]
fn a_tile_read_before_it_is_written() {
    // The register tile is accumulated into before the loop that zeroes it.
    let text = kernel_file("sgemm_k5_2d_tiling");
    let init = "  foreach {i, j} in [TM, TN] : unroll\n      acc.at(i, j) = 0.0f;\n";
    let text = edit(&text, init, "");
    let text = edit(
        &text,
        "    foreach {i, j} in [TM, TN] : unroll\n      c.at(bm#tr#i, bn#tc#j) = acc.at(i, j);",
        &format!(
            "  {init}    foreach {{i, j}} in [TM, TN] : unroll\n      c.at(bm#tr#i, bn#tc#j) = acc.at(i, j);"
        ),
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::UNINIT_READ, "{e}");
    assert_eq!(at, "acc");
    assert!(e.message.contains("before anything writes it"), "{e}");
    assert_eq!(e.notes.len(), 1, "{e}");
}

#[test]
fn non_positive_loop_extents() {
    for (to, shown) in [("[TILE_K - 128]", "TILE_K - 128 = 0"), ("[-1]", "-1")] {
        let text = edit(&kernel_file("v1_shared"), "[TILE_K]", to);
        let (e, at) = one_error(&text);
        assert_eq!(e.code, c::NON_POSITIVE_EXTENT, "{e}");
        assert_eq!(at, &to[1..to.len() - 1]);
        assert!(e.message.contains(shown), "{e}");
    }
}

#[test]
fn division_by_zero_in_kernel_expressions() {
    // The dividend is a problem size with no value yet: the zero divisor is still found.
    let text = edit(
        &kernel_file("v1_shared"),
        "[cdiv(K, TILE_K)]",
        "[cdiv(K, 0)]",
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::DIV_ZERO, "{e}");
    assert_eq!(at, "0");
    // Symbolic: a divisor that is zero under this configuration only.
    let text = edit(
        &kernel_file("v1_shared"),
        "[cdiv(K, TILE_K)]",
        "[K / (TILE_K - 128)]",
    );
    let (e, at) = one_error(&text);
    assert_eq!((e.code, at.as_str()), (c::DIV_ZERO, "TILE_K - 128"), "{e}");
    let m = parse(&text);
    let ok = Config::defaults(&m).with("TILE_K", 64);
    check_config(&m, &ok, None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn overflow_is_a_diagnostic_not_a_wrap() {
    // At compile time.
    let text = edit(
        &kernel_file("v1_shared"),
        "    f16 acc = 0.0f;",
        "    f16 acc = 0.0f;\n    big = TILE_K * 9223372036854775807;",
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::OVERFLOW, "{e}");
    assert_eq!(at, "TILE_K * 9223372036854775807");
    // At launch, with a problem size near the top of i64.
    let text = edit(
        &kernel_file("v1_shared"),
        "[cdiv(K, TILE_K)]",
        "[cdiv(K + TILE_K, TILE_K)]",
    );
    let m = parse(&text);
    check(&m).unwrap_or_else(|d| panic!("{d}"));
    let p = Problem::default()
        .with("M", 64)
        .with("N", 64)
        .with("K", i64::MAX - 8);
    let d = check_config(&m, &Config::defaults(&m), Some(&p), &Limits::SM90).unwrap_err();
    assert_eq!(
        d.0.iter().map(|d| d.code).collect::<Vec<_>>(),
        vec![c::OVERFLOW],
        "{d}"
    );
    assert!(d.0[0].message.contains("K + TILE_K"), "{d}");
    // Shifts that lose bits overflow too.
    let text = edit(
        &kernel_file("v1_shared"),
        "    f16 acc = 0.0f;",
        "    f16 acc = 0.0f;\n    big = 3 << 62;",
    );
    assert_eq!(one_error(&text).0.code, c::OVERFLOW);
}

/// v3 (producer/consumer ring) with an edit.
fn v3(from: &str, to: &str) -> String {
    edit(&kernel_file("v3_warpspec"), from, to)
}

#[test]
fn a_consumer_that_never_grants_the_initial_credits_deadlocks() {
    let text = v3(
        "        foreach {s} in [STAGES]\n          trigger empty[s];\n",
        "",
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::RING_DEADLOCK, "{e}");
    assert_eq!(at, "wait empty[stage];");
    assert!(
        e.help.as_deref().unwrap_or("").contains("initial credits"),
        "{e}"
    );
    assert!(e.notes.iter().any(|(_, n)| n.contains("full[0]")), "{e}");
    // With two stages too (the tuner's configurations).
    let m = parse(&text);
    let d = check_config(
        &m,
        &Config::defaults(&m).with("STAGES", 2),
        None,
        &Limits::SM90,
    )
    .unwrap_err();
    assert_eq!(d.0[0].code, c::RING_DEADLOCK, "{d}");
}

#[test]
fn credits_granted_too_late_deadlock() {
    // The consumer grants its credits only after its loop: by order, no credit comes first.
    let credits = "        foreach {s} in [STAGES]\n          trigger empty[s];\n";
    let text = v3(credits, "");
    let text = edit(
        &text,
        "        mma.store mc, output_s[cidx];\n",
        &format!("{credits}        mma.store mc, output_s[cidx];\n"),
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::RING_DEADLOCK, "{e}");
    assert_eq!(at, "wait empty[stage];");
}

#[test]
fn a_double_trigger_runs_the_ring_ahead() {
    let text = v3(
        "          mma.commit;\n          trigger empty[stage];\n",
        "          mma.commit;\n          trigger empty[stage];\n          trigger empty[stage];\n",
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::RING_AHEAD, "{e}");
    assert_eq!(at, "trigger empty[stage];");
    assert_eq!(e.span.start.line, 61, "the second trigger: {e}");
    // The producer's side too.
    let text = v3(
        "          trigger full[stage];\n",
        "          trigger full[stage];\n          trigger full[stage];\n",
    );
    assert_eq!(one_error(&text).0.code, c::RING_AHEAD);
}

#[test]
fn arrivals_from_other_threads_than_the_first_trigger() {
    let text = v3(
        "          mma.commit;\n          trigger empty[stage];\n",
        "          mma.commit;\n          inthreads (t == 0) {\n            trigger empty[stage];\n          }\n",
    );
    let (e, at) = one_error(&text);
    assert_eq!(e.code, c::ARRIVALS, "{e}");
    assert_eq!(at, "trigger empty[stage];");
    assert!(
        e.message.contains("1 threads") && e.message.contains("128 arrivals"),
        "{e}"
    );
}

#[test]
fn a_trigger_no_thread_reaches() {
    // Two warpgroups (`wg by 2`): `wg >= 2` selects none, so neither `trigger empty` (the
    // initial credits, the per-stage release) is reached.
    let text = v3("inthreads.async (wg >= 1) {", "inthreads.async (wg >= 2) {");
    let d = check(&parse(&text)).expect_err("the checker must reject it");
    assert_eq!(d.len(), 2, "{d}");
    assert!(d.iter().all(|e| e.code == c::TRIGGER_UNREACHED), "{d}");
    assert_eq!(spanned(&text, &d.0[0]), "trigger empty[s];");
    assert!(d.0[0].message.contains("no thread"), "{d}");
}

/// `trigger e after f1, f2` arrives like `trigger e`: in a branch no thread takes, it is
/// reached by none (the consumers would wait forever).
#[test]
fn a_trigger_after_futures_no_thread_reaches() {
    let text = edit(
        &kernel_file("ws_cluster"),
        "inthreads.async (w == 0) {",
        "inthreads.async (w == 7) {",
    );
    let d = check(&parse(&text)).expect_err("the checker must reject it");
    assert_eq!(d.len(), 1, "{d}");
    assert_eq!(d.0[0].code, c::TRIGGER_UNREACHED, "{d}");
    assert_eq!(spanned(&text, &d.0[0]), "trigger full.at(k) after fa, fb;");
}

#[test]
fn warnings_for_races() {
    // A write into an input that other blocks read.
    let w = warnings(&edit(
        &kernel_file("v1_shared"),
        "    output.at(block_m#thr_m, block_n#thr_n) = acc;",
        "    output.at(block_m#thr_m, block_n#thr_n) = acc;\n    lhs.at(block_m#thr_m, block_n#thr_n) = acc;",
    ));
    assert_eq!(codes(&w), vec![c::GLOBAL_RW], "{w:?}");
    // Every thread along `thr_n` stores the same element.
    let text = edit(
        &kernel_file("v1_shared"),
        "output.at(block_m#thr_m, block_n#thr_n) = acc;",
        "output.at(block_m#thr_m, block_n) = acc;",
    );
    let w = warnings(&text);
    assert_eq!(codes(&w), vec![c::SAME_ELEMENT_STORE], "{w:?}");
    assert_eq!(spanned(&text, &w[0]), "output.at(block_m#thr_m, block_n)");
    assert!(w[0].message.contains("`thr_n`"), "{w:?}");
    // One thread storing it (an `inthreads` on the variable) is fine.
    let text = edit(
        &kernel_file("v1_shared"),
        "    output.at(block_m#thr_m, block_n#thr_n) = acc;",
        "    inthreads (thr_n == 0) {\n      output.at(block_m#thr_m, block_n) = acc;\n    }",
    );
    assert!(warnings(&text).is_empty());
}

#[test]
fn a_block_index_whose_threads_stride_differently_from_the_grid() {
    // 16 threads along M per block, but the grid advances 32 rows per block.
    let text = edit(
        &kernel_file("v1_shared"),
        "{thr_m, thr_n} by [TILE_M, TILE_N]",
        "{thr_m, thr_n} by [16, TILE_N]",
    );
    let w = warnings(&text);
    assert_eq!(codes(&w), vec![c::TILE_STRIDE], "{w:?}");
    assert_eq!(spanned(&text, &w[0]), "block_m#thr_m");
}

#[test]
fn warnings_render_like_errors_with_a_caret() {
    let text = edit(
        &kernel_file("v1_shared"),
        "output.at(block_m#thr_m, block_n#thr_n) = acc;",
        "output.at(block_m#thr_m, block_n) = acc;",
    );
    let w = warnings(&text);
    let out = dsl_core::render::render_capped("v1.co", &text, w.iter(), 10);
    assert!(
        out.starts_with("warning[W1202]: all 32 threads along `thr_n`"),
        "{out}"
    );
    assert!(out.contains("v1.co:26:5"), "{out}");
    assert!(out.contains("^^^^"), "{out}");
}

#[test]
fn hazard_errors_render_with_their_code() {
    let text = v3(
        "        foreach {s} in [STAGES]\n          trigger empty[s];\n",
        "",
    );
    let d: Diagnostics = check(&parse(&text)).unwrap_err();
    let out = dsl_core::render::render("v3.co", &text, &d);
    assert!(out.starts_with("error[E1208]: deadlock"), "{out}");
}

#[test]
fn a_tile_loaded_after_its_use_in_the_same_loop() {
    // The first iteration reads `rhs_s` before the copy at the bottom of the loop fills it.
    let copy = "      dma.copy rhs.subspan(TILE_N, TILE_K)\n        .at(block_n, iv_k) => rhs_s;\n";
    let text = edit(&kernel_file("v1_shared"), copy, "");
    let text = edit(
        &text,
        "        acc += lhs_s.at(thr_m, ik) * rhs_s.at(thr_n, ik);\n",
        &format!("        acc += lhs_s.at(thr_m, ik) * rhs_s.at(thr_n, ik);\n{copy}"),
    );
    let (e, at) = one_error(&text);
    assert_eq!((e.code, at.as_str()), (c::UNINIT_READ, "rhs_s"), "{e}");
    assert!(e.message.contains("before anything writes it"), "{e}");
    // Guarded by `iv_k > 0`, the read sees the previous iteration's tile: accepted.
    let guarded = edit(
        &text,
        "        acc += lhs_s.at(thr_m, ik) * rhs_s.at(thr_n, ik);\n",
        "        if (iv_k > 0) { acc += lhs_s.at(thr_m, ik) * rhs_s.at(thr_n, ik); }\n",
    );
    check(&parse(&guarded)).unwrap_or_else(|d| panic!("{d}"));
}
