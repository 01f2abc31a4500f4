//! Swizzle: legal values, tma.copy ↔ mma.load agreement and inference, row bytes.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::ir::Stmt;

fn swizzles(m: &dsl_core::ir::Module, info: &dsl_core::check::KernelInfo) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = m
        .stmts
        .iter()
        .filter_map(|(s, st)| match st {
            Stmt::TmaCopy { src, .. } => {
                Some((format!("tma {}", m.expr_to_string(*src)), info.swizzle[&s]))
            }
            Stmt::MmaLoad { src, .. } => {
                Some((format!("load {}", m.expr_to_string(*src)), info.swizzle[&s]))
            }
            _ => None,
        })
        .collect();
    v.sort();
    v
}

#[test]
fn bad_value() {
    let m = v2_with(
        |b| {
            v2_header(b);
            b.constant("BAD", "96");
        },
        Some("BAD"),
        Some("BAD"),
    );
    let d = check_err(&m);
    let e: Vec<_> = d.iter().filter(|x| x.code == c::SWIZZLE_VALUE).collect();
    assert_eq!(e.len(), 4, "{d}");
    assert!(
        e[0].message
            .contains("must be 32, 64 or 128 bytes, not BAD = 96"),
        "{d}"
    );
    assert_eq!(d.len(), 4, "{d}");
}

#[test]
fn inferred_forwards_from_the_mma_load() {
    // Stated only on mma.load (the source of truth): the copies take it.
    let m = v2_with(v2_header, None, Some("SWIZ"));
    let info = check_ok(&m);
    for (what, s) in swizzles(&m, &info) {
        let want = if what == "tma output_s" { 0 } else { 128 };
        assert_eq!(s, want, "{what}");
    }
}

#[test]
fn inferred_backwards_from_the_copy() {
    let m = v2_with(v2_header, Some("SWIZ"), None);
    let info = check_ok(&m);
    assert!(
        swizzles(&m, &info)
            .iter()
            .filter(|(w, _)| w.starts_with("load"))
            .all(|(_, s)| *s == 128)
    );
}

#[test]
fn disagreement_reports_both_spans() {
    let m = v2_with(
        |b| {
            v2_header(b);
            b.constant("S64", "64");
        },
        Some("S64"),
        Some("SWIZ"),
    );
    let d = check_err(&m);
    let e: Vec<_> = d.iter().filter(|x| x.code == c::SWIZZLE_MISMATCH).collect();
    assert_eq!(e.len(), 2, "{d}"); // lhs_s and rhs_s
    let s64 = find(&m, "S64");
    let swiz = find(&m, "SWIZ");
    assert!(s64.iter().any(|&x| m.expr_span(x) == e[0].span), "{d}");
    assert!(
        swiz.iter().any(|&x| m.expr_span(x) == e[0].notes[0].0),
        "{d}"
    );
    assert!(
        e[0].message
            .contains("swizzle 64 here, but the mma.load that reads `lhs_s` uses swizzle 128"),
        "{d}"
    );
    assert_eq!(d.len(), 2, "{d}");
}

#[test]
fn row_bytes_must_equal_swizzle() {
    // TILE_K = 32 f16 = 64-byte rows with swizzle 128 (an invalid SWIZ=64, WARP_N=192 pairing).
    let m = v2_with(
        |b| {
            b.tunable("WARP_N", &[128], 128);
            b.tunable("TILE_K", &[32, 64], 32);
            b.constant("WARP_M", "64");
            b.constant("WARP_K", "16");
            b.constant("SWIZ", "128");
        },
        Some("SWIZ"),
        Some("SWIZ"),
    );
    let d = check_err(&m);
    let e: Vec<_> = d.iter().filter(|x| x.code == c::SWIZZLE_ROW).collect();
    assert_eq!(e.len(), 2, "{d}");
    assert!(
        e[0].message.contains(
            "swizzle 128 needs 128-byte rows, but `lhs_s` rows are TILE_K × f16 = 32 × 2 = 64 bytes"
        ),
        "{d}"
    );
    assert!(mentions(e[0], "use .swiz<64>"), "{d}");
    assert_eq!(d.len(), 2, "{d}");
    // Croqtile leaves the swizzle configuration to the target: for `tessel check` (the
    // language) these are notes of the lowering.
    let (_, notes) = dsl_core::check::check_language(
        &m,
        &dsl_core::check::Config::defaults(&m),
        None,
        &dsl_core::check::Limits::SM90,
    )
    .unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(
        notes.0.iter().filter(|x| x.code == c::SWIZZLE_ROW).count(),
        2,
        "{notes}"
    );
}

#[test]
fn v4_swizzle_follows_tile_k() {
    let m = v4();
    let cfg = dsl_core::check::Config::defaults(&m).with("TILE_K", 32);
    let info =
        dsl_core::check::check_config(&m, &cfg, None, &dsl_core::check::Limits::SM90).unwrap();
    assert!(
        swizzles(&m, &info)
            .iter()
            .filter(|(w, _)| !w.contains("output_s"))
            .all(|(_, s)| *s == 64)
    );
}
