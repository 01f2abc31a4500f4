//! Two events of one name in different scopes, on the Hopper path (`tests/data/event_names/`):
//! lowering tells them apart by the checker's binding of each, and keeps the name only to spell
//! the C++ identifiers. The ring's `empty` is triggered by the `pingpong` consumers (its phases
//! count one consumer warpgroup's arrivals) and waited before the multicast loads (its arrivals
//! go to every block of the cluster); a block-wide handshake on another `empty` — shadowing the
//! ring's in a nested scope, or in a sibling scope — is neither, so its arrival count is every
//! thread's and its arrivals stay in the block. Each `.cu` equals its golden
//! (`tests/golden/event_names/`, `TESSEL_BLESS=1` to refresh) and compiles with NVRTC for sm_90a
//! to the WGMMA and TMA instructions, without local memory.

mod common;

use common::{
    assert_ops, clean_sass, emit_source, golden, nvrtc_and_nvdisasm_available, parse_file,
};
use dsl_core::check::Config;
use tessel_runtime::nvrtc::Arch;

/// (kernel, lines its `.cu` must hold, lines it must not hold).
const KERNELS: &[(&str, &[&str], &[&str])] = &[
    (
        "pingpong_second_empty",
        &[
            // The ring's `empty`: one consumer's arrivals per phase, from every block.
            "constexpr int tsl_arrivals_empty = tsl_count_threads<tsl_threads>(tsl_reach_empty) / (tsl_warp_empty ? 32 : 1) / tsl_consumers * CLUSTER;  // dsl:27",
            "tsl_mbar_arrive_cluster<CLUSTER, tsl_warp_empty>(&empty[s]);",
            // The handshake's `empty`: every thread's arrival, in this block.
            "constexpr int tsl_arrivals_empty = tsl_count_threads<tsl_threads>(tsl_reach_empty) / (tsl_warp_empty ? 32 : 1);  // dsl:77",
            "tsl_mbar_arrive_from<tsl_warp_empty>(&empty[0]);  // dsl:79",
        ],
        &["tsl_mbar_arrive_cluster<CLUSTER, tsl_warp_empty>(&empty[0]);"],
    ),
    (
        "cluster_sibling_empty",
        &[
            "constexpr int tsl_arrivals_empty = tsl_count_threads<tsl_threads>(tsl_reach_empty) / (tsl_warp_empty ? 32 : 1);  // dsl:34",
            "tsl_mbar_arrive_from<tsl_warp_empty>(&empty[0]);  // dsl:36",
            "constexpr int tsl_arrivals_empty = tsl_count_threads<tsl_threads>(tsl_reach_empty) / (tsl_warp_empty ? 32 : 1) * (CLUSTER_M * CLUSTER_N);  // dsl:41",
            "tsl_mbar_arrive_cluster<CLUSTER_M * CLUSTER_N, tsl_warp_empty>(&empty[stage]);",
        ],
        &["tsl_mbar_arrive_cluster<CLUSTER_M * CLUSTER_N, tsl_warp_empty>(&empty[0]);"],
    ),
];

fn emit(name: &str) -> (String, String) {
    let rel = format!("tests/data/event_names/{name}.co");
    let m = parse_file(&rel);
    let (_, cu, expr) = emit_source(&m, &rel, &Config::defaults(&m));
    (cu, expr)
}

#[test]
fn each_event_is_found_by_its_binding() {
    let mut failures = Vec::new();
    for (name, has, lacks) in KERNELS {
        let (cu, _) = emit(name);
        for line in *has {
            if !cu.lines().any(|l| l.trim().starts_with(line)) {
                failures.push(format!("{name}: no `{line}`"));
            }
        }
        for line in *lacks {
            if cu.contains(line) {
                failures.push(format!("{name}: `{line}`"));
            }
        }
        if let Err(e) = golden(&format!("tests/golden/event_names/{name}.cu"), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn events_of_one_name_compile_for_sm90a() {
    if !nvrtc_and_nvdisasm_available("events_of_one_name_compile_for_sm90a") {
        return;
    }
    for (name, _, _) in KERNELS {
        let (cu, expr) = emit(name);
        let c = clean_sass(name, &cu, &expr, Arch::Sm90a);
        assert_ops(name, &c.sass, &["HGMMA", "UTMALDG", "SYNCS"]);
    }
}
