//! Every restriction of the lowering is a checker diagnostic with its own code (E1101–E1120):
//! each kernel here is otherwise well-formed, fails `check` with exactly that code at the
//! construct, and the same kernel without the construct checks and lowers.

use dsl_core::check::{self, codes as c};
use dsl_core::diag::Diagnostics;
use dsl_core::ir::Module;

fn parse(src: &str) -> Module {
    dsl_core::parse::parse_str(src, Some("k.co"))
        .unwrap_or_else(|d| panic!("does not parse:\n{d}\n{src}"))
        .module
}

/// A SIMT kernel with `body` inside its `parallel` (a shared tile `s`, a register tile `r`).
fn simt(header: &str, body: &str) -> String {
    format!(
        "{header}
__co__ void k(global f32 [M, K] a, global f32 [M, K] c, global f32 [K] x) {{
  parallel {{bm}} by [cdiv(M, 32)] : block, {{t}} by [32] : thread {{
    shared f32 [32, 32] s;
    local f32 [1, 4] r;
    r.at(0, 0) = 1.0f;
    s.at(t, 0) = 1.0f;
{body}
    c.at(bm#t, 0) = r.at(0, 0) + s.at(t, 0);
  }}
}}
"
    )
}

fn check(src: &str) -> Result<(), Diagnostics> {
    let m = parse(src);
    let info = check::check(&m)?;
    dsl_core::lower::lower(&m, &info)
        .map(|_| ())
        .unwrap_or_else(|d| panic!("checked but does not lower:\n{d}\n{src}"));
    Ok(())
}

/// `src` fails the check with `code` only, at a span on the line containing `at`.
fn rejects(src: &str, code: &str, at: &str) {
    let d = check(src).expect_err(src);
    assert!(
        d.0.iter().all(|x| x.code == code),
        "expected only {code}:\n{d}"
    );
    let line = src
        .lines()
        .position(|l| l.contains(at))
        .unwrap_or_else(|| panic!("no `{at}` in the source")) as u32
        + 1;
    assert!(
        d.0.iter().any(|x| x.span.start.line == line),
        "{code} not on line {line} (`{at}`):\n{d}"
    );
    assert!(
        d.0.iter().all(|x| x.help.is_some()),
        "{code} without help:\n{d}"
    );
}

#[test]
fn the_reference_kernel_checks_and_lowers() {
    check(&simt("", "    dma.copy a.subspan(32, 32).at(bm, 0) => s;")).unwrap();
    check(&simt("", "    dma.copy a.subspan(1, 4).at(bm#t, 0) => r;")).unwrap();
}

#[test]
fn copy_into_a_fresh_buffer() {
    let b = "    dma.copy a.subspan(32, 32).at(bm, 0) => shared;";
    rejects(&simt("", b), c::FRESH_COPY, "=> shared;");
}

#[test]
fn async_copy_into_registers() {
    let b = "    dma.copy.async a.subspan(1, 4).at(bm#t, 0) => r;";
    rejects(&simt("", b), c::ASYNC_REGISTER_COPY, "dma.copy.async");
}

#[test]
fn copy_directions_without_a_lowering() {
    let b = "    shared f32 [32, 32] s2;\n    dma.copy s => s2;";
    rejects(&simt("", b), c::COPY_DIRECTION, "dma.copy s");
}

#[test]
fn shared_to_global_copies_are_synchronous_and_untransposed() {
    check(&simt("", "    dma.copy s => c.subspan(32, 32).at(bm, 0);")).unwrap();
    let b = "    dma.copy.async s => c.subspan(32, 32).at(bm, 0);";
    rejects(&simt("", b), c::ASYNC_STORE, "dma.copy.async s");
    let b = "    dma.copy s => c.subspan(32, 32).at(bm, 0).transpose();";
    rejects(&simt("", b), c::STORE_TRANSPOSE, "dma.copy s");
}

#[test]
fn cooperative_copies_of_1d_tiles_lower() {
    let b = "    shared f32 [32] s1;\n    dma.copy x.subspan(32).at(bm) => s1;\n    dma.copy s1 => x.subspan(32).at(bm);";
    check(&simt("", b)).unwrap();
    let b = "    shared f32 [32] s1;\n    dma.copy x.subspan(32).at(bm) => s1.transpose();";
    assert!(
        check(&simt("", b)).is_err(),
        "a 1-D tile has nothing to transpose"
    );
}

#[test]
fn a_fresh_shared_buffer_of_a_3d_tile() {
    // `f = dma.copy … => shared;` sizes its buffer from the tile; its cooperative copy moves
    // tiles made of rows like a copy into a declared buffer: a plane and its whole rows lower …
    let plane = "__co__ void k(s32 [4, 8, 16] a, s32 [4, 8, 16] c) {
  parallel p by 4 : block
    parallel t by 16 : thread {
      f = dma.copy a.chunkat(p, _, _) => shared;
      c.at(p, 0, t) = f.data.at(0, 0, t);
    }
}
";
    check(plane).expect("a plane of whole rows lowers");
    // … half of a plane's middle dimension does not (its rows are not consecutive).
    let src = "__co__ void k(s32 [4, 8, 16] a, s32 [4, 8, 16] c) {
  parallel p by 4 : block
    parallel t by 16 : thread {
      f = dma.copy a.subspan(2, 4, 16).at(p, 0, 0) => shared;
      c.at(p, 0, t) = f.data.at(0, 0, t);
    }
}
";
    rejects(src, c::SHARED_COPY_RANK, "f = dma.copy");
    // A 2-D tile lowers.
    let flat = "__co__ void k(s32 [4, 16] a, s32 [4, 16] c) {
  parallel p by 4 : block
    parallel t by 16 : thread {
      f = dma.copy a.chunkat(p, _) => shared;
      c.at(p, t) = f.data.at(0, t);
    }
}
";
    check(flat).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn register_copy_of_a_3d_tile() {
    // Whole register tensors walk in row-major order, so they copy at any rank.
    let whole =
        "    local f32 [2, 2, 2] r3, q3;\n    r3.at(0, 0, 0) = 1.0f;\n    dma.copy r3 => q3;";
    check(&simt("", whole)).unwrap_or_else(|d| panic!("{d}"));
    // A tile of a register tensor cut across its rows does not walk as rows.
    let b = "    local f32 [2, 2, 2] r3;\n    local f32 [2, 2] q2;\n    r3.at(0, 0, 0) = 1.0f;\n    dma.copy r3.subspan(2, 1, 2).at(0, 0, 0) => q2;";
    rejects(&simt("", b), c::REGISTER_COPY_RANK, "dma.copy r3");
    // A whole rank-3 register tensor stores into a 2-D shared tile, row by row.
    let b = "    local f32 [1, 4, 4] r3;\n    r3.at(0, 0, 0) = 1.0f;\n    dma.copy r3 => s.subspan(4, 4).at(0, 0);";
    check(&simt("", b)).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn transposed_register_destination() {
    let b = "    dma.copy a.subspan(4, 1).at(bm#t, 0) => r.transpose();";
    rejects(&simt("", b), c::TRANSPOSE_TARGET, "r.transpose()");
}

#[test]
fn compound_assignment_to_a_global_element() {
    rejects(
        &simt("", "    c.at(bm#t, 1) += 1.0f;"),
        c::COMPOUND_GLOBAL,
        "+=",
    );
}

#[test]
fn assignment_to_a_tile() {
    let b = "    c.subspan(32, 32).at(bm, 0) = 1.0f;";
    rejects(&simt("", b), c::ASSIGN_TILE, "c.subspan(32, 32)");
}

#[test]
fn block_level_shapes() {
    let four = "__co__ void k(global f32 [M] a) {
  parallel {p, q, u, v} by [2, 2, 2, 2] : block, {t} by [32] : thread {
    a.at(t) = 1.0f;
  }
}
";
    rejects(four, c::BLOCK_VARS, ": block");
    rejects(&simt("raster 8;", ""), c::RASTER_RANK, ": block");
    let three = "persistent 1;
__co__ void k(global f32 [M] a) {
  parallel {p, q, u} by [2, 2, 2] : block, {t} by [32] : thread {
    a.at(t) = 1.0f;
  }
}
";
    rejects(three, c::PERSISTENT_RANK, ": block");
}

fn v3() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/v3_warpspec.co"
    ))
    .unwrap()
}

#[test]
fn trigger_under_an_if() {
    // A thread variable in the condition: the arrival count would depend on it.
    let src = v3().replace(
        "          trigger full[stage];",
        "          if (t == 0) trigger full[stage];",
    );
    rejects(&src, c::TRIGGER_IN_IF, "if (t == 0)");
    // A loop variable has one value per block: the same threads reach the trigger or none.
    let uniform = v3().replace(
        "          trigger full[stage];",
        "          if (iv_k >= 0) trigger full[stage];",
    );
    check(&uniform).unwrap();
}

#[test]
fn tma_copy_of_a_1d_tile_and_an_unused_accumulator() {
    let v2 = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/v2_tma_wgmma.co"
    ))
    .unwrap();
    check(&v2).unwrap();
    let unused = v2.replace(
        "    mc = mma.fill.f16 0.0f;",
        "    mc = mma.fill.f16 0.0f;\n    md = mma.fill.f16 0.0f;",
    );
    rejects(&unused, c::ACC_UNUSED, "md = mma.fill");
    let one_d = "__co__ void k(global f16 [N] x, global f16 [N] y) {
  parallel {b} by [cdiv(N, 64)] : block, by 1 : group-4 {
    shared f16 [64] x_s;
    tma.copy x.subspan(64).at(b) => x_s;
    tma.copy x_s => y.subspan(64).at(b);
  }
}
";
    let d = check(one_d).expect_err(one_d);
    assert!(d.0.iter().any(|x| x.code == c::TMA_RANK), "{d}");
}

#[test]
fn async_transposed_copies_into_one_tensor_share_a_shape() {
    let copy = |tile: &str, k: &str| {
        format!("    dma.copy.async a.subspan({tile}).at(bm, {k}) => st.transpose();\n")
    };
    let one = format!(
        "    shared f32 [16, 32] st;\n{}{}    dma.wait 0;",
        copy("32, BK", "0"),
        copy("32, BK", "1")
    );
    check(&simt("const BK = 16;", &one)).unwrap();
    // The same values, written differently: one stage cannot take both.
    let two = format!(
        "    shared f32 [16, 32] st;\n{}{}    dma.wait 0;",
        copy("32, BK", "0"),
        copy("32, 16", "1")
    );
    rejects(
        &simt("const BK = 16;", &two),
        c::STAGE_SHAPE,
        "subspan(32, 16)",
    );
}

#[test]
fn sizes_that_are_not_integer_arithmetic() {
    let b = "    foreach {i} in [2.5f]\n      r.at(0, 0) = 1.0f;";
    rejects(&simt("", b), c::NOT_INTEGER, "2.5f");
    let b = "    shared f32 [32, 32] s2[2];\n    f32 v = 1.0f;\n    dma.copy a.subspan(32, 32).at(bm, 0) => s2[v];";
    rejects(&simt("", b), c::NOT_INTEGER, "s2[v]");
    let b = "    dma.copy a.subspan(32, x.at(0)).at(bm, 0) => s;";
    let d = check(&simt("", b)).expect_err("a view as a size");
    assert!(d.0.iter().any(|x| x.code == c::NOT_INTEGER), "{d}");
}

#[test]
fn a_multicast_load_waits_for_its_stage() {
    let v4 = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/v4_tuned.co"
    ))
    .unwrap();
    check(&v4).unwrap();
    let src = v4.replace("          wait empty[stage];\n", "");
    assert_ne!(src, v4);
    let d = check(&src).expect_err("no wait before the multicast load");
    assert!(
        d.0.iter().all(|x| x.code == c::MULTICAST_WAIT) && d.0.len() == 1,
        "{d}"
    );
    // The `rhs` load (its tile does not depend on `block_m`), not the `lhs` one before it.
    let loads: Vec<u32> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("tma.copy.async<full[stage]>"))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    assert_eq!(d.0[0].span.start.line, loads[1], "{d}");
}

#[test]
fn a_2d_register_tile_copies_its_own_rows() {
    let copy = |rows: &str| {
        format!("    local f32 [TWO, 4] r2;\n    dma.copy a.subspan({rows}, 4).at(bm#t, 0) => r2;")
    };
    check(&simt("const TWO = 2;", &copy("TWO"))).unwrap();
    // Two rows either way, but the register walk's pitch is a template argument of its own.
    rejects(
        &simt("const TWO = 2;", &copy("2")),
        c::REGISTER_ROWS,
        "=> r2;",
    );
    // A 1-D register tile takes a row.
    let flat = "    local f32 [4] r1;\n    dma.copy a.subspan(1, 4).at(bm#t, 0) => r1;";
    check(&simt("", flat)).unwrap();
}

#[test]
fn composition_strides_by_a_variable() {
    check(&simt("", "    c.at(bm # t, 1) = 1.0f;")).unwrap();
    rejects(
        &simt("const C = 4;", "    c.at(bm # C, 1) = 1.0f;"),
        c::COMPOSE_STRIDE,
        "bm # C",
    );
    rejects(
        &simt("", "    c.at(bm # 3, 1) = 1.0f;"),
        c::COMPOSE_STRIDE,
        "bm # 3",
    );
}

#[test]
fn every_new_code_is_in_the_table_once() {
    let new = [
        c::FRESH_COPY,
        c::ASYNC_REGISTER_COPY,
        c::COPY_DIRECTION,
        c::SHARED_COPY_RANK,
        c::REGISTER_COPY_RANK,
        c::TRANSPOSE_TARGET,
        c::COMPOUND_GLOBAL,
        c::ASSIGN_TILE,
        c::BLOCK_VARS,
        c::RASTER_RANK,
        c::PERSISTENT_RANK,
        c::TRIGGER_IN_IF,
        c::TMA_RANK,
        c::ACC_UNUSED,
        c::STAGE_SHAPE,
        c::NOT_INTEGER,
        c::MULTICAST_WAIT,
        c::REGISTER_ROWS,
        c::COMPOSE_STRIDE,
        c::LOWER_INTERNAL,
    ];
    for code in new {
        assert!(code.starts_with("E11"), "{code}");
        assert_eq!(
            c::TABLE.iter().filter(|(k, _)| *k == code).count(),
            1,
            "{code}"
        );
    }
    assert!(!c::TABLE.iter().any(|(k, _)| *k == "E0900"));
}

#[test]
fn chunk_indices_are_variables() {
    // A loop variable's extent is the chunk count; `_` keeps the dimension.
    check(&simt(
        "",
        "    foreach {j} in [cdiv(K, 8)] { dma.copy a.chunkat(bm, j) => s.subspan(32, 8).at(0, 0); }",
    ))
    .unwrap();
    // Where the view check knows the tile, a constant is its E0204 — also in the fresh buffer
    // of a future, whose tile is its source's.
    let d = check(&simt(
        "",
        "    dma.copy a.chunkat(bm, 2) => s.subspan(32, 8).at(0, 0);",
    ))
    .expect_err("a constant chunk index");
    assert_eq!(
        d.0.iter().map(|x| x.code).collect::<Vec<_>>(),
        vec![c::CHUNK]
    );
    let src = "__co__ void k(global f16 [M, K] a, global f16 [N, K] b, global f16 [M, N] c) {
  parallel {bm, bn} by [cdiv(M, 32), cdiv(N, 32)] : block {
    parallel {wy, wx} by [2, 2] : group {
      acc = mma.fill 0.0;
      foreach {kt} in [cdiv(K, 16)] {
        sa = dma.copy.async a.subspan(32, 16).at(bm, kt) => shared;
        sb = dma.copy.async b.subspan(32, 16).at(bn, kt) => shared;
        wait sa, sb;
        fa = mma.load sa.chunkat(wy, 0);
        fb = mma.load sb.chunkat(wx, _);
        mma.row.row acc, fa, fb;
      }
      mma.store acc, c.subspan(32, 32).at(bm, bn).chunkat(wy, wx);
    }
  }
}
";
    rejects(src, c::CHUNK, "sa.chunkat(wy, 0)");
    check(&src.replace("sa.chunkat(wy, 0)", "sa.chunkat(wy, _)")).unwrap();
}

#[test]
fn a_copy_through_shared_memory_is_one_tile_for_the_block() {
    // The block's tile: every thread alike.
    let b = "    dma.copy a.subspan(32, 32).at(bm, 0) => s;";
    check(&simt("", b)).unwrap_or_else(|d| panic!("{d}"));
    // A tile per thread into one shared tile: each thread would move a share of a different
    // tile.
    let b = "    dma.copy a.subspan(1, 32).at(bm # t, 0) => s.subspan(1, 32).at(0, 0);";
    rejects(&simt("", b), c::COPY_TILE_VARIES, "bm # t");
    // Into a fresh buffer: the buffer is each thread's own, filled by the thread's copy, `.async`
    // or not.
    let b = "    int row = bm # t;\n    f = dma.copy a.subspan(1, 32).at(row, 0) => shared;\n    r.at(0, 1) = f.data.at(0, 0);";
    check(&simt("", b)).unwrap_or_else(|d| panic!("{d}"));
    let b = "    int row = bm # t;\n    f = dma.copy.async a.subspan(1, 32).at(row, 0) => shared;\n    wait f;\n    r.at(0, 1) = f.data.at(0, 0);";
    check(&simt("", b)).unwrap_or_else(|d| panic!("{d}"));
    // A tile per thread into a shared tile of its own: each thread copies it alone.
    let b = "    dma.copy a.subspan(1, 32).at(bm # t, 0) => s.subspan(1, 32).at(t, 0);";
    check(&simt("", b)).unwrap_or_else(|d| panic!("{d}"));
    let b = "    dma.copy.async a.subspan(1, 32).at(bm # t, 0) => s.subspan(1, 32).at(t, 0);\n    dma.wait 0;";
    rejects(&simt("", b), c::COPY_TILE_VARIES, "bm # t");
    // Per thread into registers is fine.
    let b = "    dma.copy a.subspan(1, 4).at(bm # t, 0) => r;";
    check(&simt("", b)).unwrap_or_else(|d| panic!("{d}"));
}
