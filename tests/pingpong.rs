//! The ping-pong schedule (`pingpong;`, `kernels/v4_pingpong.co`): the consumer warpgroups of a
//! persistent kernel take whole tiles in turn.
//!
//! - the emitted kernel walks tiles `c, c + C, …` per consumer, counts one warpgroup's
//!   arrivals on the ring's `empty` barriers, makes the initial credits from consumer 0 only,
//!   and hands the turn (and the ring's parity bits) from main loop to main loop;
//! - it compiles with NVRTC at several configurations and accumulators (no spills, no local
//!   memory, no ptxas performance warnings) to HGMMA, TMA loads and stores, and the named
//!   barriers of the turn: BAR.SYNC for the turn taken, BAR.ARV for the turn passed;
//! - with one consumer the turn helpers vanish (no BAR.ARV);
//! - under `cluster CLUSTER;` at 2 the rhs tile is multicast (UTMALDG.2D.MULTICAST) and each
//!   `empty` phase counts one warpgroup of every block of the cluster;
//! - the cooperative `v4_tuned.co` emits no ping-pong helper.
//!
//! Without NVRTC/nvdisasm the compile tests print `SKIPPED` and pass, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where they fail.

mod common;

use common::{emit_kernel, emit_module, nvrtc_and_nvdisasm_available, parse_kernel};
use dsl_core::check::Config;
use dsl_core::def::{Variant, retype};
use dsl_core::ir::DType;
use dsl_core::lower::CudaKernel;
use tessel_runtime::nvrtc::Arch;
use tessel_runtime::sass;

fn defaults() -> Config {
    Config::defaults(&parse_kernel("v4_pingpong"))
}

/// Compiles an emitted instance for sm_90a: its SASS, after the checks every kernel must pass
/// (no spill, no local memory, no ptxas performance warning).
fn compiled(what: &str, (_, cu, expr): (CudaKernel, String, String)) -> String {
    let c = common::clean_sass(what, &cu, &expr, Arch::Sm90a);
    assert!(c.warnings.is_empty(), "{what}: {:?}", c.warnings);
    c.sass
}

#[test]
fn the_emitted_kernel_takes_turns_on_whole_tiles() {
    let (_, cu, _) = emit_kernel("v4_pingpong", &defaults());
    for needle in [
        "constexpr int tsl_consumers = CONSUMERS + 1 - 1;",
        "/ (tsl_warp_empty ? 32 : 1) / tsl_consumers * CLUSTER;",
        "/ (tsl_warp_full ? 32 : 1);",
        "const int tsl_consumer = threadIdx.x / 128 - 1;",
        "if (tsl_consumer == 0) {",
        "for (int tsl_tile = blockIdx.x + tsl_consumer * gridDim.x; tsl_tile < tsl_tiles; tsl_tile += tsl_consumers * gridDim.x) {",
        "for (int tsl_tile = blockIdx.x; tsl_tile < tsl_tiles; tsl_tile += gridDim.x) {",
        "__shared__ unsigned tsl_pingpong_phase_full;",
        "tsl_pingpong_wait_turn<tsl_consumers>(tsl_consumer, tsl_tile != blockIdx.x);",
        "tsl_pingpong_take_phase<tsl_consumers>(tsl_phase_full, tsl_pingpong_phase_full, tsl_tile != blockIdx.x);",
        "tsl_pingpong_hand_phase<tsl_consumers>(tsl_phase_full, tsl_pingpong_phase_full, tsl_tile + gridDim.x < tsl_tiles);",
        "tsl_pingpong_pass_turn<tsl_consumers>(tsl_consumer, tsl_tile + gridDim.x < tsl_tiles);",
        "// ---- helpers: ping-pong consumers (lowering/pingpong.cuh)",
    ] {
        assert!(cu.contains(needle), "no `{needle}` in:\n{cu}");
    }
    // Order inside the consumer's tile: the turn before the main loop, the handover when the
    // pipelined loop closes (before its tail waits for the last k-tile's WGMMAs), the epilogue
    // last.
    let kernel = &cu[cu.find("__global__ void").expect("a kernel")..];
    let at = |s: &str| kernel.find(s).unwrap_or_else(|| panic!("no `{s}`"));
    let take = at("tsl_pingpong_wait_turn<");
    let k_loop = at("tsl_mbar_wait_ring(full, stage, tsl_phase_full);");
    let hand = at("tsl_pingpong_hand_phase<");
    let pass = at("tsl_pingpong_pass_turn<");
    let store = at("tsl_acc_store_cols<");
    let tail = at("the last k-tile's WGMMAs, then its stage");
    assert!(take < k_loop && k_loop < hand && hand < pass && pass < tail && tail < store);
    // The producer never waits on `full`, the consumers never on `empty`.
    assert_eq!(cu.matches("tsl_mbar_wait_ring(empty").count(), 1);
    assert_eq!(cu.matches("tsl_mbar_wait_ring(full").count(), 1);
}

#[test]
fn the_cooperative_kernel_is_unchanged() {
    let cfg = Config::defaults(&parse_kernel("v4_tuned"));
    let (_, cu, _) = emit_kernel("v4_tuned", &cfg);
    assert!(!cu.contains("pingpong"));
    assert!(!cu.contains("tsl_consumers"));
}

#[test]
fn v4_pingpong_compiles_to_hgmma_tma_and_the_turn_barriers() {
    if !nvrtc_and_nvdisasm_available("v4_pingpong_compiles_to_hgmma_tma_and_the_turn_barriers") {
        return;
    }
    let f16 = parse_kernel("v4_pingpong");
    let f32 = retype(
        &f16,
        Variant {
            input: None,
            acc: Some(DType::F32),
        },
    );
    let bf16 = retype(
        &f16,
        Variant {
            input: Some(DType::BF16),
            acc: Some(DType::F32),
        },
    );
    let base = defaults();
    let runs = [
        (&f16, base.clone()),
        (&f32, base.clone()),
        (&bf16, base.clone().with("WARP_N", 192).with("STAGES", 5)),
        (&f32, base.clone().with("WARP_N", 128).with("STAGES", 3)),
        (&f32, base.clone().with("EPI_SPLIT", 2).with("STAGES", 4)),
        (&f16, base.clone().with("TILE_K", 32).with("WARP_N", 136)),
        (&f32, base.clone().with("CLUSTER", 2).with("WARP_N", 192)),
    ];
    for (m, cfg) in runs {
        let sass = compiled("v4_pingpong", emit_module("v4_pingpong", m, &cfg));
        let n = cfg.get("WARP_N").unwrap();
        for op in [&format!("HGMMA.64x{n}x16") as &str, "UTMALDG", "UTMASTG"] {
            assert!(sass::count(&sass, op) > 0, "no {op} at {cfg}");
        }
        assert!(sass::count(&sass, "BAR.ARV") > 0, "no turn passed at {cfg}");
        assert!(sass::count(&sass, "BAR.SYNC") > 0, "no turn taken at {cfg}");
        assert_eq!(
            sass::count(&sass, "UTMASTG"),
            cfg.get("EPI_SPLIT").unwrap() as usize,
            "one TMA store per epilogue slice at {cfg}"
        );
        assert_eq!(
            sass::count(&sass, "UTMALDG.2D.MULTICAST") > 0,
            cfg.get("CLUSTER") == Some(2),
            "the rhs tile is multicast exactly under CLUSTER = 2 at {cfg}"
        );
    }
    // One consumer: nobody to take turns with.
    let one = compiled(
        "v4_pingpong",
        emit_kernel("v4_pingpong", &base.clone().with("CONSUMERS", 1)),
    );
    assert_eq!(sass::count(&one, "BAR.ARV"), 0);
}

/// `kernels/v4_pingpong_m128.co`: 128-row tiles, two 64-row WGMMAs per K step sharing the rhs
/// descriptor, both accumulators stored into one 128-row output tile per consumer (one TMA
/// store per slice). f32 accumulators up to WARP_N = 192 (192 accumulator registers) fit the
/// consumers' budget without spills.
#[test]
fn v4_pingpong_m128_compiles_without_spills() {
    if !nvrtc_and_nvdisasm_available("v4_pingpong_m128_compiles_without_spills") {
        return;
    }
    let f16 = parse_kernel("v4_pingpong_m128");
    let f32 = retype(
        &f16,
        Variant {
            input: None,
            acc: Some(DType::F32),
        },
    );
    let bf16 = retype(
        &f16,
        Variant {
            input: Some(DType::BF16),
            acc: Some(DType::F32),
        },
    );
    let base = Config::defaults(&f16);
    let runs = [
        (&f16, base.clone()),
        (&f32, base.clone()),
        (&f32, base.clone().with("WARP_N", 192).with("STAGES", 3)),
        (&bf16, base.clone().with("WARP_N", 160).with("EPI_SPLIT", 2)),
        (
            &f16,
            base.clone()
                .with("WARP_N", 192)
                .with("STAGES", 4)
                .with("EPI_SPLIT", 2),
        ),
    ];
    for (m, cfg) in runs {
        let sass = compiled("v4_pingpong_m128", emit_module("v4_pingpong_m128", m, &cfg));
        let n = cfg.get("WARP_N").unwrap();
        let mma = format!("HGMMA.64x{n}x16");
        assert_eq!(
            sass::count(&sass, &mma) % 2,
            0,
            "two WGMMAs per K step at {cfg}"
        );
        assert!(sass::count(&sass, &mma) > 0, "no {mma} at {cfg}");
        assert!(sass::count(&sass, "BAR.ARV") > 0, "no turn passed at {cfg}");
        assert_eq!(
            sass::count(&sass, "UTMASTG"),
            cfg.get("EPI_SPLIT").unwrap() as usize,
            "one TMA store per epilogue slice at {cfg}"
        );
        assert_eq!(
            sass::count(&sass, "UTMALDG.2D.MULTICAST") > 0,
            cfg.get("CLUSTER") == Some(2),
            "the rhs tile is multicast exactly under CLUSTER = 2 at {cfg}"
        );
    }
}

/// The contenders of the GPU comparison (`examples/regimes.rs --contender …`, the command in
/// the report), each in f16 and bf16 with the f32 accumulator: every one checks, lowers and
/// compiles without spills, so the timed run cannot lose a row to a configuration error.
const GPU_CONTENDERS: [(&str, &[(&str, i64)]); 9] = [
    (
        "v4_tuned",
        &[
            ("WARP_N", 192),
            ("STAGES", 4),
            ("CLUSTER", 2),
            ("EPI_SPLIT", 2),
        ],
    ),
    (
        "v4_tuned",
        &[
            ("WARP_N", 192),
            ("STAGES", 4),
            ("CLUSTER", 2),
            ("EPI_SPLIT", 1),
        ],
    ),
    (
        "v4_tuned",
        &[("WARP_N", 208), ("STAGES", 4), ("CLUSTER", 2)],
    ),
    (
        "v4_tuned",
        &[
            ("WARP_N", 224),
            ("STAGES", 4),
            ("CLUSTER", 2),
            ("EPI_SPLIT", 2),
        ],
    ),
    (
        "v4_pingpong",
        &[("WARP_N", 256), ("STAGES", 4), ("CLUSTER", 2)],
    ),
    (
        "v4_pingpong",
        &[("WARP_N", 192), ("STAGES", 5), ("CLUSTER", 2)],
    ),
    (
        "v4_pingpong_m128",
        &[
            ("WARP_N", 192),
            ("STAGES", 4),
            ("CLUSTER", 2),
            ("EPI_SPLIT", 2),
        ],
    ),
    (
        "v4_pingpong_m128",
        &[
            ("WARP_N", 160),
            ("STAGES", 4),
            ("CLUSTER", 2),
            ("EPI_SPLIT", 2),
        ],
    ),
    (
        "v4_pingpong_m128",
        &[("WARP_N", 128), ("STAGES", 5), ("CLUSTER", 2)],
    ),
];

#[test]
fn the_gpu_comparisons_contenders_compile() {
    if !nvrtc_and_nvdisasm_available("the_gpu_comparisons_contenders_compile") {
        return;
    }
    for (name, sets) in GPU_CONTENDERS {
        let m = parse_kernel(name);
        let mut cfg = Config::defaults(&m);
        for (k, v) in sets {
            cfg = cfg.with(k, *v);
        }
        for input in [DType::F16, DType::BF16] {
            let v = retype(
                &m,
                Variant {
                    input: Some(input),
                    acc: Some(DType::F32),
                },
            );
            let sass = compiled(name, emit_module(name, &v, &cfg));
            assert!(
                sass::count(&sass, "UTMALDG.2D.MULTICAST") > 0,
                "{name} {cfg}"
            );
        }
    }
}
