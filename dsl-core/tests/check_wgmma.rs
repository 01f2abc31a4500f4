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
    // v2 with WARP_N = 180 (there is no m64n180k16).
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
fn k_must_be_a_multiple_of_16() {
    let m = wgmma(
        |_| {},
        |b| {
            v2_body(
                b,
                "lhs_s.subspan(WARP_M, 8).at(0, iv_wk)",
                "rhs_s.subspan(WARP_N, 8).at(0, iv_wk)",
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
            .contains("K must be a multiple of 16 for f16 operands; 8 here"),
        "{d}"
    );
}

#[test]
fn k_of_32_is_two_k_steps() {
    let m = wgmma(
        |_| {},
        |b| {
            v2_body(
                b,
                "lhs_s.subspan(WARP_M, 32).at(0, iv_wk % 2)",
                "rhs_s.subspan(WARP_N, 32).at(0, iv_wk % 2)",
                F16,
                F16,
            )
        },
    );
    check_ok(&m);
}

#[test]
fn a_and_b_must_agree_on_k() {
    let m = wgmma(
        |_| {},
        |b| {
            v2_body(
                b,
                "lhs_s.subspan(WARP_M, 32).at(0, iv_wk % 2)",
                "rhs_s.chunkat(_, iv_wk)",
                F16,
                F16,
            )
        },
    );
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_K);
    assert!(
        e.message.contains("B operand has K = 16, but A has K = 32"),
        "{e}"
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
    let m = wgmma(|_| {}, |b| v2_body(b, A, BB, F16, DType::F8E4M3));
    let d = check_err(&m);
    assert!(
        d.iter()
            .any(|x| x.code == c::F8 && x.message.contains("cannot be an accumulator")),
        "{d}"
    );
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
fn f8_tile_that_no_mma_reads_is_rejected() {
    // In a WGMMA kernel, beside the f16 operands (on the SIMT path an f8 tile may be copied).
    let m = wgmma(
        |_| {},
        |b| {
            let mut v = v2_body(b, A, BB, DType::F16, DType::F16);
            v.insert(
                0,
                b.tensor(
                    MemSpace::Shared,
                    DType::F8E4M3,
                    &["WARP_M", "TILE_K"],
                    &[("extra_s", None)],
                ),
            );
            v
        },
    );
    let d = check_err(&m);
    let e = only(&d, c::F8);
    assert!(
        e.message
            .contains("f8_e4m3 tensor `extra_s` is not a WGMMA operand"),
        "{e}"
    );
}

/// The v2 body with 8-bit operands (params too) and accumulator `acc`.
fn eight_bit(dt: DType, acc: DType, a: &str, b: &str) -> dsl_core::ir::Module {
    let mut m = wgmma(|_| {}, |bb| v2_body(bb, a, b, dt, acc));
    for p in m.kernel.params.iter_mut().take(2) {
        p.dtype = dt;
    }
    m.kernel.params[2].dtype = acc;
    m
}

#[test]
fn f8_k_must_be_a_multiple_of_32() {
    // 16-wide K slices are one f16 instruction, half an 8-bit one.
    let m = eight_bit(DType::F8E4M3, DType::F32, A, BB);
    let d = check_err(&m);
    let ks: Vec<_> = d.iter().filter(|x| x.code == c::WGMMA_K).collect();
    assert!(!ks.is_empty(), "{d}");
    assert!(
        ks[0]
            .message
            .contains("K must be a multiple of 32 for f8_e4m3 operands; WARP_K = 16 here"),
        "{d}"
    );
}

#[test]
fn s8_needs_an_s32_accumulator() {
    let m = eight_bit(DType::S8, DType::F32, A, BB);
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_ACC);
    assert!(
        e.message.contains("s8 operands need an s32 accumulator"),
        "{e}"
    );
    assert!(mentions(e, "mma.fill.s32"), "{e}");
}

#[test]
fn s32_accumulator_needs_s8_operands() {
    let m = wgmma(|_| {}, |b| v2_body(b, A, BB, F16, DType::I32));
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_ACC);
    assert!(
        e.message
            .contains("an s32 accumulator takes s8 operands, not f16"),
        "{e}"
    );
}

/// Every `mma` of `m` made `a_major`.`b_major`.
fn with_majors(
    mut m: dsl_core::ir::Module,
    a: dsl_core::ir::Major,
    b: dsl_core::ir::Major,
) -> dsl_core::ir::Module {
    let ids: Vec<_> = m.stmts.iter().map(|(h, _)| h).collect();
    for h in ids {
        if let dsl_core::ir::Stmt::Mma {
            a_major, b_major, ..
        } = &mut m.stmts[h]
        {
            *a_major = a;
            *b_major = b;
        }
    }
    m
}

#[test]
fn eight_bit_operands_must_be_k_major() {
    use dsl_core::ir::Major;
    // A square K tile keeps the shapes legal either way round: only the major order is wrong.
    let m = with_majors(
        eight_bit(DType::F8E5M2, DType::F32, A, BB),
        Major::Row,
        Major::Col,
    );
    let d = check_err(&m);
    let e = only(&d, c::WGMMA_8BIT_MAJOR);
    assert!(
        e.message
            .contains("8-bit WGMMA (f8_e5m2) reads both operands K-major; the B operand"),
        "{e}"
    );
}

#[test]
fn mn_major_16_bit_operands_are_not_lowered_yet() {
    use dsl_core::ir::Major;
    let m = with_majors(
        wgmma(|_| {}, |b| v2_body(b, A, BB, F16, DType::F32)),
        Major::Col,
        Major::Row,
    );
    let d = check_err(&m);
    assert!(
        d.iter().any(|x| x.code == c::NOT_LOWERED_MN_MAJOR
            && x.message.contains("MN-major (`col`) A operand")),
        "{d}"
    );
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
