//! Event generations (`e.at(k)`), futures published by events (`trigger e after f1, f2`),
//! `trigger.cluster`, `.step` and named views, on
//! `kernels/ws_cluster.co` (IR dump golden `tests/lang/ws_cluster.ir`, refreshed with
//! `TESSEL_BLESS=1`) and on small variants of it.

mod kernel_files;

use dsl_core::check::{self, Config, Limits, codes};
use dsl_core::lower::{self, CudaKernel};
use kernel_files::{kernel_file, parse};
use std::path::PathBuf;

fn lowered(text: &str) -> Vec<String> {
    let m = parse(text);
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"));
    let k: CudaKernel = lower::lower(&m, &info).unwrap_or_else(|d| panic!("{d}"));
    k.body.iter().map(|l| l.text().trim().to_string()).collect()
}

fn position(body: &[String], needle: &str) -> usize {
    body.iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in:\n{}", body.join("\n")))
}

#[test]
fn ir_dump_matches_its_golden() {
    let m = parse(&kernel_file("ws_cluster"));
    let dump = m.to_string();
    assert!(dump.contains("trigger.cluster empty.at(s);"), "{dump}");
    assert!(dump.contains("trigger full.at(k) after fa, fb;"), "{dump}");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/lang/ws_cluster.ir");
    if std::env::var_os("TESSEL_BLESS").is_some() {
        std::fs::write(&path, &dump).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(dump, want, "IR dump differs (TESSEL_BLESS=1 to accept)");
}

/// Generation `k` of a 3-slot ring is barrier `k % 3` at parity `(k / 3) & 1`; the producer's
/// loads complete on `full`, the B load multicast, issued by one thread; the consumer's
/// `trigger.cluster` arrives in both blocks, after its WGMMAs are done.
#[test]
fn the_cluster_ring_lowers() {
    let body = lowered(&kernel_file("ws_cluster"));
    position(
        &body,
        "tsl_mbar_wait(tsl_smem_addr(&empty[k % 3]), (k / 3) & 1);",
    );
    position(
        &body,
        "tsl_mbar_wait(tsl_smem_addr(&full[k % 3]), (k / 3) & 1);",
    );
    let lead = position(&body, "if (threadIdx.x == tsl_lead_fb) {");
    assert!(
        body[lead + 1].starts_with("tsl_mbar_expect_tx(&full[k % 3], 16384);"),
        "{}",
        body[lead + 1]
    );
    assert!(
        body[lead..lead + 5]
            .iter()
            .any(
                |l| l.starts_with("tsl_tma_load_2d_cluster<") && l.ends_with("&full[k % 3]);")
                    || l.contains("&full[k % 3]);  //")
            ),
        "{}",
        body[lead..lead + 5].join("\n")
    );
    let release = position(
        &body,
        "tsl_mbar_arrive_cluster<2, tsl_warp_empty>(&empty[k % 3]);",
    );
    assert!(
        body[release - 1].starts_with("tsl_wgmma_commit(); tsl_wgmma_wait<0>();"),
        "{}",
        body[release - 1]
    );
    // No phase bits: every wait names its generation.
    assert!(
        !body.iter().any(|l| l.contains("tsl_phase_")),
        "{}",
        body.join("\n")
    );
}

/// A future that is also waited is not published by the event: the copy stays synchronous.
#[test]
fn a_waited_future_is_not_bound_to_the_event() {
    let text = kernel_file("ws_ring").replace(
        "          trigger full.at(kt) after a, b;",
        "          wait b;\n          trigger full.at(kt) after a;",
    );
    let m = parse(&text);
    // `b` is waited: the load of `a` alone completes on `full`.
    let (info, gate) = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"));
    let loads: Vec<String> = info
        .bound_copies
        .keys()
        .map(|&s| m.stmt_span(s).start.line.to_string())
        .collect();
    assert_eq!(loads, ["24"], "{:?}", info.bound_copies);
    // `b`'s load completes on no event: a synchronous load, which the producer's one thread
    // cannot issue and wait for with the block's barriers (not lowered yet).
    assert_eq!(
        gate.0.iter().map(|d| d.code).collect::<Vec<_>>(),
        [codes::NOT_LOWERED_DIVERGENT_SYNC_TMA],
        "{gate}"
    );
    assert_eq!(gate.0[0].span.start.line, 25, "{gate}");
}

/// A future of a load that completes on no event, waited after it by every thread of the block:
/// the load was waited where it was issued, so the `wait` is a comment.
#[test]
fn a_synchronous_load_s_future_is_waited_where_it_is_issued() {
    let text = kernel_file("wgmma_epilogue").replace(
        "      tma.copy.swiz<128> rhs.subspan(BN, TILE_K).at(bn, kt) => rhs_s;",
        "      f = tma.copy.async.swiz<128> rhs.subspan(BN, TILE_K).at(bn, kt) => rhs_s;\n      foreach {w} in [1] {\n        wait f;\n      }",
    );
    assert!(text.contains("wait f;"));
    let body = lowered(&text);
    position(&body, "// `f` landed with its load above");
    assert!(
        !body.iter().any(|l| l.contains("tsl_phase_f")),
        "{}",
        body.join("\n")
    );
}

#[test]
fn trigger_cluster_needs_a_cluster_and_a_multicast_it_guards() {
    // No cluster: a language error.
    let text = kernel_file("ws_ring").replace(
        "          trigger empty.at(kt);",
        "          trigger.cluster empty.at(kt);",
    );
    let err = check::check(&parse(&text)).unwrap_err();
    assert!(
        err.0.iter().any(|d| d.code == codes::CLUSTER_TRIGGER),
        "{err}"
    );
    // A cluster, but `full` guards no multicast load: not lowered yet.
    let text = kernel_file("ws_cluster").replace(
        "          foreach {k} in [cdiv(K, 64)] {\n            wait full.at(k);",
        "          foreach {k} in [cdiv(K, 64)] {\n            wait full.at(k);\n            trigger.cluster full.at(k + 1);",
    );
    let m = parse(&text);
    let (_, gate) = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"));
    assert!(
        gate.iter()
            .any(|d| d.code == codes::NOT_LOWERED_CLUSTER_TRIGGER),
        "{gate}"
    );
    // Another scope is a parse error.
    let bad = kernel_file("ws_cluster")
        .replace("trigger.cluster empty.at(s)", "trigger.grid empty.at(s)");
    let err = dsl_core::parse::parse_str(&bad, Some("t.co")).expect_err("unknown scope");
    assert!(err.to_string().contains("unknown scope `.grid`"), "{err}");
}
