//! The tuner's legality filter on the v4 kernel's space and on variants of it (no GPU): every
//! rule's count is compared with an independent count from the kernel's own arithmetic.

use dsl_core::check::Limits;
use dsl_core::def::{KernelDef, Variant};
use tessel_runtime::tune::filter::{FilterRule, filter_space};
use tessel_runtime::tune::record::ConfigMap;
use tessel_runtime::tune::{Shape, Target};

const V4: &str = include_str!("../../kernels/v4_tuned.co");

/// H100 / H200: 227 KiB of opt-in shared memory per block.
const H100_SMEM: u64 = 232_448;

/// The target with every tunable beyond the four default-swept ones pinned at its default (the `.co`
/// may grow tunables, e.g. a rasterization group).
fn target(dsl: &str) -> Target {
    let mut t = Target::dsl(def(dsl), Variant::default()).unwrap();
    let extra: Vec<(String, i64)> = t
        .tunables
        .iter()
        .filter(|x| !["WARP_N", "STAGES", "CONSUMERS", "TILE_K"].contains(&x.name.as_str()))
        .map(|x| (x.name.clone(), x.default))
        .collect();
    for (n, v) in extra {
        t.pin(&n, v).unwrap();
    }
    t
}

fn def(dsl: &str) -> &'static KernelDef {
    Box::leak(Box::new(KernelDef {
        name: "matmul",
        dsl: Box::leak(dsl.to_string().into_boxed_str()),
        file: Some("kernels/v4_tuned.co"),
        cuda: "",
        ir: "",
        params: &[],
        tunables: &[],
    }))
}

fn limits(smem: u64) -> Limits {
    Limits {
        max_smem_per_block: smem,
        ..Limits::default()
    }
}

/// v4's shared memory: lhs_s + rhs_s stages, output_s per consumer, 8 B per event.
fn v4_smem(c: &ConfigMap) -> u64 {
    let (wn, st, co, tk) = (c["WARP_N"], c["STAGES"], c["CONSUMERS"], c["TILE_K"]);
    let tile_m = 64 * co;
    (2 * st * (tile_m * tk + wn * tk) + 2 * 64 * wn * co + 8 * 2 * st) as u64
}

#[test]
fn v4_space_is_filtered_by_shared_memory_only() {
    let t = target(V4);
    let shape = Shape::cube(8192);
    let problem = t.problem(&shape).unwrap();
    let (legal, report) = filter_space(&t, &shape, &problem, &limits(H100_SMEM));
    assert_eq!(report.total, 17 * 5 * 2 * 2);
    let all = tessel_runtime::tune::target::cross_product(&t.tunables);
    let over = all.iter().filter(|c| v4_smem(c) > H100_SMEM).count();
    assert!(over > 0 && over < report.total, "{over}");
    assert_eq!(
        report.removed.get(&FilterRule::SharedMemory).copied(),
        Some(over),
        "{report}"
    );
    assert_eq!(report.removed_total(), over, "{report:?}");
    assert_eq!(report.legal, report.total - over);
    assert_eq!(legal.len(), report.legal);
    for l in &legal {
        assert!(v4_smem(&l.config) <= H100_SMEM);
        assert!(l.facts.smem_bytes >= v4_smem(&l.config) - 64, "{:?}", l);
        assert_eq!(l.facts.threads as i64, 128 * (l.config["CONSUMERS"] + 1));
    }
    let text = report.to_string();
    eprintln!("{text}");
    assert!(text.contains(&format!("{over} by shared memory")), "{text}");
    // A smaller device (A100-like 163 KiB) removes strictly more.
    let (_, small) = filter_space(&t, &shape, &problem, &limits(166_912));
    let over_small = all.iter().filter(|c| v4_smem(c) > 166_912).count();
    assert_eq!(small.removed[&FilterRule::SharedMemory], over_small);
    assert!(over_small > over);
}

#[test]
fn each_rule_is_counted_under_its_own_name() {
    // WARP_N in steps of 4 (some are not WGMMA N), 8 stages (too much shared memory for
    // some), CONSUMERS up to 8 (1152 threads) and 5 (a 320-row TMA box), and a restriction.
    let mut dsl = V4.to_string();
    for (from, to) in [
        (
            "tunable WARP_N in 128..=256 step 8 = 192;",
            "tunable WARP_N in 124..=132 step 4 = 128;",
        ),
        (
            "tunable CONSUMERS in [1, 2] = 2;",
            "tunable CONSUMERS in [1, 2, 5, 8] = 2;",
        ),
        (
            "tunable STAGES in [1, 2, 3, 4, 5] = 2;",
            "tunable STAGES in [1, 2, 8] = 2;",
        ),
        (
            "const WARP_M = 64;",
            "const WARP_M = 64;\nrequire STAGES + CONSUMERS != 3;",
        ),
    ] {
        // Each edit must apply: a header that changes under the test fails here, not in a count.
        assert!(
            dsl.contains(from),
            "kernels/v4_tuned.co no longer says `{from}`"
        );
        dsl = dsl.replace(from, to);
    }
    let t = target(&dsl);
    let shape = Shape::cube(4096);
    let problem = t.problem(&shape).unwrap();
    let (legal, r) = filter_space(&t, &shape, &problem, &limits(H100_SMEM));
    let all = tessel_runtime::tune::target::cross_product(&t.tunables);
    assert_eq!(r.total, 3 * 3 * 4 * 2);
    // Independent model, in the filter's priority order.
    let mut want = std::collections::BTreeMap::<FilterRule, usize>::new();
    let mut legal_want = 0;
    for c in &all {
        let rule = if c["STAGES"] + c["CONSUMERS"] == 3 {
            Some(FilterRule::Restriction)
        } else if c["CONSUMERS"] == 8 {
            Some(FilterRule::Threads)
        } else if v4_smem(c) > H100_SMEM {
            Some(FilterRule::SharedMemory)
        } else if c["WARP_N"] % 8 != 0 {
            Some(FilterRule::Wgmma)
        } else if c["CONSUMERS"] == 5 {
            Some(FilterRule::TmaBox)
        } else {
            None
        };
        match rule {
            Some(rule) => *want.entry(rule).or_default() += 1,
            None => legal_want += 1,
        }
    }
    assert_eq!(want.len(), 5, "every rule is exercised: {want:?}");
    assert_eq!(r.removed, want, "{r}\n{:#?}", r.example);
    assert_eq!(legal.len(), legal_want);
    assert!(
        r.example[&FilterRule::TmaBox].contains("320"),
        "{:?}",
        r.example
    );
    assert!(
        r.example[&FilterRule::Wgmma].contains("WARP_N"),
        "{:?}",
        r.example
    );
}

#[test]
fn rules_come_from_diagnostic_code_families() {
    use FilterRule::*;
    for (code, rule) in [
        ("E1001", Restriction),
        ("T0102", Restriction),
        ("E1004", Domain),
        ("E0601", Threads),
        ("E0602", Threads),
        ("E0501", SharedMemory),
        ("E0302", Wgmma),
        ("E0403", Swizzle),
        ("T0101", TmaBox),
        ("E0914", TmaBox),
        ("E0701", Other),
    ] {
        assert_eq!(FilterRule::of_code(code), rule, "{code}");
    }
}

#[test]
fn launch_time_restrictions_over_problem_dims_are_applied() {
    let dsl = V4.replace(
        "const WARP_M = 64;",
        "const WARP_M = 64;\nrequire K % (TILE_K * 2) == 0;",
    );
    let t = target(&dsl);
    let shape = Shape::new(4096, 4096, 4096 + 64);
    let problem = t.problem(&shape).unwrap();
    let (legal, r) = filter_space(&t, &shape, &problem, &limits(H100_SMEM));
    // K = 4160: divisible by 64 but not by 128, so every TILE_K = 64 config is removed.
    assert!(legal.iter().all(|l| l.config["TILE_K"] == 32), "{r}");
    assert_eq!(r.removed[&FilterRule::Restriction], r.total / 2, "{r}");
}
