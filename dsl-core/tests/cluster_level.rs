//! `parallel {cm, cn} by [CM, CN] : cluster` and `tma.copy….multicast`: parsed into the
//! module (the level taken out of the nest, in both spellings), dumped, checked (the shape, the
//! nesting, what may multicast) and lowered (the grid in whole clusters, one multicast group per
//! shared operand, cluster-scope `empty` arrivals).

mod check_support;
mod kernel_files;

use check_support::*;
use dsl_core::check::{self, Config, Limits, check_config, codes as c};
use dsl_core::lower::{self, SymEnv};
use dsl_core::parse::parse_str;
use kernel_files::{kernel_file, parse};

fn v4c() -> String {
    kernel_file("v4_cluster")
}

fn lowered_text(m: &dsl_core::ir::Module, cfg: &Config) -> (lower::CudaKernel, String) {
    let info = check_config(m, cfg, None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
    let k = lower::lower(m, &info).unwrap_or_else(|e| panic!("{e:?}"));
    let text = k
        .body
        .iter()
        .map(|l| l.text().trim().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    (k, text)
}

#[test]
fn the_level_is_parsed_out_of_the_nest_and_dumped() {
    let m = parse(&v4c());
    let cl = m.cluster_level.as_ref().expect("a cluster level");
    let vars: Vec<&str> = cl.vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(vars, ["cm", "cn"]);
    let ext: Vec<String> = cl.extents.iter().map(|&e| m.expr_to_string(e)).collect();
    assert_eq!(ext, ["CLUSTER_M", "CLUSTER_N"]);
    assert!(m.cluster.is_none());
    // The kernel body's statement is the `: block` nest itself.
    let dump = m.to_string();
    assert!(
        dump.contains("\ncluster level {cm, cn} by [CLUSTER_M, CLUSTER_N]\n"),
        "{dump}"
    );
    assert_eq!(dump.matches(".multicast").count(), 2, "{dump}");
    assert!(!dump.contains(": cluster"), "{dump}");
    assert_eq!(m.multicast.len(), 2);
    check::check(&m).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn both_spellings_give_the_same_module() {
    let nested = "__co__ void f(global f16 [M, K] a, global f16 [M, K] b) {
      parallel {cm} by [2] : cluster {
        parallel {bm, bn} by [cdiv(M, 64), cdiv(K, 64)] : block {
          shared f16 [64, 64] s;
          tma.copy a.subspan(64, 64).at(bm, bn) => s;
          tma.copy s => b.subspan(64, 64).at(bm, bn);
        }
      }
    }";
    let flat = "__co__ void f(global f16 [M, K] a, global f16 [M, K] b) {
      parallel {cm} by [2] : cluster, {bm, bn} by [cdiv(M, 64), cdiv(K, 64)] : block {
        shared f16 [64, 64] s;
        tma.copy a.subspan(64, 64).at(bm, bn) => s;
        tma.copy s => b.subspan(64, 64).at(bm, bn);
      }
    }";
    let a = parse(nested);
    let b = parse(flat);
    assert_eq!(a.to_string(), b.to_string());
    assert!(a.to_string().contains("cluster level {cm} by [2]"), "{a}");
    check::check(&a).unwrap_or_else(|d| panic!("{d}"));
    check::check(&b).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn the_level_sits_directly_above_the_block_level() {
    let parse_err = |text: &str| parse_str(text, Some("t.co")).unwrap_err();
    // Two statements in the cluster level's body.
    let d = parse_err(
        "__co__ void f(global f16 [M, K] a) {
          parallel {cm} by [2] : cluster {
            parallel {bm} by [M] : block { }
            parallel {bn} by [K] : block { }
          }
        }",
    );
    assert_eq!(codes(&d), vec![c::CLUSTER_NESTING], "{d}");
    // A thread level right after the cluster level.
    let d = parse_err(
        "__co__ void f(global f16 [M, K] a) {
          parallel {cm} by [2] : cluster, t by 128 : thread { }
        }",
    );
    assert_eq!(codes(&d), vec![c::CLUSTER_NESTING], "{d}");
    // Under a block level (same statement, and a nested statement).
    for text in [
        "__co__ void f(global f16 [M, K] a) {
          parallel {bm} by [M] : block, {cm} by [2] : cluster { }
        }",
        "__co__ void f(global f16 [M, K] a) {
          parallel {bm} by [M] : block { parallel {cm} by [2] : cluster { } }
        }",
    ] {
        let d = parse_err(text);
        assert_eq!(codes(&d), vec![c::CLUSTER_NESTING], "{d}");
    }
    // Two cluster levels.
    let d = parse_err(
        "__co__ void f(global f16 [M, K] a) {
          parallel {cm} by [2] : cluster { parallel {bm} by [M] : block { } }
          parallel {cn} by [2] : cluster { parallel {bn} by [K] : block { } }
        }",
    );
    assert_eq!(codes(&d), vec![c::CLUSTER_NESTING], "{d}");
    // The header item and the level together.
    let text = v4c().replace("raster GROUP_M;", "raster GROUP_M;\ncluster 2;");
    let d = parse_str(&text, Some("t.co")).unwrap_err();
    assert_eq!(codes(&d), vec![c::CLUSTER_NESTING], "{d}");
}

#[test]
fn cluster_shape_is_1_to_8_blocks_or_16_when_opted_in() {
    let shape = |cm: &str, cn: &str| {
        v4c()
            .replace(
                "const CLUSTER_M = 1 + MULTICAST / 2;",
                &format!("const CLUSTER_M = {cm};"),
            )
            .replace(
                "const CLUSTER_N = 1 + MULTICAST % 2;",
                &format!("const CLUSTER_N = {cn};"),
            )
            .replace("128..=256 step 8 = 192;", "128..=256 step 8 = 256;")
    };
    check::check(&parse(&shape("4", "2"))).unwrap_or_else(|d| panic!("{d}"));
    let d = check::check(&parse(&shape("4", "4"))).unwrap_err();
    assert_eq!(codes(&d), vec![c::CLUSTER_SHAPE], "{d}");
    assert!(d.to_string().contains("= 16 blocks; the limit is 8"), "{d}");
    // `cluster nonportable;` raises the limit to 16, not beyond.
    let opt_in = |t: String| t.replace("raster GROUP_M;", "raster GROUP_M;\ncluster nonportable;");
    let m = parse(&opt_in(shape("4", "4")));
    assert!(m.cluster_nonportable.is_some());
    assert!(m.to_string().contains("\ncluster nonportable\n"), "{m}");
    check::check(&m).unwrap_or_else(|d| panic!("{d}"));
    let d = check::check(&parse(&opt_in(shape("4", "8")))).unwrap_err();
    assert!(codes(&d).contains(&c::CLUSTER_SHAPE), "{d}");
    // An extent of 0, and one over a problem size.
    let d = check::check(&parse(&shape("0", "1"))).unwrap_err();
    assert!(codes(&d).contains(&c::CLUSTER_SHAPE), "{d}");
    let d = check::check(&parse(&shape("M", "1"))).unwrap_err();
    assert!(codes(&d).contains(&c::CLUSTER_SHAPE), "{d}");
    // The opt-in without a cluster level.
    let d = check::check(&parse(
        &kernel_file("v3_warpspec").replace("__co__", "cluster nonportable;\n__co__"),
    ))
    .unwrap_err();
    assert_eq!(codes(&d), vec![c::CLUSTER_SHAPE], "{d}");
}

#[test]
fn multicast_rules() {
    // On v3 (no cluster).
    let v3 = kernel_file("v3_warpspec").replace(
        "tma.copy.async<full[stage]>.swiz<SWIZ>\n            rhs",
        "tma.copy.async<full[stage]>.multicast.swiz<SWIZ>\n            rhs",
    );
    let d = check::check(&parse(&v3)).unwrap_err();
    assert_eq!(codes(&d), vec![c::MULTICAST_NO_CLUSTER], "{d}");
    // Under the `cluster C;` header item the shared operand is multicast without it.
    let v4 = kernel_file("v4_tuned").replace(
        "tma.copy.async<full[stage]>.swiz<SWIZ>\n            rhs",
        "tma.copy.async<full[stage]>.multicast.swiz<SWIZ>\n            rhs",
    );
    let d = check::check(&parse(&v4)).unwrap_err();
    assert_eq!(codes(&d), vec![c::MULTICAST_NO_CLUSTER], "{d}");
    assert!(d.to_string().contains("header item"), "{d}");
    // A 1-D cluster spans block_m: lhs (indexed by block_m) has no sharer.
    let one_d = v4c().replace(
        "parallel {cm, cn} by [CLUSTER_M, CLUSTER_N] : cluster",
        "parallel {cm} by [CLUSTER_M] : cluster",
    );
    let d = check::check(&parse(&one_d)).unwrap_err();
    assert_eq!(codes(&d), vec![c::MULTICAST_UNSHARED], "{d}");
    // Without the lhs `.multicast` the 1-D cluster is fine.
    let one_d = one_d.replace(
        "tma.copy.async<full[stage]>.multicast.swiz<SWIZ>\n              lhs",
        "tma.copy.async<full[stage]>.swiz<SWIZ>\n              lhs",
    );
    check::check(&parse(&one_d)).unwrap_or_else(|d| panic!("{d}"));
    // A multicast load must wait for the free stage first (check ok ⇒ lower ok).
    let no_wait = v4c().replace("            wait empty[stage];\n", "");
    let d = check::check(&parse(&no_wait)).unwrap_err();
    assert!(
        d.iter().all(|x| x.code == c::MULTICAST_WAIT) && d.iter().count() == 2,
        "{d}"
    );
}

#[test]
fn lowering_multicasts_each_operand_along_its_sharers() {
    let m = parse(&v4c());
    let cfg = Config::defaults(&m);
    let (k, text) = lowered_text(&m, &cfg);
    let loads: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("tsl_tma_load_2d_cluster<"))
        .collect();
    assert_eq!(loads.len(), 2, "{text}");
    // lhs is shared along block_n (a cluster row), rhs along block_m (a cluster column).
    assert!(
        loads[0].starts_with("tsl_tma_load_2d_cluster<CLUSTER_M, CLUSTER_N, false, true>((lhs_s")
            && loads[0].contains("TILE_M / CLUSTER_N"),
        "{text}"
    );
    assert!(
        loads[1].starts_with("tsl_tma_load_2d_cluster<CLUSTER_M, CLUSTER_N, true, false>((rhs_s")
            && loads[1].contains("WARP_N / CLUSTER_M"),
        "{text}"
    );
    // Each block's `full` expects the whole tiles; `empty` arrivals reach the whole cluster.
    assert_eq!(
        text.matches("tsl_mbar_arrive_cluster<CLUSTER_M * CLUSTER_N, tsl_warp_empty>")
            .count(),
        4,
        "{text}"
    );
    assert!(
        text.contains("(tsl_warp_empty ? 32 : 1) * (CLUSTER_M * CLUSTER_N);"),
        "{text}"
    );
    assert!(
        text.contains("tsl_mbar_arrive_from<tsl_warp_full>"),
        "{text}"
    );
    assert_eq!(text.matches("tsl_cluster_sync();").count(), 2, "{text}");
    assert_eq!(text.matches("tsl_raster_cluster_2d(").count(), 2, "{text}");
    assert!(
        k.launch_bounds
            .to_string()
            .starts_with("__cluster_dims__((1 + MULTICAST / 2) * (1 + MULTICAST % 2), 1, 1) "),
        "{}",
        k.launch_bounds
    );
    // The grid: whole clusters over tile rows and columns padded to whole clusters.
    let grid = |mc: i64, persistent: i64, m_: i64, n_: i64| {
        let cfg = Config::defaults(&m)
            .with("MULTICAST", mc)
            .with("PERSISTENT", persistent);
        let info = check_config(&m, &cfg, None, &Limits::SM90).unwrap();
        let mut e: SymEnv = cfg.values.clone();
        e.extend(info.constants);
        e.extend([("M".to_string(), m_), ("N".into(), n_), ("K".into(), 4096)]);
        e.insert("TSL_SM_COUNT".into(), 132);
        k.plan.grid[0].eval(&e).unwrap()
    };
    // 300 rows → 3 tile rows of 128; 1000 cols → 6 tile cols of 192.
    assert_eq!(grid(0, 0, 300, 1000), 18);
    assert_eq!(grid(2, 0, 300, 1000), 4 * 6); // rows padded to 2
    assert_eq!(grid(1, 0, 300, 1000), 3 * 6);
    assert_eq!(grid(3, 0, 300, 1000), 4 * 6);
    assert_eq!(grid(3, 0, 300, 1100), 4 * 6); // 1100 / 192 → 6 columns
    assert_eq!(grid(3, 0, 300, 1200), 4 * 8); // 7 columns, padded to 8
    // Persistent: SMs rounded down to whole clusters.
    assert_eq!(grid(3, 1, 8192, 8192), 132);
    assert_eq!(grid(3, 1, 300, 1200), 32);
}

#[test]
fn synchronous_multicast_loads_start_with_a_cluster_barrier() {
    let m = parse(&kernel_file("v2_cluster"));
    let (k, text) = lowered_text(&m, &Config::defaults(&m));
    // Inside the k-loop: the cluster barrier, the plain lhs load, then this block's slice of rhs
    // multicast to its cluster column, on the kernel's own barrier.
    let sync = text.find("tsl_cluster_sync();").expect("a cluster barrier");
    let lhs = text.find("tsl_tma_load_2d(lhs_s").expect("the lhs load");
    let rhs = text
        .find("tsl_tma_load_2d_cluster<CLUSTER_M, 1, true, false>(rhs_s")
        .expect("the rhs multicast");
    assert!(sync < lhs && lhs < rhs, "{text}");
    assert!(text[rhs..].contains("&tsl_tma_bar);"), "{text}");
    assert!(
        !text.contains("__syncthreads();  // everyone is done"),
        "{text}"
    );
    assert_eq!(text.matches("tsl_cluster_sync();").count(), 2, "{text}");
    assert!(
        k.launch_bounds
            .to_string()
            .starts_with("__cluster_dims__(CLUSTER_M, 1, 1) "),
        "{}",
        k.launch_bounds
    );
}

#[test]
fn multicast_slices_are_whole_swizzle_atoms() {
    // WARP_N = 200 rows of rhs over a 2-block cluster column: 100-row slices.
    let m = parse(&v4c());
    let cfg = |mc: i64, warp_n: i64| {
        Config::defaults(&m)
            .with("MULTICAST", mc)
            .with("WARP_N", warp_n)
    };
    let d = check_config(&m, &cfg(2, 200), None, &Limits::SM90).unwrap_err();
    assert_eq!(codes(&d), vec![c::MULTICAST_SLICE], "{d}");
    assert!(
        d.to_string().contains("200-row tile is shared by 2 blocks"),
        "{d}"
    );
    // lhs only (rhs not shared): any WARP_N of the domain; 208 = 13 atoms of 16 splits in two.
    check_config(&m, &cfg(1, 200), None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
    check_config(&m, &cfg(3, 208), None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
    let d = check_config(&m, &cfg(3, 136), None, &Limits::SM90).unwrap_err();
    assert_eq!(codes(&d), vec![c::MULTICAST_SLICE], "{d}");
    // v2_cluster: every WARP_N of its domain splits into 8-row atoms over 1, 2 or 4 blocks.
    let v2 = parse(&kernel_file("v2_cluster"));
    for cl in [1, 2, 4] {
        for n in [64, 128, 192, 256] {
            let cfg = Config::defaults(&v2)
                .with("CLUSTER_M", cl)
                .with("WARP_N", n);
            check_config(&v2, &cfg, None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
        }
    }
    // With an 80-row rhs tile, 4 sharers would load 20 rows each: refused.
    let text = kernel_file("v2_cluster").replace("[64, 128, 192, 256] = 128", "[64, 80] = 80");
    let v2 = parse(&text);
    let cfg = Config::defaults(&v2).with("CLUSTER_M", 4);
    let d = check_config(&v2, &cfg, None, &Limits::SM90).unwrap_err();
    assert_eq!(codes(&d), vec![c::MULTICAST_SLICE], "{d}");
}
