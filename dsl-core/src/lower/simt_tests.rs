//! Tests of the SIMT-path lowering ([`super`]) and of its loop versioning (`lower::even`).

/// Lowers `text`; the kernel body's C++ lines.
fn lower(text: &str) -> Vec<String> {
    let m = crate::parse::parse_str(text, None)
        .unwrap_or_else(|d| panic!("does not parse:\n{d}"))
        .module;
    let info = crate::check::check(&m).unwrap_or_else(|d| panic!("does not check:\n{d}"));
    let k = crate::lower::lower(&m, &info).unwrap_or_else(|d| panic!("does not lower:\n{d:?}"));
    k.body.iter().map(|l| l.text()).collect()
}

/// A double-buffered SGEMM body: `head` before the loop, the K loop, the epilogue.
fn sgemm(a_dst0: &str, a_dst: &str) -> String {
    format!(
        "tunable BK in [8, 16] = 8;
const BM = 64;
const BN = 64;
__co__ void k(global f32 [M, K] a, global f32 [K, N] b, global f32 [M, N] c) {{
  parallel {{bm, bn}} by [cdiv(M, BM), cdiv(N, BN)] : block, {{tr, tc}} by [16, 16] : thread {{
    shared f32 [BK, BM + 4] a_s[2];
    shared f32 [BK, BN] b_s[2];
    local f32 [4] ra;
    local f32 [4] rb;
    local f32 [4, 4] acc;
    foreach {{i, j}} in [4, 4] : unroll
      acc.at(i, j) = 0.0f;
    dma.copy.async a.subspan(BM, BK).at(bm, 0) => {a_dst0};
    dma.copy.async b.subspan(BK, BN).at(0, bn) => b_s[0];
    foreach {{kt}} in [cdiv(K, BK)] {{
      dma.wait 0;
      dma.copy.async a.subspan(BM, BK).at(bm, kt + 1) => {a_dst};
      dma.copy.async b.subspan(BK, BN).at(kt + 1, bn) => b_s[(kt + 1) % 2];
      foreach {{k}} in [BK] {{
        dma.copy a_s[kt % 2].subspan(1, 4).at(k, tr) => ra;
        dma.copy b_s[kt % 2].subspan(1, 4).at(k, tc) => rb;
        foreach {{i, j}} in [4, 4] : unroll
          acc.at(i, j) += ra.at(i) * rb.at(j);
      }}
    }}
    foreach {{i}} in [4] : unroll
      dma.copy acc.subspan(1, 4).at(i, 0) => c.subspan(1, 4).at(bm#tr#i, bn#tc);
  }}
}}
"
    )
}

fn position(lines: &[String], what: &str) -> usize {
    lines
        .iter()
        .position(|l| l.starts_with(what))
        .unwrap_or_else(|| panic!("no line starting with `{what}`:\n{}", lines.join("\n")))
}

#[test]
fn async_transposed_copies_are_staged_and_land_at_the_wait() {
    let b = lower(&sgemm(
        "a_s[0].subspan(BK, BM).at(0, 0).transpose()",
        "a_s[(kt + 1) % 2].subspan(BK, BM).at(0, 0).transpose()",
    ));
    let all = b.join("\n");
    // One stage, declared before the first issue, with the padded pitch.
    let decl = position(
        &b,
        "tsl_stage_t<BM, BK, (BM + 4), tsl_threads, float> tsl_stage_a_s;",
    );
    let issue = position(
        &b,
        "tsl_copy_g2s_t<BM, BK, (BM + 4), tsl_threads>(tsl_stage_a_s, ",
    );
    assert!(decl < issue, "{all}");
    // Every wait lands the stage first.
    let wait = position(&b, "tsl_cp_async_wait<0>();");
    assert!(
        b[wait - 1].starts_with("tsl_copy_g2s_t<BM, BK, (BM + 4), tsl_threads>(tsl_stage_a_s);"),
        "{all}"
    );
    // The K loop comes twice (pass `even`): branch-free copies when the tile grids divide
    // the matrices, the general ones otherwise; each version lands the stage once.
    let even = position(
        &b,
        "const bool tsl_even = M % BM == 0 && K % BK == 0 && N % BN == 0;",
    );
    assert!(b[even + 1].starts_with("if (tsl_even) {"), "{all}");
    assert!(even < wait, "{all}");
    assert_eq!(all.matches("(tsl_stage_a_s);").count(), 2, "{all}");
    // The copies right after the wait's barrier add none; the first ones (after the
    // accumulator loop) do.
    assert!(b[wait + 1].starts_with("__syncthreads();"), "{all}");
    assert!(
        b[wait + 2].starts_with("tsl_copy_g2s_t<BM, BK, (BM + 4), tsl_threads, true>("),
        "{all}"
    );
    assert!(
        b[wait + 3].starts_with("tsl_copy_g2s_async<BK, BN, BN, tsl_threads, true>("),
        "{all}"
    );
    let general = position(&b, "} else {");
    assert!(
        b[general..].iter().all(|l| !l.contains(", true>(")),
        "{all}"
    );
    assert!(
        b[general..]
            .iter()
            .any(|l| l.starts_with("tsl_copy_g2s_async<BK, BN, BN, tsl_threads>(")),
        "{all}"
    );
    assert_eq!(all.matches("__syncthreads();").count(), 3, "{all}");
    // The stage entries read in the K-step loop are computed once per K tile.
    let hoisted = position(&b, "float* const tsl_a_s_at = (a_s + (kt % 2) * ");
    let kloop = position(&b, "for (int k = 0;");
    assert!(hoisted < kloop, "{all}");
    assert!(
        all.contains("float* const tsl_b_s_at = (b_s + (kt % 2) * (BK * BN));"),
        "{all}"
    );
    assert!(all.contains("(rb, tsl_b_s_at + k * BN + "), "{all}");
    assert!(!all.contains("(rb, (b_s + (kt % 2)"), "{all}");
    // Nothing is left in flight when the block ends.
    assert!(
        b.last().unwrap().starts_with("tsl_cp_async_wait_all();"),
        "{all}"
    );
}

#[test]
fn loops_of_a_static_trip_count_are_not_versioned() {
    // A prologue of a static trip count stays as it is; the K loop is versioned.
    let text = sgemm(
        "a_s[0].subspan(BK, BM).at(0, 0).transpose()",
        "a_s[(kt + 1) % 2].subspan(BK, BM).at(0, 0).transpose()",
    )
    .replace(
        "    dma.copy.async b.subspan(BK, BN).at(0, bn) => b_s[0];\n",
        "    foreach {s} in [1]\n      dma.copy.async b.subspan(BK, BN).at(s, bn) => b_s[s];\n",
    );
    let b = lower(&text);
    let all = b.join("\n");
    assert_eq!(all.matches("const bool tsl_even = ").count(), 1, "{all}");
    let prologue = position(&b, "for (int s = 0;");
    assert!(prologue < position(&b, "const bool tsl_even = "), "{all}");
    let copy = position(&b, "tsl_copy_g2s_async<");
    assert!(
        prologue < copy && copy < position(&b, "const bool tsl_even = "),
        "{all}"
    );
    assert!(
        b[copy].starts_with("tsl_copy_g2s_async<BK, BN, BN, tsl_threads>("),
        "{all}"
    );
}

#[test]
fn one_stage_per_destination_means_one_shape() {
    let text = sgemm(
            "a_s[0].subspan(BK, BM).at(0, 0).transpose()",
            "a_s[(kt + 1) % 2].subspan(BK, BM).at(0, 0).transpose()",
        )
        .replace(
            "dma.copy.async a.subspan(BM, BK).at(bm, 0) => a_s[0].subspan(BK, BM).at(0, 0).transpose();",
            "dma.copy.async a.subspan(32, BK).at(bm, 0) => a_s[0].subspan(BK, 32).at(0, 0).transpose();",
        );
    let m = crate::parse::parse_str(&text, None).unwrap().module;
    // The checker says so (check ok ⇒ lower ok).
    let err = crate::check::check(&m).expect_err("two shapes into one stage");
    assert!(
        err.iter()
            .all(|e| e.code == crate::check::codes::STAGE_SHAPE
                && e.message.contains("share a register stage")),
        "{err}"
    );
}

#[test]
fn async_copies_without_tile_helpers_use_the_simt_copy() {
    // No register tiles: `simt_tiles.cuh` is not in the file, so no `tsl_copy_g2s_async`.
    let b = lower(
        "const T = 32;
__co__ void k(global f32 [M, K] a, global f32 [M, K] c) {
  parallel {bm} by [cdiv(M, T)] : block, {t} by [T] : thread {
    shared f32 [T, T] s[2];
    dma.copy.async a.subspan(T, T).at(bm, 0) => s[0];
    dma.wait 0;
    c.at(bm#t, 0) = s[0].at(t, 0);
  }
}
",
    );
    let all = b.join("\n");
    assert!(all.contains("tsl_copy_g2s<T, T, T, tsl_threads>("), "{all}");
    assert!(!all.contains("tsl_copy_g2s_async"), "{all}");
}
