//! Futures renamed by `swap` (`kernels/warp_swap.co`, `dsl-core/tests/lowered/future_swap.co`)
//! compile with NVRTC for sm_80 and show what they promise: tensor-core MMAs (HMMA) fed by
//! `ldmatrix` (LDSM) from tiles that `cp.async` (LDGSTS) copies, and a partial wait
//! (`cp.async.wait_group 2`, a DEPBAR with a count) that leaves the next tiles in flight
//! while the current ones are computed; no local memory.
//!
//! Without NVRTC/nvdisasm these tests print `SKIPPED` and pass, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where they fail (run `tools/setup-nvrtc.sh`).

mod common;

use common::{emit_kernel, emit_module, nvrtc_and_nvdisasm_available, parse_kernel, read};
use dsl_core::check::Config;
use dsl_core::lower::CudaKernel;
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};
use tessel_runtime::sass;

fn sass_of(what: &str, (_, cu, expr): (CudaKernel, String, String)) -> String {
    let req = CompileRequest::new(cu, Arch::Sm80).name_expression(expr.clone());
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
