//! The kernels of `kernels/`, emitted by tessel, compile with NVRTC for their architecture and show the
//! machine instructions their path promises (no GPU needed: NVRTC → cubin → nvdisasm):
//!
//! | kernel          | arch    | SASS                          |
//! |-----------------|---------|-------------------------------|
//! | v0_naive        | sm_80   | HFMA2 (f16 FMA)               |
//! | v1_shared       | sm_80   | HFMA2, LDGSTS (`cp.async`)    |
//! | v2, v3, v4      | sm_90a  | HGMMA, UTMALDG, UTMASTG       |
//! | wgmma_direct    | sm_90a  | HGMMA × TILE_K/16 per k-tile  |
//! | v4_fp8          | sm_90a  | QGMMA (e4m3, e5m2), UTMALDG (.MULTICAST) |
//! | wgmma_s8        | sm_90a  | IGMMA (s8 → s32), UTMALDG     |
//! | v4_s8           | sm_90a  | IGMMA (s8 → s32) × TILE_K/32, UTMALDG (.MULTICAST), UTMASTG |
//! | v2/v4_cluster   | sm_90a  | + UTMALDG.2D.MULTICAST, UCGABAR |
//! | gemm_sparse(_fp8) | sm_90a | HGMMA.SP / QGMMA.SP (2:4 sparse) |
//! | gemm_sparse_futures(_fp8) | sm_90a | HGMMA.SP / QGMMA.SP through future-loaded tiles |
//! | gemm_loadc      | sm_80, sm_90a | HMMA.1688 between LDG and STG of the output |
//! | wgmma_regs_a, wgmma_regs_fill | sm_90a | HGMMA with A in registers (`R…, gdesc`) |
//!
//! and none touches local memory (no LDL/STL, no spills in the ptxas report). v4 is also
//! compiled at non-default configurations to prove the template instantiates across its domain
//! (clusters with multicast, the epilogue in two column slices at WARP_N = 256 with 4 stages).
//! Every other `kernels/*.co` is held to its path's floor: SIMT kernels issue some FMA
//! (FFMA/HFMA2/HFMA), Hopper kernels HGMMA and TMA, none uses local memory.
//!
//! Without NVRTC/nvdisasm these tests print `SKIPPED` and pass, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where they fail (run `tools/setup-nvrtc.sh`).

mod common;

use common::{
    KERNELS, emit_kernel, emit_module, kernel_files, nvrtc_and_nvdisasm_available, parse_kernel,
};
use dsl_core::check::Config;
use dsl_core::def::{Variant, retype};
use dsl_core::ir::DType;
use dsl_core::lower::{CudaKernel, KernelPath};
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};
use tessel_runtime::sass;

/// What one compiled instance showed.
struct Compiled {
    what: String,
    sass: String,
}

/// Emits `kernels/<name>.co` for `cfg`, compiles the instance for its path's architecture,
/// disassembles it and checks the properties every kernel must have.
fn compile_instance(name: &str, cfg: &Config) -> Compiled {
    compile_emitted(name, emit_kernel(name, cfg))
}

/// [`compile_instance`] of an emitted kernel (`emit_kernel`'s or `emit_module`'s result).
fn compile_emitted(name: &str, (k, cu, expr): (CudaKernel, String, String)) -> Compiled {
    let arch = match k.path {
        KernelPath::Simt => Arch::Sm80,
        KernelPath::Hopper => Arch::Sm90a,
    };
    let what = format!("{name} `{expr}` for {arch}");
    let req = CompileRequest::new(cu, arch).name_expression(expr.clone());
    let module = compile(&req).unwrap_or_else(|e| panic!("{what}: NVRTC failed: {e}"));
    let lowered = module
        .lowered_name(&expr)
        .unwrap_or_else(|| panic!("{what}: no lowered name"))
        .to_string();
    let all = sass::disassemble(&module.cubin).unwrap_or_else(|e| panic!("{what}: {e}"));
    let sass = sass::function_sass(&all, &lowered)
        .unwrap_or_else(|| panic!("{what}: `{lowered}` is not in the SASS:\n{all}"))
        .to_string();
    let r = module
        .resources_for(&expr)
        .unwrap_or_else(|| panic!("{what}: no ptxas report in the log:\n{}", module.log))
        .clone();
    let what = format!("{what} ({} registers)", r.registers);
    assert!(r.registers > 0, "{what}: ptxas reported no registers");
    assert!(
        r.spill_stores == 0 && r.spill_loads == 0,
        "{what}: spills {} bytes, reloads {} bytes\n{}",
        r.spill_stores,
        r.spill_loads,
        module.log
    );
    assert!(
        !sass::has_local_memory(&sass),
        "{what}: local memory (LDL/STL) in the SASS:\n{sass}"
    );
    let mut warnings = module.perf_warnings();
    // `flash_attention` rescales its output accumulator between the WGMMAs that write it; ptxas
    // then serializes the WGMMAs (C7514). Each of its WGMMA batches is waited for before the
    // next statement anyway, so there is no overlap to lose.
    if name == "flash_attention" {
        warnings.retain(|w| !w.contains("(C7514)"));
    }
    assert!(
        warnings.is_empty(),
        "{what}: ptxas performance warnings:\n{}",
        warnings.join("\n")
    );
    Compiled { what, sass }
}

fn defaults(name: &str) -> Config {
    Config::defaults(&parse_kernel(name))
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

const HOPPER_OPS: [&str; 3] = ["HGMMA", "UTMALDG", "UTMASTG"];

#[test]
fn v0_naive_uses_f16_fma() {
    if !nvrtc_and_nvdisasm_available("v0_naive_uses_f16_fma") {
        return;
    }
    let c = compile_instance("v0_naive", &defaults("v0_naive"));
    assert_has(&c, &["HFMA2"]);
    eprintln!("{}", c.what);
}

#[test]
fn v1_shared_uses_f16_fma_and_cp_async() {
    if !nvrtc_and_nvdisasm_available("v1_shared_uses_f16_fma_and_cp_async") {
        return;
    }
    let c = compile_instance("v1_shared", &defaults("v1_shared"));
    assert_has(&c, &["HFMA2", "LDGSTS"]);
    eprintln!("{}", c.what);
}

#[test]
fn v2_tma_wgmma_uses_hgmma_and_tma() {
    if !nvrtc_and_nvdisasm_available("v2_tma_wgmma_uses_hgmma_and_tma") {
        return;
    }
    let c = compile_instance("v2_tma_wgmma", &defaults("v2_tma_wgmma"));
    assert_has(&c, &HOPPER_OPS);
    eprintln!("{}", c.what);
}

#[test]
fn v3_warpspec_uses_hgmma_and_tma() {
    if !nvrtc_and_nvdisasm_available("v3_warpspec_uses_hgmma_and_tma") {
        return;
    }
    let c = compile_instance("v3_warpspec", &defaults("v3_warpspec"));
    assert_has(&c, &HOPPER_OPS);
    eprintln!("{}", c.what);
}

#[test]
fn v4_tuned_uses_hgmma_and_tma() {
    if !nvrtc_and_nvdisasm_available("v4_tuned_uses_hgmma_and_tma") {
        return;
    }
    let c = compile_instance("v4_tuned", &defaults("v4_tuned"));
    assert_has(&c, &HOPPER_OPS);
    eprintln!("{}", c.what);
}

/// The template instantiates away from the defaults: other WGMMA widths, ring depths, a single
/// consumer, and the 32-wide K tile (64-byte swizzle).
#[test]
fn v4_tuned_instantiates_at_other_configs() {
    if !nvrtc_and_nvdisasm_available("v4_tuned_instantiates_at_other_configs") {
        return;
    }
    let base = defaults("v4_tuned");
    let configs = [
        base.clone().with("WARP_N", 128).with("STAGES", 3),
        base.clone().with("WARP_N", 256).with("CONSUMERS", 1),
        base.clone().with("TILE_K", 32),
        base.clone()
            .with("WARP_N", 136)
            .with("STAGES", 4)
            .with("CONSUMERS", 1),
    ];
    for cfg in &configs {
        let c = compile_instance("v4_tuned", cfg);
        assert_has(&c, &HOPPER_OPS);
        let n = cfg.get("WARP_N").unwrap();
        let wgmma = format!("HGMMA.64x{n}x16");
        assert!(
            sass::count(&c.sass, &wgmma) > 0,
            "{}: no {wgmma} for WARP_N = {n}; instructions used: {:?}",
            c.what,
            sass::instruction_set(&c.sass)
        );
        eprintln!("{}", c.what);
    }
}

/// `cluster CLUSTER;` at 2: the rhs tile is multicast (UTMALDG.2D.MULTICAST), the blocks sync
/// as a cluster (UCGABAR), and the remote `empty` arrivals carry no cluster-scope release fence:
/// the only MEMBAR.ALL.GPU are the two cluster barriers' (kernel start and end), not one per
/// arrival in the k-loop (a `.release.cluster` arrive put one there and halved the speed).
#[test]
fn v4_tuned_cluster_multicasts_the_rhs_tile() {
    if !nvrtc_and_nvdisasm_available("v4_tuned_cluster_multicasts_the_rhs_tile") {
        return;
    }
    let cfg = defaults("v4_tuned")
        .with("CLUSTER", 2)
        .with("WARP_N", 208)
        .with("STAGES", 4);
    let c = compile_instance("v4_tuned", &cfg);
    assert_has(&c, &HOPPER_OPS);
    let multicast = c
        .sass
        .lines()
        .filter(|l| l.contains("UTMALDG.2D.MULTICAST"))
        .count();
    assert_eq!(multicast, 1, "{}: one multicast load per k-tile", c.what);
    assert_eq!(sass::count(&c.sass, "UCGABAR_ARV"), 2, "{}", c.what);
    assert_eq!(sass::count(&c.sass, "MEMBAR.ALL.GPU"), 2, "{}", c.what);
    // Without the cluster (CLUSTER = 1) nothing is multicast.
    let c1 = compile_instance("v4_tuned", &cfg.clone().with("CLUSTER", 1));
    assert!(!c1.sass.contains("MULTICAST"), "{}", c1.what);
    eprintln!("{}", c.what);
}

/// `EPI_SPLIT = 2`: the epilogue stores the accumulator in two column slices through a
/// half-width output tile, which is what lets WARP_N = 256 keep 4 stages (229,440 B of shared
/// memory). Each consumer issues one TMA store per slice (two UTMASTG, the slice loop unrolled),
/// and the slices index the fragment's registers with constants: no spills, no local memory
/// (`compile_instance` checks both, and that ptxas reports no performance warnings). Persistent
/// with 2-block clusters, and one block per tile without a cluster; f16 and f32 accumulators.
/// The default (EPI_SPLIT = 1) keeps its single store.
#[test]
fn v4_tuned_split_epilogue_at_warp_n_256() {
    if !nvrtc_and_nvdisasm_available("v4_tuned_split_epilogue_at_warp_n_256") {
        return;
    }
    let base = defaults("v4_tuned")
        .with("WARP_N", 256)
        .with("STAGES", 4)
        .with("CONSUMERS", 2)
        .with("TILE_K", 64)
        .with("EPI_SPLIT", 2);
    // The kernel's f16 accumulator (64 registers) and the f32 one of `--acc f32` (128).
    let f32_acc = Variant {
        input: None,
        acc: Some(DType::F32),
    };
    let f16 = parse_kernel("v4_tuned");
    let f32 = retype(&f16, f32_acc);
    let runs = [
        (&f16, "f16", 1, 2),
        (&f16, "f16", 0, 1),
        (&f32, "f32", 1, 2),
        (&f32, "f32", 0, 1),
    ];
    for (m, acc, persistent, cluster) in runs {
        let cfg = base
            .clone()
            .with("PERSISTENT", persistent)
            .with("CLUSTER", cluster);
        let c = compile_emitted("v4_tuned", emit_module("v4_tuned", m, &cfg));
        assert_has(&c, &HOPPER_OPS);
        assert!(sass::count(&c.sass, "HGMMA.64x256x16") > 0, "{}", c.what);
        assert_eq!(
            sass::count(&c.sass, "UTMASTG"),
            2,
            "{}: one TMA store per slice",
            c.what
        );
        let multicast = sass::count(&c.sass, "UTMALDG.2D.MULTICAST");
        assert_eq!(multicast, (cluster == 2) as usize, "{}", c.what);
        eprintln!("{}, {acc} accumulator", c.what);
    }
    let c = compile_instance("v4_tuned", &defaults("v4_tuned"));
    assert_eq!(sass::count(&c.sass, "UTMASTG"), 1, "{}", c.what);
}

/// `kernels/v4_cluster.co`: the `: cluster` level with both loads written `.multicast`, the
/// tuner's `MULTICAST` choosing the cluster shape (none 1×1, lhs 1×2, rhs 2×1, both 2×2). Each
/// choice compiles without spills or local memory, multicasts exactly the operands it names
/// (UTMALDG.2D.MULTICAST per multicast load, UTMALDG.2D per plain one), syncs as a cluster after
/// the barrier initialisation and before exit (UCGABAR), and its remote arrivals carry no
/// cluster-scope fence (the two MEMBAR.ALL.GPU are the cluster barriers'). Persistent and one
/// block per tile; 4 stages and the split epilogue at WARP_N = 256 too.
#[test]
fn v4_cluster_multicasts_the_chosen_operands() {
    if !nvrtc_and_nvdisasm_available("v4_cluster_multicasts_the_chosen_operands") {
        return;
    }
    let base = defaults("v4_cluster").with("STAGES", 4);
    let choices = [(0, 0, 2), (1, 1, 1), (2, 1, 1), (3, 2, 0)];
    for persistent in [1, 0] {
        for (mc, multicast, plain) in choices {
            let cfg = base
                .clone()
                .with("MULTICAST", mc)
                .with("PERSISTENT", persistent);
            let c = compile_instance("v4_cluster", &cfg);
            assert_has(&c, &HOPPER_OPS);
            let lines = |op: &str| c.sass.lines().filter(|l| l.contains(op)).count();
            assert_eq!(
                lines("UTMALDG.2D.MULTICAST"),
                multicast,
                "{}: multicast loads",
                c.what
            );
            assert_eq!(
                lines("UTMALDG.2D") - lines("UTMALDG.2D.MULTICAST"),
                plain,
                "{}: plain loads",
                c.what
            );
            assert_eq!(sass::count(&c.sass, "UCGABAR_ARV"), 2, "{}", c.what);
            assert_eq!(sass::count(&c.sass, "MEMBAR.ALL.GPU"), 2, "{}", c.what);
            eprintln!("{}", c.what);
        }
    }
    let wide = base
        .with("MULTICAST", 3)
        .with("WARP_N", 256)
        .with("EPI_SPLIT", 2);
    let c = compile_instance("v4_cluster", &wide);
    assert_eq!(
        sass::count(&c.sass, "UTMALDG.2D.MULTICAST"),
        2,
        "{}",
        c.what
    );
    assert_eq!(sass::count(&c.sass, "UTMASTG"), 2, "{}", c.what);
    eprintln!("{}", c.what);
}

/// `kernels/v2_cluster.co`: synchronous TMA loads under a `: cluster` level, the rhs load
/// written `.multicast`. With 2 or 4 blocks per cluster the rhs load is multicast and the lhs one
/// plain; with 1 both are plain. Every k-step's loads start with a cluster barrier (inside the
/// loop) and the block ends with one: two UCGABAR_ARV in the SASS.
#[test]
fn v2_cluster_multicasts_its_synchronous_rhs_load() {
    if !nvrtc_and_nvdisasm_available("v2_cluster_multicasts_its_synchronous_rhs_load") {
        return;
    }
    for (cluster, multicast) in [(1, 0), (2, 1), (4, 1)] {
        let cfg = defaults("v2_cluster").with("CLUSTER_M", cluster);
        let c = compile_instance("v2_cluster", &cfg);
        assert_has(&c, &HOPPER_OPS);
        let lines = |op: &str| c.sass.lines().filter(|l| l.contains(op)).count();
        assert_eq!(lines("UTMALDG.2D.MULTICAST"), multicast, "{}", c.what);
        assert_eq!(lines("UTMALDG.2D"), 2, "{}", c.what);
        assert_eq!(sass::count(&c.sass, "UCGABAR_ARV"), 2, "{}", c.what);
        eprintln!("{}", c.what);
    }
}

#[test]
fn every_other_kernel_compiles_for_its_path() {
    if !nvrtc_and_nvdisasm_available("every_other_kernel_compiles_for_its_path") {
        return;
    }
    for name in kernel_files() {
        if KERNELS.contains(&name.as_str()) {
            continue;
        }
        let cfg = defaults(&name);
        let (k, _, _) = emit_kernel(&name, &cfg);
        let c = compile_instance(&name, &cfg);
        match k.path {
            // A warp-level `mma` kernel's arithmetic is tensor-core MMA (HMMA / IMMA).
            KernelPath::Simt => assert!(
                ["FFMA", "HFMA2", "HFMA", "HMMA", "IMMA"]
                    .iter()
                    .any(|op| sass::count(&c.sass, op) > 0),
                "{}: no FMA or MMA; instructions used: {:?}",
                c.what,
                sass::instruction_set(&c.sass)
            ),
            // 8-bit kernels issue QGMMA (f8) or IGMMA (s8) instead of HGMMA.
            // The output leaves through a TMA store, or (`mma.store` straight to global)
            // through the threads' own stores.
            KernelPath::Hopper => {
                // Operand tiles arrive by TMA, or by the threads' own swizzled stores
                // (`dma.copy.swiz` futures: `lower/dma_swiz.rs`).
                let (_, cu, _) = emit_kernel(&name, &cfg);
                if cu.contains("tsl_copy_g2s_swz<") {
                    assert_has(&c, &["LDG", "STS"]);
                } else {
                    assert_has(&c, &["UTMALDG"]);
                }
                assert!(
                    ["UTMASTG", "STG"]
                        .iter()
                        .any(|op| sass::count(&c.sass, op) > 0),
                    "{}: no TMA or global store; instructions used: {:?}",
                    c.what,
                    sass::instruction_set(&c.sass)
                );
                // Warp-level `mma`s fed by TMA (`: group`, no `: group-4`) are HMMA.
                assert!(
                    ["HGMMA", "QGMMA", "IGMMA", "HMMA"]
                        .iter()
                        .any(|op| sass::count(&c.sass, op) > 0),
                    "{}: no GMMA (or HMMA); instructions used: {:?}",
                    c.what,
                    sass::instruction_set(&c.sass)
                );
            }
        }
        eprintln!("{}", c.what);
    }
}

/// `mma.store` straight to global, `.transp` and `.mask`: the fragment leaves through the
/// threads' own global stores (no TMA store, no staging tile) or, transposed, through a shared
/// tile and one TMA store; the named-view operands are one HGMMA per 16-wide K-step.
#[test]
fn wgmma_stores_write_the_fragment_from_registers() {
    if !nvrtc_and_nvdisasm_available("wgmma_stores_write_the_fragment_from_registers") {
        return;
    }
    for n in [64, 128] {
        let c = compile_instance(
            "wgmma_store_global",
            &defaults("wgmma_store_global").with("WARP_N", n),
        );
        assert_eq!(sass::count(&c.sass, "HGMMA"), 4, "{}", c.what);
        assert_eq!(sass::count(&c.sass, "UTMASTG"), 0, "{}", c.what);
        // f32 output: every thread stores its N/2 elements.
        assert_eq!(sass::count(&c.sass, "STG"), n as usize / 2, "{}", c.what);
        let c = compile_instance(
            "wgmma_store_trans",
            &defaults("wgmma_store_trans").with("WARP_N", n),
        );
        assert_has(&c, &["HGMMA", "UTMASTG", "STS"]);
        eprintln!("{}", c.what);
    }
    // `mma.fill acc, v` in a loop over tiles: no C75xx (compile_instance) at any TILES.
    for t in [1, 2, 4] {
        let c = compile_instance("wgmma_refill", &defaults("wgmma_refill").with("TILES", t));
        assert_has(&c, &["HGMMA", "STG"]);
    }
    // Block scales: each K-step's QGMMA product scaled into the accumulator.
    let c = compile_instance("wgmma_fp8_blockscale", &defaults("wgmma_fp8_blockscale"));
    assert_eq!(sass::count(&c.sass, "QGMMA"), 4, "{}", c.what);
    assert_has(&c, &["UTMALDG", "UTMASTG"]);
    // Block scales applied once per K block by a standalone `mma.scale` (the K-steps summing
    // into an f32 partial).
    let c = compile_instance(
        "wgmma_fp8_blockscale_acc",
        &defaults("wgmma_fp8_blockscale_acc"),
    );
    assert_eq!(
        sass::count(&c.sass, "QGMMA.64x128x32.F32.E4M3.E4M3"),
        4,
        "{}",
        c.what
    );
    assert_has(&c, &["UTMALDG", "UTMASTG"]);
    // Per-tensor scales: one value on each side, over the domain of WARP_N.
    for n in [64, 128] {
        let c = compile_instance(
            "wgmma_fp8_scaled",
            &defaults("wgmma_fp8_scaled").with("WARP_N", n),
        );
        assert_has(&c, &["QGMMA", "STG"]);
    }
    // Two `.async` WGMMA groups in flight, waited for by count (no ptxas-injected waits).
    let c = compile_instance("wgmma_async", &defaults("wgmma_async"));
    assert_eq!(sass::count(&c.sass, "HGMMA"), 8, "{}", c.what);
    let c = compile_instance("wgmma_store_mask", &defaults("wgmma_store_mask"));
    assert_has(&c, &["HGMMA", "STG"]);
    assert_eq!(sass::count(&c.sass, "UTMASTG"), 0, "{}", c.what);
    eprintln!("{}", c.what);
}

/// The direct-operand f16 kernel: one `mma` per 64-wide k-tile is four m64nNk16 instructions.
#[test]
fn wgmma_direct_issues_one_hgmma_per_k_step() {
    if !nvrtc_and_nvdisasm_available("wgmma_direct_issues_one_hgmma_per_k_step") {
        return;
    }
    for n in [64, 128, 256] {
        let c = compile_instance("wgmma_direct", &defaults("wgmma_direct").with("WARP_N", n));
        let op = format!("HGMMA.64x{n}x16.F32");
        assert_eq!(sass::count(&c.sass, &op), 4, "{}: {op}\n{}", c.what, c.sass);
        assert_has(&c, &HOPPER_OPS);
    }
}

/// The HGMMA lines whose A operand is a register: `HGMMA.64xNx16.F32 R24, R88, gdesc[UR12], R24`
/// (with both operands in shared memory it reads `HGMMA… R24, gdesc[UR4], R24`).
fn register_a_hgmmas(sass: &str, op: &str) -> usize {
    sass.lines()
        .filter_map(|l| l.split_once(op).map(|(_, rest)| rest))
        .filter(|rest| {
            let ops: Vec<&str> = rest.split(',').map(str::trim).collect();
            ops.len() >= 3
                && ops[1].starts_with('R')
                && ops[1][1..].chars().all(|c| c.is_ascii_digit())
                && ops[2].starts_with("gdesc")
        })
        .count()
}

/// Register-A WGMMA: `mma.load.frag` (the A tile read into registers) and a `frag` of ones as
/// A, one HGMMA per 16-wide K-step whose A operand is a register, at every N of the domains.
#[test]
fn register_a_kernels_issue_hgmma_with_a_in_registers() {
    if !nvrtc_and_nvdisasm_available("register_a_kernels_issue_hgmma_with_a_in_registers") {
        return;
    }
    for n in [64, 128, 256] {
        let c = compile_instance("wgmma_regs_a", &defaults("wgmma_regs_a").with("WARP_N", n));
        let op = format!("HGMMA.64x{n}x16.F32");
        assert_eq!(sass::count(&c.sass, &op), 4, "{}: {op}\n{}", c.what, c.sass);
        assert_eq!(
            register_a_hgmmas(&c.sass, &op),
            4,
            "{}: {op}\n{}",
            c.what,
            c.sass
        );
        // The A tile reaches the registers through shared-memory loads.
        assert_has(&c, &["LDS", "UTMALDG", "UTMASTG"]);
    }
    for n in [64, 128] {
        let c = compile_instance(
            "wgmma_regs_fill",
            &defaults("wgmma_regs_fill").with("WARP_N", n),
        );
        let op = format!("HGMMA.64x{n}x16.F32.BF16");
        assert_eq!(
            register_a_hgmmas(&c.sass, &op),
            4,
            "{}: {op}\n{}",
            c.what,
            c.sass
        );
        assert_has(&c, &["UTMALDG", "STG"]);
    }
}

/// v4_fp8: e4m3 operands become QGMMA (wgmma m64nNk32 with 8-bit inputs), TILE_K / 32 of them
/// per k-tile, across its domain; the e5m2 and f16-accumulator variants too.
#[test]
fn v4_fp8_uses_qgmma_across_its_domain() {
    if !nvrtc_and_nvdisasm_available("v4_fp8_uses_qgmma_across_its_domain") {
        return;
    }
    let base = defaults("v4_fp8");
    for (n, tile_k, consumers, stages, persistent, promote) in [
        (128, 128, 2, 4, 1, 0),
        (128, 128, 2, 4, 1, 1),
        (256, 128, 1, 4, 1, 0),
        (192, 128, 1, 4, 1, 1),
        (256, 64, 2, 3, 0, 0),
        (192, 64, 2, 6, 1, 1),
        (128, 128, 1, 2, 1, 0),
    ] {
        let cfg = base
            .clone()
            .with("WARP_N", n)
            .with("TILE_K", tile_k)
            .with("CONSUMERS", consumers)
            .with("STAGES", stages)
            .with("PERSISTENT", persistent)
            .with("PROMOTE", promote);
        let c = compile_instance("v4_fp8", &cfg);
        let op = format!("QGMMA.64x{n}x32.F32.E4M3.E4M3");
        assert_eq!(
            sass::count(&c.sass, &op),
            (tile_k / 32) as usize,
            "{}: {op}",
            c.what
        );
        assert_has(&c, &["UTMALDG", "UTMASTG"]);
        // No 16-bit MMA of the tile (ptxas may add a zero-register HGMMA.64x8x16 as a
        // scoreboard wait after a promotion).
        assert_eq!(
            sass::count(&c.sass, &format!("HGMMA.64x{n}x16")),
            0,
            "{}",
            c.what
        );
        eprintln!("{}", c.what);
    }
    // The variants below at the widest tile, WARP_N 256.
    let wide = base.clone().with("WARP_N", 256);
    let fp8 = parse_kernel("v4_fp8");
    for (v, op) in [
        (
            Variant {
                input: Some(DType::F8E5M2),
                acc: None,
            },
            "QGMMA.64x256x32.F32.E5M2.E5M2",
        ),
        (
            Variant {
                input: None,
                acc: Some(DType::F16),
            },
            "QGMMA.64x256x32.F16.E4M3.E4M3",
        ),
    ] {
        let m = retype(&fp8, v);
        let c = compile_emitted("v4_fp8", emit_module("v4_fp8", &m, &wide));
        assert_eq!(sass::count(&c.sass, op), 4, "{}: {op}", c.what);
        eprintln!("{}: {op}", c.what);
    }
    // MULTICAST 1 (lhs shared along block_n) and 2 (rhs shared along block_m): clusters of two,
    // one of the two loads multicast, the other plain.
    for mc in [1, 2] {
        let c = compile_instance("v4_fp8", &wide.clone().with("MULTICAST", mc));
        let lines = |op: &str| c.sass.lines().filter(|l| l.contains(op)).count();
        assert!(lines("UTMALDG.2D.MULTICAST") >= 1, "{}", c.what);
        assert!(
            lines("UTMALDG.2D") > lines("UTMALDG.2D.MULTICAST"),
            "{}",
            c.what
        );
        assert_has(&c, &["QGMMA.64x256x32.F32.E4M3.E4M3"]);
        eprintln!("{}", c.what);
    }
    let c0 = compile_instance("v4_fp8", &wide.clone().with("MULTICAST", 0));
    assert!(!c0.sass.contains("MULTICAST"), "{}", c0.what);
    // EPI_SPLIT 2 at WARP_N 256 with 4 stages (fits only with the halved output tile): two TMA
    // stores per consumer tile.
    let c = compile_instance(
        "v4_fp8",
        &base
            .clone()
            .with("WARP_N", 256)
            .with("STAGES", 4)
            .with("EPI_SPLIT", 2)
            .with("MULTICAST", 2),
    );
    assert_eq!(
        sass::count(&c.sass, "QGMMA.64x256x32.F32.E4M3.E4M3"),
        4,
        "{}",
        c.what
    );
    assert_eq!(sass::count(&c.sass, "UTMASTG"), 2, "{}", c.what);
}

/// wgmma_s8: s8 operands become IGMMA with s32 accumulators at every N of its domain.
#[test]
fn wgmma_s8_uses_igmma() {
    if !nvrtc_and_nvdisasm_available("wgmma_s8_uses_igmma") {
        return;
    }
    for n in [64, 128, 256] {
        let c = compile_instance("wgmma_s8", &defaults("wgmma_s8").with("WARP_N", n));
        let op = format!("IGMMA.64x{n}x32.S8.S8");
        assert_eq!(sass::count(&c.sass, &op), 4, "{}: {op}", c.what);
        assert_has(&c, &["UTMALDG", "UTMASTG"]);
        eprintln!("{}", c.what);
    }
}

/// v4_s8: the v4 structure with s8 operands — TILE_K / 32 IGMMA (s32 accumulators) per k-tile
/// across its domain, one TMA store per epilogue slice, multicast of the operand MULTICAST names.
#[test]
fn v4_s8_uses_igmma_across_its_domain() {
    if !nvrtc_and_nvdisasm_available("v4_s8_uses_igmma_across_its_domain") {
        return;
    }
    let base = defaults("v4_s8");
    for (n, tile_k, consumers, stages, persistent, split, mc) in [
        (224, 128, 2, 4, 1, 4, 2),
        (256, 128, 2, 3, 1, 4, 1),
        (128, 128, 1, 6, 1, 1, 0),
        (192, 64, 2, 5, 0, 2, 2),
        (256, 64, 1, 4, 1, 2, 0),
    ] {
        let cfg = base
            .clone()
            .with("WARP_N", n)
            .with("TILE_K", tile_k)
            .with("CONSUMERS", consumers)
            .with("STAGES", stages)
            .with("PERSISTENT", persistent)
            .with("EPI_SPLIT", split)
            .with("MULTICAST", mc);
        let c = compile_instance("v4_s8", &cfg);
        let op = format!("IGMMA.64x{n}x32.S8.S8");
        assert_eq!(
            sass::count(&c.sass, &op),
            (tile_k / 32) as usize,
            "{}: {op}",
            c.what
        );
        assert_eq!(
            sass::count(&c.sass, "UTMASTG"),
            split as usize,
            "{}",
            c.what
        );
        let multicast = c
            .sass
            .lines()
            .filter(|l| l.contains("UTMALDG.2D.MULTICAST"))
            .count();
        assert_eq!(multicast > 0, mc != 0, "{}", c.what);
        eprintln!("{}", c.what);
    }
}

/// gemm_sparse (f16) and gemm_sparse_fp8 (e4m3): a 2:4 sparse `mma` is sparse GMMA — HGMMA.SP
/// (m64nNk32) and QGMMA.SP (m64nNk64), two per 128-byte k-tile of B — with no dense GMMA of the
/// tile, each thread reading its metadata bytes from shared memory (LDS.U8); the bf16, e5m2 and
/// f16-accumulator variants too.
#[test]
fn sparse_kernels_issue_sparse_gmma() {
    if !nvrtc_and_nvdisasm_available("sparse_kernels_issue_sparse_gmma") {
        return;
    }
    for n in [64, 128, 256] {
        for (name, op, dense) in [
            (
                "gemm_sparse",
                format!("HGMMA.SP.64x{n}x32.F32"),
                format!("HGMMA.64x{n}x16"),
            ),
            (
                "gemm_sparse_fp8",
                format!("QGMMA.SP.64x{n}x64.F32.E4M3.E4M3"),
                format!("QGMMA.64x{n}x32"),
            ),
        ] {
            let c = compile_instance(name, &defaults(name).with("WARP_N", n));
            assert_eq!(sass::count(&c.sass, &op), 2, "{}: {op}\n{}", c.what, c.sass);
            assert_eq!(
                sass::count(&c.sass, &dense),
                0,
                "{}: a dense GMMA of the tile",
                c.what
            );
            assert_has(&c, &["UTMALDG", "UTMASTG", "LDS.U8"]);
            eprintln!("{}: {op}", c.what);
        }
    }
    for (name, v, op) in [
        (
            "gemm_sparse",
            Variant {
                input: Some(DType::BF16),
                acc: None,
            },
            "HGMMA.SP.64x128x32.F32.BF16",
        ),
        (
            "gemm_sparse",
            Variant {
                input: None,
                acc: Some(DType::F16),
            },
            "HGMMA.SP.64x128x32.F16",
        ),
        (
            "gemm_sparse_fp8",
            Variant {
                input: Some(DType::F8E5M2),
                acc: None,
            },
            "QGMMA.SP.64x128x64.F32.E5M2.E5M2",
        ),
        (
            "gemm_sparse_fp8",
            Variant {
                input: None,
                acc: Some(DType::F16),
            },
            "QGMMA.SP.64x128x64.F16.E4M3.E4M3",
        ),
    ] {
        let m = retype(&parse_kernel(name), v);
        let c = compile_emitted(name, emit_module(name, &m, &defaults(name)));
        assert_eq!(sass::count(&c.sass, op), 2, "{}: {op}\n{}", c.what, c.sass);
        eprintln!("{}: {op}", c.what);
    }
}

/// gemm_sparse_futures (f16) and gemm_sparse_futures_fp8 (e4m3): the operands reach shared
/// memory through synchronous copies bound to futures (`f = tma.copy.swiz<N> … => shared;`, the
/// metadata by `dma.copy`) and each k-tile's two chunks (`a.chunkat(_, kw)`) are two sparse GMMAs
/// — HGMMA.SP m64nNk32 / QGMMA.SP m64nNk64 — with no dense GMMA, TMA loads (UTMALDG) and the
/// metadata bytes read from shared memory (LDS.U8).
#[test]
fn sparse_future_kernels_issue_sparse_gmma() {
    if !nvrtc_and_nvdisasm_available("sparse_future_kernels_issue_sparse_gmma") {
        return;
    }
    for n in [64, 128, 256] {
        for (name, op, dense) in [
            (
                "gemm_sparse_futures",
                format!("HGMMA.SP.64x{n}x32.F32"),
                format!("HGMMA.64x{n}x16"),
            ),
            (
                "gemm_sparse_futures_fp8",
                format!("QGMMA.SP.64x{n}x64.F32.E4M3.E4M3"),
                format!("QGMMA.64x{n}x32"),
            ),
        ] {
            let c = compile_instance(name, &defaults(name).with("WARP_N", n));
            assert_eq!(sass::count(&c.sass, &op), 2, "{}: {op}\n{}", c.what, c.sass);
            assert_eq!(
                sass::count(&c.sass, &dense),
                0,
                "{}: a dense GMMA of the tile",
                c.what
            );
            assert_has(&c, &["UTMALDG", "LDS.U8"]);
            eprintln!("{}: {op}", c.what);
        }
    }
}

/// gemm_loadc: the accumulator is read from and written back to global memory every k-tile
/// (LDG, STG around warp-level HMMA.1688 — the 8 × 8 × 4 warp tiles zero-padded to m16n8k8),
/// its operands copied into future buffers with `cp.async` (LDGSTS), and each block zero-fills its
/// tile of the output first (STG before the first barrier). For sm_80 and sm_90a.
#[test]
fn loadc_accumulates_in_the_output() {
    if !nvrtc_and_nvdisasm_available("loadc_accumulates_in_the_output") {
        return;
    }
    for arch in [Arch::Sm80, Arch::Sm90a] {
        let (_, cu, expr) = emit_kernel("gemm_loadc", &defaults("gemm_loadc"));
        let what = format!("gemm_loadc `{expr}` for {arch}");
        let req = CompileRequest::new(cu, arch).name_expression(expr.clone());
        let module = compile(&req).unwrap_or_else(|e| panic!("{what}: NVRTC failed: {e}"));
        let lowered = module
            .lowered_name(&expr)
            .expect("lowered name")
            .to_string();
        let all = sass::disassemble(&module.cubin).unwrap_or_else(|e| panic!("{what}: {e}"));
        let sass = sass::function_sass(&all, &lowered).expect("the kernel's SASS");
        assert!(
            sass::count(sass, "HMMA.1688.F32") > 0,
            "{what}: no HMMA.1688\n{sass}"
        );
        for op in ["LDG", "STG", "LDGSTS", "BAR"] {
            assert!(sass::count(sass, op) > 0, "{what}: no {op}");
        }
        assert!(!sass::has_local_memory(sass), "{what}: local memory");
        eprintln!("{what}");
    }
}

/// `kernels/ws_ring.co`: futures bound to a cyclic event ring. Each k-tile's two loads are
/// issued once (two UTMALDG sites, by one thread) and complete on the ring's barrier; the waits
/// test the parity of generation `kt` (SYNCS phase checks) at every ring depth and consumer
/// count.
#[test]
fn ws_ring_binds_its_loads_to_the_event_ring() {
    if !nvrtc_and_nvdisasm_available("ws_ring_binds_its_loads_to_the_event_ring") {
        return;
    }
    let base = defaults("ws_ring");
    for stages in [2, 3, 4] {
        for consumers in [1, 2] {
            let cfg = base
                .clone()
                .with("STAGES", stages)
                .with("CONSUMERS", consumers);
            let c = compile_instance("ws_ring", &cfg);
            assert_has(&c, &["HGMMA.64x128x16.F32", "UTMALDG", "UTMASTG", "SYNCS"]);
            let lines = |op: &str| c.sass.lines().filter(|l| l.contains(op)).count();
            assert_eq!(lines("UTMALDG.2D"), 2, "{}\n{}", c.what, c.sass);
            eprintln!("{}", c.what);
        }
    }
}

/// `kernels/ws_cluster.co`: a future-bound `.multicast` load under a `: cluster` level is one
/// multicast TMA load (this block's slice for both blocks) beside the plain A load, and the
/// cluster syncs at start and end (UCGABAR); `trigger.cluster` arrives remotely (SYNCS).
#[test]
fn ws_cluster_multicasts_a_future_bound_load() {
    if !nvrtc_and_nvdisasm_available("ws_cluster_multicasts_a_future_bound_load") {
        return;
    }
    let c = compile_instance("ws_cluster", &defaults("ws_cluster"));
    assert_has(
        &c,
        &["HGMMA.64x128x16.F32", "UTMASTG", "SYNCS", "UCGABAR_ARV"],
    );
    let lines = |op: &str| c.sass.lines().filter(|l| l.contains(op)).count();
    assert_eq!(lines("UTMALDG.2D.MULTICAST"), 1, "{}\n{}", c.what, c.sass);
    assert_eq!(lines("UTMALDG.2D"), 2, "{}\n{}", c.what, c.sass);
    eprintln!("{}", c.what);
}

/// `kernels/row_softmax.co`: kernel-scope values and a `bool` scalar parameter. The row
/// maximum and sum are warp shuffles (SHFL.BFLY), the exponentials MUFU.EX2; the kernel-scope
/// `k = log2(e) / temperature` is computed in the kernel from the parameter (a reciprocal,
/// MUFU.RCP, since NVRTC divides through one), and the `bool` selects the log output.
#[test]
fn row_softmax_reduces_across_the_warp() {
    if !nvrtc_and_nvdisasm_available("row_softmax_reduces_across_the_warp") {
        return;
    }
    let cfg = defaults("row_softmax");
    let (k, cu, _) = emit_kernel("row_softmax", &cfg);
    assert!(cu.contains("    const float temperature,\n"), "{cu}");
    assert!(cu.contains("    const int log_out,\n"), "{cu}");
    assert!(
        cu.contains("float k = 1.4426950408889634f / temperature;"),
        "{cu}"
    );
    assert!(cu.contains("(log_out ? "), "{cu}");
    assert_eq!(k.path, KernelPath::Simt);
    let c = compile_instance("row_softmax", &cfg);
    assert_has(&c, &["SHFL.BFLY", "MUFU.EX2", "MUFU.RCP"]);
}

/// `kernels/head_scores.co`: futures copying tiles of named rank-reducing views (`.sqz()`) of
/// 4-D tensors. The copies read from the head's base pointer with the head's bounds, through
/// cp.async (LDGSTS) into the fresh buffers; the `bool` parameter masks with -inf.
#[test]
fn head_scores_copies_tiles_of_squeezed_heads() {
    if !nvrtc_and_nvdisasm_available("head_scores_copies_tiles_of_squeezed_heads") {
        return;
    }
    let cfg = defaults("head_scores");
    let (_, cu, _) = emit_kernel("head_scores", &cfg);
    assert!(
        cu.contains("(q + (((bh / H) * H + bh % H) * S) * D), bm * TILE, dt * DT, S, D);"),
        "{cu}"
    );
    assert!(
        cu.contains("tsl_st_guarded((s + (((bh / H) * H + bh % H) * S) * T), i, j, S, T,"),
        "{cu}"
    );
    let c = compile_instance("head_scores", &cfg);
    assert_has(&c, &["LDGSTS", "FFMA"]);
}

/// `kernels/wgmma_head_scores.co`: `dma.copy.swiz<128>` futures fill WGMMA operand buffers
/// from tiles of `.sqz()` views of 4-D tensors — 16-byte global loads and shared stores at
/// swizzled addresses, a proxy fence, then HGMMA reading them through 128-byte-swizzle
/// descriptors; no TMA.
#[test]
fn wgmma_head_scores_fills_swizzled_operands_with_the_threads() {
    if !nvrtc_and_nvdisasm_available("wgmma_head_scores_fills_swizzled_operands_with_the_threads") {
        return;
    }
    let cfg = defaults("wgmma_head_scores");
    let (_, cu, _) = emit_kernel("wgmma_head_scores", &cfg);
    assert!(
        cu.contains("tsl_copy_g2s_swz<BM, DT, 128, tsl_threads>(qt, (q + (((bh / H) * H + bh % H) * S) * D), bm * BM, dt * DT, S, D);"),
        "{cu}"
    );
    assert!(cu.contains("tsl_wgmma_desc<128>(qt, 0)"), "{cu}");
    let c = compile_instance("wgmma_head_scores", &cfg);
    assert_has(&c, &["HGMMA", "LDG.E.128", "STS.128", "FENCE.VIEW.ASYNC.S"]);
    assert_eq!(sass::count(&c.sass, "UTMALDG"), 0, "{}", c.what);
}

/// `kernels/flash_attention.co`: q · kᵀ from two swizzled shared tiles (HGMMA with two
/// descriptors), then the probabilities — an f16 `frag` tile written element by element in the
/// accumulator layout — as the A operand of a register-A HGMMA for P · V; exponentials on
/// MUFU.EX2, the row maximum and sum across each row's quad by shuffles; no local memory.
#[test]
fn flash_attention_feeds_the_probabilities_from_registers() {
    if !nvrtc_and_nvdisasm_available("flash_attention_feeds_the_probabilities_from_registers") {
        return;
    }
    let cfg = defaults("flash_attention");
    let (_, cu, _) = emit_kernel("flash_attention", &cfg);
    assert!(cu.contains("tsl_u32 p[BN / 4];"), "{cu}");
    assert!(
        cu.contains("tsl_wgmma_rs_k_steps<tsl_wgmma_rs_f32_f16<HD>, BN / 16>(acc, p, "),
        "{cu}"
    );
    let c = compile_instance("flash_attention", &cfg);
    assert_has(&c, &["HGMMA", "MUFU.EX2", "SHFL.BFLY", "STS.128"]);
    assert!(
        register_a_hgmmas(&c.sass, "HGMMA") >= 4,
        "{}: no HGMMA with A in registers:\n{}",
        c.what,
        c.sass
    );
}

/// `kernels/wgmma_mn_major.co`: `mma.row.col` with B stored [K, N]: the MN-major wrappers
/// (`wgmma.mma_async … 1, 1, 0, 1`, B transposed) step B's descriptor 16 swizzled rows per
/// K-step; four HGMMAs per 64-wide k-tile.
#[test]
fn wgmma_mn_major_transposes_b_in_the_instruction() {
    if !nvrtc_and_nvdisasm_available("wgmma_mn_major_transposes_b_in_the_instruction") {
        return;
    }
    let cfg = defaults("wgmma_mn_major");
    let (_, cu, _) = emit_kernel("wgmma_mn_major", &cfg);
    assert!(
        cu.contains("tsl_wgmma_tb_k_steps<tsl_wgmma_tb_f32_f16<64>, TK / 16, 128>(acc, "),
        "{cu}"
    );
    assert!(cu.contains("p, 1, 1, 0, 1;"), "{cu}");
    let c = compile_instance("wgmma_mn_major", &cfg);
    assert_has(&c, &["HGMMA", "UTMALDG"]);
    assert_eq!(sass::count(&c.sass, "HGMMA"), 4, "{}", c.what);
}
