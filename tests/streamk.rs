//! Stream-K for the last wave (`streamk;`, `kernels/v4_streamk.co`): a persistent kernel's
//! blocks walk segments — a tile and a range of its k-tiles — and a tile whose k-tiles several
//! blocks share is summed through the runtime's workspace before its epilogue.
//!
//! - the header item parses with its span, prints back and takes no argument;
//! - the emitted kernel walks segments in both branches (`tsl_sk.segments()`), runs the main loops
//!   over `[tsl_kb, tsl_ke)`, releases the pipelined ring from the segment's first k-tile, hands
//!   a non-first segment's partial sums on and skips its epilogue, gathers the later blocks'
//!   sums before the epilogue, and takes the workspace as its last parameter;
//! - the plan of the walk (a model of `lowering/streamk.cuh` in Rust, the same integer
//!   arithmetic) covers every k-tile of every tile exactly once, gives each unit at most one
//!   non-first segment (its first), and pairs each such segment with the gather of its tile;
//! - it compiles with NVRTC at several configurations (no spills, no local memory) to HGMMA and
//!   TMA loads and stores; `v4_tuned.co` emits no stream-K helper.
//!
//! Without NVRTC/nvdisasm the compile test prints `SKIPPED` and passes, except under `CI=true`
//! or `TESSEL_REQUIRE_NVRTC=1`, where it fails.

mod common;

use common::{emit_kernel, emit_module, nvrtc_and_nvdisasm_available, parse_kernel};
use dsl_core::check::Config;
use dsl_core::def::{Variant, retype};
use dsl_core::ir::DType;
use dsl_core::lower::KernelArg;
use dsl_core::parse::parse_str;
use tessel_runtime::nvrtc::Arch;
use tessel_runtime::sass;

fn defaults() -> Config {
    Config::defaults(&parse_kernel("v4_streamk"))
}

#[test]
fn streamk_is_a_header_item_without_an_argument() {
    let text = common::read("kernels/v4_streamk.co");
    let m = parse_str(&text, None).expect("parses").module;
    let span = m.streamk.expect("`streamk;` recorded");
    assert_eq!(span.end.col - span.start.col, "streamk".len() as u32);
    assert!(m.to_string().contains("streamk\n"), "{m}");
    let d = parse_str(&text.replace("streamk;", "streamk 2;"), None)
        .expect_err("`streamk 2;` is an error");
    assert!(d.to_string().contains("streamk"), "{d}");
}

/// The codes of the checker's errors for `kernels/v4_streamk.co` with `from` replaced by `to`.
fn codes_with(from: &str, to: &str) -> Vec<&'static str> {
    let text = common::read("kernels/v4_streamk.co");
    assert!(text.contains(from), "`{from}` not in the kernel");
    let m = parse_str(&text.replacen(from, to, 1), None)
        .expect("parses")
        .module;
    match dsl_core::check::check(&m) {
        Ok(_) => Vec::new(),
        Err(d) => d.0.iter().map(|x| x.code).collect(),
    }
}

/// E1653 beyond the ui case: branches whose main loops differ, a branch with two loops that
/// wait, a comparison of the main loop's index, a generation wait; E1654 for a second
/// accumulator.
#[test]
fn the_main_loops_and_the_accumulator_are_checked() {
    assert!(codes_with("", "").is_empty(), "the kernel itself checks");
    // The producer's k-loop over another extent than the consumers'.
    let producer =
        "inthreads.async (wg == 0 && t == 0) {\n        foreach {iv_k} in [cdiv(K, TILE_K)]";
    let shorter =
        "inthreads.async (wg == 0 && t == 0) {\n        foreach {iv_k} in [cdiv(K, 2 * TILE_K)]";
    assert!(codes_with(producer, shorter).contains(&"E1653"));
    // A second loop that waits, in the consumer branch, before the main one.
    assert_eq!(
        codes_with(
            "mc = mma.fill.f32 0.0f;",
            "mc = mma.fill.f32 0.0f;\n        foreach {s} in [1] { wait full[s]; trigger empty[s]; }"
        ),
        ["E1653"]
    );
    // A comparison of the main loop's index: the segment's first k-tile is not k = 0.
    assert_eq!(
        codes_with(
            "          trigger full[stage];",
            "          if (iv_k > 0) { trigger full[stage]; } else { trigger full[stage]; }"
        ),
        ["E1653"]
    );
    // A generation wait: its phase count is the user's index, which a segment starts mid-tile.
    assert_eq!(
        codes_with("wait full[stage];", "wait full.at(stage);"),
        ["E1653"]
    );
    // Two accumulators in the main loop.
    let two = common::read("kernels/v4_streamk.co")
        .replacen(
            "mc = mma.fill.f32 0.0f;",
            "mc = mma.fill.f32 0.0f;\n        md = mma.fill.f32 0.0f;",
            1,
        )
        .replacen(
            "mma.row.row mc, ma, mb;",
            "mma.row.row mc, ma, mb;\n            mma.row.row md, ma, mb;",
            1,
        );
    let m = parse_str(&two, None).expect("parses").module;
    let d = dsl_core::check::check(&m).expect_err("two accumulators");
    assert!(d.0.iter().any(|x| x.code == "E1654"), "{d}");
}

#[test]
fn the_emitted_kernel_walks_segments_and_sums_shared_tiles() {
    let (k, cu, _) = emit_kernel("v4_streamk", &defaults());
    for needle in [
        "const tsl_sk_plan tsl_sk = tsl_sk_make_plan(tsl_tiles, CLUSTER, tsl_cdiv(K, TILE_K));",
        "for (int tsl_seg = 0; tsl_seg < tsl_sk.segments(); ++tsl_seg) {",
        "const int tsl_tile = tsl_sk.tile(tsl_seg);",
        "const int tsl_kb = tsl_sk.kb(tsl_seg);",
        "const int tsl_ke = tsl_sk.ke(tsl_seg);",
        "for (int iv_k = tsl_kb; iv_k < tsl_ke; ++iv_k) {",
        "if (iv_k > tsl_kb) tsl_mbar_arrive_cluster<CLUSTER, tsl_warp_empty>(&empty[(iv_k - 1) % STAGES]);",
        "&empty[(tsl_ke - 1) % STAGES]",
        "tsl_sk_publish<tsl_threads>(mc, tsl_sk_ws);",
        "if (tsl_ke != tsl_sk.kt) tsl_sk_gather<tsl_threads>(mc, tsl_sk_ws, tsl_sk, tsl_tile);",
        "unsigned char* __restrict__ tsl_sk_ws) {",
        "// ---- helpers: stream-K walk and fix-up (lowering/streamk.cuh)",
    ] {
        assert!(cu.contains(needle), "no `{needle}` in:\n{cu}");
    }
    // Both branches walk the segments; only the accumulating one publishes and gathers.
    assert_eq!(
        cu.matches("tsl_seg < tsl_sk.segments(); ++tsl_seg) {")
            .count(),
        2
    );
    assert_eq!(cu.matches("tsl_sk_publish<tsl_threads>(").count(), 1);
    // In the consumer's tile: main loop, its tail, publish-and-skip, gather, epilogue.
    let kernel = &cu[cu.find("__global__ void").expect("a kernel")..];
    let at = |s: &str| kernel.find(s).unwrap_or_else(|| panic!("no `{s}`"));
    let k_loop = at("tsl_mbar_wait_ring(full, stage, tsl_phase_full);");
    let tail = at("the last k-tile's WGMMAs, then its stage");
    let publish = at("tsl_sk_publish<");
    let skip = at("continue;");
    let gather = at("tsl_sk_gather<");
    let store = at("tsl_acc_store_cols<");
    assert!(k_loop < tail && tail < publish && publish < skip && skip < gather && gather < store);
    // The launch plan's last argument is the workspace: per block, 516 bytes per thread.
    match k.plan.args.last() {
        Some(KernelArg::Workspace { block_bytes }) => {
            let env = [("CONSUMERS".to_string(), 2i64)].into_iter().collect();
            assert_eq!(block_bytes.eval(&env).ok(), Some(384 * 516));
        }
        other => panic!("last argument {other:?}"),
    }
}

#[test]
fn the_cooperative_kernel_has_no_stream_k() {
    let cfg = Config::defaults(&parse_kernel("v4_tuned"));
    let (k, cu, _) = emit_kernel("v4_tuned", &cfg);
    assert!(!cu.contains("tsl_sk"));
    assert!(
        !k.plan
            .args
            .iter()
            .any(|a| matches!(a, KernelArg::Workspace { .. }))
    );
}

/// `tsl_sk_plan`'s segments and `tsl_sk_gather`'s partner loop, in Rust.
struct Plan {
    units: i64,
    tiles: i64,
    sk_tiles: i64,
    kt: i64,
    q: i64,
    r: i64,
}

impl Plan {
    fn new(tiles: i64, units: i64, kt: i64) -> Plan {
        let sk_tiles = tiles % units;
        Plan {
            units,
            tiles,
            sk_tiles,
            kt,
            q: sk_tiles * kt / units,
            r: sk_tiles * kt % units,
        }
    }
    fn start(&self, u: i64) -> i64 {
        u * self.q + u.min(self.r)
    }
    fn dp_tiles(&self) -> i64 {
        self.tiles - self.sk_tiles
    }
    fn whole(&self, u: i64) -> i64 {
        if u < self.dp_tiles() {
            (self.dp_tiles() - 1 - u) / self.units + 1
        } else {
            0
        }
    }
    fn segments(&self, u: i64) -> i64 {
        let (g0, g1) = (self.start(u), self.start(u + 1));
        self.whole(u)
            + if g1 > g0 {
                (g1 - 1) / self.kt - g0 / self.kt + 1
            } else {
                0
            }
    }
    /// Unit `u`'s segments: (tile, kb, ke), each from its index alone (`tile`, `kb`, `ke`).
    fn walk(&self, u: i64) -> Vec<(i64, i64, i64)> {
        let w = self.whole(u);
        (0..self.segments(u))
            .map(|s| {
                let tile = if s < w {
                    u + s * self.units
                } else {
                    self.dp_tiles() + self.start(u) / self.kt + (s - w)
                };
                let kb = if s == w { self.start(u) % self.kt } else { 0 };
                let ke = if s < w {
                    self.kt
                } else {
                    self.kt
                        .min(self.start(u + 1) - (self.start(u) / self.kt + (s - w)) * self.kt)
                };
                (tile, kb, ke)
            })
            .collect()
    }
    /// The units whose slots the k = 0 segment of stream-K tile `tile` adds.
    fn partners(&self, u: i64, tile: i64) -> Vec<i64> {
        let tile_end = (tile - self.dp_tiles() + 1) * self.kt;
        let mut out = Vec::new();
        let mut v = u + 1;
        while v < self.units && self.start(v) < tile_end {
            if self.start(v + 1) != self.start(v) {
                out.push(v);
            }
            v += 1;
        }
        out
    }
}

#[test]
fn the_walk_covers_every_k_tile_once_and_pairs_every_partial_with_its_gather() {
    use std::collections::BTreeMap;
    for tiles in 1..90 {
        for units in [1, 2, 3, 5, 7, 64, 66] {
            for kt in [1, 2, 3, 7, 64] {
                let p = Plan::new(tiles, units, kt);
                let mut seen = BTreeMap::new();
                let mut published = BTreeMap::new();
                let mut gathered = BTreeMap::new();
                for u in 0..units {
                    let segs = p.walk(u);
                    let whole = segs.iter().filter(|s| s.0 < tiles - p.sk_tiles).count();
                    for (i, &(t, kb, ke)) in segs.iter().enumerate() {
                        assert!(kb < ke, "empty segment");
                        for k in kb..ke {
                            assert!(seen.insert((t, k), u).is_none(), "({t}, {k}) twice");
                        }
                        if kb != 0 {
                            assert_eq!(i, whole, "a partial that is not the unit's first");
                            assert!(published.insert(u, t).is_none(), "two slots of {u}");
                        } else if ke != kt {
                            for v in p.partners(u, t) {
                                assert!(gathered.insert(v, t).is_none());
                            }
                        }
                    }
                }
                let what = format!("{tiles} tiles, {units} units, {kt} k-tiles");
                assert_eq!(seen.len() as i64, tiles * kt, "{what}: coverage");
                assert_eq!(published, gathered, "{what}: partials and gathers");
                // Every gather waits only on later units (no cycle, no wait on an earlier one).
                for (v, t) in &gathered {
                    let owner = (0..units)
                        .find(|&u| p.walk(u).iter().any(|s| s.0 == *t && s.1 == 0))
                        .expect("a k = 0 segment");
                    assert!(*v > owner, "{what}");
                }
            }
        }
    }
    // 4096³ at 128 x 208 on 132 SMs in clusters of 2: 320 cluster tiles on 66 units.
    let p = Plan::new(320, 66, 64);
    assert_eq!((p.sk_tiles, p.dp_tiles()), (56, 264));
    assert_eq!(p.walk(0).len(), 4 + 1);
    assert_eq!((p.q, p.r), (54, 20));
}

/// Compiles an emitted instance for sm_90a: its SASS, after the checks every kernel must pass
/// (no spill, no local memory, no ptxas performance warning).
fn compiled(what: &str, (_, cu, expr): (dsl_core::lower::CudaKernel, String, String)) -> String {
    let c = common::clean_sass(what, &cu, &expr, Arch::Sm90a);
    assert!(c.warnings.is_empty(), "{what}: {:?}", c.warnings);
    c.sass
}

#[test]
fn v4_streamk_compiles_to_hgmma_and_tma() {
    if !nvrtc_and_nvdisasm_available("v4_streamk_compiles_to_hgmma_and_tma") {
        return;
    }
    let f16 = parse_kernel("v4_streamk");
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
        (&bf16, base.clone()),
        (&f16, base.clone().with("WARP_N", 256).with("EPI_SPLIT", 2)),
        (&f16, base.clone().with("WARP_N", 224).with("EPI_SPLIT", 2)),
        (&f16, base.clone().with("CLUSTER", 1).with("STAGES", 2)),
        (&bf16, base.clone().with("TILE_K", 32).with("WARP_N", 128)),
    ];
    for (m, cfg) in runs {
        let sass = compiled("v4_streamk", emit_module("v4_streamk", m, &cfg));
        let n = cfg.get("WARP_N").unwrap();
        for op in [&format!("HGMMA.64x{n}x16") as &str, "UTMALDG", "UTMASTG"] {
            assert!(sass::count(&sass, op) > 0, "no {op} at {cfg}");
        }
        assert_eq!(
            sass::count(&sass, "UTMALDG.2D.MULTICAST") > 0,
            cfg.get("CLUSTER") == Some(2),
            "the rhs tile is multicast exactly under CLUSTER = 2 at {cfg}"
        );
    }
}
