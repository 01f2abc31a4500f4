//! Element-wise work on an accumulator whose name an inner scope declares again
//! (`tests/data/frag_elem/`): each `mc op= …` and `apply` finds the accumulator its name is bound
//! to by the checker, not the latest one lowered under that name. After the inner scope, the
//! block's accumulator is scaled over all of its elements (by the latest name, the loop ran
//! over the inner accumulator's count: half of a 64 × 128 or 32 × 32 tile). The emitted `.cu`
//! equals its golden (`tests/golden/frag_elem/`, `TESSEL_BLESS=1` to refresh) and compiles
//! with NVRTC to the tensor-core instructions it promises, without local memory.

mod common;

use common::{golden, instance, lower_for, nvrtc_and_nvdisasm_available, read};
use dsl_core::check::Config;
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};
use tessel_runtime::sass;

/// (kernel, arch, instructions, the element loop of the outer accumulator's scaling).
const KERNELS: &[(&str, Arch, &[&str], &str)] = &[
    (
        "scoped_acc_warp",
        Arch::Sm80,
        &["HMMA.16816.F32", "LDSM"],
        "for (int tsl_e = 0; tsl_e < BM / 16 * (BN / 8) * 4; ++tsl_e) {  // dsl:35",
    ),
    (
        "scoped_acc_wgmma",
        Arch::Sm90a,
        &["HGMMA.64x128x16.F32", "HGMMA.64x64x16.F32", "UTMALDG"],
        "for (int tsl_e = 0; tsl_e < BN / 2; ++tsl_e) {  // dsl:40",
    ),
];

/// The `.cu` of `tests/data/frag_elem/<name>.co` at its defaults, and the instance's name.
fn emit(name: &str) -> (String, String) {
    let rel = format!("tests/data/frag_elem/{name}.co");
    let m = dsl_core::parse::parse_str(&read(&rel), Some(&rel))
        .unwrap_or_else(|d| panic!("{rel} does not parse:\n{d}"))
        .module;
    let cfg = Config::defaults(&m);
    let k = lower_for(&m, &cfg, &rel);
    let inst = instance(&k, &cfg);
    let expr = k.name_expression(&inst);
    let cu = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &k,
        source: &rel,
        instance: Some(inst),
    });
    (cu, expr)
}

#[test]
fn the_outer_accumulator_is_scaled_over_all_its_elements() {
    let mut failures = Vec::new();
    for (name, _, _, outer_loop) in KERNELS {
        let (cu, _) = emit(name);
        assert!(
            cu.lines().any(|l| l.trim().starts_with(outer_loop)),
            "{name}: no `{outer_loop}`:\n{cu}"
        );
        if let Err(e) = golden(&format!("tests/golden/frag_elem/{name}.cu"), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn scoped_accumulators_compile_to_tensor_core_code() {
    if !nvrtc_and_nvdisasm_available("scoped_accumulators_compile_to_tensor_core_code") {
        return;
    }
    for (name, arch, ops, _) in KERNELS {
        let (cu, expr) = emit(name);
        let req = CompileRequest::new(cu, *arch).name_expression(expr.clone());
        let module = compile(&req).unwrap_or_else(|e| panic!("{name}: NVRTC failed: {e}"));
        let lowered = module
            .lowered_name(&expr)
            .unwrap_or_else(|| panic!("{name}: no lowered name"))
            .to_string();
        let all = sass::disassemble(&module.cubin).unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = sass::function_sass(&all, &lowered)
            .unwrap_or_else(|| panic!("{name}: `{lowered}` is not in the SASS"));
        assert!(!sass::has_local_memory(s), "{name}: local memory:\n{s}");
        for op in *ops {
            assert!(
                sass::count(s, op) > 0,
                "{name}: no {op} in the SASS; instructions used: {:?}",
                sass::instruction_set(s)
            );
        }
    }
}
