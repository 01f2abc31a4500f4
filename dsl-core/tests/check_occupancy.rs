//! `occupancy N;`: parsed into the module, dumped, checked (an integer in 1..=32 under the
//! configuration, over tunables and constants, SIMT kernels only) and lowered to
//! `__launch_bounds__(THREADS, N)`.

mod check_support;
mod kernel_files;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::{self, Config, Limits, check_config, codes as c};
use dsl_core::ir::{Expr, Module};
use kernel_files::{kernel_file, parse};

/// k8 with its `occupancy MINB;` replaced by `occupancy EXPR;`.
fn k8_with(expr: &str) -> Module {
    let text = kernel_file("sgemm_k8_warptile");
    assert!(text.contains("occupancy MINB;"));
    parse(&text.replace("occupancy MINB;", &format!("occupancy {expr};")))
}

#[test]
fn k8_parses_checks_and_dumps_its_occupancy() {
    let m = parse(&kernel_file("sgemm_k8_warptile"));
    let o = m.occupancy.expect("k8 has an occupancy item");
    assert_eq!(m.expr_to_string(o), "MINB");
    assert!(m.to_string().contains("\noccupancy MINB\n"), "{m}");
    check::check(&m).unwrap_or_else(|d| panic!("{d}"));
    let cfg = |vals: [i64; 8]| {
        ["BM", "BN", "BK", "WM", "WN", "WNITER", "TM", "TN"]
            .iter()
            .zip(vals)
            .fold(Config::defaults(&m), |c, (k, v)| c.with(k, v))
    };
    // 64 outputs a thread at BK = 8 fit two blocks per SM (ptxas: 128 registers, no spills) …
    let small = cfg([128, 128, 8, 64, 32, 2, 4, 4]).with("MINB", 2);
    check_config(&m, &small, None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
    // … 64 outputs at BK = 32 (an earlier default) do not (they spill 224 bytes), nor
    // does the 128-output tile that won the earlier sweeps.
    let d = check_config(
        &m,
        &cfg([64, 256, 32, 64, 32, 1, 4, 8]).with("MINB", 2),
        None,
        &Limits::SM90,
    )
    .unwrap_err();
    assert_eq!(codes(&d), vec![c::REQUIRE], "{d}");
    let winner = cfg([128, 256, 8, 128, 32, 4, 4, 4]);
    check_config(&m, &winner, None, &Limits::SM90).unwrap_or_else(|d| panic!("{d}"));
    let d = check_config(&m, &winner.with("MINB", 2), None, &Limits::SM90).unwrap_err();
    assert_eq!(codes(&d), vec![c::REQUIRE], "{d}");
    assert!(mentions(&d.0[0], "MINB = 2"), "{d}");
}

#[test]
fn block_count_outside_1_to_32_is_spanned() {
    for (expr, blocks) in [("0", 0), ("MINB * 20", 20), ("MINB - 2", -1), ("33", 33)] {
        let m = k8_with(expr);
        let cfg = Config::defaults(&m);
        let bad = !(1..=32).contains(&blocks);
        let r = check_config(&m, &cfg, None, &Limits::SM90);
        if !bad {
            assert!(r.is_ok(), "{expr}");
            continue;
        }
        let d = r.unwrap_err();
        let e = only(&d, c::OCCUPANCY);
        assert_eq!(d.len(), 1, "{d}");
        assert_eq!(e.span, m.expr_span(m.occupancy.unwrap()), "{expr}");
        assert!(
            e.message.contains(&format!("asks for {blocks} blocks")),
            "{e}"
        );
        assert!(e.message.contains("1..=32"), "{e}");
    }
    // Legal for one configuration, not for another.
    let m = k8_with("MINB * 17");
    assert!(check::check(&m).is_ok());
    let d = check_config(
        &m,
        &Config::defaults(&m).with("MINB", 2),
        None,
        &Limits::SM90,
    )
    .unwrap_err();
    assert!(
        only(&d, c::OCCUPANCY).message.contains("asks for 34"),
        "{d}"
    );
}

#[test]
fn problem_dims_unknown_names_and_bad_arithmetic() {
    let m = k8_with("M / 1024");
    let d = check_err(&m);
    let e = only(&d, c::OCCUPANCY);
    assert_eq!(d.len(), 1, "{d}");
    assert!(e.message.contains("`M` is a problem dimension"), "{e}");
    // On the `M` of `M / 1024`, the first `M` in the arena (the header comes before the kernel).
    let o = m.expr_span(m.occupancy.unwrap());
    assert_eq!(e.span, m.expr_span(find(&m, "M")[0]));
    assert_eq!((e.span.start, e.span.end.line), (o.start, o.start.line));

    let d = check_err(&k8_with("MINBB"));
    assert_eq!(codes(&d), vec![c::UNKNOWN_NAME], "{d}");
    assert!(mentions(&d.0[0], "MINB"), "{d}");

    let d = check_err(&k8_with("2 / (MINB - 1)"));
    assert_eq!(codes(&d), vec![c::EVAL], "{d}");
}

#[test]
fn hopper_kernels_refuse_occupancy() {
    let text = kernel_file("v2_tma_wgmma");
    let at = text.find("__co__").unwrap();
    let m = parse(&format!("{}occupancy 2;\n{}", &text[..at], &text[at..]));
    let d = check_err(&m);
    let e = only(&d, c::OCCUPANCY_PATH);
    assert_eq!(d.len(), 1, "{d}");
    assert_eq!(e.span, m.expr_span(m.occupancy.unwrap()));
    assert!(e.message.contains("applies to SIMT kernels"), "{e}");
    assert!(mentions(e, "makes it a Hopper kernel"), "{e}");
}

#[test]
fn hand_built_ir() {
    let with = |mut m: Module, blocks: i64| {
        let span = m.kernel.name.span;
        m.occupancy = Some(m.exprs.append(Expr::Int(blocks), span));
        m
    };
    // SIMT (the ladder's v1): checked for its value.
    check_ok(&with(v1(), 4));
    let m = with(v1(), 64);
    let d = check_err(&m);
    assert_eq!(codes(&d), vec![c::OCCUPANCY], "{d}");
    assert_eq!(d.0[0].span, m.expr_span(m.occupancy.unwrap()));
    // Hopper (v2: TMA + WGMMA): refused whatever the value.
    let d = check_err(&with(v2(), 1));
    assert_eq!(codes(&d), vec![c::OCCUPANCY_PATH], "{d}");
}

#[test]
fn simt_launch_bounds_carry_the_block_count() {
    let m = parse(&kernel_file("sgemm_k8_warptile"));
    let info = check::check(&m).unwrap();
    let k = dsl_core::lower::lower(&m, &info).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(
        k.launch_bounds.min_blocks,
        Some(dsl_core::lower::Sym::name("MINB"))
    );
    let text = k.launch_bounds.to_string();
    assert!(
        text.starts_with("__launch_bounds__(") && text.ends_with(", (MINB))"),
        "{text}"
    );
    // Without the item: threads only.
    let text = kernel_file("sgemm_k8_warptile").replace("occupancy MINB;", "");
    let m = parse(&text);
    let info = check::check(&m).unwrap();
    let k = dsl_core::lower::lower(&m, &info).unwrap();
    assert_eq!(k.launch_bounds.min_blocks, None, "{}", k.launch_bounds);
}

#[test]
fn wgmma_accumulators_must_fit_the_block_s_registers() {
    // wgmma_epilogue: one warpgroup holds a [64, WARP_N] f32 accumulator. Seven warpgroups
    // (896 threads) leave 72 registers a thread: a 64-register accumulator does not fit
    // (ptxas: "Insufficient registers … register target of 90 or higher").
    let text = kernel_file("wgmma_epilogue");
    assert!(text.contains("parallel by 1 : group-4"));
    let wide = parse(&text.replace("parallel by 1 : group-4", "parallel by 7 : group-4"));
    let d = check::check(&wide).unwrap_err();
    assert_eq!(codes(&d), vec![c::ACC_REGISTERS], "{d}");
    assert!(mentions(&d.0[0], "896 threads"), "{d}");
    assert!(mentions(&d.0[0], "at most 72"), "{d}");
    // Two warpgroups (256 threads, 248 registers a thread) are fine.
    let two = parse(&text.replace("parallel by 1 : group-4", "parallel by 2 : group-4"));
    check::check(&two).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn two_accumulators_of_one_name_are_estimated_each() {
    // wgmma_epilogue under seven warpgroups: its [64, BN] accumulator `mc` does not fit (see
    // above). A later scope of the block computes a narrow [64, 8] product into an accumulator
    // of the same name: it fits, and it must not hide the first one's shortage (the fragments
    // are told apart by their `mma.fill`, not by their name).
    let text =
        kernel_file("wgmma_epilogue").replace("parallel by 1 : group-4", "parallel by 7 : group-4");
    let tail = "    mma.store mc, output.subspan(64, BN).at(bm, bn);\n  }\n}";
    assert!(text.contains(tail));
    let narrow = r#"    mma.store mc, output.subspan(64, BN).at(bm, bn);
    foreach {p} in [1] {
      shared f16 [8, TILE_K] rhs_n;
      mc = mma.fill.f32 0.0f;
      foreach {kt} in [cdiv(K, TILE_K)] {
        tma.copy.swiz<128> lhs.subspan(64, TILE_K).at(bm, kt) => lhs_s;
        tma.copy.swiz<128> rhs.subspan(8, TILE_K).at(bn * (BN / 8), kt) => rhs_n;
        foreach {kk} in [TILE_K / 16] {
          parallel by 7 : group-4 {
            ma2 = lhs_s.chunkat(_, kk);
            mb2 = rhs_n.chunkat(_, kk);
            mma.row.row mc, ma2, mb2;
          }
        }
      }
      mma.store mc, output.subspan(64, 8).at(bm, bn * (BN / 8));
    }
  }
}"#;
    let both = parse(&text.replace(tail, narrow));
    let d = check::check(&both).unwrap_err();
    assert_eq!(codes(&d), vec![c::ACC_REGISTERS], "{d}");
    assert!(mentions(&d.0[0], "[64, 128] f32"), "{d}");
    assert_eq!(d.0[0].span.start.line, 15, "{d}");
    // The narrow accumulator alone fits.
    let one = parse(&narrow_only(&text, narrow));
    check::check(&one).unwrap_or_else(|d| panic!("{d}"));
}

/// `text` with the wide accumulator's GEMM (to the end of the kernel) replaced by the narrow one.
fn narrow_only(text: &str, narrow: &str) -> String {
    let start = text
        .find("    mc = mma.fill.f32 0.0f;")
        .expect("the wide accumulator");
    let inner = narrow
        .strip_prefix("    mma.store mc, output.subspan(64, BN).at(bm, bn);\n")
        .expect("the narrow scope");
    format!("{}{}", &text[..start], inner)
}
