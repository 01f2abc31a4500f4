//! The constructs of today's Croqtile that tessel lowers on the SIMT path compile with NVRTC
//! and show the machine instructions they promise (no GPU needed: NVRTC → cubin → nvdisasm):
//!
//! | kernel                                 | SASS                                   |
//! |----------------------------------------|----------------------------------------|
//! | kernels/gemm_futures (futures)         | LDGSTS (`cp.async`), BAR               |
//! | kernels/gemm_store_tile (shared→global)| STG after BAR, no LDGSTS on the store  |
//! | kernels/gemv_1d_tiles (1-D tiles)      | LDGSTS, STG                            |
//! | kernels/gemm_bias_gelu (fused epilogue)| FFMA, the bias read (LDG), STG         |
//! | dsl-core/tests/lowered/math_builtins   | MUFU.EX2 (`exp`), MUFU.RSQ (`rsqrt`)   |
//! | kernels/warp_swap (`dma.any`, `swap`)  | HMMA, LDSM, LDGSTS, DEPBAR of count 2  |
//! | dsl-core/tests/lowered/future_swap     | HMMA, LDSM, LDGSTS                     |
//! | `println` (device printf)              | a `vprintf` call                       |
//!
//! and every `dsl-core/tests/lowered/*.co` compiles without local memory (sm_80, or sm_90a for a
//! Hopper-path kernel such as `sparse_direct`).
//!
//! Without NVRTC/nvdisasm these tests print `SKIPPED` and pass, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where they fail (run `tools/setup-nvrtc.sh`).

mod common;

use common::{emit_kernel, emit_module, nvrtc_and_nvdisasm_available, parse_kernel, read};
use dsl_core::check::Config;
use dsl_core::lower::CudaKernel;
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};
use tessel_runtime::sass;

/// The SASS of the emitted kernel's instance, compiled for sm_80 (a Hopper-path kernel, such
/// as a sparse WGMMA one, for sm_90a); no local memory.
fn sass_of(what: &str, (k, cu, expr): (CudaKernel, String, String)) -> String {
    let arch = match k.path {
        dsl_core::lower::KernelPath::Simt => Arch::Sm80,
        dsl_core::lower::KernelPath::Hopper => Arch::Sm90a,
    };
    let req = CompileRequest::new(cu, arch).name_expression(expr.clone());
    let module = compile(&req).unwrap_or_else(|e| panic!("{what}: NVRTC failed: {e}"));
    let lowered = module
        .lowered_name(&expr)
        .unwrap_or_else(|| panic!("{what}: no lowered name"))
        .to_string();
    let all = sass::disassemble(&module.cubin).unwrap_or_else(|e| panic!("{what}: {e}"));
    let s = sass::function_sass(&all, &lowered)
        .unwrap_or_else(|| panic!("{what}: `{lowered}` is not in the SASS"))
        .to_string();
    assert!(!sass::has_local_memory(&s), "{what}: local memory:\n{s}");
    s
}

fn kernel_sass(name: &str) -> String {
    sass_of(
        name,
        emit_kernel(name, &Config::defaults(&parse_kernel(name))),
    )
}

fn assert_has(what: &str, s: &str, ops: &[&str]) {
    for op in ops {
        assert!(
            sass::count(s, op) > 0,
            "{what}: no {op} in the SASS; instructions used: {:?}",
            sass::instruction_set(s)
        );
    }
}

#[test]
fn futures_copy_with_cp_async() {
    if !nvrtc_and_nvdisasm_available("futures_copy_with_cp_async") {
        return;
    }
    let s = kernel_sass("gemm_futures");
    assert_has("gemm_futures", &s, &["LDGSTS", "BAR", "FFMA"]);
}

#[test]
fn shared_to_global_copies_store_the_tile() {
    if !nvrtc_and_nvdisasm_available("shared_to_global_copies_store_the_tile") {
        return;
    }
    let s = kernel_sass("gemm_store_tile");
    assert_has("gemm_store_tile", &s, &["STS", "LDS", "STG", "BAR"]);
    let s = kernel_sass("gemv_1d_tiles");
    assert_has("gemv_1d_tiles", &s, &["LDGSTS", "STG", "FFMA"]);
}

#[test]
fn the_fused_epilogue_reads_the_bias_and_stores_once() {
    if !nvrtc_and_nvdisasm_available("the_fused_epilogue_reads_the_bias_and_stores_once") {
        return;
    }
    let s = kernel_sass("gemm_bias_gelu");
    assert_has("gemm_bias_gelu", &s, &["FFMA", "LDG", "STG"]);
}

#[test]
fn math_builtins_use_the_special_function_unit() {
    if !nvrtc_and_nvdisasm_available("math_builtins_use_the_special_function_unit") {
        return;
    }
    let rel = "dsl-core/tests/lowered/math_builtins.co";
    let m = dsl_core::lower::launch_form(
        dsl_core::parse::parse_str(&read(rel), Some(rel))
            .unwrap()
            .module,
    );
    let s = sass_of(rel, emit_module("math_builtins", &m, &Config::defaults(&m)));
    assert_has(rel, &s, &["MUFU.EX2", "MUFU.RSQ"]);
}

#[test]
fn every_lowered_construct_compiles() {
    if !nvrtc_and_nvdisasm_available("every_lowered_construct_compiles") {
        return;
    }
    let dir = common::root().join("dsl-core/tests/lowered");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 4, "{names:?}");
    for name in names {
        let rel = format!("dsl-core/tests/lowered/{name}.co");
        let m = dsl_core::lower::launch_form(
            dsl_core::parse::parse_str(&read(&rel), Some(&rel))
                .unwrap()
                .module,
        );
        sass_of(&rel, emit_module(&name, &m, &Config::defaults(&m)));
    }
}

/// Futures renamed by `swap` keep the next tiles in flight: `cp.async.wait_group 2` (a DEPBAR
/// with a count) leaves them loading while the current ones feed the MMAs.
#[test]
fn warp_swap_overlaps_the_next_tiles_with_the_mmas() {
    if !nvrtc_and_nvdisasm_available("warp_swap_overlaps_the_next_tiles_with_the_mmas") {
        return;
    }
    let name = "warp_swap";
    let s = sass_of(
        name,
        emit_kernel(name, &Config::defaults(&parse_kernel(name))),
    );
    assert_has(name, &s, &["HMMA.16816.F32", "LDSM", "LDGSTS", "BAR"]);
    // `cp.async.wait_group 2` in the loop: a scoreboard wait for a count of groups.
    assert!(
        s.lines()
            .any(|l| l.contains("DEPBAR") && l.contains(", 0x2")),
        "{name}: no DEPBAR waiting for all but two groups:\n{s}"
    );
}

#[test]
fn future_swap_over_whole_operands_compiles() {
    if !nvrtc_and_nvdisasm_available("future_swap_over_whole_operands_compiles") {
        return;
    }
    let rel = "dsl-core/tests/lowered/future_swap.co";
    let m = dsl_core::lower::launch_form(
        dsl_core::parse::parse_str(&read(rel), Some(rel))
            .unwrap()
            .module,
    );
    let s = sass_of(rel, emit_module("future_swap", &m, &Config::defaults(&m)));
    assert_has(rel, &s, &["HMMA.16816.F32", "LDSM", "LDGSTS"]);
}

/// Device printf compiles (a call of `vprintf`; its argument buffer lives in local memory, the
/// one place a tessel kernel may use it).
#[test]
fn println_compiles_to_a_vprintf_call() {
    if !nvrtc_and_nvdisasm_available("println_compiles_to_a_vprintf_call") {
        return;
    }
    let text = "__co__ void show(f32 [N] x, int tag, f32 [N] y) {
  parallel {b} by [cdiv(N, 32)] : block, {t} by [32] : thread {
    if (t == 0) {
      println(\"block \", b, \" (tag \", tag, \"): x = \", x.at(b#t), \", 100%\");
      print(\"partial line \");
    }
    y.at(b#t) = x.at(b#t) * 2.0f;
  }
}
";
    let m = dsl_core::parse::parse_str(text, Some("show.co"))
        .unwrap()
        .module;
    let (_, cu, expr) = emit_module("show", &m, &Config::defaults(&m));
    let module = compile(&CompileRequest::new(cu, Arch::Sm80).name_expression(expr.clone()))
        .unwrap_or_else(|e| panic!("NVRTC failed: {e}"));
    let lowered = module.lowered_name(&expr).unwrap().to_string();
    let all = sass::disassemble(&module.cubin).unwrap();
    let s = sass::function_sass(&all, &lowered).unwrap();
    assert!(
        s.contains("vprintf"),
        "no vprintf call: {:?}",
        sass::instruction_set(s)
    );
}

/// Element-wise epilogues on accumulators in registers (`mc *= alpha;`, `apply {i, j} in
/// mc.span { … }`): on the warp path the scaled, biased accumulator is clamped by FMNMX (relu)
/// between the HMMAs and the stores; on the WGMMA path SiLU's exponential (MUFU.EX2) follows the
/// HGMMAs, and a causal mask's exponentials too; row softmaxes reduce each row across its quad
/// (SHFL.BFLY). No local memory: the element loops unroll over register indices.
#[test]
fn accumulator_epilogues_stay_in_registers() {
    if !nvrtc_and_nvdisasm_available("accumulator_epilogues_stay_in_registers") {
        return;
    }
    let s = kernel_sass("warp_epilogue");
    assert_has(
        "warp_epilogue",
        &s,
        &["HMMA.16816.F32", "FMNMX", "LDG", "STG"],
    );
    let s = kernel_sass("wgmma_epilogue");
    assert_has("wgmma_epilogue", &s, &["HGMMA", "MUFU.EX2", "STG"]);
    for name in [
        "frag_elem_mask",
        "frag_elem_s32",
        "frag_elem_f16acc",
        "frag_softmax_warp",
        "frag_softmax_wgmma",
    ] {
        let rel = format!("dsl-core/tests/lowered/{name}.co");
        let m = dsl_core::lower::launch_form(
            dsl_core::parse::parse_str(&read(&rel), Some(&rel))
                .unwrap()
                .module,
        );
        let s = sass_of(&rel, emit_module(name, &m, &Config::defaults(&m)));
        let ops: &[&str] = match name {
            "frag_elem_mask" => &["HGMMA", "MUFU.EX2"],
            "frag_elem_s32" => &["IMMA"],
            // Row reductions: the quad's shuffles; the exponentials.
            "frag_softmax_warp" => &["HMMA.16816.F32", "SHFL.BFLY", "MUFU.EX2"],
            "frag_softmax_wgmma" => &["HGMMA", "SHFL.BFLY", "MUFU.EX2"],
            _ => &["HMMA.16816.F16"],
        };
        assert_has(&rel, &s, ops);
    }
}
