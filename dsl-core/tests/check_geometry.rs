//! Thread geometry: level order, block at the top, group-4 = 128 threads, ≤ 1024 threads.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::check::{Config, Limits};
use dsl_core::ir::{DType, Level, Module};

fn kernel(levels: &[Lvl], tunables: &[(&str, i64)]) -> Module {
    let mut b = B::new();
    for (n, v) in tunables {
        b.tunable(n, &[*v], *v);
    }
    b.gemm_params(DType::F16);
    let p = b.par(levels, |_| vec![]);
    b.finish(vec![p])
}

#[test]
fn too_many_threads() {
    let m = kernel(
        &[
            (&["bm"], &["cdiv(M, TILE_M)"], Level::Block),
            (&["tm", "tn"], &["TILE_M", "TILE_N"], Level::Thread),
        ],
        &[("TILE_M", 64), ("TILE_N", 32)],
    );
    let d = check_err(&m);
    let e = only(&d, c::THREADS);
    assert_eq!(e.span, m.expr_span(find(&m, "TILE_N")[0]));
    assert!(
        e.message.contains(
            "2048 threads per block (TILE_M × TILE_N = 64 × 32) exceeds the limit of 1024"
        ),
        "{e}"
    );
}

#[test]
fn warpgroups_count_128_threads_each() {
    let m = kernel(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["wg"], &["9"], Level::Group4),
        ],
        &[],
    );
    let d = check_err(&m);
    assert!(only(&d, c::THREADS).message.contains("1152 threads"));
    let ok = kernel(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["wg"], &["3"], Level::Group4),
        ],
        &[],
    );
    assert_eq!(check_ok(&ok).threads_per_block, 384);
}

#[test]
fn group4_encloses_at_most_128_threads() {
    let m = kernel(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["wg"], &["2"], Level::Group4),
            (&["t"], &["256"], Level::Thread),
        ],
        &[],
    );
    let d = check_err(&m);
    let e = only(&d, c::GROUP4);
    assert_eq!(e.span, m.expr_span(find(&m, "256")[0]));
    assert!(
        e.message
            .contains("one warpgroup of 128 threads, but the levels inside it span 256"),
        "{e}"
    );
    assert!(mentions(e, "at most 128 threads"), "{e}");
}

#[test]
fn group_encloses_at_most_32_threads() {
    let m = kernel(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["w"], &["4"], Level::Group),
            (&["t"], &["64"], Level::Thread),
        ],
        &[],
    );
    let d = check_err(&m);
    assert!(
        only(&d, c::GROUP)
            .message
            .contains("warp of 32 threads, but the levels inside it span 64")
    );
}

/// Fewer threads than a warp (warpgroup) inside a group level: the group still takes whole
/// warps (the other lanes idle), so the block counts 32 (128) threads per group, and the
/// lowering runs the inner levels on each warp's first lanes.
#[test]
fn partial_warps_pad_to_whole_warps() {
    let m = kernel(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["w"], &["3"], Level::Group),
            (&["t"], &["7"], Level::Thread),
        ],
        &[],
    );
    assert_eq!(check_ok(&m).threads_per_block, 96);
    let info = dsl_core::check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"));
    let g = info.sym_geometry.as_ref().expect("a geometry");
    assert_eq!(g.threads, dsl_core::sym::Sym::Int(96));
    assert_eq!(g.idle_lanes.len(), 1);
    assert_eq!(g.idle_lanes[0].unit, dsl_core::sym::Sym::Int(32));
    assert_eq!(g.idle_lanes[0].size, dsl_core::sym::Sym::Int(7));
    let m = kernel(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["wg"], &["2"], Level::Group4),
            (&["w"], &["3"], Level::Group),
        ],
        &[],
    );
    // Two warpgroups of three warps each (the fourth idle): 256 threads.
    assert_eq!(check_ok(&m).threads_per_block, 256);
}

/// `mma` needs every lane: a warpgroup with idle lanes that issues one is an error.
#[test]
fn partial_warpgroup_with_mma_is_an_error() {
    let m = dsl_core::parse::parse_str(
        "__co__ void k(f16 [64, 16] a, f16 [64, 16] b, f16 [64, 64] c) {
  parallel p by 1 : block {
    shared f16 [64, 16] a_s, b_s;
    shared f16 [64, 64] c_s;
    parallel wg by 1 : group-4, t by 64 : thread {
      mc = mma.fill.f16 0.0f;
      ma = mma.load a_s;
      mb = mma.load b_s;
      mma.row.row mc, ma, mb;
      mma.store mc, c_s;
    }
  }
}
",
        Some("k.co"),
    )
    .expect("parses")
    .module;
    let d = check_err(&m);
    let e = only(&d, c::GROUP4);
    assert!(
        mentions(e, "its `mma` needs every thread of the warpgroup"),
        "{e}"
    );
}

#[test]
fn levels_out_of_order() {
    let m = kernel(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["t"], &["128"], Level::Thread),
            (&["wg"], &["2"], Level::Group4),
        ],
        &[],
    );
    let d = check_err(&m);
    let e = only(&d, c::LEVEL_ORDER);
    assert!(
        e.message
            .contains("`: group-4` cannot be nested inside `: thread`"),
        "{e}"
    );
}

#[test]
fn no_block_level_at_the_top() {
    let m = kernel(&[(&["t"], &["128"], Level::Thread)], &[]);
    let d = check_err(&m);
    let e = only(&d, c::NO_BLOCK);
    assert!(
        e.message.contains("outermost parallel level is `: thread`"),
        "{e}"
    );
}

#[test]
fn nested_parallels_compose() {
    // v3's structure: block level, then warpgroups × threads in a nested parallel.
    let mut b = B::new();
    b.gemm_params(DType::F16);
    let p = b.par(&[(&["bm"], &["cdiv(M, 64)"], Level::Block)], |b| {
        vec![b.par(
            &[
                (&["wg"], &["2"], Level::Group4),
                (&["t"], &["128"], Level::Thread),
            ],
            |_| vec![],
        )]
    });
    let m = b.finish(vec![p]);
    let info = check_ok(&m);
    assert_eq!(info.threads_per_block, 256);
    assert_eq!(m.expr_to_string(info.grid[0]), "cdiv(M, 64)");
}

#[test]
fn thread_extent_known_at_launch_is_not_lowered_yet() {
    let m = kernel(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["t"], &["K"], Level::Thread),
        ],
        &[],
    );
    let d = check_err(&m);
    let e = only(&d, c::NOT_LOWERED_LAUNCH_THREADS);
    assert!(e.message.contains("known only at launch"), "{}", e.message);
    // `tessel check` reports it as a note: the kernel is legal, its lowering is missing.
    let cfg = dsl_core::check::Config::defaults(&m);
    let (_, notes) =
        dsl_core::check::check_language(&m, &cfg, None, &dsl_core::check::Limits::SM90)
            .expect("legal");
    assert!(
        notes
            .0
            .iter()
            .any(|n| n.code == c::NOT_LOWERED_LAUNCH_THREADS),
        "{notes}"
    );
}

#[test]
fn vars_and_extents_disagree() {
    let m = kernel(&[(&["bm", "bn"], &["cdiv(M, 64)"], Level::Block)], &[]);
    let d = check_err(&m);
    assert!(
        only(&d, c::EXTENT)
            .message
            .contains("2 variables but 1 extents")
    );
}

#[test]
fn two_top_level_parallels() {
    let mut b = B::new();
    b.gemm_params(DType::F16);
    let p1 = b.par(&[(&["bm"], &["cdiv(M, 64)"], Level::Block)], |_| vec![]);
    let p2 = b.par(&[(&["bn"], &["cdiv(N, 64)"], Level::Block)], |_| vec![]);
    let m = b.finish(vec![p1, p2]);
    let d = check_err(&m);
    assert_eq!(only(&d, c::NO_BLOCK).span, m.stmt_span(p2));
}

#[test]
fn sibling_parallels_with_different_thread_counts() {
    let mut b = B::new();
    b.gemm_params(DType::F16);
    let p = b.par(&[(&["bm"], &["cdiv(M, 64)"], Level::Block)], |b| {
        vec![
            b.par(&[(&["t"], &["128"], Level::Thread)], |_| vec![]),
            b.par(&[(&["t"], &["256"], Level::Thread)], |_| vec![]),
        ]
    });
    let m = b.finish(vec![p]);
    let d = check_err(&m);
    assert!(
        only(&d, c::THREAD_MISMATCH)
            .message
            .contains("256 threads per block, an earlier one 128")
    );
}

#[test]
fn seed_kernels_geometry() {
    assert_eq!(check_ok(&v0()).threads_per_block, 1024);
    assert_eq!(check_ok(&v2()).threads_per_block, 128);
    assert_eq!(check_ok(&v3()).threads_per_block, 256);
}
