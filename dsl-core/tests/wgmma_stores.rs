//! WGMMA-path forms: `mma.store` straight to global, `.transp` and `.mask` (parse, dump, check,
//! lowering), operands named as views, and `dma.copy.swiz<N>` into WGMMA operand tiles.

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::{Module, Stmt};
use dsl_core::parse::parse_str;

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn full(m: &Module) -> Result<check::KernelInfo, dsl_core::Diagnostics> {
    check::check_config(m, &Config::defaults(m), None, &Limits::SM90)
}

fn lowered(m: &Module) -> String {
    let info = full(m).unwrap_or_else(|d| panic!("check_config failed:\n{d}"));
    let k = dsl_core::lower::lower(m, &info).unwrap_or_else(|d| panic!("lowering failed:\n{d}"));
    // The body as C++, one node a line.
    let lines: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    lines.join("\n")
}

/// A 64 x 128 f16 WGMMA kernel whose store statement is `store` and whose output is `out_ty`.
fn kernel(out_ty: &str, store: &str) -> String {
    format!(
        "__co__ void k(global f16 [M, K] lhs, global f16 [N, K] rhs, {out_ty}) {{\n  parallel {{bm, bn}} by [cdiv(M, 64), cdiv(N, 128)] : block {{\n    shared f16 [64, 64] a_s;\n    shared f16 [128, 64] b_s;\n    mc = mma.fill.f32 0.0f;\n    foreach k in cdiv(K, 64) {{\n      tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, k) => a_s;\n      tma.copy.swiz<128> rhs.subspan(128, 64).at(bn, k) => b_s;\n      foreach kk in 4 {{\n        parallel by 1 : group-4 {{\n          ma = a_s.chunkat(_, kk);\n          mma.row.row mc, ma, b_s.chunkat(_, kk);\n        }}\n      }}\n    }}\n{store}\n  }}\n}}\n"
    )
}

#[test]
fn store_modifiers_parse_and_print_back() {
    let m = parse(&kernel(
        "global f16 [M, N] out",
        "    mma.store.mask mc, out.subspan(64, 128).at(bm, bn), M - bm * 64, N - bn * 128;",
    ));
    let text = m.to_string();
    assert!(
        text.contains(
            "mma.store.mask mc, out.subspan(64, 128).at(bm, bn), M - bm * 64, N - bn * 128;"
        ),
        "{text}"
    );
    let store = m
        .stmts
        .iter()
        .find_map(|(_, s)| match s {
            Stmt::MmaStore { mods, .. } => Some(mods.clone()),
            _ => None,
        })
        .unwrap();
    assert!(!store.transpose);
    assert!(matches!(store.mask, Some((_, Some(_)))));
    let m = parse(&kernel(
        "global f16 [N, M] out",
        "    shared f16 [128, 64] o_s;\n    mma.store.transp mc, o_s;\n    tma.copy o_s => out.subspan(128, 64).at(bn, bm);",
    ));
    assert!(m.to_string().contains("mma.store.transp mc, o_s;"));
    for (bad, what) in [
        ("mma.store.trans mc, o_s;", "unknown modifier `.trans`"),
        ("mma.store.transp.transp mc, o_s;", "repeated"),
        ("mma.store.mask mc, o_s;", "row guard"),
    ] {
        let src = kernel(
            "global f16 [N, M] out",
            &format!("    shared f16 [128, 64] o_s;\n    {bad}"),
        );
        let d = parse_str(&src, Some("t.co")).expect_err(bad);
        assert!(d.to_string().contains(what), "{bad}: {d}");
    }
}

#[test]
fn stores_to_global_transposed_and_masked_lower() {
    let global = kernel(
        "global f32 [M, N] out",
        "    mma.store mc, out.subspan(64, 128).at(bm, bn);",
    );
    let k = lowered(&parse(&global));
    assert!(k.contains("tsl_acc_store_pitched"), "{k}");
    assert!(k.contains("M - (bm * 64)"), "the row bound: {k}");
    let masked = kernel(
        "global f16 [M, N] out",
        "    mma.store.mask mc, out.subspan(64, 128).at(bm, bn), 7;",
    );
    let k = lowered(&parse(&masked));
    assert!(k.contains("tsl_store_bound(M - (bm * 64), 7)"), "{k}");
    let trans = kernel(
        "global f16 [N, M] out",
        "    shared f16 [128, 64] o_s;\n    mma.store.transp mc, o_s;\n    tma.copy o_s => out.subspan(128, 64).at(bn, bm);",
    );
    let k = lowered(&parse(&trans));
    assert!(k.contains("tsl_acc_store_pitched<128, true>("), "{k}");
}

#[test]
fn a_transposed_store_needs_the_transposed_shape() {
    let src = kernel(
        "global f16 [M, N] out",
        "    shared f16 [64, 128] o_s;\n    mma.store.transp mc, o_s;\n    tma.copy o_s => out.subspan(64, 128).at(bm, bn);",
    );
    let d = full(&parse(&src)).expect_err("64 x 128 is not the transpose");
    assert!(
        d.iter().any(|x| x.code == "E0903"
            && x.message.contains("transpose")
            && x.message.contains("[128, 64]")),
        "{d}"
    );
}

#[test]
fn swizzled_dma_copies_into_wgmma_operands_are_tma_loads() {
    let src = "__co__ void k(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] out) {\n  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 64)] : block {\n    shared f16 [64, 64] a_s;\n    shared f16 [64, 64] b_s;\n    parallel by 1 : group-4 {\n      mc = mma.fill.f32 0.0f;\n      foreach k in cdiv(K, 64) {\n        dma.copy.swiz<128> lhs.subspan(64, 64).at(bm, k) => a_s;\n        dma.copy.swiz<128> rhs.subspan(64, 64).at(bn, k) => b_s;\n        mma.row.row mc, a_s, b_s;\n      }\n      mma.store mc, out.subspan(64, 64).at(bm, bn);\n    }\n  }\n}\n";
    let m = parse(src);
    let text = m.to_string();
    assert_eq!(text.matches("tma.copy.swiz<128>").count(), 2, "{text}");
    assert!(!text.contains("dma.copy"), "{text}");
    full(&m).unwrap_or_else(|d| panic!("{d}"));
    // Without a warpgroup `mma` reading the tile, a swizzled `dma.copy` stays what it is.
    let simt = "__co__ void k(global f16 [M, K] a, global f16 [M, K] b) {\n  parallel p by cdiv(M, 64) : block {\n    shared f16 [64, 64] s;\n    parallel t by 128 : thread {\n      dma.copy.swiz<128> a.subspan(64, 64).at(p, 0) => s;\n    }\n  }\n}\n";
    assert!(parse(simt).to_string().contains("dma.copy.swiz<128>"));
}

#[test]
fn refilling_a_wgmma_accumulator_waits_fills_and_fences() {
    let src = kernel(
        "global f32 [M, N] out",
        "    mma.store mc, out.subspan(64, 128).at(bm, bn);\n    mma.fill mc, 0.0f;",
    );
    let k = lowered(&parse(&src));
    let tail = &k[k.rfind("tsl_acc_store_pitched").expect("the store")..];
    let (wait, fill, fence) = (
        tail.find("tsl_wgmma_wait").expect("a wait"),
        tail.find("tsl_acc_fill").expect("a fill"),
        tail.find("tsl_wgmma_fence").expect("a fence"),
    );
    assert!(wait < fill && fill < fence, "{tail}");
}

/// A block-scaled f8 kernel whose `mma….scale` takes `sa` and `sb`, declared by `decls`.
fn scaled(decls: &str, acc: &str, sa: &str, sb: &str) -> String {
    format!(
        "__co__ void k(global f8_e4m3 [M, K] lhs, global f32 [M, KB] sl, global f8_e4m3 [N, K] rhs, global f32 [NB, KB] sr, global f16 [M, N] out) {{\n  parallel {{bm, bn}} by [cdiv(M, 64), cdiv(N, 128)] : block {{\n    shared f8_e4m3 [64, 128] a_s;\n    shared f8_e4m3 [128, 128] b_s;\n    shared f16 [64, 128] o_s;\n    {decls}\n    acc = mma.fill.{acc} 0.0f;\n    foreach kb in cdiv(K, 128) {{\n      tma.copy.swiz<128> lhs.subspan(64, 128).at(bm, kb) => a_s;\n      tma.copy.swiz<128> rhs.subspan(128, 128).at(bn, kb) => b_s;\n      foreach ks in 4 {{\n        parallel by 1 : group-4 {{\n          mma.row.row.scale acc, a_s.chunkat(_, ks), b_s.chunkat(_, ks), {sa}, {sb};\n        }}\n      }}\n    }}\n    mma.store acc, o_s;\n    tma.copy o_s => out.subspan(64, 128).at(bm, bn);\n  }}\n}}\n"
    )
}

#[test]
fn scaled_mmas_parse_check_and_lower() {
    let src = scaled("", "f32", "sl.subspan(64, 1).at(bm, kb)", "sr.at(bn, kb)");
    let m = parse(&src);
    assert_eq!(m.mma_scales.len(), 1);
    assert!(m.to_string().contains(".scale acc, direct$a"), "{m}");
    let k = lowered(&m);
    for want in ["tsl_wgmma_k_steps_fresh", "tsl_acc_scale_add", "acc_scaled"] {
        assert!(k.contains(want), "{want}: {k}");
    }
    // One value on the A side (a per-tensor or per-block scale), an f16 accumulator.
    lowered(&parse(&scaled("", "f16", "sl.at(bm, kb)", "2.0f")));
}

#[test]
fn scale_rules() {
    let code = |src: String| -> Vec<&'static str> {
        full(&parse(&src))
            .err()
            .map(|d| d.iter().map(|x| x.code).collect())
            .unwrap_or_default()
    };
    // A-side: an f32 [64, 1] column, not a wider tile.
    assert!(code(scaled("", "f32", "sl.subspan(64, 2).at(bm, 0)", "1.0f")).contains(&"E1425"));
    // B-side: one value, not a tile.
    assert!(code(scaled("", "f32", "1.0f", "sr.subspan(1, 1).at(bn, kb)")).contains(&"E1426"));
    // A whole tensor is not a scale.
    assert!(code(scaled("", "f32", "sl", "1.0f")).contains(&"E1425"));
    // s8 products are not scaled.
    let s8 = scaled("", "s32", "1.0f", "1.0f")
        .replace("f8_e4m3", "s8")
        .replace("mma.fill.s32 0.0f", "mma.fill.s32 0");
    assert!(
        code(
            s8.replace("global f16 [M, N] out", "global s32 [M, N] out")
                .replace("shared f16 [64, 128] o_s", "shared s32 [64, 128] o_s")
        )
        .contains(&"E1424")
    );
    // The modifier is spelled `.scale`.
    let bad = scaled("", "f32", "1.0f", "1.0f").replace(".scale acc", ".scal acc");
    let d = parse_str(&bad, Some("t.co")).expect_err("unknown modifier");
    assert!(d.to_string().contains("unknown modifier `.scal`"), "{d}");
}

#[test]
fn async_mmas_commit_their_group_and_wait_by_count() {
    let src = "__co__ void k(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] out) {\n  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 128)] : block {\n    shared f16 [64, 64] a_s;\n    shared f16 [64, 64] b0;\n    shared f16 [64, 64] b1;\n    c0 = mma.fill.f32 0.0f;\n    c1 = mma.fill.f32 0.0f;\n    foreach k in cdiv(K, 64) {\n      tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, k) => a_s;\n      tma.copy.swiz<128> rhs.subspan(64, 64).at(bn * 2, k) => b0;\n      tma.copy.swiz<128> rhs.subspan(64, 64).at(bn * 2 + 1, k) => b1;\n      parallel by 1 : group-4 {\n        f0 = mma.row.row.async c0, a_s, b0;\n        f1 = mma.row.row.async c1, a_s, b1;\n        wait f0;\n        wait f1;\n      }\n    }\n    mma.store c0, out.subspan(64, 64).at(bm, bn * 2);\n    mma.store c1, out.subspan(64, 64).at(bm, bn * 2 + 1);\n  }\n}\n";
    let m = parse(src);
    let text = m.to_string();
    assert!(text.contains("f0 = mma.row.row.async c0, "), "{text}");
    assert_eq!(m.mma_async.len(), 2);
    let k = lowered(&m);
    // f0 may leave f1's group running; f1 is the newest.
    let w1 = k
        .find("tsl_wgmma_wait_for<1>(")
        .expect("wait_group 1 for f0");
    let w0 = k
        .find("tsl_wgmma_wait_for<0>(")
        .expect("wait_group 0 for f1");
    assert!(w1 < w0, "{k}");
    assert_eq!(k.matches("tsl_wgmma_commit();").count(), 2, "{k}");
    // A future needs `.async`; modifiers are spelled as documented.
    for (bad, what) in [
        ("f0 = mma.row.row c0, a_s, b0;", "not `.async`"),
        (
            "mma.row.row.asink c0, a_s, b0;",
            "unknown modifier `.asink`",
        ),
        ("mma.row.row.async.async c0, a_s, b0;", "repeated"),
    ] {
        let d = parse_str(
            &src.replace("f0 = mma.row.row.async c0, a_s, b0;", bad),
            Some("t.co"),
        )
        .expect_err(bad);
        assert!(d.to_string().contains(what), "{bad}: {d}");
    }
}

#[test]
fn an_mma_future_cannot_fire_an_event() {
    // WGMMA has no completion event: `trigger e after f` of an mma future is an error (as in
    // Croqtile); waiting the future and then triggering is the way.
    let src = "__co__ void k() {\n  parallel b by 1 : block {\n    shared f16 [64, 64] lhs;\n    shared f16 [128, 64] rhs;\n    shared event done;\n    parallel g by 2 : group-4 {\n      inthreads.async (g == 0) {\n        acc = mma.fill.f32 0.0f;\n        f = mma.row.row.async acc, lhs, rhs;\n        trigger done after f;\n      }\n      inthreads.async (g == 1) {\n        wait done;\n      }\n    }\n  }\n}\n";
    let d = full(&parse(src)).expect_err("an mma future after a trigger");
    assert!(
        d.0.iter()
            .any(|x| x.code == check::codes::TRIGGER_AFTER_DMA && x.message.contains("`mma`")),
        "{d}"
    );
}
