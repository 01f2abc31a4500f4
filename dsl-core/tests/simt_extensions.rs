//! The SIMT extensions (register tiles, compound element updates, `.transpose()`, per-thread
//! copies, `reduce`, `dma.wait`): parsing, the IR dump, the checks and their errors, and what
//! the lowering emits.

use dsl_core::check::{self, codes as c};
use dsl_core::diag::Diagnostics;
use dsl_core::ir::Module;
use dsl_core::lower::CudaKernel;

fn parse(text: &str) -> Module {
    dsl_core::parse::parse_str(text, None)
        .unwrap_or_else(|d| panic!("does not parse:\n{d}\n{text}"))
        .module
}

/// An f32 GEMM kernel `k` (A[M,K], B[K,N], C[M,N]) with 16 × 16 threads over 64 × 64 tiles.
fn sgemm(header: &str, body: &str) -> String {
    format!(
        "tunable TM in [4, 8] = 4;\nconst BM = 64;\n{header}\n__co__ void k(global f32 [M, K] a, global f32 [K, N] b, global f32 [M, N] c) {{\n  parallel {{bm, bn}} by [cdiv(M, BM), cdiv(N, BM)] : block, {{tr, tc}} by [16, 16] : thread {{\n{body}\n  }}\n}}\n"
    )
}

/// A GEMV-shaped kernel: one warp per row.
fn warp(body: &str) -> String {
    format!(
        "__co__ void g(global f16 [N, K] w, global f16 [K] x, global f16 [N] y) {{\n  parallel {{bn}} by [cdiv(N, 4)] : block, {{r}} by [4] : group, {{lane}} by [32] : thread {{\n{body}\n  }}\n}}\n"
    )
}

fn check_ok(text: &str) -> (Module, CudaKernel) {
    let m = parse(text);
    let info = check::check(&m).unwrap_or_else(|d| panic!("does not check:\n{d}\n{text}"));
    let k = dsl_core::lower::lower(&m, &info).unwrap_or_else(|d| panic!("does not lower:\n{d}"));
    (m, k)
}

fn check_err(text: &str) -> Diagnostics {
    match check::check(&parse(text)) {
        Ok(_) => panic!("checks, but should not:\n{text}"),
        Err(d) => d,
    }
}

fn has(d: &Diagnostics, code: &str) -> String {
    d.0.iter()
        .find(|x| x.code == code)
        .map(|x| x.message.clone())
        .unwrap_or_else(|| panic!("no {code} in:\n{d}"))
}

fn body(k: &CudaKernel) -> String {
    k.body
        .iter()
        .map(|l| l.text())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn register_tile_with_compound_update_lowers_to_fmaf() {
    let (m, k) = check_ok(&sgemm(
        "",
        "    local f32 [TM] acc;
    foreach {i} in [TM] : unroll
      acc.at(i) = 0.0f;
    foreach {kk} in [K]
      foreach {i} in [TM] : unroll
        acc.at(i) += a.at(bm#tr#i, kk) * b.at(kk, bn#tc);
    foreach {i} in [TM] : unroll
      c.at(bm#tr#i, bn#tc) = acc.at(i);",
    ));
    let b = body(&k);
    assert!(b.contains("float acc[TM];"), "{b}");
    assert!(b.contains("acc[i] = fmaf("), "{b}");
    assert!(b.contains(", acc[i]);"), "{b}");
    assert!(m.to_string().contains("acc.at(i) += "), "{m}");
}

#[test]
fn register_tile_indexed_at_run_time_is_an_error() {
    let d = check_err(&sgemm(
        "",
        "    local f32 [16] acc;
    foreach {i} in [16]
      acc.at(i) = 0.0f;
    acc.at(tr) = 1.0f;",
    ));
    let msg = has(&d, c::LOCAL_INDEX);
    assert!(msg.contains("register tile"), "{msg}");
    // The parallel variable is reported; the variable of a loop of 16, which the lowering
    // unrolls whole, is not.
    assert_eq!(
        d.0.iter().filter(|x| x.code == c::LOCAL_INDEX).count(),
        1,
        "{d}"
    );
    // The index that is the variable itself says so once.
    assert!(
        d.0.iter().any(|x| x
            .message
            .ends_with("the index `tr` is only known at run time")),
        "{d}"
    );
    // Croqtile allows a run-time index (the tile then lives in local memory): a restriction
    // of the lowering, which `tessel check` notes.
    let text = sgemm(
        "",
        "    local f32 [16] acc;
    acc.at(tr) = 0.0f;",
    );
    let m = parse(&text);
    let (_, notes) =
        check::check_language(&m, &check::Config::defaults(&m), None, &check::Limits::SM90)
            .unwrap_or_else(|d| panic!("{d}"));
    assert!(notes.0.iter().any(|x| x.code == c::LOCAL_INDEX), "{notes}");
}

#[test]
fn register_tile_indexed_through_a_constant_binding_is_fine() {
    check_ok(&sgemm(
        "",
        "    local f32 [TM, 2] acc;
    foreach {i, j} in [TM, 2] : unroll {
      jj = 1 - j;
      acc.at(i, jj) = 0.0f;
    }",
    ));
}

#[test]
fn transposed_store_and_vector_fragments() {
    let (m, k) = check_ok(&sgemm(
        "const BK = 8;",
        "    shared f32 [BK, BM] a_s;
    local f32 [TM] ra;
    foreach {kt} in [cdiv(K, BK)] {
      dma.copy a.subspan(BM, BK).at(bm, kt) => a_s.transpose();
      foreach {kk} in [BK]
        dma.copy a_s.subspan(1, TM).at(kk, tr) => ra;
    }",
    ));
    let b = body(&k);
    assert!(
        b.contains("tsl_copy_g2s_t<BM, BK, BM, tsl_threads>(a_s, a, bm * BM, kt * BK, M, K);"),
        "{b}"
    );
    // The fragment's origin `kk * BM + tr * TM` is 16-byte aligned when BM and TM are multiples
    // of 4 floats: a condition the C++ compiler decides per instantiation.
    assert!(
        b.contains("tsl_copy_tile<1, TM, BM, TM, (BM % 4 == 0 && TM % 4 == 0)>(ra, a_s + kk * BM + tr * TM);"),
        "{b}"
    );
    assert!(
        b.contains("tsl_cp_async_wait_all();"),
        "the copy is waited for: {b}"
    );
    assert!(m.to_string().contains("=> a_s.transpose();"), "{m}");
}

#[test]
fn transpose_errors() {
    let body = |stmt: &str| {
        sgemm(
            "",
            &format!(
                "    shared f32 [8, 64] a_s;\n    shared f32 [8, 8, 8] cube;\n    local f32 [4] r;\n    {stmt}"
            ),
        )
    };
    let d = check_err(&body("dma.copy a_s.transpose() => r;"));
    has(&d, c::TRANSPOSE);
    let d = check_err(&body(
        "dma.copy a.subspan(64, 8).at(bm, 0) => a_s.transpose(1);",
    ));
    assert!(has(&d, c::VIEW).contains("takes no arguments"));
    let d = check_err(&body(
        "dma.copy a.subspan(64, 8).at(bm, 0) => cube.transpose();",
    ));
    assert!(has(&d, c::VIEW).contains("2-D"));
    let d = check_err(&body("r.at(0) = a_s.transpose().at(0, 1);"));
    assert!(has(&d, c::VIEW).contains("applied to a `.transpose()` view"));
    // The transposed destination must have the source's shape: [8, 64]ᵀ is [64, 8].
    let d = check_err(&body(
        "dma.copy a.subspan(8, 64).at(bm, 0) => a_s.transpose();",
    ));
    has(&d, c::COPY_SHAPE);
}

#[test]
fn copies_may_drop_unit_dimensions_only() {
    check_ok(&sgemm(
        "",
        "    local f32 [8] r;\n    dma.copy a.subspan(1, 8).at(bm, 0) => r;",
    ));
    let d = check_err(&sgemm(
        "",
        "    local f32 [8] r;\n    dma.copy a.subspan(2, 8).at(bm, 0) => r;",
    ));
    has(&d, c::COPY_SHAPE);
}

#[test]
fn warp_reduction_lowers_to_shuffles() {
    let (m, k) = check_ok(&warp(
        "    local f16 [8] wv, xv;
    f32 acc = 0.0f;
    foreach {kt} in [cdiv(K, 256)] {
      dma.copy w.subspan(1, 8).at(bn#r, kt#lane) => wv;
      dma.copy x.subspan(8).at(kt#lane) => xv;
      foreach {v} in [8] : unroll
        acc += wv.at(v) * xv.at(v);
    }
    reduce.sum acc : group;
    if (lane == 0)
      y.at(bn#r) = acc;",
    ));
    let b = body(&k);
    assert!(b.contains("acc = tsl_warp_sum(acc);"), "{b}");
    assert!(
        b.contains("tsl_copy_g2r<1, 8, 8>(wv, w, bn * 4 + r, (kt * 32 + lane) * 8, N, K);"),
        "{b}"
    );
    assert!(
        b.contains("tsl_copy_g2r<1, 8, 8>(xv, x, 0, (kt * 32 + lane) * 8, 1, K);"),
        "{b}"
    );
    assert!(m.to_string().contains("reduce.sum acc : group;"), "{m}");
}

#[test]
fn reduction_errors() {
    let d = check_err(&warp(
        "    f32 s = 0.0f;\n    if (lane < 16)\n      reduce.sum s : group;",
    ));
    assert!(has(&d, c::REDUCE).contains("inside a condition"));
    let d = check_err(&warp("    f16 s = 0.0f;\n    reduce.max s : group;"));
    assert!(has(&d, c::REDUCE).contains("f32 and int"));
    let d = check_err(&warp("    f32 s = 0.0f;\n    reduce.sum s : group-4;"));
    assert!(has(&d, c::REDUCE).contains("not supported"));
    // A block reduction: whole warps, every thread of the block.
    let (_, k) = check_ok(&warp(
        "    f32 s = 1.0f;\n    reduce.sum s : block;\n    y.at(bn#r) = s;",
    ));
    assert!(
        body(&k).contains("s = tsl_block_sum<tsl_threads>(s);"),
        "{}",
        body(&k)
    );
    let d = check_err(&warp(
        "    f32 s = 0.0f;\n    if (r == 0)\n      reduce.max s : block;",
    ));
    assert!(has(&d, c::REDUCE).contains("every thread of the block"));
    let d = check_err(&sgemm("", "    f32 s = 0.0f;\n    reduce.sum s : group;"));
    assert!(has(&d, c::REDUCE).contains("outside a `: group` level"));
    let d = check_err(&warp("    local f32 [2] t;\n    reduce.sum t : group;"));
    has(&d, c::NOT_ASSIGNABLE);
}

#[test]
fn dma_wait_needs_a_small_constant() {
    let ring = |n: &str| {
        warp(&format!(
            "    shared f16 [4, 256] ws[2];
    foreach {{kt}} in [cdiv(K, 256)] {{
      dma.copy.async w.subspan(4, 256).at(bn, kt) => ws[kt % 2];
      dma.wait {n};
    }}"
        ))
    };
    let (_, k) = check_ok(&ring("1"));
    let b = body(&k);
    assert!(b.contains("tsl_cp_async_wait<1>();"), "{b}");
    assert!(has(&check_err(&ring("8")), c::DMA_WAIT).contains("0 to 7"));
    assert!(has(&check_err(&ring("K")), c::DMA_WAIT).contains("compile-time"));
}

#[test]
fn nested_composition_uses_the_product_of_extents() {
    let (_, k) = check_ok(&sgemm(
        "",
        "    foreach {i} in [TM] : unroll\n      c.at(bm#(i#tr), bn#tc) = 0.0f;",
    ));
    let b = body(&k);
    assert!(b.contains("bm * (TM * 16) + (i * 16 + tr)"), "{b}");
}

#[test]
fn compound_update_of_a_global_element_is_a_check_error() {
    let m = parse(&sgemm("", "    c.at(bm, bn) += 1.0f;"));
    let d = check::check(&m).unwrap_err();
    assert!(
        has(&d, c::COMPOUND_GLOBAL).contains("global element"),
        "{d}"
    );
}

#[test]
fn float_bindings_keep_their_element_type() {
    let (_, k) = check_ok(&sgemm(
        "",
        "    f32 acc = 0.0f;\n    foreach {kk} in [K] {\n      bv = b.at(kk, bn#tc);\n      acc += a.at(bm#tr, kk) * bv;\n    }",
    ));
    let b = body(&k);
    assert!(b.contains("const float bv = tsl_ld_or_zero(b, "), "{b}");
    assert!(
        b.contains("acc = fmaf(tsl_ld_or_zero(a, bm * 16 + tr, kk, M, K), bv, acc);"),
        "{b}"
    );
}

#[test]
fn parse_errors_point_at_the_new_statements() {
    let bad = |stmt: &str| {
        dsl_core::parse::parse_str(&warp(&format!("    f32 s = 0.0f;\n    {stmt}")), None)
            .unwrap_err()
    };
    let d = bad("reduce.sum s;");
    assert!(d.0[0].message.contains("`:`"), "{d}");
    let d = bad("reduce.avg s : group;");
    assert!(
        d.0[0].message.contains("unknown statement `reduce.avg`"),
        "{d}"
    );
    let d = bad("dma.wait;");
    assert!(d.0[0].message.contains("in flight"), "{d}");
}

#[test]
fn code_table_lists_the_new_codes() {
    for code in [c::LOCAL_INDEX, c::REDUCE, c::TRANSPOSE, c::DMA_WAIT] {
        assert!(c::TABLE.iter().any(|(k, _)| *k == code), "{code}");
    }
}

#[test]
fn macro_tokens_and_co_files_parse_the_extensions_alike() {
    // The ladders' kernels in file mode, and the same text as macro tokens (`a # b` spaced).
    for name in [
        "sgemm_k8_warptile",
        "gemv_direct",
        "gemv_staged",
        "kt_tiled",
    ] {
        let path = format!("{}/../kernels/{name}.co", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let file = parse(&text);
        let spaced: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or("").replace('#', " # "))
            .collect::<Vec<_>>()
            .join("\n");
        let ts: proc_macro2::TokenStream = spaced.parse().expect("lexes");
        let tokens = dsl_core::parse::parse_tokens(ts)
            .unwrap_or_else(|d| panic!("{name}: macro tokens do not parse:\n{d}"))
            .module;
        assert_eq!(file.to_string(), tokens.to_string(), "{name}");
        check::check(&tokens).unwrap_or_else(|d| panic!("{name}: {d}"));
    }
}
