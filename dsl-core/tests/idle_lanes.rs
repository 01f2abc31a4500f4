//! `: group` (`: group-4`) levels whose inner levels hold fewer threads than a warp (warpgroup):
//! the block still counts whole warps, the inner levels run on each warp's first lanes under a
//! guard, and only work a thread does alone may sit under it — a barrier or a collective there
//! would wait for lanes that never come (`E1350`).

mod source_support;

use source_support::{body, lowered};

fn kernel(outer: &str, inner: &str, body: &str) -> String {
    format!(
        "__co__ void k(f32 [N] x, f32 [N] y) {{\n  parallel {{b}} by [cdiv(N, 64)] : block {{\n    shared f32 [256] s;\n    parallel {outer}, {inner} {{\n{body}\n    }}\n  }}\n}}\n"
    )
}

#[test]
fn inner_levels_run_on_the_first_lanes() {
    // Four warps of 16 threads; two warpgroups of 64.
    for (outer, inner, var, guard) in [
        (
            "{g} by [4] : group",
            "{l} by [16] : thread",
            "const int g = threadIdx.x / 32;",
            "if (threadIdx.x % 32 < 16) {",
        ),
        (
            "{w} by [2] : group-4",
            "{l} by [64] : thread",
            "const int w = threadIdx.x / 128;",
            "if (threadIdx.x % 128 < 64) {",
        ),
    ] {
        let k = lowered(&kernel(outer, inner, "      s.at(l) = x.at(b * 64 + l);"))
            .unwrap_or_else(|c| panic!("{outer}: {c:?}"));
        let b = body(&k);
        assert!(b.contains(var), "{b}");
        assert!(b.contains(guard), "{b}");
    }
}

#[test]
fn work_done_together_under_idle_lanes_is_not_lowered() {
    for work in [
        "      s.at(l) = 1.0f;\n      sync.shared;",
        "      f32 v = x.at(b * 64 + l);\n      reduce.sum v : group;\n      y.at(b) = v;",
    ] {
        let c = lowered(&kernel("{g} by [4] : group", "{l} by [16] : thread", work))
            .err()
            .unwrap_or_default();
        assert!(c.iter().any(|(code, _)| *code == "E1350"), "{work}: {c:?}");
    }
}
