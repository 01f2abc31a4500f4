//! The ladder's kernels (hand-built IR) pass the checker with their defaults, the facts the
//! lowering needs are right, and one warpgroup too many (`wg by 3`, CONSUMERS = 1) is a
//! compile-time range error.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::{
    self, Binding, Config, DimExpr, FragKind, Limits, Problem, check_config, codes as c,
};
use dsl_core::ir::{DType, Expr, MemSpace, Stmt};

#[test]
fn v0_passes() {
    let m = v0();
    let info = check_ok(&m);
    assert_eq!(info.threads_per_block, 1024);
    assert_eq!(info.grid.len(), 2);
    assert_eq!(m.expr_to_string(info.grid[0]), "cdiv(M, TILE_M)");
    assert_eq!(info.smem_bytes, 0);
    // Element accesses are views with `element` set.
    let acc = find(&m, "lhs.at(block_m # thr_m, iv_k)")[0];
    let v = &info.views[&acc];
    assert!(v.element);
    assert_eq!(v.root, Binding::Param(0));
}

#[test]
fn v1_passes() {
    let m = v1();
    let info = check_ok(&m);
    assert_eq!(info.threads_per_block, 1024);
    assert_eq!(info.smem_bytes, 2 * 32 * 128 * 2);
    let src = find(&m, "lhs.subspan(TILE_M, TILE_K).at(block_m, iv_k)")[0];
    let v = &info.views[&src];
    assert_eq!(v.space, MemSpace::Global);
    assert_eq!(
        v.tile.iter().map(|d| d.value).collect::<Vec<_>>(),
        vec![Some(32), Some(128)]
    );
    assert!(v.coords.iter().all(|c| c.is_some()));
}

#[test]
fn v2_passes_and_infers_chunks() {
    let m = v2();
    let info = check_ok(&m);
    assert_eq!(info.threads_per_block, 128);
    assert_eq!(info.smem_bytes, (64 * 64 + 128 * 64 + 64 * 128) * 2);
    // lhs.chunkat(block_m, iv_k): block_m over cdiv(M, WARP_M) gives WARP_M; iv_k gives TILE_K.
    let src = find(&m, "lhs.chunkat(block_m, iv_k)")[0];
    let v = &info.views[&src];
    let texts: Vec<String> = v
        .tile
        .iter()
        .map(|d| match d.expr {
            DimExpr::Expr(e) => m.expr_to_string(e),
            DimExpr::Const(c) => c.to_string(),
        })
        .collect();
    assert_eq!(texts, ["WARP_M", "TILE_K"]);
    // `_` keeps the dim whole and has no coordinate.
    let b = find(&m, "rhs_s.chunkat(_, iv_wk)")[0];
    assert_eq!(
        info.views[&b]
            .tile
            .iter()
            .map(|d| d.value)
            .collect::<Vec<_>>(),
        vec![Some(128), Some(16)]
    );
    assert!(info.views[&b].coords[0].is_none());
    // Fragments, keyed by their defining `mma.fill` / `mma.load`.
    let frag = |name: &str| {
        info.frags
            .values()
            .find(|f| {
                matches!(&m.stmts[f.def], Stmt::MmaFill { name: n, .. } | Stmt::MmaLoad { name: n, .. } if n.name == name)
            })
            .unwrap_or_else(|| panic!("no fragment `{name}`"))
    };
    assert!(info.frags.iter().all(|(d, f)| *d == f.def));
    assert_eq!(frag("mc").kind, FragKind::Acc);
    assert_eq!(frag("ma").kind, FragKind::A);
    assert_eq!(frag("mb").kind, FragKind::B);
    assert_eq!(
        frag("mc").shape.iter().map(|d| d.value).collect::<Vec<_>>(),
        vec![Some(64), Some(128)]
    );
    // Every TmaCopy and MmaLoad has a resolved swizzle; the output copy has none.
    let mut n = 0;
    for (s, st) in m.stmts.iter() {
        match st {
            Stmt::TmaCopy { src, .. } => {
                n += 1;
                let want = if m.expr_to_string(*src) == "output_s" {
                    0
                } else {
                    128
                };
                assert_eq!(info.swizzle[&s], want);
            }
            Stmt::MmaLoad { .. } => {
                n += 1;
                assert_eq!(info.swizzle[&s], 128);
            }
            _ => {}
        }
    }
    assert_eq!(n, 5);
}

#[test]
fn v3_passes() {
    let m = v3();
    let info = check_ok(&m);
    assert_eq!(info.threads_per_block, 256);
    assert_eq!(info.events.len(), 2);
    let full = &info.events[0];
    assert_eq!((full.name.as_str(), full.count), ("full", Some(1)));
    assert_eq!(full.waits.len(), 1);
    assert_eq!(full.triggers.len(), 3); // two tma.copy.async<full[stage]> and one trigger
    assert_eq!(info.smem_bytes, (64 * 64 + 128 * 64 + 64 * 128) * 2 + 16);
    assert_eq!(info.constants["TILE_M"], 64);
}

#[test]
fn v4_passes_with_defaults() {
    let m = v4();
    let info = check_ok(&m);
    assert_eq!(info.threads_per_block, 384);
    assert_eq!(
        info.smem_bytes,
        (2 * 128 * 64 + 2 * 192 * 64 + 2 * 64 * 192) * 2 + 32
    );
    assert_eq!(info.config.get("WARP_N"), Some(192));
    // Bindings: `cidx` in `output_s[cidx]` is the `cidx = wg - 1` binding.
    let idx = find(&m, "output_s[cidx]")[0];
    let Expr::Index { base, index } = &m.exprs[idx] else {
        panic!()
    };
    assert!(matches!(info.bindings[base], Binding::Tensor(_, 0)));
    assert!(matches!(info.bindings[index], Binding::Let(_)));
    let wg = find(&m, "wg")
        .into_iter()
        .find(|e| info.bindings.contains_key(e))
        .unwrap();
    assert!(matches!(
        info.bindings[&wg],
        Binding::ParallelVar {
            level: 0,
            index: 0,
            ..
        }
    ));
    let v = &info.views[&idx];
    assert_eq!(v.array_index, Some(*index));
}

#[test]
fn v4_tuner_filter() {
    let m = v4();
    let lim = Limits::SM90;
    // TILE_K = 32 makes SWIZ = 64, which matches 64-byte rows: legal.
    let cfg = Config::defaults(&m).with("TILE_K", 32);
    assert!(check_config(&m, &cfg, None, &lim).is_ok());
    // 4 stages of 256-wide tiles do not fit 227 KiB.
    let big = Config::defaults(&m).with("STAGES", 4).with("WARP_N", 256);
    let d = check_config(&m, &big, None, &lim).unwrap_err();
    assert_eq!(codes(&d), vec![c::SMEM_BUDGET]);
    assert_eq!(
        check::smem_bytes(&m, &big).unwrap(),
        (4 * 128 * 64 + 4 * 256 * 64 + 2 * 64 * 256) * 2 + 64
    );
    // Count the legal configurations of the whole space: all but the over-budget ones.
    let mut legal = 0;
    let mut total = 0;
    for wn in (128..=256).step_by(8) {
        for st in 1..=4 {
            for cons in 1..=2 {
                for tk in [32, 64] {
                    total += 1;
                    let cfg = Config::defaults(&m)
                        .with("WARP_N", wn)
                        .with("STAGES", st)
                        .with("CONSUMERS", cons)
                        .with("TILE_K", tk);
                    let smem = check::smem_bytes(&m, &cfg).unwrap();
                    let ok = check_config(&m, &cfg, None, &lim).is_ok();
                    assert_eq!(ok, smem <= lim.max_smem_per_block, "{cfg:?}");
                    legal += ok as u32;
                }
            }
        }
    }
    assert!(legal > 0 && legal < total);
}

#[test]
fn v4_wg_by_3_with_one_consumer_is_a_range_error() {
    let m = v4_wg3_consumers1();
    let d = check_err(&m);
    assert_eq!(codes(&d), vec![c::ARRAY_RANGE], "{d}");
    let e = only(&d, c::ARRAY_RANGE);
    // At `cidx` in `output_s[cidx]` (its first use, the mma.store).
    let idx = find(&m, "output_s[cidx]")[0];
    let Expr::Index { index, .. } = &m.exprs[idx] else {
        panic!()
    };
    assert_eq!(e.span, m.expr_span(*index));
    assert!(e.message.contains("[0, 2)"), "{e}");
    assert!(e.message.contains("output_s"), "{e}");
    // Note at the parallel extent `3`.
    let three = find(&m, "3")[0];
    assert!(
        e.notes
            .iter()
            .any(|(s, n)| *s == m.expr_span(three) && n.contains("`wg` ranges over [0, 3)")),
        "{e}"
    );
    // Narrowed by `wg >= 1`.
    assert!(
        e.notes
            .iter()
            .any(|(_, n)| n.contains("narrowed to [1, 3)")),
        "{e}"
    );
    assert_eq!(
        e.help
            .as_deref()
            .map(|h| h.contains("make the warpgroup count `CONSUMERS + 1`")),
        Some(true),
        "{e}"
    );
    // The other uses (tma.copy source, the lhs_s tile row) are notes of the same error.
    assert!(
        e.notes
            .iter()
            .filter(|(_, n)| n.starts_with("also out of range"))
            .count()
            >= 2,
        "{e}"
    );
    if std::env::var("SHOW").is_ok() {
        eprintln!("{d}");
    }
}

#[test]
fn v4_with_one_consumer_and_matching_count_passes() {
    let m = warpspec(v4_header_with(1), "CONSUMERS + 1");
    let info = check_ok(&m);
    assert_eq!(info.threads_per_block, 256);
}

#[test]
fn v3_with_wg_by_3_fails_too() {
    let m = warpspec(v3_header, "3");
    let d = check_err(&m);
    assert_eq!(codes(&d), vec![c::ARRAY_RANGE], "{d}");
}

#[test]
fn requires_over_problem_dims_at_launch() {
    // A restriction over a problem dim is skipped at compile time, evaluated at launch.
    let m = v2_with(
        |b| {
            v2_header(b);
            b.require("K % TILE_K == 0");
        },
        Some("SWIZ"),
        Some("SWIZ"),
    );
    check_ok(&m);
    let lim = Limits::SM90;
    let cfg = Config::defaults(&m);
    let good = Problem::default()
        .with("M", 128)
        .with("N", 256)
        .with("K", 4096);
    assert!(check_config(&m, &cfg, Some(&good), &lim).is_ok());
    let bad = Problem::default()
        .with("M", 128)
        .with("N", 256)
        .with("K", 100);
    let d = check_config(&m, &cfg, Some(&bad), &lim).unwrap_err();
    let e = only(&d, c::REQUIRE);
    assert!(
        e.message.contains("K % TILE_K == 0") && e.message.contains("K = 100"),
        "{e}"
    );
}

#[test]
fn f8_params_copied_into_f16_tiles_are_a_copy_error() {
    // The f8 tensors are TMA sources of WGMMA operand tiles (so 8-bit is allowed there), but
    // the tiles are f16: the copy does not convert.
    let mut m = v2();
    m.kernel.params[0].dtype = DType::F8E4M3;
    m.kernel.params[1].dtype = DType::F8E4M3;
    let d = check_err(&m);
    assert!(
        d.iter().filter(|x| x.code == c::COPY_DTYPE).count() == 2,
        "{d}"
    );
    assert!(d.iter().all(|x| x.code != c::F8), "{d}");
}

#[test]
fn all_errors_are_collected_across_checks() {
    // v4 with WARP_N = 180, 5 stages and a misspelled event: three independent errors.
    let mut m = warpspec(
        |b| {
            b.tunable("WARP_N", &[180], 180);
            b.tunable("STAGES", &[5], 5);
            b.tunable("CONSUMERS", &[2], 2);
            b.tunable("TILE_K", &[64], 64);
            b.constant("WARP_M", "64");
            b.constant("WARP_K", "16");
            b.constant("TILE_M", "WARP_M * CONSUMERS");
            b.constant("SWIZ", "TILE_K * 2");
        },
        "CONSUMERS + 1",
    );
    let empties = find(&m, "empty");
    if let Expr::Name(n) = &mut m.exprs[empties[0]] {
        *n = "emtpy".into();
    }
    let d = check_err(&m);
    assert_eq!(
        codes(&d),
        vec![c::UNKNOWN_NAME, c::WGMMA_N, c::SMEM_BUDGET],
        "{d}"
    );
    // Sorted by position.
    let lines: Vec<u32> = d.iter().map(|x| x.span.start.line).collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
}

/// Every configuration in the domains of v0–v3 is legal (no false positives across the
/// tuning space), and the checker's facts follow the configuration.
#[test]
fn whole_tuning_space_of_v0_to_v3_is_legal() {
    for m in [v0(), v1(), v2(), v3()] {
        let mut configs = vec![Config {
            values: Default::default(),
        }];
        for t in &m.tunables {
            configs = configs
                .into_iter()
                .flat_map(|c| {
                    t.domain
                        .iter()
                        .map(move |v| c.clone().with(&t.name.name, *v))
                })
                .collect();
        }
        for cfg in &configs {
            let info = check_config(&m, cfg, None, &Limits::SM90)
                .unwrap_or_else(|d| panic!("{cfg:?}:\n{d}"));
            assert_eq!(&info.config, cfg);
            if let Some(tm) = cfg.get("TILE_M").filter(|_| m.tunable("TILE_N").is_some()) {
                assert_eq!(
                    info.threads_per_block as i64,
                    tm * cfg.get("TILE_N").unwrap()
                );
            }
        }
    }
}
