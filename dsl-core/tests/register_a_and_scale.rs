//! Register-A WGMMA (`mma.load.frag`, a whole `frag` tile as A) and the standalone `mma.scale`:
//! the legal forms check and lower; each rule and each form not lowered yet fails the check with
//! exactly its code at the construct, and the same kernel without it checks and lowers.

use dsl_core::check::{self, codes as c};
use dsl_core::diag::Diagnostics;

fn check(src: &str) -> Result<String, Diagnostics> {
    let m = dsl_core::parse::parse_str(src, Some("k.co"))
        .unwrap_or_else(|d| panic!("does not parse:\n{d}\n{src}"))
        .module;
    let info = check::check(&m)?;
    let k = dsl_core::lower::lower(&m, &info)
        .unwrap_or_else(|d| panic!("checked but does not lower:\n{d}\n{src}"));
    Ok(format!("{k:?}"))
}

fn rejects(src: &str, code: &str, at: &str) {
    let d = check(src).expect_err(src);
    assert!(
        d.0.iter().all(|x| x.code == code),
        "expected only {code}:\n{d}"
    );
    let line = src
        .lines()
        .position(|l| l.contains(at))
        .unwrap_or_else(|| panic!("no `{at}` in the source")) as u32
        + 1;
    assert!(
        d.0.iter().any(|x| x.span.start.line == line),
        "{code} not on line {line} (`{at}`):\n{d}"
    );
}

/// A one-warpgroup GEMM over `dt` tiles whose k-tile `body` issues the `mma`s.
fn gemm(dt: &str, acc: &str, decls: &str, body: &str) -> String {
    // Rows of 64 elements: 128 bytes of 16-bit, 64 of 8-bit types.
    let swz = if dt.starts_with("f8") { 64 } else { 128 };
    format!(
        "__co__ void k(global {dt} [M, K] a, global {dt} [N, K] b, global f16 [M, N] c) {{
  parallel {{bm, bn}} by [cdiv(M, 64), cdiv(N, 128)] : block, by 1 : group-4 {{
    shared {dt} [64, 64] a_s;
    shared {dt} [128, 64] b_s;
    shared f16 [64, 128] c_s;
{decls}
    acc = mma.fill.{acc} 0.0f;
    foreach {{kt}} in [cdiv(K, 64)] {{
      tma.copy.swiz<{swz}> a.subspan(64, 64).at(bm, kt) => a_s;
      tma.copy.swiz<{swz}> b.subspan(128, 64).at(bn, kt) => b_s;
{body}
    }}
    mma.store acc, c_s;
    tma.copy c_s => c.subspan(64, 128).at(bm, bn);
  }}
}}
"
    )
}

#[test]
fn register_a_forms_lower() {
    let k = check(&gemm(
        "f16",
        "f32",
        "",
        "      ra = mma.load.frag a_s;\n      mma.row.row acc, ra, b_s;",
    ))
    .unwrap();
    assert!(k.contains("tsl_afrag_load"), "{k}");
    assert!(k.contains("tsl_wgmma_rs_k_steps"), "{k}");
    let k = check(&gemm(
        "bf16",
        "f32",
        "    frag bf16 [64, 64] ones {1.0f};",
        "      mma.row.row acc, ones, b_s;",
    ))
    .unwrap();
    assert!(k.contains("tsl_afrag_fill"), "{k}");
    assert!(k.contains("tsl_wgmma_rs_f32_bf16"), "{k}");
}

/// A `frag` read as A and also element by element: its layout would matter to the element
/// access, so the declaration stays "not supported yet" (E1306), never a wrong kernel.
#[test]
fn a_register_fragment_used_elsewhere_is_not_lowered_yet() {
    let src = gemm(
        "f16",
        "f32",
        "    frag f16 [64, 64] ones {1.0f};\n    ones.at(0, 0) = 2.0f;",
        "      mma.row.row acc, ones, b_s;",
    );
    // Written element by element, the tile is an accumulator-layout `frag` (not A registers),
    // which the lowering does not take as an operand yet.
    rejects(&src, c::NOT_LOWERED_FRAG_TILE_USE, "ones.at(0, 0) = 2.0f;");
}

#[test]
fn register_fragments_are_a_operands_only() {
    rejects(
        &gemm(
            "f16",
            "f32",
            "",
            "      rb = mma.load.frag b_s;\n      mma.row.row acc, a_s, rb;",
        ),
        c::REG_B,
        "mma.row.row acc, a_s, rb;",
    );
    rejects(
        &gemm(
            "f16",
            "f32",
            "",
            "      ra = mma.load.frag a_s;\n      mma.col.row acc, ra, b_s;",
        ),
        c::REG_A_MAJOR,
        "mma.col.row",
    );
    rejects(
        &gemm(
            "f16",
            "f32",
            "",
            "      ra = mma.load.frag a_s;\n      mma.row.row acc, a_s, b_s;",
        ),
        c::FRAG_LOAD_USE,
        "ra = mma.load.frag a_s;",
    );
}

#[test]
fn register_a_forms_not_lowered_yet() {
    rejects(
        &gemm(
            "f8_e4m3",
            "f32",
            "",
            "      ra = mma.load.frag a_s;\n      mma.row.row acc, ra, b_s;",
        ),
        c::NOT_LOWERED_REG_A_8BIT,
        "mma.row.row acc, ra, b_s;",
    );
    check(&gemm(
        "f8_e4m3",
        "f32",
        "",
        "      mma.row.row acc, a_s, b_s;",
    ))
    .unwrap();
}

#[test]
fn standalone_scale_lowers_into_a_partial() {
    let body = "      foreach {h} in [2] { mma.row.row acc, a_s.chunkat(_, h), b_s.chunkat(_, h); }
      mma.scale acc, 0.5f, 2.0f;";
    for acc in ["f32", "f16"] {
        let k = check(&gemm("f8_e4m3", acc, "", body)).unwrap();
        assert!(k.contains("acc_scaled_d"), "{k}");
        assert!(k.contains("tsl_acc_scale_add"), "{k}");
    }
}

#[test]
fn standalone_scale_of_a_mixed_accumulator_is_not_lowered_yet() {
    let src = gemm(
        "f8_e4m3",
        "f32",
        "",
        "      mma.row.row.scale acc, a_s, b_s, 0.5f, 2.0f;
      mma.row.row acc, a_s, b_s;
      mma.scale acc, 0.5f, 2.0f;",
    );
    rejects(&src, c::NOT_LOWERED_SCALE_MIX, "mma.scale acc, 0.5f, 2.0f;");
    rejects(
        &gemm(
            "f16",
            "f32",
            "",
            "      ma = mma.load a_s;\n      mma.row.row acc, ma, b_s;\n      mma.scale ma, 0.5f, 2.0f;",
        ),
        c::MMA_OPERAND,
        "mma.scale ma",
    );
}
