//! Golden CUDA, NVRTC compiles and SASS of the language constructs that lower:
//!
//! * every `dsl-core/tests/lowered/*.co` (each a small kernel of one construct of today's
//!   Croqtile; IR goldens `dsl-core/tests/lowered/*.ir`, `lowered_lang.rs`), and
//! * every function of `dsl-core/tests/lang/*.co` (the language's IR-dump goldens,
//!   `lang_constructs.rs`) that passes the lowering gate — the ones that do not stop with a
//!   "not supported yet" code, which `lang_constructs.rs` checks —
//!
//! in its launch form, lowered at its defaults and emitted with the default instance, must equal
//! the committed `tests/data/lang_cu/<dir>_<file>[_<function>].cu`, and compile with NVRTC
//! (sm_80, or sm_90a on the Hopper path) into SASS that stores its result (STG, or a TMA store)
//! without local memory (a kernel that prints calls `vprintf`, whose arguments pass through a
//! local buffer). The list of lang functions that lower is pinned, so a construct that
//! stops lowering fails here.
//!
//! Refresh after an intended change with `TESSEL_BLESS=1 cargo test --test lang_golden_cu`,
//! then review the diff of `tests/data/lang_cu/` like any code change. The NVRTC test prints
//! `SKIPPED` and passes without NVRTC/nvdisasm, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where it fails (run `tools/setup-nvrtc.sh`).

mod common;

use common::{golden, lower_for, nvrtc_and_nvdisasm_available, read, root};
use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::lower::{KernelPath, launch_form};
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};
use tessel_runtime::sass;

/// The functions of `dsl-core/tests/lang/*.co` that lower (file, function).
const LANG_LOWERED: &[(&str, &str)] = &[
    ("default_levels", "copy"),
    ("extent_of", "halves"),
    ("first_tile", "head"),
    ("hints_and_builtins", "hints"),
    ("multi", "first"),
    ("multi", "second"),
    ("nested_default_levels", "add"),
    ("partial_warps", "fill"),
    ("println", "show"),
    ("program_file", "scale"),
    ("warp_mma", "warp_gemm"),
    ("warp_shapes", "u8_rows8"),
    ("warp_shapes", "mixed_refill"),
    ("warp_shapes", "f16_k4_transposed"),
    ("wgmma_forms", "stores"),
    ("wgmma_forms", "scaled"),
    ("wgmma_forms", "in_flight"),
];

/// One construct kernel: its golden's stem, its source path and its launch-form module.
struct Case {
    stem: String,
    rel: String,
    module: Module,
}

fn co_files(dir: &str) -> Vec<String> {
    let path = root().join(dir);
    let mut names: Vec<String> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn passes_gate(m: &Module) -> bool {
    check::check_config(m, &Config::defaults(m), None, &Limits::SM90).is_ok()
}

/// Every lowered construct kernel: all of `lowered/`, and the lang functions that pass the gate.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for name in co_files("dsl-core/tests/lowered") {
        let rel = format!("dsl-core/tests/lowered/{name}.co");
        let m = dsl_core::parse::parse_str(&read(&rel), Some(&rel))
            .unwrap_or_else(|d| panic!("{rel}:\n{d}"))
            .module;
        out.push(Case {
            stem: format!("lowered_{name}"),
            rel,
            module: launch_form(m),
        });
    }
    let mut lowering = Vec::new();
    for name in co_files("dsl-core/tests/lang") {
        let rel = format!("dsl-core/tests/lang/{name}.co");
        let text = read(&rel);
        let parsed = dsl_core::parse::parse_file(&text, Some(&rel));
        let several = parsed.len() > 1;
        for (func, r) in parsed {
            let Ok(p) = r else { continue };
            let m = launch_form(p.module);
            if !passes_gate(&m) {
                continue;
            }
            lowering.push((name.clone(), func.clone()));
            out.push(Case {
                stem: if several {
                    format!("lang_{name}_{func}")
                } else {
                    format!("lang_{name}")
                },
                rel: rel.clone(),
                module: m,
            });
        }
    }
    let want: Vec<(String, String)> = LANG_LOWERED
        .iter()
        .map(|(f, g)| (f.to_string(), g.to_string()))
        .collect();
    assert_eq!(lowering, want, "the lang functions that lower changed");
    out
}

/// The emitted CUDA of one case (defaults, default instance) and its name expression.
fn emit(c: &Case) -> (dsl_core::lower::CudaKernel, String, String) {
    let cfg = Config::defaults(&c.module);
    let k = lower_for(&c.module, &cfg, &c.rel);
    let inst = common::instance(&k, &cfg);
    let expr = k.name_expression(&inst);
    let cu = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &k,
        source: &c.rel,
        instance: Some(inst),
    });
    (k, cu, expr)
}

#[test]
fn every_lowered_construct_matches_its_golden_cu() {
    let cases = cases();
    assert!(cases.len() >= 20, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let (_, cu, _) = emit(c);
        assert!(
            cu.contains("// dsl:"),
            "{}: no `// dsl:LINE` comments",
            c.stem
        );
        assert_eq!(cu, emit(c).1, "{}: two emissions differ", c.stem);
        if let Err(e) = golden(&format!("tests/data/lang_cu/{}.cu", c.stem), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_golden_without_a_construct() {
    let stems: Vec<String> = cases().into_iter().map(|c| c.stem).collect();
    common::assert_no_stray_goldens("tests/data/lang_cu", &stems, "construct kernel");
}

#[test]
fn every_lowered_construct_compiles_and_stores_its_result() {
    if !nvrtc_and_nvdisasm_available("every_lowered_construct_compiles_and_stores_its_result") {
        return;
    }
    for c in cases() {
        let (k, cu, expr) = emit(&c);
        let arch = match k.path {
            KernelPath::Simt => Arch::Sm80,
            KernelPath::Hopper => Arch::Sm90a,
        };
        let what = &c.stem;
        let prints = cu.contains("printf(");
        let module = compile(&CompileRequest::new(cu, arch).name_expression(expr.clone()))
            .unwrap_or_else(|e| panic!("{what}: NVRTC failed: {e}"));
        let lowered = module
            .lowered_name(&expr)
            .unwrap_or_else(|| panic!("{what}: no lowered name"))
            .to_string();
        let all = sass::disassemble(&module.cubin).unwrap_or_else(|e| panic!("{what}: {e}"));
        let s = sass::function_sass(&all, &lowered)
            .unwrap_or_else(|| panic!("{what}: `{lowered}` is not in the SASS"));
        // Device printf passes its arguments through a local buffer (the one use of local
        // memory a tessel kernel may make): a kernel that prints calls `vprintf`.
        if prints {
            assert!(
                s.contains("vprintf"),
                "{what}: prints without vprintf:\n{s}"
            );
        } else {
            assert!(!sass::has_local_memory(s), "{what}: local memory:\n{s}");
        }
        // A global atomic whose result is unused is a reduction (RED), a store too.
        assert!(
            sass::count(s, "STG") + sass::count(s, "UTMASTG") + sass::count(s, "RED") > 0,
            "{what}: stores nothing; instructions used: {:?}",
            sass::instruction_set(s)
        );
    }
}
