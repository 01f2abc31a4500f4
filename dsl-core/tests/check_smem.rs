//! Shared-memory budget and static shapes.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::{Config, Limits, check_config, codes as c, smem_bytes};
use dsl_core::ir::{DType, MemSpace};

#[test]
fn over_budget_names_the_biggest() {
    let m = simple(|b| {
        vec![
            b.shared(DType::F32, &["256", "128"], "big", Some("2")),
            b.shared(DType::F16, &["64", "128"], "small", None),
            b.events(MemSpace::Shared, &[("ev", Some("4"))]),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::SMEM_BUDGET);
    let total = 2 * 256 * 128 * 4 + 64 * 128 * 2 + 32;
    assert!(e.message.contains(&format!("{total} bytes")), "{e}");
    assert!(e.message.contains("limit is 232448 bytes (227 KiB)"), "{e}");
    assert!(
        e.message
            .contains("`big`: 2 × [256, 128] f32 = 2 × 256 × 128 × 4 B = 262144 B"),
        "{e}"
    );
    assert!(e.notes.iter().any(|(_, n)| n.contains("`small`")), "{e}");
    assert_eq!(smem_bytes(&m, &Config::defaults(&m)).unwrap(), total as u64);
}

#[test]
fn limit_is_configurable() {
    let m = v2();
    let small = Limits {
        max_smem_per_block: 32 * 1024,
        max_threads: 1024,
    };
    let d = check_config(&m, &Config::defaults(&m), None, &small).unwrap_err();
    assert_eq!(codes(&d), vec![c::SMEM_BUDGET]);
    assert!(check_config(&m, &Config::defaults(&m), None, &Limits::SM90).is_ok());
}

#[test]
fn a_shape_over_a_problem_size_is_the_launchs_to_count() {
    // Sized at launch (Croqtile's dynamic shared memory): legal, and left out of the static
    // budget and of the tuner's quick count; the runtime counts it for each problem.
    let m = simple(|b| {
        vec![
            b.shared(DType::F16, &["M", "64"], "dyn", None),
            b.shared(DType::F16, &["16", "64"], "fixed", None),
        ]
    });
    check_ok(&m);
    assert_eq!(smem_bytes(&m, &Config::defaults(&m)).unwrap(), 16 * 64 * 2);
    // An array count over a problem size is not lowered.
    let m = simple(|b| vec![b.shared(DType::F16, &["16", "64"], "arr", Some("M"))]);
    let d = check_err(&m);
    let e = only(&d, c::NOT_LOWERED_LAUNCH_SIZED);
    assert_eq!(e.span, m.expr_span(find(&m, "M")[3]));
    assert!(
        e.message
            .contains("a shared or local buffer sized at launch (array count `M`)"),
        "{e}"
    );
    assert!(smem_bytes(&m, &Config::defaults(&m)).is_err());
}

#[test]
fn array_count_must_be_positive() {
    let m = simple(|b| vec![b.shared(DType::F16, &["64", "64"], "buf", Some("TILE_M - 32"))]);
    let d = check_err(&m);
    assert!(
        only(&d, c::STATIC_SHAPE)
            .message
            .contains("array count `TILE_M - 32` is 0")
    );
}

/// The fresh buffer of a future (`f = dma.copy … => shared;`) is shared memory the kernel
/// allocates: it is one of the checker's shared buffers (the lowering places them) and counts
/// toward the budget.
#[test]
fn a_futures_fresh_buffer_is_shared_memory() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/gemm_futures.co"
    ))
    .unwrap();
    let m = dsl_core::parse::parse_str(&text, Some("gemm_futures.co"))
        .unwrap()
        .module;
    let info = dsl_core::check::check(&m).unwrap();
    let names: Vec<(&str, bool)> = info
        .shared
        .iter()
        .map(|b| (b.name.as_str(), b.fresh))
        .collect();
    assert_eq!(names, vec![("a", true), ("b", true)]);
    // Two [TILE, KT] f16 tiles at TILE = 16, KT = 32.
    assert_eq!(info.smem_bytes, 2 * 16 * 32 * 2);
    let small = Limits {
        max_smem_per_block: 2 * 16 * 32 * 2 - 1,
        max_threads: 1024,
    };
    let d = check_config(&m, &Config::defaults(&m), None, &small).unwrap_err();
    assert_eq!(codes(&d), vec![c::SMEM_BUDGET]);
    assert!(d.0[0].message.contains("`a` (the future's buffer)"), "{d}");
}

#[test]
fn block_reductions_count_their_slots_against_the_budget() {
    // 1 KiB of tile, and block reductions of f32 (a max and a sum, one set of slots): 128 B the
    // helper declares itself, outside the launch's dynamic size.
    let text = "__co__ void k(global f32 [R, 256] x, global f32 [R] y) {\n  parallel {r} by [R] : block, {t} by [256] : thread {\n    shared f32 [256] row;\n    row.at(t) = x.at(r, t);\n    sync.shared;\n    f32 hi = row.at(t);\n    reduce.max hi : block;\n    f32 z = exp(row.at(t) - hi);\n    reduce.sum z : block;\n    if (t == 0)\n      y.at(r) = z;\n  }\n}\n";
    let m = dsl_core::parse::parse_str(text, Some("k.co"))
        .unwrap()
        .module;
    let info = dsl_core::check::check(&m).unwrap();
    assert_eq!(
        info.smem_bytes, 1024,
        "the dynamic size leaves the slots out"
    );
    let limit = |bytes| Limits {
        max_smem_per_block: bytes,
        max_threads: 1024,
    };
    assert!(check_config(&m, &Config::defaults(&m), None, &limit(1024 + 128)).is_ok());
    let d = check_config(&m, &Config::defaults(&m), None, &limit(1024 + 127)).unwrap_err();
    assert_eq!(codes(&d), vec![c::SMEM_BUDGET]);
    assert!(d.0[0].message.contains("1152 bytes"), "{d}");
}
