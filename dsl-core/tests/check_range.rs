//! Static index ranges: arrays, events, shared tiles, narrowing by conditions.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::ir::{AssignOp, DType, MemSpace};

const F16: DType = DType::F16;

#[test]
fn loop_index_past_array_end() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["16", "16"], "buf", Some("2")),
            b.tensor(MemSpace::Local, F16, &["16", "16"], &[("dst", None)]),
            b.foreach(&["s"], &["3"], |b| vec![b.dma("buf[s]", "dst")]),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::ARRAY_RANGE);
    let s = find(&m, "s")
        .into_iter()
        .find(|&x| m.expr_span(x) == e.span);
    assert!(s.is_some(), "{e}");
    assert!(
        e.message.contains(
            "index `s` ranges over [0, 3) here, but `buf` is a tensor array of 2 elements"
        ),
        "{e}"
    );
    assert!(mentions(e, "make the loop extent `2`"), "{e}");
}

#[test]
fn modulo_keeps_the_index_in_range() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["16", "16"], "buf", Some("2")),
            b.tensor(MemSpace::Local, F16, &["16", "16"], &[("dst", None)]),
            b.foreach(&["k"], &["cdiv(K, 16)"], |b| {
                vec![b.let_("st", "k % 2"), b.dma("buf[st]", "dst")]
            }),
        ]
    });
    check_ok(&m);
}

#[test]
fn negative_index() {
    let m = simple(|b| {
        vec![
            b.events(MemSpace::Shared, &[("ev", Some("4"))]),
            b.foreach(&["i"], &["4"], |b| vec![b.trigger("ev[i - 1]")]),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::ARRAY_RANGE);
    assert_eq!(e.span, m.expr_span(find(&m, "i - 1")[0]));
    assert!(
        e.message.contains("[-1, 3)") && e.message.contains("event array of 4 elements"),
        "{e}"
    );
    assert!(mentions(e, "at least 0"), "{e}");
}

#[test]
fn narrowed_by_if() {
    // `if (i < 2) buf[i]` with i in [0, 4) is fine; without the guard it is not.
    let ok = simple(|b| {
        vec![
            b.shared(F16, &["16", "16"], "buf", Some("2")),
            b.tensor(MemSpace::Local, F16, &["16", "16"], &[("dst", None)]),
            b.foreach(&["i"], &["4"], |b| {
                vec![b.if_("i < 2", |b| vec![b.dma("buf[i]", "dst")])]
            }),
        ]
    });
    check_ok(&ok);
    let bad = simple(|b| {
        vec![
            b.shared(F16, &["16", "16"], "buf", Some("2")),
            b.tensor(MemSpace::Local, F16, &["16", "16"], &[("dst", None)]),
            b.foreach(&["i"], &["4"], |b| {
                vec![b.if_("i <= 2", |b| vec![b.dma("buf[i]", "dst")])]
            }),
        ]
    });
    let d = check_err(&bad);
    let e = only(&d, c::ARRAY_RANGE);
    assert!(e.message.contains("[0, 3)"), "{e}");
    assert!(
        e.notes
            .iter()
            .any(|(_, n)| n.contains("narrowed to [0, 3) by this condition")),
        "{e}"
    );
}

#[test]
fn narrowed_by_a_guard_on_an_expression() {
    // `i * 8 + 3` ranges over [3, 27]; under `if (i * 8 + 3 < 16)` it is below 16, alone and
    // inside `15 - (i * 8 + 3)`.
    let kernel = |guard: Option<&str>| {
        simple(|b| {
            let body = |b: &mut B| {
                vec![
                    b.assign("acc", AssignOp::Add, "lhs_s.at(15 - (i * 8 + 3), 0)"),
                    b.assign("acc", AssignOp::Add, "lhs_s.at(i * 8 + 3, 0)"),
                ]
            };
            vec![
                b.shared(F16, &["16", "TILE_K"], "lhs_s", None),
                b.dma("lhs.subspan(16, TILE_K).at(block_m, 0)", "lhs_s"),
                b.scalar(F16, "acc", Some("0.0f")),
                b.foreach(&["i"], &["4"], |b| match guard {
                    Some(g) => vec![b.if_(g, body)],
                    None => body(b),
                }),
            ]
        })
    };
    check_ok(&kernel(Some("i * 8 + 3 < 16")));
    check_ok(&kernel(Some("16 > i * 8 + 3 && i >= 0")));
    let d = check_err(&kernel(None));
    assert!(d.iter().all(|e| e.code == c::TILE_RANGE), "{d:?}");
    assert_eq!(d.len(), 2, "{d:?}");
    // A guard on another expression narrows nothing here.
    let d = check_err(&kernel(Some("i * 8 + 2 < 16")));
    assert_eq!(d.len(), 2, "{d:?}");
}

#[test]
fn a_tile_of_shared_memory_lies_inside_its_tensor() {
    // 96-column tiles of a 128-column shared tensor: one whole tile; the second would hang past
    // the buffer (a global tile may: its copies are bounds-checked).
    let kernel = |tiles: &str| {
        simple(|b| {
            vec![
                b.shared(F16, &["16", "TILE_K"], "lhs_s", None),
                b.foreach(&["k"], &[tiles], |b| {
                    vec![b.dma(
                        "lhs.subspan(16, 96).at(block_m, k)",
                        "lhs_s.subspan(16, 96).at(0, k)",
                    )]
                }),
                b.scalar(F16, "acc", Some("lhs_s.at(thr_m % 16, 0)")),
            ]
        })
    };
    check_ok(&kernel("1"));
    let d = check_err(&kernel("2"));
    let e = only(&d, c::TILE_RANGE);
    assert!(
        e.message
            .contains("`lhs_s` has 1 tile along dimension 1 in this view"),
        "{e}"
    );
}

#[test]
fn element_index_leaves_shared_tile() {
    // thr_m ranges over TILE_M = 32 rows but the tile has 16.
    let m = simple(|b| {
        vec![
            b.shared(F16, &["16", "TILE_K"], "lhs_s", None),
            b.scalar(F16, "acc", Some("0.0f")),
            b.assign("acc", AssignOp::Add, "lhs_s.at(thr_m, 0)"),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::TILE_RANGE);
    assert!(
        e.message
            .contains("`lhs_s` has 16 elements along dimension 0"),
        "{e}"
    );
    assert!(mentions(e, "make the thread count `16`"), "{e}");
}

#[test]
fn tile_coordinate_leaves_shared_tensor() {
    // lhs_s [64, 64] has 4 tiles of 16 columns; iv_wk over 8 leaves it.
    let m = wgmma(
        |_| {},
        |b| {
            v2_body(
                b,
                "lhs_s.subspan(WARP_M, WARP_K).at(0, iv_wk)",
                "rhs_s.chunkat(_, iv_wk)",
                F16,
                F16,
            )
        },
    );
    check_ok(&m);
    let m = wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(
                b,
                "lhs_s.subspan(WARP_M, WARP_K).at(0, kk)",
                "rhs_s.subspan(WARP_N, WARP_K).at(0, kk)",
                F16,
                F16,
            );
            // Wrap: foreach kk in [8] around a second load pair.
            let extra = b.foreach(&["kk"], &["8"], |b| {
                vec![
                    b.load(
                        "ma",
                        Some("SWIZ"),
                        "lhs_s.subspan(WARP_M, WARP_K).at(0, kk)",
                    ),
                    b.load(
                        "mb",
                        Some("SWIZ"),
                        "rhs_s.subspan(WARP_N, WARP_K).at(0, kk)",
                    ),
                    b.mma("mc", "ma", "mb"),
                ]
            });
            v.truncate(4);
            v.push(extra);
            v
        },
    );
    let d = check_err(&m);
    assert!(d.iter().all(|e| e.code == c::TILE_RANGE), "{d}");
    assert!(
        d.iter()
            .any(|e| e.message.contains("`lhs_s` has 4 tiles along dimension 1")),
        "{d}"
    );
}

#[test]
fn v3_consumer_index_in_range() {
    // v3 (wg by 2, CONSUMERS = 1) checks cleanly; so does v4 with its defaults.
    check_ok(&v3());
    check_ok(&v4());
}

#[test]
fn problem_sized_loops_are_not_reported_without_a_problem() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["16", "16"], "buf", Some("2")),
            b.tensor(MemSpace::Local, F16, &["16", "16"], &[("dst", None)]),
            b.foreach(&["k"], &["cdiv(K, 16)"], |b| vec![b.dma("buf[k]", "dst")]),
        ]
    });
    check_ok(&m);
    // With the problem size bound, the loop has a finite range and leaves the array.
    let p = dsl_core::check::Problem::default()
        .with("M", 64)
        .with("N", 64)
        .with("K", 64);
    let d = check_cfg_err(&m, &dsl_core::check::Config::defaults(&m), Some(&p));
    assert!(only(&d, c::ARRAY_RANGE).message.contains("[0, 4)"));
}
