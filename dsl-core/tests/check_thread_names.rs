//! One name for two thread variables of different indexes (sibling `parallel`s, legal
//! Croqtile) lowers in a Hopper kernel with events: the lambda that counts the threads reaching
//! a `trigger` declares only the variables of the levels around it. Same-index reuse, other
//! names and kernels without events lower too.

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
fn two_indexes_under_one_name_lower_with_events() {
    let src = kernel(
        true,
        "parallel {w, t} by [4, 32] : thread",
        "parallel t by 128 : thread",
    );
    assert!(gate(&src).is_empty(), "{:?}", gate(&src));
    let m = parse_str(&src, Some("t.co")).unwrap().module;
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"));
    let k = dsl_core::lower::lower(&m, &info).unwrap_or_else(|d| panic!("{d:?}"));
    // The event's count: the trigger is under no thread level, so no thread variable.
    let reach = k
        .body
        .iter()
        .map(|l| l.op.to_string())
        .find(|t| t.contains("tsl_reach_full"))
        .expect("the arrival-count lambda");
    assert!(!reach.contains("const int t ="), "{reach}");
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
