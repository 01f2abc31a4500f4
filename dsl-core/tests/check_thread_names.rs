//! One name for two thread variables of different indexes (sibling `parallel`s, legal
//! Croqtile) in a Hopper kernel with events is "not supported yet" (`E1685`): the lowering's
//! thread-counting lambda declares every thread variable by name. Same-index reuse, other
//! paths and kernels without events lower.

use dsl_core::check::{self, Config, Limits};
use dsl_core::parse::parse_str;

/// A TMA + WGMMA kernel whose epilogue has two thread-level `parallel`s: `first` and
/// `second` are their heads (each over 128 threads).
fn kernel(event: bool, first: &str, second: &str) -> String {
    let (decl, copy, wait) = if event {
        (
            "    shared event full;\n",
            "tma.copy.async<full>.swiz<128>",
            "        wait full;\n",
        )
    } else {
        ("", "tma.copy.swiz<128>", "")
    };
    format!(
        "__co__ void k(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output, global f32 [M] rowsum) {{
  parallel {{bm, bn}} by [cdiv(M, 64), cdiv(N, 128)] : block {{
    shared f16 [64, 64] lhs_s;
    shared f16 [128, 64] rhs_s;
    shared f16 [64, 128] out_s;
{decl}    parallel g by 1 : group-4 {{
      mc = mma.fill.f16 0.0f;
      foreach {{k}} in [cdiv(K, 64)] {{
        {copy} lhs.chunkat(bm, k) => lhs_s;
        {copy} rhs.chunkat(bn, k) => rhs_s;
{wait}        foreach {{wk}} in [4] {{
          ma = mma.load.swiz<128> lhs_s.chunkat(_, wk);
          mb = mma.load.swiz<128> rhs_s.chunkat(_, wk);
          mma.row.row mc, ma, mb;
        }}
      }}
      mma.store mc, out_s;
    }}
    {first} {{
      rowsum.at(bm * 64 + t % 64) = 0.0f;
    }}
    {second} {{
      output.at(bm * 64, bn * 128 + t) = out_s.at(0, t);
    }}
  }}
}}
"
    )
}

fn gate(src: &str) -> Vec<dsl_core::Diagnostic> {
    let m = parse_str(src, Some("t.co")).unwrap().module;
    check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"))
        .1
        .0
}

#[test]
fn two_indexes_under_one_name_are_gated_with_events() {
    let src = kernel(
        true,
        "parallel {w, t} by [4, 32] : thread",
        "parallel t by 128 : thread",
    );
    let d: Vec<_> = gate(&src)
        .into_iter()
        .filter(|d| d.code == "E1685")
        .collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].message
            .starts_with("not supported yet: `t` names two thread variables"),
        "{:?}",
        d[0]
    );
    // At the second variable, with a note at the first.
    assert_eq!(d[0].span.start.line, 24, "{:?}", d[0]);
    assert_eq!(d[0].notes[0].0.start.line, 21, "{:?}", d[0]);
    let m = parse_str(&src, Some("t.co")).unwrap().module;
    let err = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
        .expect_err("the gate rejects it");
    assert!(err.0.iter().all(|d| d.code == "E1685"), "{err}");
}

#[test]
fn one_index_another_name_or_no_events_lower() {
    for src in [
        // The same index under one name.
        kernel(
            true,
            "parallel t by 128 : thread",
            "parallel t by 128 : thread",
        ),
        // Another name.
        kernel(
            true,
            "parallel {w, t} by [4, 32] : thread",
            "parallel t2 by 128 : thread",
        )
        .replace(
            "bn * 128 + t) = out_s.at(0, t)",
            "bn * 128 + t2) = out_s.at(0, t2)",
        ),
        // No events: the lambda is never written.
        kernel(
            false,
            "parallel {w, t} by [4, 32] : thread",
            "parallel t by 128 : thread",
        ),
    ] {
        let m = parse_str(&src, Some("t.co")).unwrap().module;
        let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
            .unwrap_or_else(|d| panic!("{d}\n{src}"));
        dsl_core::lower::lower(&m, &info).unwrap_or_else(|d| panic!("{d:?}\n{src}"));
    }
}
