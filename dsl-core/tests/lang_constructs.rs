//! Today's Croqtile beside the core dialect: each construct parses, resolves, checks and dumps
//! (`tests/lang/*.co` → `tests/lang/*.ir`, refreshed with `TESSEL_BLESS=1`); what no lowering
//! handles yet passes `check_language` and is rejected by `check_config` (the lowering gate)
//! with its own "not supported yet" code; sugar over the core IR checks, lowers and emits.

use dsl_core::Diagnostics;
use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::{Level, Module, Stmt};
use dsl_core::parse::{Parsed, parse_file, parse_str};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn lang_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/lang")
}

fn read(name: &str) -> String {
    let p = lang_dir().join(format!("{name}.co"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn parse(text: &str) -> Parsed {
    parse_str(text, Some("t.co")).unwrap_or_else(|d| panic!("parse failed:\n{d}"))
}

fn language(m: &Module) -> Result<Diagnostics, Diagnostics> {
    check::check_language(m, &Config::defaults(m), None, &Limits::SM90).map(|(_, gate)| gate)
}

fn full(m: &Module) -> Result<check::KernelInfo, Diagnostics> {
    check::check_config(m, &Config::defaults(m), None, &Limits::SM90)
}

fn codes(d: &Diagnostics) -> BTreeSet<&'static str> {
    d.iter().map(|x| x.code).collect()
}

/// Parses, passes the language checks, and fails the full check with exactly `gate` codes.
fn checked_not_lowered(name: &str, gate: &[&str]) -> Module {
    let m = parse(&read(name)).module;
    let notes = language(&m).unwrap_or_else(|d| panic!("{name}: language check failed:\n{d}"));
    let want: BTreeSet<&str> = gate.iter().copied().collect();
    assert_eq!(codes(&notes), want, "{name}: gate notes:\n{notes}");
    // The full check rejects it with those findings (restrictions of the lowering such as
    // E0905 come first and then alone).
    let err = full(&m).expect_err("the lowering gate rejects it");
    assert!(codes(&err).is_subset(&want), "{name}: check_config:\n{err}");
    for d in notes.iter().filter(|d| d.code.starts_with("E13")) {
        assert!(d.message.starts_with("not supported yet: "), "{d}");
        assert!(!d.span.is_dummy(), "unspanned: {d}");
    }
    m
}

/// Passes every check and lowers.
fn lowers(m: &Module) {
    let info = full(m).unwrap_or_else(|d| panic!("check_config failed:\n{d}"));
    dsl_core::lower::lower(m, &info).unwrap_or_else(|d| panic!("lowering failed:\n{d}"));
}

fn golden(name: &str, dump: &str) {
    let path = lang_dir().join(format!("{name}.ir"));
    if std::env::var_os("TESSEL_BLESS").is_some() {
        std::fs::write(&path, dump).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with TESSEL_BLESS=1)", path.display()));
    assert_eq!(
        dump, want,
        "{name}: IR dump differs (TESSEL_BLESS=1 to accept)"
    );
}

#[test]
fn ir_dumps_match_goldens() {
    for name in [
        "program_file",
        "default_levels",
        "nested_default_levels",
        "futures",
        "statements",
        "views",
        "multi",
        "warp_mma",
        "warp_shapes",
        "hints_and_builtins",
        "partial_warps",
        "first_tile",
        "extent_of",
        "mdspan_params",
        "subbyte",
        "streams",
        "shape_values",
        "launch_and_unroll",
        "wgmma_forms",
        "device_helper",
        "elem_types",
        "schedule",
        "println",
        "frag_load",
    ] {
        let mut dump = String::new();
        for (fname, r) in parse_file(&read(name), Some(&format!("{name}.co"))) {
            let p = r.unwrap_or_else(|d| panic!("{name}::{fname}:\n{d}"));
            dump.push_str(&format!("// module {fname}\n{}", p.module));
        }
        golden(name, &dump);
    }
}

#[test]
fn program_file_skips_host_code_with_one_note() {
    let text = read("program_file");
    let p = parse(&text);
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    let note = &p.notes[0];
    assert_eq!(note.code, "E0030");
    // `#include`s, `#if`/`#else`/`#endif` and the branch not taken, the `template` helper and
    // `main` (lines as written).
    assert!(note.message.contains("2-3"), "{}", note.message);
    assert!(note.message.contains(", 6,"), "{}", note.message);
    assert!(note.message.contains("8-13"), "{}", note.message);
    assert!(note.message.contains("22-26"), "{}", note.message);
    // The kernel keeps its own lines: the parallel statement is on line 16.
    let top = p.module.kernel.body[0];
    assert_eq!(p.module.stmt_span(top).start.line, 16);
    // `#if TILE > 8` took its first branch.
    assert!(
        p.module
            .constant("ROWS")
            .is_some_and(|c| p.module.expr_to_string(c.value) == "4")
    );
    lowers(&p.module);
}

#[test]
fn unannotated_levels_get_croqtiles_default_mapping_and_lower() {
    let m = parse(&read("default_levels")).module;
    let Stmt::Parallel { levels, .. } = &m.stmts[m.kernel.body[0]] else {
        panic!("not a parallel")
    };
    let lv: Vec<Level> = levels.iter().map(|l| l.level).collect();
    assert_eq!(lv, vec![Level::Block, Level::Thread]);
    assert_eq!(m.expr_to_string(levels[0].extents[0]), "1");
    lowers(&m);

    let m = parse(&read("nested_default_levels")).module;
    let Stmt::Parallel { levels, body } = &m.stmts[m.kernel.body[0]] else {
        panic!("not a parallel")
    };
    assert_eq!(levels[0].level, Level::Block);
    let Stmt::Parallel { levels: inner, .. } = &m.stmts[body[0]] else {
        panic!("not a nested parallel")
    };
    assert_eq!(inner[0].level, Level::Thread);
    lowers(&m);
}

#[test]
fn explicit_levels_constrain_the_default_ones() {
    let src = "__co__ void k(f32 [8, 32] a) {\n  parallel r by 8 : group {\n    parallel s by 32 {\n      a.at(r, s) = 0.0f;\n    }\n  }\n}\n";
    let m = parse(src).module;
    let Stmt::Parallel { levels, body } = &m.stmts[m.kernel.body[0]] else {
        panic!()
    };
    let lv: Vec<Level> = levels.iter().map(|l| l.level).collect();
    assert_eq!(lv, vec![Level::Block, Level::Group]);
    let Stmt::Parallel { levels: inner, .. } = &m.stmts[body[0]] else {
        panic!()
    };
    assert_eq!(inner[0].level, Level::Thread);
    language(&m).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn four_default_levels_fill_every_slot_and_idle_lanes_lower() {
    let m = parse(&read("partial_warps")).module;
    lowers(&m);
    let mut lv: Vec<Level> = Vec::new();
    let mut at = m.kernel.body[0];
    while let Stmt::Parallel { levels, body } = &m.stmts[at] {
        lv.extend(levels.iter().map(|l| l.level));
        at = body[0];
    }
    assert_eq!(
        lv,
        vec![Level::Block, Level::Group4, Level::Group, Level::Thread]
    );
    let info = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"))
        .0;
    // Three warpgroups of four warps each; a warp runs five threads, its other lanes idle.
    assert_eq!(info.threads_per_block, 3 * 128);
}

/// A copy operand that tiles without picking a tile is its first tile: the parser writes the
/// `.at(0, 0)`, spanned as the operand, and the kernel lowers.
#[test]
fn a_copy_of_a_bare_subspan_is_its_first_tile_and_lowers() {
    let m = parse(&read("first_tile")).module;
    lowers(&m);
    let firsts: Vec<_> = m
        .exprs
        .iter()
        .filter(|(h, _)| m.expr_to_string(*h) == "src.subspan(16, 64).at(0, 0)")
        .map(|(h, _)| m.expr_span(h))
        .collect();
    assert_eq!(firsts.len(), 1);
    // Spanned as written: `src.subspan(16, 64)` on line 6.
    assert_eq!((firsts[0].start.line, firsts[0].end.line), (6, 6));
    assert!(firsts[0].start.col > 10);
}

#[test]
fn extent_of_a_variable_is_its_extent_and_lowers() {
    let m = parse(&read("extent_of")).module;
    lowers(&m);
    // Not a parallel or loop variable: E0040, under `#x`.
    let src = "__co__ void k(f32 [8] a) {\n  parallel p by 1 : block parallel t by 8 : thread {\n    a.at(t) = #a;\n  }\n}\n";
    let d = parse_str(src, Some("t.co")).expect_err("`#a` of a tensor");
    let e = d.iter().find(|x| x.code == "E0040").expect("E0040");
    assert_eq!((e.span.start.line, e.span.end.line), (3, 3));
    assert!(e.message.contains("`#a`"), "{e}");
    // Out of the variable's scope: E0040 as well.
    let src = "__co__ void k(f32 [8] a) {\n  parallel p by 1 : block {\n    foreach i in [8] { a.at(i) = 0.0f; }\n    foreach j in [#i] { a.at(j) = 1.0f; }\n  }\n}\n";
    assert!(
        parse_str(src, Some("t.co"))
            .expect_err("`#i` outside its loop")
            .iter()
            .any(|x| x.code == "E0040")
    );
}

#[test]
fn mdspan_and_unnamed_dimensions_check_and_are_gated() {
    let m = checked_not_lowered("mdspan_params", &["E1309", "E1352"]);
    let dims: Vec<String> = m
        .kernel
        .params
        .iter()
        .map(|p| {
            p.shape
                .iter()
                .map(|&d| m.expr_to_string(d))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    assert_eq!(dims, vec!["M,4", "?1,?2", "?3,8", ""]);
    assert_eq!(m.kernel.params[3].name.name, "_");
    let notes = language(&m).expect("checks");
    assert_eq!(notes.iter().filter(|d| d.code == "E1352").count(), 3);
    // Several unnamed parameters do not clash.
    let src = "__co__ void k(f32 [8] a, int, bool) {\n  parallel p by 1 : block parallel t by 8 : thread { a.at(t) = 1.0f; }\n}\n";
    language(&parse(src).module).unwrap_or_else(|d| panic!("{d}"));
    // A rank out of range is a parse error.
    let src = "__co__ void k(f32 mdspan<0> a) {\n  parallel p by 1 : block parallel t by 8 : thread { }\n}\n";
    assert!(parse_str(src, Some("t.co")).is_err());
}

#[test]
fn returns_agree_with_the_declared_result() {
    // A return type but no value returned: E0041 at the name.
    let src = "__co__ s32 [4] k(s32 [4] a) {\n  parallel p by 1 : block parallel t by 4 : thread {\n    a.at(t) = 1;\n  }\n}\n";
    let d = language(&parse(src).module).expect_err("no return");
    let e = d.iter().find(|x| x.code == "E0041").expect("E0041");
    assert_eq!(e.span.start.line, 1);
    assert!(e.message.contains("`k` declares a return type"), "{e}");
    // `void` returning a value: E0042 at the `return`.
    let src = "__co__ void k(s32 [4] a) {\n  parallel p by 1 : block parallel t by 4 : thread {\n    a.at(t) = 1;\n  }\n  return a;\n}\n";
    let d = language(&parse(src).module).expect_err("void returns a value");
    let e = d.iter().find(|x| x.code == "E0042").expect("E0042");
    assert_eq!(e.span.start.line, 5);
    // Returning a value checks; the lowering gate refuses the function (E1302) and its
    // `return` (E1300).
    let src = "__co__ s32 [4] k(s32 [4] a) {\n  parallel p by 1 : block parallel t by 4 : thread {\n    a.at(t) = 1;\n  }\n  return a;\n}\n";
    let m = parse(src).module;
    let notes = language(&m).unwrap_or_else(|d| panic!("{d}"));
    assert!(codes(&notes).contains("E1302"), "{notes}");
    // `auto` without a return, and `void` with a bare `return;`, are fine.
    let src = "__co__ auto k(s32 [4] a) {\n  parallel p by 1 : block parallel t by 4 : thread {\n    a.at(t) = 1;\n  }\n}\n";
    language(&parse(src).module).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn sub_byte_types_check_and_are_gated() {
    let m = checked_not_lowered("subbyte", &["E1301"]);
    let names: Vec<&str> = m.kernel.params.iter().map(|p| p.dtype.name()).collect();
    assert_eq!(names, vec!["s4", "s4", "bin1", "bin1"]);
    // Every parameter and the local tile: five E1301, each under its type.
    let notes = language(&m).expect("checks");
    assert_eq!(
        notes.iter().filter(|d| d.code == "E1301").count(),
        5,
        "{notes}"
    );
    // A misspelt one is still unknown.
    let src =
        "__co__ void k(u3 [4] a) {\n  parallel p by 1 : block parallel t by 4 : thread { }\n}\n";
    assert!(parse_str(src, Some("t.co")).is_err());
}

#[test]
fn streams_check_and_are_gated() {
    // (E0605: two top-level launches are a restriction of today's lowering.)
    let m = checked_not_lowered("streams", &["E0605", "E1353"]);
    let names: Vec<(&str, usize)> = m
        .streams
        .iter()
        .map(|s| (s.name.name.as_str(), s.position))
        .collect();
    assert_eq!(names, vec![("first", 0), ("second", 1)]);
    assert_eq!(m.parallel_ext.len(), 2);
    assert!(m.parallel_ext[1].is_async && !m.parallel_ext[0].is_async);
    let err = |src: &str| {
        language(&parse(src).module)
            .expect_err("a stream error")
            .iter()
            .filter(|d| d.code == "E0043")
            .map(|d| (d.span.start.line, d.message.clone()))
            .collect::<Vec<_>>()
    };
    // Not a stream parameter.
    let e = err(
        "__co__ void k(stream s, f32 [8] a) {\n  parallel<t> p by 1 : block parallel q by 8 : thread {\n    a.at(q) = 1.0f;\n  }\n}\n",
    );
    assert_eq!(e.len(), 1);
    assert!(e[0].1.contains("`t` is not a `stream` parameter"), "{e:?}");
    // A stream on a nested `parallel`.
    let e = err(
        "__co__ void k(stream s, f32 [8] a) {\n  parallel p by 1 : block {\n    parallel<s> q by 8 : thread {\n      a.at(q) = 1.0f;\n    }\n  }\n}\n",
    );
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, 3);
    // Named twice.
    let e = err(
        "__co__ void k(stream s, f32 [8] s) {\n  parallel<s> p by 1 : block parallel q by 8 : thread { }\n}\n",
    );
    assert!(e.iter().any(|x| x.1.contains("declared twice")), "{e:?}");
}

#[test]
fn constant_parameter_dimensions_are_positive() {
    let src = "__co__ void k(f32 [4 - 6, 0, 8] a) {\n  parallel p by 1 : block parallel q by 8 : thread { }\n}\n";
    let d = language(&parse(src).module).expect_err("bad dimensions");
    let msgs: Vec<&str> = d
        .iter()
        .filter(|x| x.code == "E0044")
        .map(|x| x.message.as_str())
        .collect();
    assert_eq!(msgs.len(), 2, "{d}");
    assert!(msgs[0].contains("`4 - 6` of `a` is -2"), "{msgs:?}");
}

#[test]
fn named_shapes_ituples_with_clauses_and_named_views() {
    // The named view `v = a.span_as(…)` lowers at its uses (none here), where a `.span_as`
    // would be gated (E1307). The i-tuple value outside the `parallel` is a kernel-scope value
    // (no E0905), but i-tuple values do not lower (E1303).
    checked_not_lowered("shape_values", &["E1303"]);
    let bad = |src: &str, code: &str| {
        let d = parse_str(src, Some("t.co")).expect_err("an error");
        assert!(d.iter().any(|x| x.code == code), "{d}");
    };
    let k = |body: &str| {
        format!(
            "__co__ void k(f32 [8, 4] a) {{\n  {body}\n  parallel p by 1 : block parallel t by 4 : thread {{ }}\n}}\n"
        )
    };
    // The stated rank must match.
    bad(&k("mdspan<3> s : [8, 4];"), "E0045");
    // Arithmetic on whole shapes is element-wise (`lang_shape_ops.rs`); shapes of two ranks
    // do not combine.
    bad(&k("s : [8, 4, 2];\n  local f32 [a.span + s] b;"), "E0045");
    bad(
        &k("s : [8];\n  with i in [a.span / {s(0), 1, 2}] { }"),
        "E0045",
    );
    // `s(i)` takes an index within the rank.
    bad(&k("s : [8, 4];\n  int x = s(2);"), "E0045");
    // `ituple<N>` counts the elements.
    bad(&k("ituple<3> o = {1, 2};"), "E0020");
    // A named view is checked even when unused: a reshape must keep the element count.
    let src = "__co__ void k(f32 [8, 4] a) {\n  parallel p by 1 : block parallel t by 4 : thread {\n    v = a.span_as([31]);\n  }\n}\n";
    assert!(language(&parse(src).module).is_err());
    // `select(i, a, b, c)` picks the `i`-th value (checked, gated like `select`).
    let src = "__co__ void k(f32 [4] a) {\n  parallel p by 1 : block parallel t by 4 : thread {\n    a.at(t) = select(t % 3, 1.0f, 2.0f, 3.0f);\n  }\n}\n";
    let notes = language(&parse(src).module).unwrap_or_else(|d| panic!("{d}"));
    assert!(codes(&notes).contains("E1303"), "{notes}");
}

#[test]
fn cooperative_launches_are_gated_and_unroll_factors_checked() {
    let m = checked_not_lowered("launch_and_unroll", &["E1353"]);
    assert!(m.parallel_ext.iter().any(|x| x.cooperative));
    assert_eq!(m.unroll_factors.len(), 1);
    let e0046 = |src: &str| {
        let d = language(&parse(src).module).expect_err("a bad factor");
        d.iter()
            .filter(|x| x.code == "E0046")
            .map(|x| x.message.clone())
            .collect::<Vec<_>>()
    };
    let k = |f: &str| {
        format!(
            "__co__ void k(f32 [8] a) {{\n  parallel p by 1 : block parallel t by 8 : thread {{\n    foreach i in [4] : unroll({f}) {{ a.at(t) = 1.0f; }}\n  }}\n}}\n"
        )
    };
    assert!(e0046(&k("8"))[0].contains("exceeds the loop extent 4"));
    assert!(e0046(&k("0"))[0].contains("at least 1"));
    assert!(e0046(&k("t"))[0].contains("compile-time integer"));
    // `<cooperative>` on a nested `parallel` binds no launch.
    let src = "__co__ void k(f32 [8] a) {\n  parallel p by 1 : block {\n    parallel q by 2 : block<cooperative> { }\n  }\n}\n";
    let d = language(&parse(src).module).expect_err("nested");
    assert!(d.iter().any(|x| x.code == "E0043"), "{d}");
}

#[test]
fn several_functions_per_file_are_separate_modules() {
    let mods = parse_file(&read("multi"), Some("multi.co"));
    let names: Vec<&str> = mods.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, vec!["first", "second"]);
    for (name, r) in &mods {
        let p = r.as_ref().unwrap_or_else(|d| panic!("{name}: {d}"));
        assert_eq!(p.module.kernel.name.name, *name);
        lowers(&p.module);
    }
}

#[test]
fn futures_events_and_generations_check_but_do_not_lower() {
    // Event generations (`e.at(k)`), `= ready` events and `trigger e after f1, f2` on TMA
    // futures lower; the `dma.copy` futures on the TMA path do not yet, and the copy of a
    // future's (shared) data into a shared tensor is shared → shared (E1103).
    checked_not_lowered("futures", &["E1103", "E1345"]);
}

#[test]
fn statements_check_but_do_not_lower() {
    checked_not_lowered("statements", &["E1123", "E1300", "E1304"]);
}

#[test]
fn views_and_new_types_check_but_do_not_lower() {
    checked_not_lowered("views", &["E1301", "E1306", "E1307", "E1345"]);
}

#[test]
fn core_dialect_kernels_still_lower() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../kernels");
    for name in [
        "v0_naive",
        "v1_shared",
        "v2_tma_wgmma",
        "v3_warpspec",
        "v4_tuned",
    ] {
        let text = std::fs::read_to_string(root.join(format!("{name}.co"))).unwrap();
        let p = parse(&text);
        assert!(p.notes.is_empty(), "{name}: {:?}", p.notes);
        lowers(&p.module);
    }
}

/// The first error of the language check (or of parsing).
fn first_error(src: &str) -> dsl_core::Diagnostic {
    let d = match parse_str(src, None) {
        Err(d) => d,
        Ok(p) => language(&p.module).expect_err("expected an error"),
    };
    d.0[0].clone()
}

fn kernel(body: &str) -> String {
    format!(
        "__co__ void k(global f16 [64, 64] input, global f16 [64, 64] out) {{\n  parallel b by 1 : block {{\n    shared f16 [64, 64] tile;\n    shared event full;\n{body}\n  }}\n}}\n"
    )
}

#[test]
fn misuses_are_rejected_with_their_codes() {
    let cases: &[(&str, &str)] = &[
        (
            "    f = tma.copy.async input => tile;\n    wait f;\n    trigger full after f;\n    wait full;",
            "E1305",
        ),
        (
            "    f = dma.copy.async input => tile;\n    trigger full after f;\n    wait full;",
            "E1308",
        ),
        ("    dma.copy input.chunkat(b, _).sqz() => tile;", "E0205"),
        ("    with _ in 4 { }", "E0033"),
        ("    dma.load input => tile;", "E0005"),
        ("    dma.copy.fast input => tile;", "E0022"),
        ("    shared f16 [4] z {input};", "E0104"),
        (
            "    f = dma.copy.async input => shared;\n    wait f;\n    out.at(0, 0) = f.at(0, 0);",
            "E0104",
        ),
        ("    foreach k { }", "E0033"),
        ("    x = exp(1, 2);", "E0009"),
        ("    __atomic_add(out.at(0, 0));", "E0032"),
        ("    break;", "E1317"),
        ("    __asm__ volatile(\"nop\" : : : : \"memory\");", "E0032"),
        (
            "    shared f16 [32, 64] t2;\n    dma.transp<1, 0> input.subspan(32, 64).at(0, 0) => t2;",
            "E0202",
        ),
        ("    mutable int x = 0;\n    __atomic_add(x, 1);", "E0032"),
        (
            "    f = tma.copy input => shared;\n    trigger full after f;\n    wait full;",
            "E1305",
        ),
    ];
    for (body, code) in cases {
        let src = kernel(body);
        let d = first_error(&src);
        assert_eq!(d.code, *code, "for:\n{body}\ngot: {d}");
        assert!(!d.span.is_dummy(), "{d}");
    }
}

#[test]
fn wait_and_trigger_lists_are_sugar() {
    let src = kernel("    trigger full;\n    wait full, full;");
    let m = parse(&src).module;
    let waits = m
        .stmts
        .iter()
        .filter(|(_, s)| matches!(s, Stmt::Wait { .. }))
        .count();
    assert_eq!(waits, 2);
    // `trigger a, b;` is one `trigger` per event, in order (`tests/lowered/event_lists.co`
    // lowers it).
    let m = parse(&read_lowered("event_lists")).module;
    let text = m.to_string();
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("no `{s}` in:\n{text}"))
    };
    assert!(at("trigger ready_a;") < at("trigger ready_b;"), "{text}");
    assert!(at("wait ready_a;") < at("wait ready_b;"), "{text}");
}

fn read_lowered(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/lowered/{name}.co"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn warp_level_mma_checks_and_only_the_auto_function_forms_are_gated() {
    // The warp `mma`s and their composed chunk indices lower (`lower/warp.rs`); the returned
    // output and the body-declared global tensor do not yet.
    let m = checked_not_lowered("warp_mma", &["E1300", "E1304"]);
    // `int TM = 16, …` at the top of the body became module constants.
    for name in ["TM", "TN", "TK"] {
        assert!(m.constant(name).is_some(), "{name} is not a constant");
    }
}

#[test]
fn warp_level_mma_shapes_and_fills_are_checked() {
    let text = read("warp_mma");
    let bad_shape = text.replace(
        "int TM = 16, TN = 16, TK = 16;",
        "int TM = 16, TN = 16, TK = 2;",
    );
    let m = parse(&bad_shape).module;
    let d = language(&m).expect_err("no f16 mma.sync shape has k2");
    assert_eq!(codes(&d), BTreeSet::from(["E1401"]), "{d}");
    // 8-row and 4-deep tiles are f16 mma.sync shapes, lowered: no finding beyond the
    // unmodified kernel's.
    let base = codes(&language(&parse(&text).module).expect("checks"));
    let m8 = text.replace(
        "int TM = 16, TN = 16, TK = 16;",
        "int TM = 8, TN = 16, TK = 4;",
    );
    let m = parse(&m8).module;
    let notes = language(&m).expect("m8 tiles are f16 mma.sync shapes");
    assert_eq!(codes(&notes), base, "{notes}");

    let refill_operand = text.replace(
        "        mma.row.col mc, ma, mb;",
        "        mma.fill ma, 0.0f;\n        mma.row.col mc, ma, mb;",
    );
    let m = parse(&refill_operand).module;
    let d = language(&m).expect_err("a loaded operand is not filled");
    assert_eq!(codes(&d), BTreeSet::from(["E0307"]), "{d}");
}

#[test]
fn hints_tuples_and_conversions_lower() {
    // `select(c, a, b)` and the atomic lower (C++'s `?:`, `atomicAdd`), the launch attribute
    // too (`__launch_bounds__(16, (2))`).
    let m = parse(&read("hints_and_builtins")).module;
    lowers(&m);
    // `foreach index` over `with index = {x, y} in [4, 4]` iterates x and y.
    let foreach = m
        .stmts
        .iter()
        .find_map(|(_, s)| match s {
            Stmt::Foreach { vars, unroll, .. } => Some((vars.clone(), *unroll)),
            _ => None,
        })
        .expect("a foreach");
    let names: Vec<&str> = foreach.0.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, vec!["x", "y"]);
    assert!(foreach.1);
    assert_eq!(m.attributes.len(), 1);
}

#[test]
fn attributes_are_checked() {
    let with = |attr: &str, level: &str| {
        format!(
            "__co__ void k(f32 [128] a) {{\n  {attr}\n  parallel p by 1 : {level} {{\n    parallel t by 128 : thread {{\n      a.at(t) = 0.0f;\n    }}\n  }}\n}}\n"
        )
    };
    for (attr, level, code) in [
        ("[[launch_bounds(64, 1)]]", "block", "E1312"),
        ("[[launch_bounds(1.5)]]", "block", "E1312"),
        ("[[maxnreg(-1)]]", "block", "E1312"),
        ("[[maxnreg(40)]]", "group-4", "E1312"),
        ("[[unroll_all]]", "block", "E1312"),
    ] {
        let src = with(attr, level);
        let d = first_error(&src);
        assert_eq!(d.code, code, "{attr}: {d}");
    }
    let ok = with("[[launch_bounds(128, 2)]]", "block");
    let m = parse(&ok).module;
    let notes = language(&m).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(codes(&notes), BTreeSet::new(), "{notes}");
    lowers(&m);
}

#[test]
fn conditional_values_are_selects_and_fp6_fp4_parse() {
    let src = "__co__ void k(f6_e2m3 [64] a, f4_e2m1 [64] b, f32 [64] c) {\n  parallel p by 64 {\n    c.at(p) = p < 32 ? 1.0f : 2.0f;\n  }\n}\n";
    let m = parse(src).module;
    let text = m.to_string();
    assert!(
        text.contains("select((p < 32), 1.0f, 2.0f)")
            || text.contains("select(p < 32, 1.0f, 2.0f)"),
        "{text}"
    );
    let notes = language(&m).unwrap_or_else(|d| panic!("{d}"));
    // `?:` lowers; the f6/f4 element types do not: their own code, under each type, with help.
    assert_eq!(codes(&notes), BTreeSet::from(["E1635"]), "{notes}");
    assert_eq!(notes.iter().count(), 2, "{notes}");
    for d in notes.iter() {
        assert!(d.message.starts_with("not supported yet: "), "{d}");
        assert!(
            d.help.as_deref().is_some_and(|h| h.contains("f8_e4m3")),
            "{d}"
        );
        // Under each parameter's type (seven characters on the first line).
        assert_eq!(d.span.start.line, d.span.end.line, "{d}");
        assert_eq!(d.span.end.col - d.span.start.col, 7, "{d:?}");
    }
    let err = full(&m).expect_err("the lowering gate rejects f6/f4");
    assert_eq!(codes(&err), BTreeSet::from(["E1635"]), "{err}");
}

/// A future of a copy whose source shape the parser knows (a whole tensor, a
/// `.subspan(…).at(…)` tile, or a `.chunkat(…)` tile of bounded indices) has that shape:
/// `[f.span]` in a later declaration is spliced into its dimensions, so the buffer is sized at
/// compile time; a name bound again takes the new copy's shape, or forgets the old one when
/// the new shape is not known. (`tests/lowered/future_span.co`: its IR golden, lowering and
/// NVRTC compile are `lowered_lang.rs`'s and the root crate's `nvrtc_lowered.rs`'s.)
#[test]
fn a_futures_span_sizes_a_declaration() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/lowered/future_span.co");
    let m = parse(&std::fs::read_to_string(path).unwrap()).module;
    let text = m.to_string();
    assert!(text.contains("shared f16 [8, 16] whole_h;"), "{text}");
    assert!(text.contains("shared f32 [4, 16] tile_h;"), "{text}");
    language(&m).unwrap_or_else(|d| panic!("{d}"));
    let rebound = |tile: &str| {
        parse(&format!(
            "__co__ void k(global f32 [8, 16] x) {{\n  parallel b by 2 : block {{\n    f = dma.copy x => shared;\n    f = dma.copy {tile} => shared;\n    shared f32 [f.span] h;\n  }}\n}}\n",
        ))
        .module
        .to_string()
    };
    let chunk = rebound("x.chunkat(b, _)");
    assert!(chunk.contains("shared f32 [8 / 2, 16] h;"), "{chunk}");
    // An index the parser cannot bound: the shape is left to the checker.
    let unknown = rebound("x.chunkat(b % 2, _)");
    assert!(unknown.contains("shared f32 [f.span] h;"), "{unknown}");
    // Chunks of `D` counted `cdiv(D, T)` are `T` long.
    let cdiv = parse(
        "__co__ void k(global f32 [8, 16] x) {\n  parallel b by cdiv(16, 6) : block {\n    f = dma.copy x.chunkat(_, b) => shared;\n    shared f32 [f.span] h;\n  }\n}\n",
    )
    .module
    .to_string();
    assert!(cdiv.contains("shared f32 [8, 6] h;"), "{cdiv}");
    // A name for a view has the view's shape where the parser knows it: `[l.span]` of
    // `l = x.span_as(4, 32)` is `[4, 32]`, in either way of writing the new shape; a fresh
    // register array's future is spliced like a fresh shared buffer's.
    for reshape in ["x.span_as(4, 32)", "x.span_as([4, 32])"] {
        let text = parse(&format!(
            "__co__ void k(global f32 [8, 16] x) {{\n  l = {reshape};\n  parallel b by 2 : block {{\n    local f32 [l.span] h;\n  }}\n}}\n",
        ))
        .module
        .to_string();
        assert!(text.contains("local f32 [4, 32] h;"), "{text}");
    }
    let local = parse(
        "__co__ void k(global f32 [8, 16] x) {\n  parallel b by 2 : block {\n    f = dma.copy x.subspan(1, 16).at(b, 0) => local;\n    local f32 [f.span] h;\n  }\n}\n",
    )
    .module
    .to_string();
    assert!(local.contains("local f32 [1, 16] h;"), "{local}");
}

#[test]
fn tma_boxes_must_be_known_on_the_host() {
    let src = "__co__ void k(global f16 [M, K] input, global f16 [M, 64] out) {\n  parallel b by cdiv(M, 128) : block, g by 1 : group-4 {\n    shared f16 [128, 64] s;\n    tm = b * 2;\n    tma.copy input.view(tm, 64).from(b * 128, 0) => s;\n  }\n}\n";
    let d = first_error(src);
    assert_eq!(d.code, "E1314", "{d}");
}

#[test]
fn shared_tensors_as_direct_mma_operands() {
    let src = "__co__ void k(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] out) {\n  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 128)] : block, by 1 : group-4 {\n    shared f16 [64, 64] a_s;\n    shared f16 [128, 64] b_s;\n    mc = mma.fill.f32 0.0f;\n    foreach k in cdiv(K, 64) {\n      tma.copy.swiz<128> lhs.chunkat(bm, k) => a_s;\n      tma.copy.swiz<128> rhs.chunkat(bn, k) => b_s;\n      foreach kk in 4 {\n        mma.row.row mc, a_s.chunkat(_, kk), b_s.chunkat(_, kk);\n      }\n    }\n    mma.store mc, out.subspan(64, 128).at(bm, bn);\n  }\n}\n";
    let m = parse(src).module;
    let text = m.to_string();
    assert!(text.contains("direct$a"), "{text}");
    assert!(text.contains("= mma.load a_s.chunkat(_, kk);"), "{text}");
    // The direct operands lower, and so does the accumulator stored straight into global
    // memory (the threads' own bounds-checked stores).
    let notes = language(&m).unwrap_or_else(|d| panic!("{d}"));
    assert!(notes.is_empty(), "{notes}");
    lowers(&m);
    let staged = parse(&src.replace(
        "    mma.store mc, out.subspan(64, 128).at(bm, bn);",
        "    shared f32 [64, 128] out_s;\n    mma.store mc, out_s;\n    tma.copy out_s => out.subspan(64, 128).at(bm, bn);",
    ))
    .module;
    full(&staged).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn copies_the_lowering_cannot_do_are_gated_at_check() {
    // The copy lowering's own rules (check/lowerable.rs): notes for `tessel check`, errors
    // for `emit`.
    for (body, code) in [
        (
            "    shared f16 [64, 64] t2;\n    dma.copy tile => t2;",
            "E1103",
        ),
        (
            "    dma.copy.async tile => out.subspan(64, 64).at(b, 0);",
            "E1460",
        ),
        (
            "    dma.copy tile => out.subspan(64, 64).at(b, 0).transpose();",
            "E1461",
        ),
        (
            "    dma.copy input.subspan(64, 64).at(b, 0) => shared;",
            "E1101",
        ),
    ] {
        let m = parse(&kernel(body)).module;
        let notes = language(&m).unwrap_or_else(|d| panic!("{body}: {d}"));
        assert_eq!(codes(&notes), BTreeSet::from([code]), "{body}: {notes}");
        let err = full(&m).expect_err("gated");
        assert_eq!(codes(&err), BTreeSet::from([code]), "{body}: {err}");
    }
}

#[test]
fn yield_belongs_in_a_parallel() {
    let d = first_error("__co__ void k(global f32 [4] a) {\n  yield;\n}\n");
    assert_eq!(d.code, "E1317", "{d}");
    let ok = "__co__ void k(global f32 [4] a) {\n  parallel p by 4 {\n    yield;\n  }\n}\n";
    let m = parse(ok).module;
    language(&m).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn a_parallel_body_may_be_a_nested_parallel_statement() {
    let m = parse("__co__ void k() { parallel by 2 parallel by 4 parallel by 6; }\n").module;
    let Stmt::Parallel { levels, body } = &m.stmts[m.kernel.body[0]] else {
        panic!()
    };
    assert_eq!(levels[0].level, Level::Block);
    let Stmt::Parallel {
        levels: l2,
        body: b2,
    } = &m.stmts[body[0]]
    else {
        panic!()
    };
    assert_eq!(l2[0].level, Level::Group);
    let Stmt::Parallel { levels: l3, .. } = &m.stmts[b2[0]] else {
        panic!()
    };
    assert_eq!(l3[0].level, Level::Thread);
}

#[test]
fn warp_tiles_of_every_instruction_shape_check_and_lower() {
    // u8 on 8-row tiles (m8n8k16), s8 × u8 with a re-initialized accumulator (m16n8k16),
    // f16 K = 4 slices stored transposed (zero-padded m16n8k8, `mma.store.transp`).
    let text = read("warp_shapes");
    let mut names = Vec::new();
    for (fname, r) in parse_file(&text, Some("warp_shapes.co")) {
        let m = r.unwrap_or_else(|d| panic!("{fname}:\n{d}")).module;
        lowers(&m);
        names.push(fname);
    }
    assert_eq!(names, ["u8_rows8", "mixed_refill", "f16_k4_transposed"]);
    assert!(
        text.contains("mma.store.transp mc, c.subspan(8, 16).at(bn, bm);"),
        "the transposed store is in the source"
    );
    let dump = std::fs::read_to_string(lang_dir().join("warp_shapes.ir")).expect("golden");
    assert!(dump.contains("mma.store.transp mc,"), "{dump}");
    assert!(dump.contains("mma.fill mc, 0;"), "{dump}");
}

#[test]
fn accumulator_arrays_name_elements_by_literal_indices() {
    let src = "__co__ void k(global f16 [M, K] a, global f16 [N, K] b, global f32 [M, N] c) {\n  parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 16)] : block, {w} by [1] : group {\n    frag mc[2][3] {0.0};\n    mma.fill mc[0][1], 1.0f;\n    foreach {k} in [cdiv(K, 16)] {\n      ma = mma.load a.subspan(16, 16).at(bm, k);\n      mb = mma.load b.subspan(16, 16).at(bn, k);\n      mma.row.row mc[0][1], ma, mb;\n    }\n    mma.store mc[0][1], c.subspan(16, 16).at(bm, bn);\n  }\n}\n";
    let m = parse(src).module;
    // Six elements are declared; the five no statement names are neither errors nor lowered.
    let fills: Vec<String> = m
        .stmts
        .iter()
        .filter_map(|(_, s)| match s {
            Stmt::MmaFill { name, .. } => Some(name.name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(fills.len(), 6, "{fills:?}");
    assert!(fills.contains(&"mc[1][2]".to_string()), "{fills:?}");
    lowers(&m);
    let text = m.to_string();
    assert!(text.contains("mma.row.row mc[0][1], ma, mb;"), "{text}");
    // A run-time index: the statement is written per element, behind `if (w == v)`; an
    // index past the extent, a missing index: parse errors.
    let dynamic = parse(
        &src.replace(
            "mma.row.row mc[0][1], ma, mb;",
            "mma.row.row mc[0][w], ma, mb;",
        )
        .replace("mma.store mc[0][1], c", "mma.store mc[0][w], c"),
    )
    .module;
    let text = dynamic.to_string();
    for want in [
        "if (w == 0) {",
        "mma.row.row mc[0][2], ma, mb;",
        "mma.store mc[0][1], c.subspan(16, 16).at(bm, bn);",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    lowers(&dynamic);
    for (bad, what) in [
        ("mma.store mc[0][1], c", "mma.store mc[2][1], c"),
        (
            "mma.row.row mc[0][1], ma, mb;",
            "mma.row.row mc[0], ma, mb;",
        ),
    ] {
        let text = src.replace(bad, what);
        let d = parse_str(&text, Some("t.co")).expect_err(what);
        assert_eq!(codes(&d), BTreeSet::from(["E0016"]), "{what}: {d}");
    }
}

#[test]
fn wgmma_forms_check_and_lower() {
    for (fname, r) in parse_file(&read("wgmma_forms"), Some("wgmma_forms.co")) {
        let p = r.unwrap_or_else(|d| panic!("{fname}:\n{d}"));
        lowers(&p.module);
    }
}

#[test]
fn schedule_orders_the_k_steps_of_one_dense_mma() {
    let src = "__co__ void k(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] out) {\n  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 128)] : block, by 1 : group-4 {\n    shared f16 [64, 64] a_s;\n    shared f16 [128, 64] b_s;\n    mc = mma.fill.f32 0.0f;\n    foreach k in cdiv(K, 64) {\n      tma.copy.swiz<128> lhs.chunkat(bm, k) => a_s;\n      tma.copy.swiz<128> rhs.chunkat(bn, k) => b_s;\n      ATTR\n      mma.row.row mc, a_s, b_s;\n    }\n    mma.store mc, out.subspan(64, 128).at(bm, bn);\n  }\n}\n";
    // A permutation is accepted (and is a hint the lowering does not read yet).
    let ok = parse(&src.replace("ATTR", "[[schedule(k_tiles(3, 1, 2, 0))]]")).module;
    let notes = language(&ok).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(codes(&notes), BTreeSet::from(["E1313"]), "{notes}");
    for (attr, what) in [
        ("[[schedule(k_tiles(3, 2, 2, 0))]]", "appears twice"),
        ("[[schedule(k_tiles(0, 4))]]", "not a K step"),
        ("[[schedule(k_tiles(0, -1))]]", "not a K step"),
        ("[[schedule(k_tiles())]]", "names no K step"),
        ("[[schedule(order(0, 1))]]", "one term"),
    ] {
        let d = first_error(&src.replace("ATTR", attr));
        assert_eq!(d.code, "E1312", "{attr}: {d}");
        assert!(d.message.contains(what), "{attr}: {d}");
    }
    // Only an `mma` execution takes it.
    let d = first_error(&src.replace(
        "ATTR\n      mma.row.row mc, a_s, b_s;",
        "mma.row.row mc, a_s, b_s;\n      [[schedule(k_tiles(1, 0))]]\n      tma.copy.swiz<128> lhs.chunkat(bm, k) => a_s;",
    ));
    assert_eq!(d.code, "E1312", "{d}");
    assert!(d.message.contains("applies to an `mma`"), "{d}");
}

#[test]
fn an_accumulator_no_mma_uses_is_a_language_error() {
    // The outer `mc` is filled but every `mma` accumulates into the inner one that shadows it:
    // the outer fragment never gets a shape.
    let src = "__co__ void k(global f16 [M, K] a, global f16 [N, K] b, global f32 [M, N] c) {\n  parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 16)] : block {\n    mc = mma.fill 0.0;\n    parallel {w} by [1] : group {\n      mc = mma.fill 0.0;\n      foreach {k} in [cdiv(K, 16)] {\n        ma = mma.load a.subspan(16, 16).at(bm, k);\n        mb = mma.load b.subspan(16, 16).at(bn, k);\n        mma.row.row mc, ma, mb;\n      }\n      mma.store mc, c.subspan(16, 16).at(bm, bn);\n    }\n  }\n}\n";
    let d = first_error(src);
    assert_eq!(d.code, "E1114", "{d}");
    assert_eq!(d.span.start.line, 3, "{d}");
}

/// A `__co_device__` helper is skipped like host code (one `E0030` note over its lines), and a
/// `call` of it is checked and gated (`E1300`).
#[test]
fn device_helpers_are_skipped_and_their_calls_gated() {
    let p = parse(&read("device_helper"));
    assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
    assert_eq!(p.notes[0].code, "E0030");
    assert_eq!(p.notes[0].span.start.line, 3, "{}", p.notes[0]);
    let m = checked_not_lowered("device_helper", &["E1300"]);
    let notes = language(&m).unwrap();
    assert!(
        notes.iter().any(|d| d.message.contains("`call`")),
        "{notes}"
    );
}

/// s8/u8/s16/u16/s32/f64/tf32 parameters parse and check; s32, s8, u8, s16 and u16 lower (on
/// the SIMT path, 8- and 16-bit integers are element types), and each other type is noted
/// under its own type where no lowering handles it.
#[test]
fn element_types_check_and_the_unlowered_ones_are_gated() {
    let m = checked_not_lowered("elem_types", &["E1301"]);
    let notes = language(&m).unwrap();
    let gated: BTreeSet<String> = notes
        .iter()
        .filter(|d| d.code == "E1301")
        .map(|d| d.message.clone())
        .collect();
    let want: BTreeSet<String> = ["f64", "tf32"]
        .iter()
        .map(|t| format!("not supported yet: element type `{t}`"))
        .collect();
    assert_eq!(gated, want, "{notes}");
}

/// `[[schedule(k_tiles(…))]]` on a dense WGMMA checks and is gated (`E1313`).
#[test]
fn a_schedule_attribute_checks_and_is_gated() {
    checked_not_lowered("schedule", &["E1313"]);
}

#[test]
fn named_barriers_are_checked_and_lowered() {
    let src = "__co__ void k(f32 [256] a) {
  parallel p by 1 : block
    parallel t by 256 : thread {
      a.at(t) = a.at(t) + 1.0f;
      __bar_arrive(1, 256);
      __bar_sync(1, 256);
    }
}
";
    let m = parse(src).module;
    let notes = language(&m).unwrap_or_else(|d| panic!("{d}"));
    assert!(notes.is_empty(), "{notes}");
    // Two arguments: the barrier and the thread count.
    let d = parse_str(
        &src.replace("__bar_sync(1, 256)", "__bar_sync(1)"),
        Some("t.co"),
    )
    .expect_err("one argument");
    assert!(d.iter().any(|x| x.code == "E0032"), "{d}");
}

#[test]
fn a_load_into_a_frag_tile_is_checked_and_gated() {
    let m = parse(&read("frag_load")).module;
    let notes = language(&m).unwrap_or_else(|d| panic!("{d}"));
    let load: Vec<_> = notes
        .iter()
        .filter(|d| d.code == "E1300" && d.message.contains("into a declared `frag` tile"))
        .collect();
    assert_eq!(load.len(), 1, "{notes}");
    assert!(full(&m).is_err());
    // Into a shared tile: E0110; a tile of another shape: E0111.
    let text = read("frag_load");
    let bad = |from: &str, to: &str, code: &str| {
        let m = parse(&text.replace(from, to)).module;
        let d = language(&m).expect_err("rejected");
        assert!(d.iter().any(|x| x.code == code), "{d}");
    };
    bad(
        "mma.load a_s.data, a_regs;",
        "mma.load a_s.data, b_s.data;",
        "E0110",
    );
    bad(
        "mma.load a_s.data, a_regs;",
        "mma.load lhs.subspan(64, 32).at(bm, 0), a_regs;",
        "E0111",
    );
    // A future's buffer has the shape of the tile it copied.
    bad(
        "lhs.subspan(64, 16).at(bm, k)",
        "lhs.subspan(64, 32).at(bm, 0)",
        "E0111",
    );
}
