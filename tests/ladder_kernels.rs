//! The ladders' kernels — the SGEMM ladder (kernels 1–8), the Kernel Tuner trio and
//! GEMV — emitted by tessel: golden `.cu` files, and NVRTC compilation with the
//! machine instructions each rung promises (no GPU needed: NVRTC → cubin → nvdisasm):
//!
//! | kernels                         | SASS                                                 |
//! |---------------------------------|------------------------------------------------------|
//! | every SGEMM rung, kt_*          | FFMA (f32 fused multiply-add)                        |
//! | sgemm_k3 … k8, kt_shared/tiled  | LDGSTS (`dma.copy` global → shared is `cp.async`)    |
//! | sgemm_k6, k7, k8                | LDG.E.128 (16-byte global loads), LDS.128 (fragments) |
//! | sgemm_k8 with divisible tiles   | a K step of one basic block (`tsl_even` loop versioning) |
//! | gemv_direct, gemv_staged        | SHFL.BFLY (`reduce.sum`), LDG.E.128; staged: LDGSTS   |
//!
//! at the defaults, for sm_80 (the SIMT path's minimum) and sm_90a (what an H100/H200 runs), with
//! no local memory, no spills and no ptxas performance warnings; the tuned kernels also at other
//! legal configurations of their sweeps.
//!
//! Refresh the goldens after an intended change with `TESSEL_BLESS=1 cargo test --test
//! ladder_kernels`. Without NVRTC/nvdisasm the compile tests print `SKIPPED` and pass, except
//! under `CI=true` or `TESSEL_REQUIRE_NVRTC=1`, where they fail (run `tools/setup-nvrtc.sh`).

mod common;

use common::{emit_kernel, golden, nvrtc_and_nvdisasm_available, parse_kernel};
use dsl_core::check::{Config, Problem};
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};
use tessel_runtime::sass;

/// The ladders' kernels, `kernels/<name>.co`.
const LADDER: [&str; 13] = [
    "sgemm_k1_naive",
    "sgemm_k2_coalesce",
    "sgemm_k3_smem",
    "sgemm_k4_1d_tiling",
    "sgemm_k5_2d_tiling",
    "sgemm_k6_vectorize",
    "sgemm_k7_autotune",
    "sgemm_k8_warptile",
    "kt_naive",
    "kt_shared",
    "kt_tiled",
    "gemv_direct",
    "gemv_staged",
];

#[test]
fn every_ladder_kernel_matches_its_golden_cu() {
    let mut failures = Vec::new();
    for name in LADDER {
        let cfg = Config::defaults(&parse_kernel(name));
        let (_, cu, expr) = emit_kernel(name, &cfg);
        assert!(cu.contains("// dsl:"), "{name}: no `// dsl:LINE` comments");
        assert!(
            cu.contains(&format!("template __global__ void {expr}")),
            "{name}: the default instance `{expr}` is not instantiated"
        );
        if let Err(e) = golden(&format!("tests/golden/cu/{name}.cu"), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What one compiled instance showed.
struct Compiled {
    what: String,
    sass: String,
}

/// Emits `kernels/<name>.co` for `cfg`, compiles it for `arch`, disassembles it and checks what
/// every instance must have: no local memory, no spills (unless `spills_ok`), no warnings.
fn compile_instance(name: &str, cfg: &Config, arch: Arch, spills_ok: bool) -> Compiled {
    let (_, cu, expr) = emit_kernel(name, cfg);
    let what = format!("{name} `{expr}` for {arch}");
    let req = CompileRequest::new(cu, arch).name_expression(expr.clone());
    let module = compile(&req).unwrap_or_else(|e| panic!("{what}: NVRTC failed: {e}"));
    let lowered = module
        .lowered_name(&expr)
        .unwrap_or_else(|| panic!("{what}: no lowered name"))
        .to_string();
    let all = sass::disassemble(&module.cubin).unwrap_or_else(|e| panic!("{what}: {e}"));
    let sass = sass::function_sass(&all, &lowered)
        .unwrap_or_else(|| panic!("{what}: `{lowered}` is not in the SASS"))
        .to_string();
    let r = module
        .resources_for(&expr)
        .unwrap_or_else(|| panic!("{what}: no ptxas report in the log:\n{}", module.log))
        .clone();
    let what = format!("{what} ({} registers)", r.registers);
    if !spills_ok {
        assert!(
            r.spill_stores == 0 && r.spill_loads == 0,
            "{what}: spills {} bytes, reloads {} bytes",
            r.spill_stores,
            r.spill_loads
        );
        assert!(
            !sass::has_local_memory(&sass),
            "{what}: local memory (LDL/STL) in the SASS: a register tile did not stay in registers"
        );
        let warnings = module.perf_warnings();
        assert!(
            warnings.is_empty(),
            "{what}: ptxas performance warnings:\n{}",
            warnings.join("\n")
        );
    }
    Compiled { what, sass }
}

fn assert_has(c: &Compiled, ops: &[&str]) {
    for op in ops {
        assert!(
            sass::count(&c.sass, op) > 0,
            "{}: no {op} in the SASS; instructions used: {:?}",
            c.what,
            sass::instruction_set(&c.sass)
        );
    }
}

fn defaults(name: &str) -> Config {
    Config::defaults(&parse_kernel(name))
}

/// Compiles `name` at its defaults for sm_80 and sm_90a and checks `ops` in both.
fn check_defaults(test: &str, name: &str, ops: &[&str]) {
    if !nvrtc_and_nvdisasm_available(test) {
        return;
    }
    for arch in [Arch::Sm80, Arch::Sm90a] {
        let c = compile_instance(name, &defaults(name), arch, false);
        assert_has(&c, ops);
        eprintln!("{}", c.what);
    }
}

#[test]
fn sgemm_k1_naive_uses_ffma() {
    check_defaults("sgemm_k1_naive_uses_ffma", "sgemm_k1_naive", &["FFMA"]);
}

#[test]
fn sgemm_k2_coalesce_uses_ffma() {
    check_defaults(
        "sgemm_k2_coalesce_uses_ffma",
        "sgemm_k2_coalesce",
        &["FFMA"],
    );
}

#[test]
fn sgemm_k3_smem_uses_ffma_and_cp_async() {
    check_defaults("sgemm_k3_smem", "sgemm_k3_smem", &["FFMA", "LDGSTS"]);
}

#[test]
fn sgemm_k4_1d_tiling_uses_ffma_and_cp_async() {
    check_defaults("sgemm_k4", "sgemm_k4_1d_tiling", &["FFMA", "LDGSTS"]);
}

#[test]
fn sgemm_k5_2d_tiling_uses_ffma_and_cp_async() {
    check_defaults("sgemm_k5", "sgemm_k5_2d_tiling", &["FFMA", "LDGSTS"]);
}

const VECTOR_OPS: [&str; 5] = ["FFMA", "LDG.E.128", "LDS.128", "STG.E.128", "LDGSTS"];

#[test]
fn sgemm_k6_vectorize_uses_16_byte_loads() {
    check_defaults("sgemm_k6", "sgemm_k6_vectorize", &VECTOR_OPS);
}

#[test]
fn sgemm_k7_autotune_uses_16_byte_loads() {
    check_defaults("sgemm_k7", "sgemm_k7_autotune", &VECTOR_OPS);
}

/// k8 stores its accumulators element by element (`STG.E`, see the kernel's epilogue), so that
/// their registers need not come in aligned fours.
#[test]
fn sgemm_k8_warptile_uses_16_byte_loads() {
    check_defaults(
        "sgemm_k8",
        "sgemm_k8_warptile",
        &["FFMA", "LDG.E.128", "LDS.128", "STG.E", "LDGSTS"],
    );
}

/// When its tile grids divide the matrices, k8's K step is one basic block: the lowering emits
/// the loop a second time with branch-free copies (`if (tsl_even)`), so ptxas schedules the
/// copies' global loads together with every FFMA of the step (BENCHMARKS.md). In
/// the loop of the general copies, their edge tests keep the loads in blocks of their own.
#[test]
fn sgemm_k8_even_k_step_is_one_basic_block() {
    if !nvrtc_and_nvdisasm_available("sgemm_k8_even_k_step_is_one_basic_block") {
        return;
    }
    let cfg = defaults("sgemm_k8_warptile");
    let v = |n: &str| cfg.values[n];
    let ffma_per_step = (v("BK") * v("WM") * v("WN") / 32) as usize;
    let c = compile_instance("sgemm_k8_warptile", &cfg, Arch::Sm90a, false);
    let count = |b: &[sass::Instruction], op: &str| b.iter().filter(|i| i.mnemonic() == op).count();
    let steps: Vec<_> = sass::basic_blocks(&c.sass)
        .into_iter()
        .filter(|b| count(b, "FFMA") == ffma_per_step)
        .collect();
    assert_eq!(
        steps.len(),
        2,
        "{}: expected the K step's {ffma_per_step} FFMAs in one block in each loop version",
        c.what
    );
    let with_loads: Vec<_> = steps
        .iter()
        .filter(|b| count(b, "LDGSTS") > 0 && count(b, "LDG") > 0)
        .collect();
    assert_eq!(
        with_loads.len(),
        1,
        "{}: expected the global loads in the FFMA block of the even loop only",
        c.what
    );
    assert!(count(with_loads[0], "LDS") > 0, "{}", c.what);
}

#[test]
fn kernel_tuner_trio_uses_ffma() {
    check_defaults("kt_naive", "kt_naive", &["FFMA"]);
    check_defaults("kt_shared", "kt_shared", &["FFMA", "LDGSTS"]);
    check_defaults("kt_tiled", "kt_tiled", &["FFMA", "LDGSTS"]);
}

#[test]
fn gemv_direct_uses_warp_shuffles_and_16_byte_loads() {
    check_defaults(
        "gemv_direct",
        "gemv_direct",
        &["SHFL.BFLY", "LDG.E.128", "FFMA"],
    );
}

#[test]
fn gemv_staged_uses_cp_async_and_warp_shuffles() {
    check_defaults(
        "gemv_staged",
        "gemv_staged",
        &["SHFL.BFLY", "LDGSTS", "LDS.128", "FFMA"],
    );
}

/// A spread of `name`'s legal configurations for a 4096³ problem (the sweep's own filter).
fn legal_sample(name: &str, n: usize) -> Vec<Config> {
    let m = parse_kernel(name);
    let problem = Problem::default()
        .with("M", 4096)
        .with("N", 4096)
        .with("K", 4096);
    let legal = tessel_runtime::tune::strategy::legal_configs(
        &m,
        &problem,
        &dsl_core::check::Limits::default(),
    );
    assert!(!legal.is_empty(), "{name}: no legal configuration");
    tessel_runtime::tune::strategy::stride_pick(&legal, n, &Config::defaults(&m))
}

/// The swept kernels instantiate across their legal space: every sampled configuration compiles
/// and keeps its promised instructions (register pressure may make a large tile spill; the sweep
/// times those too, so spills are not an error here).
#[test]
fn tuned_kernels_instantiate_across_their_sweeps() {
    if !nvrtc_and_nvdisasm_available("tuned_kernels_instantiate_across_their_sweeps") {
        return;
    }
    for (name, n, ops) in [
        ("sgemm_k7_autotune", 5, &["FFMA", "LDG.E.128"][..]),
        ("sgemm_k8_warptile", 5, &["FFMA", "LDG.E.128"][..]),
        ("kt_tiled", 3, &["FFMA"][..]),
    ] {
        for cfg in legal_sample(name, n) {
            let c = compile_instance(name, &cfg, Arch::Sm90a, true);
            assert_has(&c, ops);
            eprintln!("{}", c.what);
        }
    }
}

/// GEMV in bf16 (the `--dtype bf16` variant) compiles to the same instructions.
#[test]
fn gemv_bf16_variant_compiles() {
    if !nvrtc_and_nvdisasm_available("gemv_bf16_variant_compiles") {
        return;
    }
    for name in ["gemv_direct", "gemv_staged"] {
        let m = dsl_core::def::retype(
            &parse_kernel(name),
            dsl_core::def::Variant {
                input: Some(dsl_core::ir::DType::BF16),
                acc: None,
            },
        );
        let cfg = Config::defaults(&m);
        let k = common::lower_for(&m, &cfg, name);
        let inst = common::instance(&k, &cfg);
        let expr = k.name_expression(&inst);
        let cu = codegen_cuda::emit(&codegen_cuda::Emit {
            kernel: &k,
            source: &format!("kernels/{name}.co"),
            instance: Some(inst),
        });
        assert!(
            cu.contains("tsl_bf16* __restrict__ y"),
            "{name}: not re-typed"
        );
        let module = compile(&CompileRequest::new(cu, Arch::Sm90a).name_expression(expr.clone()))
            .unwrap_or_else(|e| panic!("{name} bf16: NVRTC failed: {e}"));
        let lowered = module.lowered_name(&expr).unwrap().to_string();
        let all = sass::disassemble(&module.cubin).unwrap();
        let s = sass::function_sass(&all, &lowered).unwrap();
        assert!(sass::count(s, "SHFL.BFLY") > 0, "{name} bf16: no SHFL.BFLY");
        assert!(!sass::has_local_memory(s), "{name} bf16: local memory");
    }
}
