//! WGMMA legality: M, N, K, dtypes, accumulators, f8, mma outside group-4, mma.store.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::ir::{DType, MemSpace};

const F16: DType = DType::F16;
const A: &str = "lhs_s.chunkat(_, iv_wk)";
const BB: &str = "rhs_s.chunkat(_, iv_wk)";

#[test]
fn v2_body_passes() {
    let m = wgmma(|_| {}, |b| v2_body(b, A, BB, F16, F16));
    check_ok(&m);
    let m = wgmma(|_| {}, |b| v2_body(b, A, BB, F16, DType::F32));
    check_ok(&m);
}

#[test]
fn n_not_multiple_of_8() {
    // v2 with WARP_N = 180 (seed 004: "m64n180k16 not supported").
    let m = v2_with(
        |b| {
            b.tunable("WARP_N", &[128, 180], 180);
            b.tunable("TILE_K", &[64], 64);
            b.constant("WARP_M", "64");
            b.constant("WARP_K", "16");
            b.constant("SWIZ", "128");
        },
        Some("SWIZ"),
        Some("SWIZ"),
    );
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_N);
    assert_eq!(
        e.message,
        "WGMMA N must be a multiple of 8 in 8..=256; WARP_N = 180 here — try 176 or 184"
    );
    // At the `WARP_N` that sizes rhs_s (the B tile's N).
    let warp_n = find(&m, "WARP_N");
    assert!(warp_n.iter().any(|&w| m.expr_span(w) == e.span), "{e}");
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn n_too_large() {
    let mut m = wgmma(
        |_| {},
        |b| v2_body(b, A, "rhs_s.subspan(264, 16).at(0, iv_wk)", F16, F16),
    );
    // rhs_s must be big enough for a 264-row tile: make WARP_N's default 264.
    m.tunables[0].domain.push(264);
    m.tunables[0].default = 264;
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_N);
    assert!(e.message.contains("264 here — try 256"), "{e}");
}

#[test]
fn m_must_be_64() {
    let m = wgmma(
        |_| {},
        |b| v2_body(b, "lhs_s.subspan(32, WARP_K).at(0, iv_wk)", BB, F16, F16),
    );
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_M);
    assert_eq!(e.span, m.expr_span(find(&m, "32")[0]));
    assert!(
        e.message
            .contains("M must be 64 per warpgroup; the A tile has M = 32"),
        "{e}"
    );
}

#[test]
fn k_must_be_16() {
    let m = wgmma(
        |_| {},
        |b| {
            v2_body(
                b,
                "lhs_s.subspan(WARP_M, 32).at(0, iv_wk)",
                "rhs_s.subspan(WARP_N, 32).at(0, iv_wk)",
                F16,
                F16,
            )
        },
    );
    let d = check_err(&m);
    let ks: Vec<_> = d.iter().filter(|x| x.code == c::WGMMA_K).collect();
    assert_eq!(ks.len(), 2, "{d}");
    assert!(
        ks[0]
            .message
            .contains("K must be 16 for f16 operands; 32 here"),
        "{d}"
    );
}

#[test]
fn bf16_needs_f32_accumulator() {
    let mut m = wgmma(|_| {}, |b| v2_body(b, A, BB, DType::BF16, DType::F16));
    for p in &mut m.kernel.params {
        p.dtype = DType::BF16;
    }
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_ACC);
    assert!(
        e.message.contains("bf16 operands need an f32 accumulator"),
        "{e}"
    );
    assert!(mentions(e, "mma.fill.f32"), "{e}");
    // output_s is f16 here too; the f16 accumulator stores into it fine, so no other error.
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn bf16_with_f32_accumulator_passes() {
    let mut m = wgmma(|_| {}, |b| v2_body(b, A, BB, DType::BF16, DType::F32));
    for p in &mut m.kernel.params {
        p.dtype = DType::BF16;
    }
    check_ok(&m);
}

#[test]
fn accumulator_must_be_f16_or_f32() {
    let m = wgmma(|_| {}, |b| v2_body(b, A, BB, F16, DType::I32));
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_ACC);
    assert!(e.message.contains("accumulates in f16 or f32"), "{e}");
}

#[test]
fn operand_dtypes_must_agree() {
    let mut m = wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(b, A, BB, F16, DType::F32);
            v[1] = b.tensor(
                MemSpace::Shared,
                DType::BF16,
                &["WARP_N", "TILE_K"],
                &[("rhs_s", None)],
            );
            v
        },
    );
    m.kernel.params[1].dtype = DType::BF16;
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_DTYPE);
    assert!(e.message.contains("`ma` is f16 but `mb` is bf16"), "{e}");
}

#[test]
fn f8_is_not_supported_yet() {
    let m = wgmma(
        |_| {},
        |b| {
            vec![b.tensor(
                MemSpace::Shared,
                DType::F8E4M3,
                &["WARP_M", "TILE_K"],
                &[("lhs_s", None)],
            )]
        },
    );
    let d = check_err(&m);
    let e = only(&d, c::F8);
    assert!(e.message.contains("f8_e4m3 is not supported yet"), "{e}");
}

#[test]
fn mma_outside_group4() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["64", "16"], "a_s", None),
            b.shared(F16, &["64", "16"], "b_s", None),
            b.fill("mc", F16, "0.0f"),
            b.load("ma", None, "a_s"),
            b.load("mb", None, "b_s"),
            b.mma("mc", "ma", "mb"),
        ]
    });
    let d = check_err(&m);
    assert!(
        only(&d, c::MMA_OPERAND)
            .message
            .contains("outside a `: group-4` level")
    );
}

#[test]
fn operands_swapped_with_accumulator() {
    let m = wgmma(
        |_| {},
        |b| {
            vec![
                b.shared(F16, &["WARP_M", "TILE_K"], "lhs_s", None),
                b.shared(F16, &["WARP_N", "TILE_K"], "rhs_s", None),
                b.fill("mc", F16, "0.0f"),
                b.load("ma", None, "lhs_s.subspan(64, 16).at(0, 0)"),
                b.load("mb", None, "rhs_s.subspan(WARP_N, 16).at(0, 0)"),
                // mma.row.row ma, mc, mb: a loaded operand in the accumulator slot.
                b.mma("ma", "mc", "mb"),
            ]
        },
    );
    let d = check_err(&m);
    assert!(d.iter().all(|x| x.code == c::MMA_OPERAND), "{d}");
    assert!(
        d.iter().any(|x| x
            .message
            .contains("`ma` is a loaded operand, not an accumulator")),
        "{d}"
    );
}

#[test]
fn mma_store_into_wrong_shape() {
    let m = wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(b, A, BB, F16, F16);
            v[2] = b.shared(F16, &["WARP_M", "64"], "output_s", None);
            v
        },
    );
    let d = check_err(&m);
    let e = only(&d, c::MMA_STORE_SHAPE);
    assert_eq!(e.span, m.expr_span(find(&m, "output_s")[0]));
    assert!(
        e.message.contains(
            "writes the [WARP_M = 64, WARP_N = 128] accumulator `mc` into a [WARP_M = 64, 64] tile"
        ),
        "{e}"
    );
}

#[test]
fn mma_store_dtype() {
    // f16 accumulator into an f32 tile: not a narrowing store.
    let m = wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(b, A, BB, F16, F16);
            v[2] = b.tensor(
                MemSpace::Shared,
                DType::F32,
                &["WARP_M", "WARP_N"],
                &[("output_s", None)],
            );
            v
        },
    );
    let d = check_err(&m);
    assert!(
        only(&d, c::STORE_DTYPE)
            .message
            .contains("of an f16 accumulator into an f32 tile")
    );
    // f32 accumulator into an f16 tile: the usual epilogue conversion.
    let ok = wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(b, A, BB, F16, DType::F32);
            v[2] = b.shared(F16, &["WARP_M", "WARP_N"], "output_s", None);
            v
        },
    );
    check_ok(&ok);
}
