//! Held-out kernels: `tests/data/heldout/*.co`, written the way a user of Croqtile, Triton or
//! CUTLASS writes them (batched and fused GEMMs, the TN / TT / NN layouts, softmax, norms,
//! reductions, a transpose, AXPY, a persistent GEMV, 8-bit GEMMs, ragged sizes, futures, default levels, several
//! functions per file), none of them shaped after the kernels under `kernels/`.
//!
//! Each file is either
//!
//! * **accepted**: it passes `check_config` at its defaults and lowers; its `.cu` equals the
//!   golden `tests/golden/heldout/<stem>.cu` (refresh with `TESSEL_BLESS=1 cargo test --test
//!   heldout`), and NVRTC compiles it for sm_90a — and for sm_80 on the SIMT path — into SASS
//!   that holds the instructions the kernel must use, without local memory or spills; or
//! * **rejected**: it holds one mistake, and the first error is the stated code at the stated
//!   line (a real span), never a panic.
//!
//! Every `.co` of the folder is in exactly one of the two lists.

mod common;

use common::{assert_ops, clean_sass, emit_source, golden, nvrtc_and_nvdisasm_available, read};
use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::lower::{KernelPath, launch_form};
use tessel_runtime::nvrtc::Arch;

/// Accepted kernels: file stem, function (for a file of several), the SASS instructions it
/// must use.
const ACCEPTED: &[(&str, Option<&str>, &[&str])] = &[
    ("axpy", None, &["FFMA", "STG"]),
    ("backward_diff", None, &["LDG", "FADD", "STG"]),
    ("batched_gemm", None, &["FFMA", "STG"]),
    ("default_levels_relu", None, &["FMNMX", "STG"]),
    ("fp8_scaled_gemm", None, &["UTMALDG", "QGMMA", "STG"]),
    ("futures_stencil", None, &["LDGSTS", "LDS", "STG"]),
    ("gemm_alpha_beta", None, &["FFMA", "STG"]),
    ("gemm_bias_relu", None, &["LDGSTS", "FMNMX", "STG"]),
    ("gemm_tn_simt", None, &["LDGSTS", "FFMA", "STG"]),
    ("gemm_tt_simt", None, &["FFMA", "STG"]),
    ("gemv_persistent", None, &["LDGSTS", "SHFL.BFLY", "STG"]),
    ("int_update", None, &["IMAD", "STG"]),
    ("int8_warp_gemm", None, &["LDGSTS", "IMMA", "STG"]),
    ("layernorm", None, &["SHFL.BFLY", "MUFU.RSQ", "STG"]),
    ("multi_kernels", Some("square"), &["FMUL", "STG"]),
    ("multi_kernels", Some("halve"), &["FMUL", "STG"]),
    ("no_tunables_scale", None, &["FFMA", "STG"]),
    ("ragged_gemm", None, &["LDGSTS", "FFMA", "STG"]),
    ("rmsnorm", None, &["SHFL.BFLY", "MUFU.RSQ", "STG"]),
    ("row_sum", None, &["SHFL.BFLY", "STG"]),
    ("softmax_block", None, &["MUFU.EX2", "STG"]),
    ("tile_rotate", None, &["LDG", "STG"]),
    ("transpose_smem", None, &["STS", "BAR", "LDS", "STG"]),
    ("warp_mma_tiles", None, &["LDSM", "HMMA", "STG"]),
    ("warp_tn_gemm", None, &["LDSM.16.MT88", "HMMA", "STG"]),
    ("wgmma_nn_gelu", None, &["UTMALDG", "HGMMA", "STG"]),
];

/// Rejected kernels: file stem, the first error's code, its line.
const REJECTED: &[(&str, &str, u32)] = &[
    ("bad_assign_immutable_int", "E0106", 5),
    ("bad_assign_param_dim", "E0103", 4),
    ("bad_barrier_in_branch", "E1690", 7),
    ("bad_copy_shape", "E0202", 5),
    ("bad_dtype_store", "E0206", 10),
    ("bad_keyword_param", "E0107", 2),
    ("bad_math_function_name", "E0107", 4),
    ("bad_mixed_operand_types", "E1403", 8),
    ("bad_mma_k_mismatch", "E1402", 8),
    ("bad_non_ascii_name", "E0107", 2),
    ("bad_smem_overflow", "E0501", 4),
    ("bad_thread_extent_runtime", "E1698", 5),
    ("bad_too_many_threads", "E0601", 3),
    ("bad_ring_no_credits", "E1208", 14),
    ("bad_tunable_default", "E1002", 2),
    ("bad_tunable_twice", "E1003", 3),
    ("bad_undefined_name", "E0101", 5),
    ("bad_wait_not_future", "E0104", 6),
    ("bad_wrong_rank_index", "E0205", 4),
    ("wgmma_tn_hopper", "E1335", 13),
];

fn rel(stem: &str) -> String {
    format!("tests/data/heldout/{stem}.co")
}

/// The launch form of `function` (or the file's one function) in `tests/data/heldout/<stem>.co`.
fn module(stem: &str, function: Option<&str>) -> Result<Module, dsl_core::Diagnostics> {
    let path = rel(stem);
    let text = read(&path);
    let parsed = dsl_core::parse::parse_file(&text, Some(&path));
    let (_, r) = match function {
        Some(f) => parsed
            .into_iter()
            .find(|(n, _)| n == f)
            .unwrap_or_else(|| panic!("{path}: no function `{f}`")),
        None => {
            assert_eq!(parsed.len(), 1, "{path}: name the function");
            parsed.into_iter().next().unwrap()
        }
    };
    r.map(|p| launch_form(p.module))
}

fn golden_stem(stem: &str, function: Option<&str>) -> String {
    match function {
        Some(f) => format!("{stem}_{f}"),
        None => stem.to_string(),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

#[test]
fn every_heldout_file_is_listed_once_and_says_what_it_computes() {
    let stems = common::co_stems("tests/data/heldout");
    let mut listed: Vec<String> = ACCEPTED
        .iter()
        .map(|(s, _, _)| s.to_string())
        .chain(REJECTED.iter().map(|(s, _, _)| s.to_string()))
        .collect();
    listed.sort();
    listed.dedup();
    assert_eq!(stems, listed, "tests/data/heldout/ and the lists differ");
    assert!(
        ACCEPTED.len() >= 15,
        "only {} accepted kernels",
        ACCEPTED.len()
    );
    for s in &stems {
        let text = read(&rel(s));
        assert!(
            first_line(&text).starts_with("// ") && first_line(&text).len() > 20,
            "{s}: the first line is no comment saying what the kernel computes"
        );
    }
}

#[test]
fn accepted_kernels_check_lower_and_match_their_goldens() {
    let mut failures = Vec::new();
    for &(stem, function, _) in ACCEPTED {
        let m = module(stem, function).unwrap_or_else(|d| panic!("{stem}: does not parse:\n{d}"));
        let cfg = Config::defaults(&m);
        // A correct kernel draws no warning (a warning on one is a false alarm).
        let info = check::check_config(&m, &cfg, None, &Limits::default())
            .unwrap_or_else(|d| panic!("{stem}: does not check:\n{d}"));
        assert!(
            info.warnings.is_empty(),
            "{stem}: warnings on a correct kernel:\n{}",
            dsl_core::Diagnostics(info.warnings.clone())
        );
        let (_, cu, _) = emit_source(&m, &rel(stem), &cfg);
        assert!(cu.contains("// dsl:"), "{stem}: no `// dsl:LINE` comments");
        assert_eq!(
            cu,
            emit_source(&m, &rel(stem), &cfg).1,
            "{stem}: two emissions differ"
        );
        let g = format!("tests/golden/heldout/{}.cu", golden_stem(stem, function));
        if let Err(e) = golden(&g, &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_heldout_golden_without_a_kernel() {
    let stems: Vec<String> = ACCEPTED
        .iter()
        .map(|(s, f, _)| golden_stem(s, *f))
        .collect();
    common::assert_no_stray_goldens("tests/golden/heldout", &stems, "held-out kernel");
}

#[test]
fn accepted_kernels_compile_with_nvrtc_into_the_expected_sass() {
    if !nvrtc_and_nvdisasm_available("accepted_kernels_compile_with_nvrtc_into_the_expected_sass") {
        return;
    }
    for &(stem, function, ops) in ACCEPTED {
        let m = module(stem, function).unwrap_or_else(|d| panic!("{stem}:\n{d}"));
        let cfg = Config::defaults(&m);
        let (k, cu, expr) = emit_source(&m, &rel(stem), &cfg);
        let archs: &[Arch] = match k.path {
            KernelPath::Simt => &[Arch::Sm90a, Arch::Sm80],
            KernelPath::Hopper => &[Arch::Sm90a],
        };
        for &arch in archs {
            let what = format!("{stem} ({arch})");
            let c = clean_sass(&what, &cu, &expr, arch);
            assert_ops(&what, &c.sass, ops);
        }
    }
}

/// Integer scalars updated in place (`n += 3; n *= 2;`) stay integer arithmetic: no conversion
/// to or from a float (through f32 they would be exact only up to 2^24).
#[test]
fn integer_updates_convert_nothing_to_float() {
    if !nvrtc_and_nvdisasm_available("integer_updates_convert_nothing_to_float") {
        return;
    }
    let m = module("int_update", None).unwrap_or_else(|d| panic!("int_update:\n{d}"));
    let (_, cu, expr) = emit_source(&m, &rel("int_update"), &Config::defaults(&m));
    let sass = clean_sass("int_update", &cu, &expr, Arch::Sm90a).sass;
    for op in ["I2F", "F2I", "FADD", "FMUL"] {
        assert_eq!(
            tessel_runtime::sass::count(&sass, op),
            0,
            "int_update: {op} in the SASS of integer updates"
        );
    }
}

#[test]
fn rejected_kernels_stop_with_their_code_at_the_mistake() {
    for &(stem, code, line) in REJECTED {
        let diags = match module(stem, None) {
            Err(d) => d,
            Ok(m) => {
                match check::check_config(&m, &Config::defaults(&m), None, &Limits::default()) {
                    Err(d) => d,
                    Ok(_) => panic!("{stem}: accepted, expected {code}"),
                }
            }
        };
        let first = diags
            .0
            .iter()
            .find(|d| d.severity == dsl_core::diag::Severity::Error)
            .unwrap_or_else(|| panic!("{stem}: no error"));
        assert_eq!(
            (first.code, first.span.start.line),
            (code, line),
            "{stem}: first error\n{diags}"
        );
        assert!(first.span.start.col > 0, "{stem}: no column");
        assert!(
            !first.message.is_empty() && first.help.is_some(),
            "{stem}: {code} has no message or help"
        );
    }
}

/// A shared element written by one thread and read by another with no `sync.shared` between:
/// the kernel reads whatever the other thread has or has not written yet. The lowering inserts
/// barriers around copies only, so nothing orders these element accesses: `check` warns
/// (W1212) at the read, with a note at the write.
#[test]
fn a_shared_element_read_across_threads_without_a_barrier_is_flagged() {
    let src = "__co__ void reverse(f32 [N] x, f32 [N] y) {\n  parallel {b} by [cdiv(N, 64)] : block, {t} by [64] : thread {\n    shared f32 [64] s;\n    s.at(t) = x.at(b # t);\n    y.at(b # t) = s.at(63 - t);\n  }\n}\n";
    let m = launch_form(
        dsl_core::parse::parse_str(src, Some("reverse.co"))
            .expect("parses")
            .module,
    );
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::default())
        .unwrap_or_else(|d| panic!("a racy kernel is still a legal one:\n{d}"));
    let codes: Vec<&str> = info.warnings.iter().map(|w| w.code).collect();
    assert_eq!(
        codes,
        vec![dsl_core::check::codes::SHARED_RACE],
        "{:?}",
        info.warnings
    );
    let w = &info.warnings[0];
    let spanned = |s: dsl_core::span::Span| {
        let line = src.lines().nth(s.start.line as usize - 1).unwrap();
        line[s.start.col as usize..s.end.col as usize].to_string()
    };
    assert_eq!(spanned(w.span), "s.at(63 - t)", "{w}");
    assert_eq!(
        w.notes.iter().map(|(s, _)| spanned(*s)).collect::<Vec<_>>(),
        vec!["s.at(t)"],
        "{w}"
    );
    assert_eq!(w.help.as_deref(), Some("add `sync.shared;` between them"));
    // With the barrier, the same kernel is quiet.
    let fixed = src.replace("    y.at", "    sync.shared;\n    y.at");
    let m = launch_form(
        dsl_core::parse::parse_str(&fixed, Some("reverse.co"))
            .expect("parses")
            .module,
    );
    let info =
        check::check_config(&m, &Config::defaults(&m), None, &Limits::default()).expect("checks");
    assert!(info.warnings.is_empty(), "{:?}", info.warnings);
}
