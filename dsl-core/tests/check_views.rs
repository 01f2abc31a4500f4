//! Views and copies: tile shapes, element types, `chunkat` inference, malformed views.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::ir::{DType, MemSpace};

const F16: DType = DType::F16;

#[test]
fn copy_shape_mismatch() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "64"], "lhs_s", None),
            b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                vec![b.dma("lhs.subspan(TILE_M, TILE_K).at(block_m, iv_k)", "lhs_s")]
            }),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::COPY_SHAPE);
    assert_eq!(e.span, m.expr_span(find(&m, "lhs_s")[0]));
    assert!(e.message.contains("mismatch in dimension 1"), "{e}");
    assert!(
        e.message.contains("[TILE_M = 32, TILE_K = 128]")
            && e.message.contains("[TILE_M = 32, 64]"),
        "{e}"
    );
}

#[test]
fn copy_into_a_fixed_tile_from_a_problem_sized_one() {
    // `.subspan(TILE_M, K)`: the source's second extent is the problem's K.
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                vec![b.dma("lhs.subspan(TILE_M, K).at(block_m, iv_k)", "lhs_s")]
            }),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::COPY_SHAPE);
    assert!(
        e.message.contains("no compile-time extent in dimension 1"),
        "{e}"
    );
}

#[test]
fn copy_dtype_mismatch() {
    let m = simple(|b| {
        vec![
            b.tensor(
                MemSpace::Shared,
                DType::F32,
                &["TILE_M", "TILE_K"],
                &[("lhs_s", None)],
            ),
            b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                vec![b.dma("lhs.subspan(TILE_M, TILE_K).at(block_m, iv_k)", "lhs_s")]
            }),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::COPY_DTYPE);
    assert!(e.message.contains("copy from f16 to f32"), "{e}");
    assert!(mentions(e, "declare the destination as f16"), "{e}");
}

#[test]
fn tma_copy_shape_mismatch_under_another_config() {
    // v2's copies agree for every WARP_N; break one by declaring rhs_s with WARP_M rows.
    let m = wgmma(
        |_| {},
        |b| {
            vec![
                b.shared(F16, &["WARP_M", "TILE_K"], "rhs_s", None),
                b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                    vec![b.tma(None, None, "rhs.chunkat(block_n, iv_k)", "rhs_s")]
                }),
            ]
        },
    );
    let d = check_err(&m);
    let e = only(&d, c::COPY_SHAPE);
    assert!(e.message.contains("dimension 0"), "{e}");
    assert!(
        e.message.contains("WARP_N = 128") && e.message.contains("WARP_M = 64"),
        "{e}"
    );
}

#[test]
fn chunkat_constant_extent_splits_evenly() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["32", "128"], "a_s", None),
            b.tensor(MemSpace::Local, F16, &["8", "128"], &[("b_s", None)]),
            b.foreach(&["q"], &["4"], |b| vec![b.dma("a_s.chunkat(q, _)", "b_s")]),
        ]
    });
    let info = check_ok(&m);
    let v = &info.views[&find(&m, "a_s.chunkat(q, _)")[0]];
    assert_eq!(
        v.tile.iter().map(|d| d.value).collect::<Vec<_>>(),
        vec![Some(8), Some(128)]
    );
}

#[test]
fn chunkat_uneven_split() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["30", "128"], "a_s", None),
            b.shared(F16, &["8", "128"], "b_s", None),
            b.foreach(&["q"], &["4"], |b| vec![b.dma("a_s.chunkat(q, _)", "b_s")]),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::CHUNK);
    assert_eq!(e.span, m.expr_span(find(&m, "q")[0]));
    assert!(
        e.message.contains("splits a dimension of 30 into 4 chunks"),
        "{e}"
    );
}

#[test]
fn chunkat_cannot_infer_from_expression() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.dma("lhs.chunkat(block_m + 1, 0)", "lhs_s"),
        ]
    });
    let d = check_err(&m);
    assert_eq!(codes(&d), vec![c::CHUNK, c::CHUNK], "{d}");
    assert!(d.iter().any(|e| {
        e.message
            .contains("cannot infer the chunk size from `block_m + 1`")
    }));
}

/// A `.subspan` tiling that picks no tile is no view of its own: in hand-built IR, also as a
/// copy operand (`E0205`; the parser writes a copy operand's first tile as `.at(0, …)`).
#[test]
fn subspan_without_at() {
    for build in [
        (|b: &mut B| b.dma("lhs.subspan(TILE_M, TILE_K)", "lhs_s")) as fn(&mut B) -> _,
        |b: &mut B| b.load("ma", None, "lhs_s.subspan(16, 16)"),
    ] {
        let m = simple(|b| {
            vec![
                b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
                build(b),
            ]
        });
        let d = check_err(&m);
        assert!(only(&d, c::VIEW).message.contains("picks no tile"), "{d}");
    }
}

#[test]
fn wrong_index_count() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.scalar(F16, "x", Some("0.0f")),
            b.assign("x", dsl_core::ir::AssignOp::Set, "lhs_s.at(thr_m)"),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::VIEW);
    assert!(e.message.contains("the tensor has 2, found 1"), "{e}");
}

#[test]
fn array_without_index_and_index_on_plain() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "buf", Some("2")),
            b.shared(F16, &["TILE_M", "TILE_K"], "one", None),
            b.dma("buf", "one[0]"),
        ]
    });
    let d = check_err(&m);
    assert_eq!(codes(&d), vec![c::VIEW, c::VIEW], "{d}");
    assert!(
        d.iter()
            .any(|e| e.message.contains("`buf` is an array of 2 tensors"))
    );
    assert!(
        d.iter()
            .any(|e| e.message.contains("`one` is not an array"))
    );
}

#[test]
fn tile_larger_than_shared_tensor() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.shared(F16, &["64", "TILE_K"], "big", None),
            b.dma("lhs_s.subspan(64, TILE_K).at(0, 0)", "big"),
        ]
    });
    let d = check_err(&m);
    assert!(
        only(&d, c::VIEW)
            .message
            .contains("tile size 64 does not fit dimension 0")
    );
}

/// `chunkat` over a fixed on-chip dimension with the extent `cdiv(D, T)` makes chunks of T:
/// a T wider than D would read past the buffer. A global dimension's last chunk is clipped.
#[test]
fn chunk_wider_than_shared_dimension() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "16"], "lhs_s", None),
            b.shared(F16, &["TILE_M", "32"], "wide", None),
            b.foreach(&["iv_k"], &["cdiv(16, 32)"], |b| {
                vec![b.dma("lhs_s.chunkat(_, iv_k)", "wide")]
            }),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::VIEW);
    assert!(
        e.message
            .contains("chunk size 32 does not fit dimension 1 of extent 16"),
        "{e}"
    );
    assert_eq!(e.span, m.expr_span(*find(&m, "iv_k").last().unwrap()));
    // The same chunk over a global dimension is legal: its one chunk is clipped at run time.
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                vec![b.dma("lhs.chunkat(block_m, iv_k)", "lhs_s")]
            }),
        ]
    });
    check_ok(&m);
}
