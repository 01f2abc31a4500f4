//! A WGMMA operand tile no statement states a swizzle for takes the swizzle of its rows (32, 64
//! or 128 bytes) when tessel writes every byte of it — plain `f = dma.copy … => shared` futures
//! of 2-D global tiles, TMA loads — and nothing else names it; otherwise the operand stays
//! unswizzled and `E1422` says how to state one.

use dsl_core::check::{self, Config, KernelInfo, Limits};
use dsl_core::parse::parse_str;

fn check(src: &str) -> Result<(dsl_core::ir::Module, KernelInfo), Vec<(&'static str, String)>> {
    let m = parse_str(src, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module;
    match check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok(info) => Ok((m, info)),
        Err(d) => Err(d.iter().map(|x| (x.code, x.message.clone())).collect()),
    }
}

/// A 64 × N GEMM step whose operands are plain fresh-buffer copies of K columns; `extra` is a
/// statement inside the block after the copies.
fn kernel(k: u32, n: u32, extra: &str) -> String {
    format!(
        "__co__ void k(f16 [M, K] a, f16 [N, K] b, f32 [M, N] c) {{\n  parallel {{bm, bn}} by [cdiv(M, 64), cdiv(N, {n})] : block {{\n    acc = mma.fill.f32 0.0f;\n    foreach {{kt}} in [cdiv(K, {k})] {{\n      a_s = dma.copy a.subspan(64, {k}).at(bm, kt) => shared;\n      b_s = dma.copy b.subspan({n}, {k}).at(bn, kt) => shared;\n      {extra}\n      parallel by 1 : group-4 {{\n        mma.row.row acc, a_s, b_s;\n      }}\n    }}\n    mma.store acc, c.subspan(64, {n}).at(bm, bn);\n  }}\n}}\n"
    )
}

/// The swizzles the check chose, by the statement's DSL line.
fn chosen(m: &dsl_core::ir::Module, info: &KernelInfo) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = info
        .swizzle_implicit
        .iter()
        .map(|(&s, &z)| (m.stmt_span(s).start.line, z))
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn plain_operand_copies_take_the_swizzle_of_their_rows() {
    for (k, want) in [(16, 32), (32, 64), (64, 128)] {
        let (m, info) = check(&kernel(k, 64, "")).unwrap_or_else(|c| panic!("K {k}: {c:?}"));
        let got = chosen(&m, &info);
        // The two copies (lines 5 and 6) and the two operand loads of the `mma` (line 9).
        assert_eq!(got, vec![(5, want), (6, want), (9, want)], "K {k}");
        let k = dsl_core::lower::lower(&m, &info).expect("check ok ⇒ lower ok");
        let body: String = k.body.iter().map(|l| format!("{}\n", l.op)).collect();
        assert_eq!(body.matches("tsl_copy_g2s_swz<").count(), 2, "{body}");
        assert!(body.contains(&format!("tsl_wgmma_desc<{want}>")), "{body}");
    }
}

#[test]
fn rows_wider_than_a_swizzle_stay_unswizzled() {
    // 128 halves of K: 256-byte rows, wider than any swizzle span.
    let c = check(&kernel(128, 64, "")).err().unwrap_or_default();
    assert!(c.iter().any(|(code, _)| *code == "E1422"), "{c:?}");
}

#[test]
fn a_tile_named_elsewhere_keeps_its_plain_layout() {
    // An element of `a_s` read by the threads: its layout is visible, so tessel does not choose it.
    let extra = "parallel {t} by [128] : thread { c.at(bm # 0, t % 64) = a_s.at(0, 0); }";
    let c = check(&kernel(64, 64, extra)).err().unwrap_or_default();
    assert!(
        c.iter()
            .any(|(code, msg)| *code == "E1422" && msg.contains("no swizzle")),
        "{c:?}"
    );
}

#[test]
fn a_stated_swizzle_is_kept() {
    // One side states `.swiz<128>`: the other follows it, and nothing is chosen.
    let src = kernel(64, 64, "").replace("a_s = dma.copy a", "a_s = dma.copy.swiz<128> a");
    let src = src.replace("b_s = dma.copy b", "b_s = dma.copy.swiz<128> b");
    let (_, info) = check(&src).unwrap_or_else(|c| panic!("{c:?}"));
    assert!(info.swizzle_implicit.is_empty());
}

#[test]
fn a_tile_written_in_parts_by_tma_keeps_its_plain_layout() {
    // Two TMA loads of 32 columns each into the halves of 64-column rows: tessel does not lay
    // out a tile it fills in parts.
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/lowered/wgmma_tma_unswizzled.co"
    ))
    .unwrap();
    let (_, info) = check(&src).unwrap_or_else(|c| panic!("{c:?}"));
    assert!(!info.swizzle_implicit.is_empty());
    let parts = src.replace(
        "tma.copy lhs.subspan(64, 32).at(bm, kt # h) => a_s;",
        "tma.copy lhs.subspan(64, 32).at(bm, kt # h) => b_s.subspan(64, 32).at(0, h);",
    );
    let c = check(&parts).err().unwrap_or_default();
    assert!(c.iter().any(|(code, _)| *code == "E1422"), "{c:?}");
}
