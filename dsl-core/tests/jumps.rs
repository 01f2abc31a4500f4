//! `break`, `continue` and `yield` on the SIMT path: each lowers to its C++ statement where a
//! thread that jumps skips only its own work (`check/jumps.rs`), and is `E1300` where it would
//! skip work its block does together.

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

fn module(src: &str) -> Module {
    dsl_core::lower::launch_form(
        parse_str(src, Some("t.co"))
            .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
            .module,
    )
}

/// The codes `check_config` reports for a kernel of 64 threads around `body` (none: it lowers,
/// and the C++ holds `expect`).
fn codes(body: &str, expect: &str) -> Vec<&'static str> {
    let m = module(&format!(
        "__co__ void k(f32 [M, 32] x, s32 [M] y) {{\n  parallel {{b}} by [cdiv(M, 64)] : block, {{t}} by [64] : thread {{\n    shared f32 [64] s;\n{body}\n  }}\n}}\n"
    ));
    match check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok(info) => {
            let k = dsl_core::lower::lower(&m, &info).unwrap_or_else(|d| panic!("{d}"));
            let text: String = k.body.iter().map(|l| l.text() + "\n").collect();
            assert!(text.contains(expect), "{body}\n{text}");
            Vec::new()
        }
        Err(d) => d.iter().map(|x| x.code).collect(),
    }
}

#[test]
fn jumps_over_per_thread_work_lower() {
    let brk = "    mutable int f = 0;\n    foreach {k} in [32] {\n      if (x.at(b # t, k) < 0.0f) break;\n      f += 1;\n    }\n    y.at(b # t) = f;";
    assert_eq!(codes(brk, "break;"), Vec::<&str>::new());
    // `continue` moves on to the next (i, j) of a loop over two variables.
    let cont = "    mutable int f = 0;\n    foreach {i, j} in [4, 8] {\n      if (x.at(b # t, i * 8 + j) < 0.0f) continue;\n      f += 1;\n    }\n    y.at(b # t) = f;";
    assert_eq!(codes(cont, "continue;"), Vec::<&str>::new());
    // Work together before the `yield`, per-thread work after it.
    let leave = "    s.at(t) = x.at(b # t, 0);\n    sync.shared;\n    if (s.at(63 - t) < 0.0f) yield;\n    y.at(b # t) = 1;";
    assert_eq!(codes(leave, "return;"), Vec::<&str>::new());
}

#[test]
fn jumps_that_would_skip_the_blocks_work_are_gated() {
    for body in [
        // The loop a `break` leaves waits for the block's threads.
        "    foreach {k} in [32] {\n      if (x.at(b # t, k) < 0.0f) break;\n      s.at(t) = x.at(b # t, k);\n      sync.shared;\n    }",
        // `break` out of a loop nest of two variables would leave the inner loop only.
        "    mutable int f = 0;\n    foreach {i, j} in [4, 8] {\n      if (x.at(b # t, i * 8 + j) < 0.0f) break;\n      f += 1;\n    }\n    y.at(b # t) = f;",
        // A thread that leaves would never reach the barrier the others wait at.
        "    if (x.at(b # t, 0) < 0.0f) yield;\n    s.at(t) = 1.0f;\n    sync.shared;\n    y.at(b # t) = 1;",
        // Nor the next iteration's barrier.
        "    foreach {k} in [4] {\n      s.at(t) = x.at(b # t, k);\n      sync.shared;\n      if (s.at(63 - t) < 0.0f) yield;\n    }",
    ] {
        assert_eq!(codes(body, ""), vec!["E1300"], "{body}");
    }
}
