//! Buffers sized at launch. A shared buffer sized by problem sizes (`shared f32 [1, N] row;`,
//! or a future's fresh buffer of a problem-sized tile) lowers on the SIMT path: the `memory`
//! pass places it at an offset the kernel computes from the problem sizes (`const int`, not
//! `constexpr int`), the launch's dynamic shared memory counts it, and the block's cooperative
//! copies between it and global memory take the tile's extents as arguments
//! (`tsl_copy_g2s_n`, `tsl_copy_s2g_n`). Everything else that would need its extents at
//! compile time is `E1686`, as are local buffers, array counts and shapes over an `int`
//! parameter (a value known only at the launch itself) — a note for `tessel check`. A
//! dimension over loop, parallel or local variables, or a float, stays an error (`E0502`), as
//! in Croqtile ("the dimension of a span can only be a constant integer").

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::lower::{CudaKernel, Sym};
use dsl_core::parse::parse_str;

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn kernel(decl: &str) -> Module {
    parse(&format!(
        "__co__ void k(f32 [M, 8] a, int n) {{\n  parallel p by 2 : block, t by 4 : thread {{\n    {decl}\n    s.at(0) = a.at(p, t);\n  }}\n}}\n"
    ))
}

/// The codes `check_config` reports, or the lowered kernel (check ok ⇒ lower ok).
fn lowered(src: &str) -> Result<CudaKernel, Vec<&'static str>> {
    let m = parse(src);
    match check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok(info) => Ok(dsl_core::lower::lower(&m, &info).expect("check ok ⇒ lower ok")),
        Err(d) => Err(d.iter().map(|x| x.code).collect()),
    }
}

fn body(k: &CudaKernel) -> String {
    k.body.iter().map(|l| format!("{}\n", l.op)).collect()
}

/// A row kernel: `row` (declared with `decl`) takes row `r` of x, the block stores it to y.
fn rows(decl: &str, copy_in: &str, copy_out: &str) -> String {
    format!(
        "__co__ void k(f32 [M, N] x, f32 [M, N] y) {{\n  parallel {{r}} by [M] : block, {{t}} by [64] : thread {{\n    {decl}\n    {copy_in}\n    {copy_out}\n  }}\n}}\n"
    )
}

#[test]
fn shared_buffers_sized_by_problem_sizes_lower() {
    let m = kernel("shared f32 [M] s;");
    check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"));
    let k = lowered(&rows(
        "shared f32 [4] head;\n    shared f32 [1, N] row;\n    shared f32 [2] tail;",
        "dma.copy x.subspan(1, N).at(r, 0) => row;",
        "dma.copy row => y.subspan(1, N).at(r, 0);",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    assert!(
        b.contains("tsl_copy_g2s_n<tsl_threads>(1, N, N, row, x, r, 0, M, N);"),
        "{b}"
    );
    assert!(
        b.contains("tsl_copy_s2g_n<tsl_threads>(1, N, N, y, r, 0, M, N, row);"),
        "{b}"
    );
    // The offsets before the buffer sized at launch are compile-time constants; the one after
    // it is computed from N.
    let at_launch = k.launch_time_constants();
    assert!(at_launch.contains("tsl_smem_tail"), "{at_launch:?}");
    assert!(!at_launch.contains("tsl_smem_row"), "{at_launch:?}");
    assert!(!at_launch.contains("tsl_smem_head"), "{at_launch:?}");
    // The launch's dynamic shared memory counts N.
    let mut names = Vec::new();
    k.plan.dynamic_smem_bytes.names(&mut names);
    assert!(
        names.contains(&"N".to_string()),
        "{:?}",
        k.plan.dynamic_smem_bytes
    );
    // A compile-time tile of the same buffer is copied with the tile's extents as arguments
    // too: its row pitch is N.
    let k = lowered(&rows(
        "shared f32 [1, N] row;",
        "dma.copy x.subspan(1, 16).at(r, 0) => row.subspan(1, 16).at(0, 0);",
        "dma.copy row.subspan(1, 16).at(0, 0) => y.subspan(1, 16).at(r, 0);",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    assert!(
        body(&k).contains("tsl_copy_g2s_n<tsl_threads>(1, 16, N, row, x, r, 0, M, N);"),
        "{}",
        body(&k)
    );
    // Buffers of compile-time shapes keep the templated copies.
    let k = lowered(&rows(
        "shared f32 [1, 64] row;",
        "dma.copy x.subspan(1, 64).at(r, 0) => row;",
        "dma.copy row => y.subspan(1, 64).at(r, 0);",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    assert!(
        body(&k).contains("tsl_copy_g2s<1, 64, 64, tsl_threads>("),
        "{}",
        body(&k)
    );
    assert!(k.launch_time_constants().is_empty());
    assert_eq!(k.plan.dynamic_smem_bytes, Sym::Int(64 * 4 + 128));
}

#[test]
fn fresh_buffers_of_problem_sized_tiles_lower() {
    let src = "__co__ void k(s32 [B, 4, K] x, s32 [B, 4, K] y) {\n  parallel p by 1 : block, t by 128 : thread {\n    f = dma.copy.async x => shared;\n    wait f;\n    dma.copy f.data => y;\n  }\n}\n";
    let b = body(&lowered(src).unwrap_or_else(|c| panic!("{c:?}")));
    // The planes fold into B · 4 rows of K.
    assert!(
        b.contains("tsl_copy_g2s_n<tsl_threads>(B * 4, K, K, f, x, 0, 0, B * 4, K);"),
        "{b}"
    );
    assert!(
        b.contains("tsl_copy_s2g_n<tsl_threads>(B * 4, K, K, y, 0, 0, B * 4, K, f);"),
        "{b}"
    );
}

#[test]
fn what_needs_compile_time_extents_is_gated() {
    let gated = |decl: &str, copy_in: &str, copy_out: &str| {
        lowered(&rows(decl, copy_in, copy_out))
            .err()
            .unwrap_or_default()
    };
    let row = "shared f32 [1, N] row;";
    let load = "dma.copy x.subspan(1, N).at(r, 0) => row;";
    let store = "dma.copy row => y.subspan(1, N).at(r, 0);";
    // A register tile copied out of it.
    assert_eq!(
        gated(
            &format!("{row}\n    local f32 [1, 4] v;"),
            load,
            "dma.copy row.subspan(1, 4).at(0, t) => v;\n    dma.copy v => y.subspan(1, 4).at(r, t);"
        ),
        ["E1686"]
    );
    // A transposed copy into it.
    assert_eq!(
        gated(
            "shared f32 [N, 1] col;",
            "dma.copy x.subspan(1, N).at(r, 0) => col.transpose();",
            "",
        ),
        ["E1686"]
    );
    // Copies each thread makes alone (into and out of a fresh buffer per thread).
    let per_thread = "__co__ void k(f32 [M, N] x, f32 [M, N] y) {\n  parallel {p} by [1] : block, {t} by [32] : thread {\n    f = dma.copy x.subspan(1, N).at(t, 0) => shared;\n    dma.copy f.data => y.subspan(1, N).at(t, 0);\n  }\n}\n";
    assert_eq!(
        lowered(per_thread).err().unwrap_or_default(),
        ["E1686", "E1686"]
    );
    // A kernel with `mma`.
    let mma = "__co__ void k(f16 [M, K] a, f16 [K, N] b, f32 [M, N] c) {\n  parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 8)] : block, {w} by [1] : group {\n    shared f16 [16, K] a_s;\n    shared f16 [16, 8] b_s;\n    dma.copy a.subspan(16, K).at(bm, 0) => a_s;\n    dma.copy b.subspan(16, 8).at(0, bn) => b_s;\n    mc = mma.fill.f32 0.0f;\n    ma = mma.load a_s.subspan(16, 16).at(0, 0);\n    mb = mma.load b_s;\n    mma.row.col mc, ma, mb;\n    mma.store mc, c.subspan(16, 8).at(bm, bn);\n  }\n}\n";
    assert_eq!(lowered(mma).err().unwrap_or_default(), ["E1686"]);
    // The row itself lowers.
    assert!(lowered(&rows(row, load, store)).is_ok());
}

#[test]
fn buffers_sized_at_the_launch_itself_are_noted_not_rejected() {
    for decl in [
        "local f32 [n * 2] s;",
        "local f32 [M] s;",
        "shared f32 [M / 2 + n] s;",
        "shared f32 [4] arr[M];\n    shared f32 [4] s;",
    ] {
        let m = kernel(decl);
        let (_, notes) = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
            .unwrap_or_else(|d| panic!("{decl}: {d}"));
        let n: Vec<_> = notes.0.iter().filter(|d| d.code == "E1686").collect();
        assert_eq!(n.len(), 1, "{decl}: {notes}");
        assert!(
            n[0].message
                .starts_with("not supported yet: a shared or local buffer sized at launch"),
            "{}",
            n[0]
        );
        let err =
            check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90).expect_err(decl);
        assert!(err.0.iter().any(|d| d.code == "E1686"), "{decl}: {err}");
    }
}

#[test]
fn dimensions_over_variables_are_errors() {
    for decl in [
        "shared f32 [t + 1] s;",
        "shared f32 [p] s;",
        "int w = n;\n    shared f32 [w] s;",
    ] {
        let m = kernel(decl);
        let d = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
            .map(|_| ())
            .expect_err(decl);
        assert!(d.0.iter().any(|x| x.code == "E0502"), "{decl}: {d}");
    }
}

#[test]
fn problems_check_at_launch() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/lowered/launch_sized_rows.co"
    ))
    .unwrap();
    let m = dsl_core::lower::launch_form(parse(&src));
    for n in [1001, 4096] {
        let p = check::Problem::default().with("M", 333).with("N", n);
        check::check_config(&m, &Config::defaults(&m), Some(&p), &Limits::SM90)
            .unwrap_or_else(|d| panic!("N = {n}: {d}"));
    }
}

#[test]
fn tiles_past_a_buffer_sized_at_launch_are_refused_for_that_problem() {
    // 64-column tiles of a row of N: the last tile leaves the buffer unless 64 divides N.
    let src = rows(
        "shared f32 [1, N] row;",
        "foreach {j} in [cdiv(N, 64)] {\n      dma.copy x.subspan(1, 64).at(r, j) => row.subspan(1, 64).at(0, j);\n    }",
        "dma.copy row => y.subspan(1, N).at(r, 0);",
    );
    assert!(lowered(&src).is_ok());
    let m = parse(&src);
    let at = |n: i64| {
        let p = check::Problem::default().with("M", 4).with("N", n);
        check::check_config(&m, &Config::defaults(&m), Some(&p), &Limits::SM90)
            .map(|_| ())
            .map_err(|d| d.iter().map(|x| x.code).collect::<Vec<_>>())
    };
    assert_eq!(at(1024), Ok(()));
    let e = at(1000).expect_err("N = 1000: the last tile would leave the buffer");
    assert!(e.contains(&"E0702"), "{e:?}");
}
