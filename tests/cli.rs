//! The `tessel` command line (`tessel::cli::run`): `check`, `ir` and `emit` on a seed kernel,
//! and diagnostics on bad `.co` files rendered with `file:line:col` and a caret under the token.

mod common;

use pretty_assertions::{assert_eq, assert_str_eq};
use tessel::cli::run;

const V4: &str = "kernels/v4_tuned.co";

fn cli(args: &[&str]) -> (String, i32) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run(&args)
}

/// The line of `out` that holds `needle`, and the line after it.
fn line_with<'a>(out: &'a str, needle: &str) -> (&'a str, &'a str) {
    let lines: Vec<&str> = out.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with `{needle}` in:\n{out}"));
    (lines[i], lines.get(i + 1).copied().unwrap_or(""))
}

/// Asserts a rendered diagnostic: the code, the message, the `file:line:col` location, the
/// source line, and a caret line whose carets start under column `col` and span `width`.
fn assert_diagnostic(out: &str, code: &str, file: &str, line: usize, col: usize, width: usize) {
    assert!(
        out.contains(&format!("error[{code}]")),
        "no {code} in:\n{out}"
    );
    assert_eq!(
        out.matches("error[").count(),
        1,
        "one error expected:\n{out}"
    );
    assert!(
        out.contains(&format!("{file}:{line}:{col}")),
        "no `{file}:{line}:{col}` in:\n{out}"
    );
    let source = common::read(file);
    let src_line = source.lines().nth(line - 1).unwrap();
    let (shown, caret) = line_with(out, src_line.trim());
    // `NN │ <source line>` then `   │ <spaces>^^^`: the carets sit under the token.
    let bar = shown.find('│').expect("a gutter");
    let shown_src = &shown[bar + '│'.len_utf8() + 1..];
    assert_eq!(shown_src, src_line, "the source line is shown verbatim");
    let caret_bar = caret.find('│').expect("a caret gutter");
    let carets = &caret[caret_bar + '│'.len_utf8() + 1..];
    let start = carets
        .find('^')
        .unwrap_or_else(|| panic!("no caret in:\n{out}"));
    let run = carets[start..].chars().take_while(|&c| c == '^').count();
    assert_eq!(
        (start + 1, run),
        (col, width),
        "caret at column {} spanning {run}, expected {col} spanning {width}:\n{out}",
        start + 1
    );
}

#[test]
fn check_reports_the_default_configuration() {
    let (out, code) = cli(&["check", V4]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with(&format!("{V4}: ok (")), "{out}");
    // 1 producer + 2 consumer warpgroups at the defaults.
    assert!(out.contains("384 threads per block"), "{out}");
    assert!(out.contains("bytes of shared memory"), "{out}");
}

#[test]
fn ir_prints_the_golden_dump_and_the_config() {
    let (out, code) = cli(&["ir", V4, "--set", "WARP_N=128"]);
    assert_eq!(code, 0, "{out}");
    let golden = common::read("dsl-core/tests/golden/v4_tuned.ir");
    // The dump, then the config's facts.
    let dump = out.get(..golden.len()).unwrap_or(&out);
    assert_str_eq!(
        golden.as_str(),
        dump,
        "`tessel ir` does not start with the golden dump"
    );
    let (cfg, _) = line_with(&out, "// config:");
    for kv in ["WARP_N=128", "STAGES=2", "CONSUMERS=2", "TILE_K=64"] {
        assert!(cfg.contains(kv), "{kv} missing from `{cfg}`");
    }
    let (consts, _) = line_with(&out, "// constants:");
    assert!(
        consts.contains("TILE_M=128") && consts.contains("SWIZ=128"),
        "{consts}"
    );
}

#[test]
fn emit_instantiates_the_chosen_config() {
    let (out, code) = cli(&["emit", V4, "--set", "WARP_N=128"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("template <int WARP_N"), "{out}");
    assert!(out.contains("// dsl:"), "no `// dsl:LINE` comments");
    assert!(out.contains(V4), "the source file is not named");
    // The explicit instance at the end, in template-parameter order.
    let m = common::parse_kernel("v4_tuned");
    let defaults = dsl_core::check::Config::defaults(&m);
    let (_, _, chosen) = common::emit_kernel("v4_tuned", &defaults.clone().with("WARP_N", 128));
    let (_, _, default) = common::emit_kernel("v4_tuned", &defaults);
    assert!(chosen.starts_with("tsl_matmul<128, "), "{chosen}");
    assert!(out.contains(&chosen), "no `{chosen}` in:\n{out}");
    let (default_out, _) = cli(&["emit", V4]);
    assert!(default_out.contains(&default), "no `{default}`");
    assert!(!default_out.contains(&chosen));
    assert_ne!(out, default_out);
}

#[test]
fn emit_of_every_seed_kernel_is_its_golden_cu() {
    for name in common::KERNELS {
        let (out, code) = cli(&["emit", &format!("kernels/{name}.co")]);
        assert_eq!(code, 0, "{name}: {out}");
        let golden = common::read(&format!("tests/golden/cu/{name}.cu"));
        assert_str_eq!(
            golden,
            out,
            "`tessel emit kernels/{name}.co` differs from tests/golden/cu/{name}.cu"
        );
    }
}

#[test]
fn check_error_has_location_caret_and_help() {
    let file = "tests/data/bad_swizzle.co";
    for cmd in ["check", "ir", "emit"] {
        let (out, code) = cli(&[cmd, file]);
        assert_eq!(code, 1, "{cmd}: {out}");
        assert_diagnostic(&out, "E0401", file, 20, 21, 2);
        assert!(
            out.contains("swizzle must be 32, 64 or 128 bytes, not 96"),
            "{out}"
        );
        assert!(out.contains("help: "), "{out}");
    }
}

#[test]
fn parse_error_has_location_and_caret() {
    let file = "tests/data/bad_parse.co";
    let (out, code) = cli(&["check", file]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[E0004]"), "{out}");
    // The line without its `;`: the error sits where the `;` belongs (just after `= 32`),
    // on `32` itself, or on the next line's `tunable` (the token found instead).
    let text = common::read(file);
    let line = 1 + text
        .lines()
        .position(|l| l.starts_with("tunable") && !l.ends_with(';'))
        .expect("the broken line");
    let src = text.lines().nth(line - 1).unwrap();
    let places = [
        format!("{file}:{line}:{}", src.len() + 1),
        format!("{file}:{line}:{}", src.rfind("32").unwrap() + 1),
        format!("{file}:{}:1", line + 1),
    ];
    assert!(
        places.iter().any(|p| out.contains(p)),
        "none of {places:?} in:\n{out}"
    );
    assert!(
        out.lines().any(|l| l.contains('│') && l.contains('^')),
        "{out}"
    );
}

#[test]
fn a_set_that_breaks_a_restriction_is_a_diagnostic() {
    // 4 stages of 256-wide tiles do not fit in shared memory.
    let (out, code) = cli(&["check", V4, "--set", "WARP_N=256", "--set", "STAGES=4"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[E0501]"), "{out}");
    assert!(out.contains(&format!("{V4}:")), "{out}");
}

#[test]
fn usage_errors_exit_2() {
    // No arguments at all: the help, as a usage error.
    let (out, code) = cli(&[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("Usage: tessel <COMMAND>"), "{out}");
    for args in [
        &["check"][..],
        &["check", V4, "--set", "=3"][..],
        &["check", V4, "--set=WARP_N"][..],
        &["frobnicate", V4][..],
        &["emit", V4, "--set"][..],
        &["emit", V4, "--set", "WARP_N"][..],
        &["emit", V4, "--set", "WARP_N=wide"][..],
        &["emit", V4, "--set", "NOPE=1"][..],
        &["check", "tests/data/does_not_exist.co"][..],
        &["check", V4, "--bogus"][..],
    ] {
        let (out, code) = cli(args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(out.starts_with("error: "), "{args:?}: {out}");
    }
}

tessel::gemm_kernel!(file = "kernels/sgemm_k1_naive.co");

/// The definition `tessel run` and `tessel tune` build from a file is the macro's, field by
/// field (the macro also carries the CUDA text, which the runtime emits itself when empty).
#[test]
fn a_co_file_loads_as_the_kernel_def_the_macro_generates() {
    let ours = tessel::cli::kernel_def_from_file("kernels/sgemm_k1_naive.co").unwrap();
    let theirs = &sgemm_k1::KERNEL;
    assert_eq!(ours.name, theirs.name);
    assert_eq!(ours.file, theirs.file);
    assert_str_eq!(ours.dsl, theirs.dsl);
    assert_str_eq!(ours.ir, theirs.ir);
    assert_eq!(ours.params.len(), theirs.params.len());
    for (a, b) in ours.params.iter().zip(theirs.params) {
        assert_eq!(
            (a.name, a.dtype, a.space, a.shape),
            (b.name, b.dtype, b.space, b.shape)
        );
    }
    let t = |d: &tessel::TunableDef| (d.name, d.domain, d.default);
    let (a, b): (Vec<_>, Vec<_>) = (
        ours.tunables.iter().map(t).collect(),
        theirs.tunables.iter().map(t).collect(),
    );
    assert_eq!(a, b);
    assert_eq!(ours.cuda, "");
    let err = tessel::cli::kernel_def_from_file("tests/data/bad_swizzle.co").unwrap_err();
    assert_eq!(err.code, tessel::cli::exit::FAILED);
    assert!(err.text.contains("error[E0401]"), "{}", err.text);
}
