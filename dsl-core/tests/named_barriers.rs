//! Named barriers, `__bar_sync(id, n)` and `__bar_arrive(id, n)`: a compile-time id in 1..=15
//! and a compile-time count of whole warps the block has (`E0916`), one count per id (else the
//! warning `W1215`); on the SIMT path each is
//! the prelude's PTX `bar.sync` / `bar.arrive`; the TMA/WGMMA path numbers its own named
//! barriers, so there they are not lowered (`E1300`).

mod source_support;

use dsl_core::check::{self, Config, Limits};
use dsl_core::parse::parse_str;
use source_support::{body, lowered};

fn kernel(barrier: &str) -> String {
    format!(
        "const W = 2;\n__co__ void k(f32 [N] x) {{\n  parallel {{b}} by [cdiv(N, 128)] : block, {{t}} by [128] : thread {{\n    shared f32 [128] s;\n    s.at(t) = x.at(b # t);\n    {barrier}\n    x.at(b # t) = s.at(127 - t);\n  }}\n}}\n"
    )
}

#[test]
fn named_barriers_lower_to_ptx_bar() {
    let k = lowered(&kernel("__bar_sync(W - 1, 128);")).unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    assert!(b.contains("tsl_bar_sync(W - 1, 128);"), "{b}");
    let k = lowered(&kernel("__bar_arrive(15, 64);")).unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    assert!(b.contains("tsl_bar_arrive(15, 64);"), "{b}");
}

#[test]
fn ids_and_counts_are_checked() {
    for (barrier, want) in [
        (
            "__bar_sync(0, 128);",
            "id is a compile-time integer in 1..=15; `0`",
        ),
        ("__bar_sync(16, 128);", "`16` is not"),
        ("__bar_arrive(t, 128);", "`t` is not"),
        (
            "__bar_sync(1, 100);",
            "`100` must be a compile-time positive multiple of 32",
        ),
        ("__bar_sync(1, 256);", "at most the block's 128 threads"),
        ("__bar_arrive(1, 0);", "`0` must be"),
    ] {
        let c = lowered(&kernel(barrier)).err().unwrap_or_default();
        assert_eq!(c.len(), 1, "{barrier}: {c:?}");
        assert_eq!(c[0].0, "E0916", "{barrier}: {c:?}");
        assert!(c[0].1.contains(want), "{barrier}: {c:?}");
    }
}

#[test]
fn two_counts_for_one_barrier_are_a_warning() {
    let src = "__co__ void k(f32 [N] x) {\n  parallel {b} by [cdiv(N, 256)] : block, {t} by [256] : thread {\n    shared f32 [256] s;\n    s.at(t) = x.at(b # t);\n    if (t < 128) {\n      __bar_arrive(1, 128);\n    } else {\n      __bar_sync(1, 256);\n    }\n    x.at(b # t) = s.at(255 - t);\n  }\n}\n";
    let m = parse_str(src, Some("t.co")).unwrap().module;
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"));
    let w: Vec<_> = info
        .warnings
        .iter()
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].0, "W1215");
    assert!(
        w[0].1
            .contains("named barrier 1 counts 256 threads here and 128 elsewhere")
    );
    // One count per id: no warning.
    let m = parse_str(
        &src.replace("__bar_arrive(1, 128)", "__bar_arrive(1, 256)"),
        Some("t.co"),
    )
    .unwrap()
    .module;
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90).unwrap();
    assert!(info.warnings.is_empty(), "{:?}", info.warnings);
}

#[test]
fn the_wgmma_path_keeps_its_own_barriers() {
    let src = "__co__ void k(f16 [M, K] a, f16 [N, K] b, f32 [M, N] c) {\n  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 64)] : block {\n    mc = mma.fill.f32 0.0f;\n    foreach {kt} in [cdiv(K, 64)] {\n      a_s = tma.copy.swiz<128> a.subspan(64, 64).at(bm, kt) => shared;\n      b_s = tma.copy.swiz<128> b.subspan(64, 64).at(bn, kt) => shared;\n      parallel p by 1 : group-4 {\n        ma = mma.load a_s;\n        mb = mma.load b_s;\n        mma.row.col mc, ma, mb;\n      }\n    }\n    __bar_sync(1, 128);\n    mma.store mc, c.subspan(64, 64).at(bm, bn);\n  }\n}\n";
    let c = lowered(src).err().unwrap_or_default();
    assert!(c.iter().any(|(code, _)| *code == "E1300"), "{c:?}");
}
