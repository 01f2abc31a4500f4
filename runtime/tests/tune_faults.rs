//! Fault isolation on a real GPU: the planted-fault GEMM (`tune::planted`) swept through the
//! real worker — `FAULT=1` raises an illegal-address fault (the worker answers and exits),
//! `FAULT=2` hangs on an mbarrier (the watchdog kills the worker) — and the sweep goes on,
//! verifies and times the correct configs, picks one of them, and answers its second run from
//! the cache.
//!
//! Without a GPU it prints `SKIPPED: no GPU` and passes (`TESSEL_REQUIRE_GPU=1` makes that a
//! failure). `harness = false`: the binary is also the worker.

mod common;

use std::time::{Duration, Instant};

use tessel_runtime::tune::planted::PLANTED;
use tessel_runtime::tune::record::{FailureKind, config_text};
use tessel_runtime::tune::{Shape, Target, TuneOptions, TuneSource, Tuner, worker_main_with};

fn main() {
    worker_main_with(&[TuneSource::Cuda(&PLANTED)]);
    let required = std::env::var("TESSEL_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if let Err(e) = tessel_runtime::tune::probe::probe() {
        if required {
            panic!("TESSEL_REQUIRE_GPU=1 but no GPU: {e}");
        }
        eprintln!("SKIPPED: no GPU ({e})");
        return;
    }
    if !common::nvrtc_available("tune_faults") {
        return;
    }
    let dir = common::scratch_dir("tune-faults");
    let opts = || TuneOptions {
        cache_dir: Some(dir.join("tune")),
        module_dir: Some(dir.join("modules")),
        gpus: Some(vec![0]),
        trial_timeout: Duration::from_secs(4),
        setup_timeout: Duration::from_secs(60),
        ..TuneOptions::default()
    };
    let shape = Shape::cube(512);
    let t0 = Instant::now();
    let o = Tuner::new(Target::cuda(&PLANTED), shape, opts())
        .run()
        .expect("the sweep survives its faults");
    let secs = t0.elapsed().as_secs_f64();
    print!("{}", o.table(10));
    println!("{}", o.winner_line());
    println!(
        "planted sweep: {} trials in {secs:.1} s, {} worker starts",
        o.trials.len(),
        o.worker_starts
    );
    for t in &o.trials {
        println!(
            "  {:<18} {:<13} {}",
            config_text(&t.config),
            t.failure.map_or("ok", |f| f.name()),
            t.error
                .as_deref()
                .unwrap_or("")
                .chars()
                .take(120)
                .collect::<String>()
        );
    }
    let mut bad = Vec::new();
    for t in &o.trials {
        let want = match t.config["FAULT"] {
            0 => None,
            1 => Some(FailureKind::CudaFault),
            _ => Some(FailureKind::Timeout),
        };
        if t.failure != want {
            bad.push(format!(
                "{}: expected {want:?}, got {:?}",
                config_text(&t.config),
                t.failure
            ));
        }
        if want.is_none() && !t.verification.as_ref().is_some_and(|v| v.passed) {
            bad.push(format!("{} did not verify", config_text(&t.config)));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    assert_eq!(o.trials.len(), 9);
    let w = o.winner.as_ref().expect("a winner");
    assert_eq!(w.config["FAULT"], 0);
    // 1 + a restart after each of the 3 faults and 3 hangs.
    assert_eq!(o.worker_starts, 7);
    let t1 = Instant::now();
    let again = Tuner::new(Target::cuda(&PLANTED), shape, opts())
        .run()
        .unwrap();
    let cached = t1.elapsed();
    println!("second run: from cache = {}, {cached:?}", again.from_cache);
    assert!(again.from_cache && cached < Duration::from_secs(1));
    assert_eq!(again.winner, o.winner);
    println!("test result: ok");
}
