//! Placement: declarations inside parallels, WGMMA loads from shared, copy spaces.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::ir::{AssignOp, DType, Level, MemSpace};

#[test]
fn shared_outside_parallel() {
    let mut b = B::new();
    b.gemm_params(DType::F16);
    let s = b.shared(DType::F16, &["64", "64"], "buf", None);
    let p = b.par(&[(&["bm"], &["cdiv(M, 64)"], Level::Block)], |_| vec![]);
    let m = b.finish(vec![s, p]);
    let d = check_err(&m);
    let e = only(&d, c::DECL_PLACE);
    assert!(
        e.message
            .contains("shared tensor must be declared inside a `parallel`"),
        "{e}"
    );
}

#[test]
fn scalar_values_outside_parallel_are_kernel_scope() {
    // Values every thread computes alike (from constants, problem sizes, other such values,
    // a `mutable` one updated there) are accepted outside the `parallel`.
    let mut b = B::new();
    b.gemm_params(DType::F16);
    let x = b.let_("x", "1");
    let f = b.scalar(DType::F32, "scale", Some("0.125f * x"));
    let n = b.scalar(DType::I32, "n", Some("cdiv(M, 64)"));
    let a = b.assign("n", AssignOp::Add, "x");
    let p = b.par(&[(&["bm"], &["cdiv(M, 64)"], Level::Block)], |_| vec![]);
    let m = b.finish(vec![x, f, n, a, p]);
    check_ok(&m);
    assert_eq!(
        dsl_core::check::kernel_scope::hoistable(&m),
        vec![x, f, n, a]
    );
}

#[test]
fn statement_outside_parallel() {
    // A value the launch geometry needs (named by a `parallel`'s extents) stays outside.
    let mut b = B::new();
    b.gemm_params(DType::F16);
    let s = b.let_("x", "64");
    let p = b.par(&[(&["bm"], &["cdiv(M, x)"], Level::Block)], |_| vec![]);
    let m = b.finish(vec![s, p]);
    let d = check_err(&m);
    assert_eq!(only(&d, c::OUTSIDE_PARALLEL).span, m.stmt_span(s));
}

#[test]
fn an_effect_outside_parallel_has_its_own_code() {
    // A write to a tensor element outside every `parallel`: every thread would repeat it.
    let mut b = B::new();
    b.gemm_params(DType::F16);
    let s = b.assign("output.at(0, 0)", AssignOp::Set, "1.0f");
    let p = b.par(&[(&["bm"], &["cdiv(M, 64)"], Level::Block)], |_| vec![]);
    let m = b.finish(vec![s, p]);
    let d = check_err(&m);
    let e = only(&d, c::KERNEL_SCOPE_EFFECT);
    assert_eq!(e.span, m.stmt_span(s));
    assert!(e.message.contains("a write to a tensor element"), "{e}");
}

#[test]
fn global_declared_in_body() {
    let m = simple(|b| vec![b.tensor(MemSpace::Global, DType::F16, &["64"], &[("g", None)])]);
    let d = check_err(&m);
    assert!(
        only(&d, c::DECL_PLACE)
            .message
            .contains("global tensors cannot be declared")
    );
}

#[test]
fn wgmma_load_from_global() {
    let m = wgmma(
        |_| {},
        |b| {
            vec![
                b.shared(DType::F16, &["WARP_N", "TILE_K"], "rhs_s", None),
                b.fill("mc", DType::F16, "0.0f"),
                b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                    vec![b.foreach(&["iv_wk"], &["cdiv(TILE_K, WARP_K)"], |b| {
                        vec![
                            b.load("ma", None, "lhs.subspan(WARP_M, WARP_K).at(block_m, iv_wk)"),
                            b.load("mb", None, "rhs_s.chunkat(_, iv_wk)"),
                            b.mma("mc", "ma", "mb"),
                        ]
                    })]
                }),
            ]
        },
    );
    let d = check_err(&m);
    let e = only(&d, c::MMA_LOAD_SPACE);
    assert_eq!(
        e.span,
        m.expr_span(find(&m, "lhs.subspan(WARP_M, WARP_K).at(block_m, iv_wk)")[0])
    );
    assert!(e.message.contains("is global"), "{e}");
}

#[test]
fn tma_between_shared_tensors() {
    let m = wgmma(
        |_| {},
        |b| {
            vec![
                b.shared(DType::F16, &["64", "64"], "a", None),
                b.shared(DType::F16, &["64", "64"], "b2", None),
                b.tma(None, None, "a", "b2"),
            ]
        },
    );
    let d = check_err(&m);
    assert!(
        only(&d, c::COPY_SPACE)
            .message
            .contains("`tma.copy` from shared to shared")
    );
}

#[test]
fn dma_global_to_global() {
    let m = simple(|b| {
        vec![b.dma(
            "lhs.subspan(TILE_M, TILE_K).at(0, 0)",
            "rhs.subspan(TILE_M, TILE_K).at(0, 0)",
        )]
    });
    let d = check_err(&m);
    assert_eq!(codes(&d), vec![c::COPY_SPACE], "{d}");
}
