//! Warp-level tensor cores fed by TMA (`mma` under `: group` in a kernel with `tma.copy` and
//! events: the Hopper path, `lower/warp.rs`'s loads and `lowering/warp_swz.cuh`), no GPU needed:
//!
//! - `tests/data/warp/tma_sync_plain.co` (a synchronous, unswizzled TMA tile read with plain
//!   ldmatrix, B gathered from global) and `tma_swz_col.co` (64- and 128-byte swizzled stages,
//!   a K × N B through ldmatrix.trans, `full`/`empty` events) emit their golden `.cu`
//!   (`tests/golden/warp/`, `TESSEL_BLESS=1` to refresh); `kernels/v2_warp_tma.co`'s golden is
//!   `tests/golden/cu/v2_warp_tma.cu` (tests/golden_cu.rs);
//! - the swizzled loads are the `_swz` helpers with the tile's swizzle, the loops hold no WGMMA
//!   fence or commit, and a warp kernel gets one block per SM unless it states `occupancy`;
//! - they and `kernels/v2_warp_tma.co` across its domain compile with NVRTC for sm_90a with
//!   HMMA, LDSM (.MT88 for the K × N operand), UTMALDG and mbarrier waits, no spill and no
//!   local memory, and v2_warp_tma's K loop has no block barrier (one BAR: the barriers' init).
//!
//! Without NVRTC/nvdisasm the compile tests print `SKIPPED` and pass, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where they fail.

mod common;

use common::{
    assert_ops, clean_sass, emit_source, golden, nvrtc_and_nvdisasm_available, parse_file,
    parse_kernel, read,
};
use dsl_core::check::Config;
use dsl_core::ir::Module;
use dsl_core::lower::KernelPath;
use tessel_runtime::nvrtc::Arch;
use tessel_runtime::sass;

/// The TMA-fed warp kernels of `tests/data/warp/`, with the instructions their SASS must show.
const SMALL: [(&str, &[&str]); 2] = [
    (
        "tma_sync_plain",
        &["HMMA.16816.F32", "LDSM.16.M88.4", "UTMALDG.2D", "SYNCS"],
    ),
    (
        "tma_swz_col",
        &[
            "HMMA.16816.F32",
            "LDSM.16.M88.4",
            "LDSM.16.MT88.4",
            "UTMALDG.2D",
            "SYNCS",
        ],
    ),
];

fn parse_data(name: &str) -> Module {
    parse_file(&format!("tests/data/warp/{name}.co"))
}

/// The `.cu` of `m` (from `source`) at `cfg`, its path and the instance's name expression.
fn emit(m: &Module, source: &str, cfg: &Config) -> (KernelPath, String, String) {
    let (k, cu, expr) = emit_source(m, source, cfg);
    (k.path, cu, expr)
}

/// The SASS of `expr` for sm_90a: no local memory and no spill.
fn sass_of(what: &str, cu: &str, expr: &str) -> String {
    clean_sass(what, cu, expr, Arch::Sm90a).sass
}

#[test]
fn tma_warp_kernels_match_their_golden_cu() {
    let mut failures = Vec::new();
    for (name, _) in SMALL {
        let m = parse_data(name);
        let source = format!("tests/data/warp/{name}.co");
        let (path, cu, _) = emit(&m, &source, &Config::defaults(&m));
        assert_eq!(
            path,
            KernelPath::Hopper,
            "{name}: TMA makes it a Hopper kernel"
        );
        assert!(
            cu.contains("mma.sync.aligned") && cu.contains("cp.async.bulk.tensor"),
            "{name}: no mma.sync or TMA helper"
        );
        if let Err(e) = golden(&format!("tests/golden/warp/{name}.cu"), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each operand reads its tile as it was written: the swizzled stages with the `_swz` loads and
/// their own swizzle (64 bytes for A's 32-wide rows, 128 for B's 64-wide ones, B transposed),
/// the unswizzled TMA tile with plain ldmatrix. Warp `mma.sync` needs no WGMMA fence or commit.
#[test]
fn swizzled_tiles_load_with_their_swizzle() {
    let m = parse_data("tma_swz_col");
    let (_, cu, _) = emit(&m, "tests/data/warp/tma_swz_col.co", &Config::defaults(&m));
    // The kernel itself (the helper sections define every helper of the path).
    let body = &cu[cu.find("__global__").expect("a kernel")..];
    assert!(
        cu.contains("Path: Hopper with warp-level tensor cores"),
        "{cu}"
    );
    for want in [
        "tsl_mma_load_a_swz<TSL_MMA_F16, WM / 16, 1, false, BK, 64>(ma, (lhs_s + (kt % 2) * (BM * BK)) + (wm * WM) * BK + kk * 16);",
        "tsl_mma_load_b_swz<TSL_MMA_F16, WN / 8, 1, true, BN, 128>(mb, (rhs_s + (kt % 2) * (BK * BN)) + (kk * 16) * BN + wn * WN);",
        "__launch_bounds__(128, (1))",
    ] {
        assert!(body.contains(want), "no `{want}` in\n{body}");
    }
    for absent in ["tsl_wgmma", "tsl_mma_load_a<", "__syncthreads"] {
        assert!(
            body.matches(absent).count() <= usize::from(absent == "__syncthreads"),
            "`{absent}` in\n{body}"
        );
    }
    let m = parse_data("tma_sync_plain");
    let (_, cu, _) = emit(
        &m,
        "tests/data/warp/tma_sync_plain.co",
        &Config::defaults(&m),
    );
    assert!(
        cu.contains(
            "tsl_mma_load_a<TSL_MMA_F16, BM / 16, 1, false, BK, BK % 8 == 0>(ma, lhs_s + kk * 16);"
        ),
        "{cu}"
    );
    assert!(!cu.contains("_swz<"), "{cu}");
}

/// `occupancy N;` sets the blocks per SM of a TMA-fed warp kernel as on the SIMT path.
#[test]
fn occupancy_sets_the_blocks_per_sm() {
    let src =
        read("kernels/v2_warp_tma.co").replace("raster GROUP_M;", "raster GROUP_M;\noccupancy 2;");
    let m = dsl_core::parse::parse_str(&src, Some("v2_warp_tma_occupancy.co"))
        .unwrap_or_else(|d| panic!("{d}"))
        .module;
    let (_, cu, _) = emit(&m, "v2_warp_tma_occupancy.co", &Config::defaults(&m));
    assert!(
        cu.contains("__launch_bounds__(BM / WM * (BN / WN) * 32, (2))"),
        "{cu}"
    );
}

#[test]
fn tma_warp_kernels_compile_for_sm90a() {
    if !nvrtc_and_nvdisasm_available("tma_warp_kernels_compile_for_sm90a") {
        return;
    }
    for (name, ops) in SMALL {
        let m = parse_data(name);
        let source = format!("tests/data/warp/{name}.co");
        let (_, cu, expr) = emit(&m, &source, &Config::defaults(&m));
        let sass = sass_of(name, &cu, &expr);
        assert_ops(name, &sass, ops);
    }
}

/// kernels/v2_warp_tma.co at its defaults (128 × 256 blocks of 64 × 64 warp tiles, four
/// stages) and across its domain: four warps in 128 × 128 blocks with three stages, 256 × 128
/// blocks, 64 × 32 warp tiles, 64-row blocks in a two-stage ring.
#[test]
fn v2_warp_tma_uses_hmma_ldsm_and_tma_without_a_loop_barrier() {
    if !nvrtc_and_nvdisasm_available("v2_warp_tma_uses_hmma_ldsm_and_tma_without_a_loop_barrier") {
        return;
    }
    let m = parse_kernel("v2_warp_tma");
    let base = Config::defaults(&m);
    let configs = [
        base.clone(),
        base.clone().with("BN", 128).with("STAGES", 3),
        base.clone().with("BM", 256).with("BN", 128),
        base.clone().with("BN", 128).with("WN", 32),
        base.clone().with("BM", 64).with("WM", 32).with("STAGES", 2),
    ];
    for cfg in &configs {
        let (_, cu, expr) = emit(&m, "kernels/v2_warp_tma.co", cfg);
        let sass = sass_of("v2_warp_tma", &cu, &expr);
        assert_ops(
            &expr,
            &sass,
            &["HMMA.16816.F32", "LDSM.16.M88.4", "UTMALDG.2D", "SYNCS"],
        );
        assert_eq!(
            sass::count(&sass, "BAR.SYNC"),
            1,
            "{expr}: a block barrier besides the one after the barriers' init"
        );
    }
}

/// A `: group` level inside a `: group-4` level makes warp-level `mma`s: kernels/v2_warp_ws.co's
/// computing warps (warpgroups 1 …) each issue `mma.sync` on their own warp tile, never a
/// warpgroup-wide WGMMA, while warpgroup 0 issues the TMA loads with its registers handed to
/// them (`setmaxnreg`).
#[test]
fn group_inside_group4_makes_warp_level_mma() {
    let m = parse_kernel("v2_warp_ws");
    let (path, cu, _) = emit(&m, "kernels/v2_warp_ws.co", &Config::defaults(&m));
    assert_eq!(path, KernelPath::Hopper);
    let body = &cu[cu.find("__global__").expect("a kernel")..];
    for want in [
        "tsl_warp_mma<TSL_MMA_F16, WM / 16, WN / 8, 1>(mc, ma, mb);",
        "tsl_mma_load_a_swz<",
        "tsl_setmaxnreg_dec<tsl_regs_producer>();",
        "tsl_setmaxnreg_inc<tsl_regs_consumer>();",
    ] {
        assert!(body.contains(want), "no `{want}` in\n{body}");
    }
    for absent in ["tsl_wgmma", "wgmma_fence"] {
        assert!(!body.contains(absent), "`{absent}` in\n{body}");
    }
}

/// kernels/v2_warp_ws.co at its defaults (a producer warpgroup and two of computing warps,
/// 128 × 256 blocks of 64 × 64 warp tiles, four stages) and across its domain: 256 × 128
/// blocks, two resident blocks of 128 × 128 with three stages, 64 × 32 warp tiles.
#[test]
fn v2_warp_ws_uses_hmma_and_a_producer_warpgroup_without_a_loop_barrier() {
    if !nvrtc_and_nvdisasm_available(
        "v2_warp_ws_uses_hmma_and_a_producer_warpgroup_without_a_loop_barrier",
    ) {
        return;
    }
    let m = parse_kernel("v2_warp_ws");
    let base = Config::defaults(&m);
    let configs = [
        base.clone(),
        base.clone().with("BM", 256).with("BN", 128),
        base.clone()
            .with("BN", 128)
            .with("STAGES", 3)
            .with("MINB", 2),
        base.clone()
            .with("BM", 64)
            .with("BN", 128)
            .with("WN", 32)
            .with("STAGES", 3),
    ];
    for cfg in &configs {
        let (_, cu, expr) = emit(&m, "kernels/v2_warp_ws.co", cfg);
        let sass = sass_of("v2_warp_ws", &cu, &expr);
        assert_ops(
            &expr,
            &sass,
            &[
                "HMMA.16816.F32",
                "LDSM.16.M88.4",
                "UTMALDG.2D",
                "SYNCS",
                "USETMAXREG",
            ],
        );
        assert_eq!(
            sass::count(&sass, "BAR.SYNC"),
            1,
            "{expr}: a block barrier besides the one after the barriers' init"
        );
    }
}
