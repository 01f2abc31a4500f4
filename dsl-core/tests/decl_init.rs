//! Declaration initializers `{v}` of plain tensors on the SIMT path: a register array is its
//! thread's, filled by an unrolled loop; a shared buffer is the block's, filled by its threads
//! together and published by a barrier, where every thread of the block declares it. A shared
//! buffer declared in a branch keeps `E1306`.

use dsl_core::check::{self, Config, Limits};
use dsl_core::lower::CudaKernel;
use dsl_core::parse::parse_str;

/// The codes `check_config` reports, or the lowered kernel (check ok ⇒ lower ok).
fn lowered(src: &str) -> Result<CudaKernel, Vec<&'static str>> {
    let m = parse_str(src, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module;
    match check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok(info) => Ok(dsl_core::lower::lower(&m, &info).expect("check ok ⇒ lower ok")),
        Err(d) => Err(d.iter().map(|x| x.code).collect()),
    }
}

fn body(k: &CudaKernel) -> String {
    k.body.iter().map(|l| format!("{}\n", l.op)).collect()
}

fn kernel(decls: &str, uses: &str) -> String {
    format!(
        "__co__ void k(s32 [N] x, s32 [N] y) {{\n  parallel {{b}} by [cdiv(N, 64)] : block, {{t}} by [64] : thread {{\n{decls}\n{uses}\n  }}\n}}\n"
    )
}

#[test]
fn register_arrays_are_filled_by_their_thread() {
    let k = lowered(&kernel(
        "    local s32 [2, 3] r {7};",
        "    y.at(b # t) = r.at(1, 2) + x.at(b # t);",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    assert!(
        b.contains("#pragma unroll\nfor (int tsl_i = 0; tsl_i < 6; ++tsl_i) {\nr[tsl_i] = 7;\n}\n"),
        "{b}"
    );
}

#[test]
fn shared_buffers_are_filled_by_the_block_then_published() {
    let k = lowered(&kernel(
        "    shared s32 [2, 100] s {x.at(0)};",
        "    y.at(b # t) = s.at(1, t);",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    let fill = b.find("for (int tsl_i = threadIdx.x; tsl_i < 200; tsl_i += tsl_threads) {");
    let barrier = b.find("__syncthreads();");
    assert!(fill.is_some() && barrier > fill, "{b}");
    // An array of buffers: every entry.
    let k = lowered(&kernel(
        "    shared s32 [8] s[3] {1};",
        "    y.at(b # t) = s[2].at(t % 8);",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    assert!(body(&k).contains("tsl_i < 24;"), "{}", body(&k));
    // Inside a loop, the barrier before the fill waits for the last iteration's readers.
    let k = lowered(&kernel(
        "    foreach {i} in [4] {\n      shared s32 [64] s {i};\n      y.at(b # t) = s.at(t);\n    }",
        "",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    let loop_at = b.find("for (int i = 0;").expect("the loop");
    let before = b[loop_at..].find("__syncthreads();");
    let fill = b[loop_at..].find("tsl_i += tsl_threads");
    assert!(before < fill, "{b}");
}

#[test]
fn shared_buffers_in_a_branch_are_not_lowered() {
    let c = lowered(&kernel(
        "    if (t < 32) {\n      shared s32 [16] s {0};\n      y.at(b # t) = s.at(t % 16);\n    }",
        "",
    ))
    .err()
    .unwrap_or_default();
    assert_eq!(c, ["E1306"]);
}
