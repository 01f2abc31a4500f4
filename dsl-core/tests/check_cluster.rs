//! `cluster C;`: parsed into the module, dumped, checked (an integer in 1..=8 under the
//! configuration; Hopper kernels with `raster` only) and lowered to clusters with the shared
//! operand multicast.

mod check_support;
mod kernel_files;

use check_support::*;
use dsl_core::check::{self, Config, Limits, check_config, codes as c};
use dsl_core::lower::{self, SymEnv};
use kernel_files::{kernel_file, parse};

fn v4() -> String {
    kernel_file("v4_tuned")
}

#[test]
fn v4_parses_checks_and_dumps_its_cluster() {
    let m = parse(&v4());
    let cl = m.cluster.expect("v4 has a cluster item");
    assert_eq!(m.expr_to_string(cl), "CLUSTER");
    assert!(m.to_string().contains("\ncluster CLUSTER\n"), "{m}");
    check::check(&m).unwrap_or_else(|d| panic!("{d}"));
    let two = Config::defaults(&m).with("CLUSTER", 2).with("WARP_N", 208);
    check_config(&m, &two, None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
    // A multicast slice of 200 / 2 = 100 rows is not whole 8-row swizzle atoms.
    let d = check_config(&m, &two.with("WARP_N", 200), None, &Limits::SM90).unwrap_err();
    assert_eq!(codes(&d), vec![c::REQUIRE], "{d}");
}

#[test]
fn cluster_size_must_be_1_to_8() {
    // (WARP_N = 256: 16 slices of 16 rows keep the kernel's own `require` true.)
    let text = v4()
        .replace(
            "tunable CLUSTER in [1, 2] = 1;",
            "tunable CLUSTER in [1, 2, 16] = 16;",
        )
        .replace("128..=256 step 8 = 192;", "128..=256 step 8 = 256;");
    let d = check::check(&parse(&text)).unwrap_err();
    assert_eq!(codes(&d), vec![c::CLUSTER], "{d}");
    assert!(d.to_string().contains("CLUSTER = 16"), "{d}");
    // A problem dimension is not known when the kernel compiles.
    let text = v4().replace("cluster CLUSTER;", "cluster M;");
    let d = check::check(&parse(&text)).unwrap_err();
    assert_eq!(codes(&d), vec![c::CLUSTER], "{d}");
    // An unknown name is reported once, by name resolution.
    let text = v4().replace("cluster CLUSTER;", "cluster CLUSTR;");
    let d = check::check(&parse(&text)).unwrap_err();
    assert_eq!(codes(&d), vec![c::UNKNOWN_NAME], "{d}");
}

#[test]
fn cluster_needs_a_hopper_kernel_and_raster() {
    let text = v4().replace("raster GROUP_M;", "");
    let d = check::check(&parse(&text)).unwrap_err();
    assert_eq!(codes(&d), vec![c::CLUSTER_PATH], "{d}");
    let simt = kernel_file("v1_shared").replace("__co__", "raster 8;\ncluster 2;\n__co__");
    let d = check::check(&parse(&simt)).unwrap_err();
    assert_eq!(codes(&d), vec![c::CLUSTER_PATH], "{d}");
}

#[test]
fn lowering_multicasts_rhs_and_makes_empty_cluster_scope() {
    let m = parse(&v4());
    let info = check::check(&m).unwrap();
    let k = lower::lower(&m, &info).unwrap();
    let owned: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let body: Vec<&str> = owned.iter().map(|l| l.trim()).collect();
    let text = body.join("\n");
    // rhs (independent of block_m) is multicast, lhs is not.
    let mc: Vec<&&str> = body
        .iter()
        .filter(|c| c.starts_with("tsl_tma_load_2d_mc<"))
        .collect();
    assert_eq!(mc.len(), 1, "{text}");
    assert!(
        mc[0].contains("&tsl_tm_rhs") && mc[0].contains("tsl_cta_rank<CLUSTER>()"),
        "{text}"
    );
    assert!(
        body.iter().any(|c| c.starts_with("tsl_tma_load_2d((lhs_s")),
        "{text}"
    );
    // Every `trigger empty` reaches the cluster; `full` stays local and counts as before.
    assert!(
        !text.contains("tsl_mbar_arrive_from<tsl_warp_empty>"),
        "{text}"
    );
    assert_eq!(
        text.matches("tsl_mbar_arrive_cluster<CLUSTER, tsl_warp_empty>")
            .count(),
        4,
        "{text}"
    );
    assert!(
        text.contains("tsl_mbar_arrive_from<tsl_warp_full>"),
        "{text}"
    );
    assert!(
        text.contains("(tsl_warp_empty ? 32 : 1) * CLUSTER;"),
        "{text}"
    );
    assert!(
        !text.contains("(tsl_warp_full ? 32 : 1) * CLUSTER;"),
        "{text}"
    );
    // Cluster barriers after the barrier init and at the end; clusters in the launch bounds.
    assert_eq!(text.matches("tsl_cluster_sync();").count(), 2, "{text}");
    assert_eq!(
        k.launch_bounds.cluster.as_ref().map(|c| c.to_cpp()),
        Some("CLUSTER".to_string())
    );
    assert!(
        k.launch_bounds
            .to_string()
            .starts_with("__cluster_dims__(CLUSTER, 1, 1) "),
        "{}",
        k.launch_bounds
    );
    // The grid: whole clusters, over tile rows padded to whole clusters.
    let env = |cl: i64, m_: i64| -> SymEnv {
        let cfg = Config::defaults(&m).with("CLUSTER", cl).with("WARP_N", 208);
        let info = check_config(&m, &cfg, None, &Limits::SM90).unwrap();
        let mut e: SymEnv = cfg.values.clone();
        e.extend(info.constants);
        e.extend([
            ("M".to_string(), m_),
            ("N".into(), 4096),
            ("K".into(), 4096),
        ]);
        e.insert("TSL_SM_COUNT".into(), 132);
        e
    };
    let grid = |cl, m_| k.plan.grid[0].eval(&env(cl, m_)).unwrap();
    assert_eq!(grid(2, 4096), 132);
    // 3 rows of 128 → 4 padded rows × 20 columns = 80 tiles, a multiple of the cluster.
    assert_eq!(grid(2, 300), 80);
    assert_eq!(grid(1, 300), 60);
}

#[test]
fn a_multicast_load_must_wait_for_a_free_stage_first() {
    // Moving the producer's `wait empty[stage];` below the loads would let a block multicast
    // into a peer's stage while the peer's consumers still read it.
    let text = v4().replace("          wait empty[stage];\n", "");
    let text = text.replacen(
        "          trigger full[stage];\n",
        "          trigger full[stage];\n          wait empty[stage];\n",
        1,
    );
    let m = parse(&text);
    // The checker reports it (check ok ⇒ lower ok).
    let err = check::check(&m).unwrap_err();
    assert!(
        err.iter().all(|d| d.code == check::codes::MULTICAST_WAIT),
        "{err}"
    );
    assert!(
        err.to_string().contains("must first wait for an event"),
        "{err}"
    );
}
