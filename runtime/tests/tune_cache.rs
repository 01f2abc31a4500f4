//! The tuning cache without a GPU: key, atomic writes, torn and foreign files, resume, retune.

mod common;

use tessel_runtime::tune::Shape;
use tessel_runtime::tune::legality::{FilterReport, FilterRule};
use tessel_runtime::tune::record::{
    ConfigMap, FailureKind, Phase, TimeStats, TrialRecord, VerifyRecord, WinnerRecord,
};
use tessel_runtime::tune::store::{CacheKey, FORMAT, Loaded, TuneStore};

fn key() -> CacheKey {
    CacheKey {
        format: FORMAT,
        gpu_name: "NVIDIA H100 80GB HBM3".into(),
        compute_capability: (9, 0),
        driver_version: 13000,
        nvrtc_version: (13, 0),
        kernel: "matmul".into(),
        source_hash: "0123456789abcdef0123456789abcdef".into(),
        problem: Shape::cube(8192).text(),
        dtypes: "f16 in, f16 acc, f16 out".into(),
        settings: "trial_timeout=15000ms setup_timeout=180000ms spills=reject".into(),
    }
}

fn cfg(i: i64) -> ConfigMap {
    [
        ("WARP_N".to_string(), 128 + 8 * i),
        ("STAGES".to_string(), 2),
    ]
    .into()
}

fn timed(i: i64) -> TrialRecord {
    let mut t = TrialRecord::new(cfg(i), Phase::Full);
    t.time = Some(TimeStats {
        median_ms: 2.0 + i as f64 * 0.01,
        min_ms: 2.0,
        max_ms: 2.5,
        mean_ms: 2.1,
        runs: 20,
        tflops: Some(500.0),
    });
    t.registers = Some(168);
    t.smem_bytes = Some(120_000);
    t
}

#[test]
fn a_killed_sweep_resumes_from_the_records_it_left() {
    let dir = common::scratch_dir("tune-cache-resume");
    let mut st = TuneStore::open(&dir, key(), false);
    assert_eq!(st.loaded, Loaded::Fresh);
    for i in 0..5 {
        st.record(timed(i)).unwrap();
    }
    st.record(TrialRecord::new(cfg(5), Phase::Full).failed(FailureKind::Timeout, "hang"))
        .unwrap();
    drop(st); // the sweep is killed here
    let st = TuneStore::open(&dir, key(), false);
    assert_eq!(st.loaded, Loaded::Matched);
    assert_eq!(st.trials.len(), 6);
    let pending: Vec<i64> = (0..10)
        .filter(|&i| st.trial(&cfg(i), Phase::Full).is_none())
        .collect();
    assert_eq!(pending, vec![6, 7, 8, 9]);
    assert_eq!(
        st.trial(&cfg(5), Phase::Full).unwrap().failure,
        Some(FailureKind::Timeout)
    );
    assert!(
        st.trial(&cfg(0), Phase::Brief).is_none(),
        "phases are separate"
    );
    assert_eq!(st.trial(&cfg(3), Phase::Full), Some(&timed(3)));
    // Re-recording a config replaces its line.
    let mut st = st;
    st.record(timed(5)).unwrap();
    let st = TuneStore::open(&dir, key(), false);
    assert_eq!(st.trials.len(), 6);
    assert!(st.trial(&cfg(5), Phase::Full).unwrap().failure.is_none());
    // --retune: nothing is reused, and the next write replaces the file.
    let mut fresh = TuneStore::open(&dir, key(), true);
    assert!(fresh.trials.is_empty() && fresh.loaded == Loaded::Fresh);
    fresh.record(timed(9)).unwrap();
    assert_eq!(TuneStore::open(&dir, key(), false).trials.len(), 1);
}

#[test]
fn torn_lines_are_skipped_and_whole_lines_kept() {
    let dir = common::scratch_dir("tune-cache-torn");
    let mut st = TuneStore::open(&dir, key(), false);
    for i in 0..3 {
        st.record(timed(i)).unwrap();
    }
    let path = st.path().to_path_buf();
    let mut text = std::fs::read_to_string(&path).unwrap();
    let last = text.lines().last().unwrap().to_string();
    text.push_str(&last[..last.len() / 2]); // half a line, no newline
    std::fs::write(&path, &text).unwrap();
    let st = TuneStore::open(&dir, key(), false);
    assert_eq!(st.loaded, Loaded::Matched);
    assert_eq!(st.trials.len(), 3);
    assert_eq!(st.skipped_lines, 1);
}

#[test]
fn entries_of_another_device_or_kernel_are_never_used() {
    let dir = common::scratch_dir("tune-cache-foreign");
    let mut st = TuneStore::open(&dir, key(), false);
    st.record(timed(0)).unwrap();
    let mine = st.path().to_path_buf();
    let text = std::fs::read_to_string(&mine).unwrap();
    // Every other key has another file…
    let mut other = key();
    other.gpu_name = "NVIDIA H200".into();
    let st2 = TuneStore::open(&dir, other.clone(), false);
    assert_ne!(st2.path(), mine.as_path());
    assert!(st2.trials.is_empty());
    // …and a file whose header names another key is ignored even under this key's name.
    std::fs::write(st2.path(), &text).unwrap();
    let st2 = TuneStore::open(&dir, other, false);
    assert_eq!(st2.loaded, Loaded::Foreign);
    assert!(st2.trials.is_empty());
    for edit in [
        ("\"driver_version\":13000", "\"driver_version\":12080"),
        ("\"source_hash\":\"0123", "\"source_hash\":\"9123"),
        ("\"problem\":\"8192x", "\"problem\":\"4096x"),
        ("spills=reject", "spills=allow"),
    ] {
        std::fs::write(&mine, text.replacen(edit.0, edit.1, 1)).unwrap();
        let st = TuneStore::open(&dir, key(), false);
        assert_eq!(st.loaded, Loaded::Foreign, "{edit:?}");
        assert!(st.trials.is_empty());
    }
    // Records whose header was lost stay with the file their key names; a foreign header
    // above them still discards them.
    let body: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&mine, &body).unwrap();
    assert_eq!(TuneStore::open(&dir, key(), false).trials.len(), 1);
    let foreign = text.replacen("\"driver_version\":13000", "\"driver_version\":12080", 1);
    std::fs::write(&mine, foreign).unwrap();
    assert!(TuneStore::open(&dir, key(), false).trials.is_empty());
}

#[test]
fn writes_are_atomic_for_a_concurrent_reader() {
    let dir = common::scratch_dir("tune-cache-atomic");
    let path = TuneStore::open(&dir, key(), false).path().to_path_buf();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut reads = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    assert!(
                        text.is_empty() || text.ends_with('\n'),
                        "a torn file was visible"
                    );
                    for l in text.lines() {
                        serde_json::from_str::<serde_json::Value>(l)
                            .unwrap_or_else(|e| panic!("partial line `{l}`: {e}"));
                    }
                    reads += 1;
                }
            }
            reads
        });
        let mut st = TuneStore::open(&dir, key(), false);
        for i in 0..150 {
            st.record(timed(i)).unwrap();
        }
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
    });
    // No temporaries are left behind.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert_eq!(TuneStore::open(&dir, key(), false).trials.len(), 150);
}

#[test]
fn the_default_folder_follows_the_environment() {
    use tessel_runtime::tune::store::dir_from;
    let p = std::path::PathBuf::from;
    assert_eq!(
        dir_from(Some("/x/tune".into()), Some("/home/u/.cache".into())),
        p("/x/tune")
    );
    assert_eq!(
        dir_from(None, Some("/home/u/.cache".into())),
        p("/home/u/.cache/tessel/tune")
    );
    assert_eq!(
        dir_from(Some("".into()), Some("/xdg/cache".into())),
        p("/xdg/cache/tessel/tune")
    );
    assert_eq!(
        dir_from(None, None),
        std::env::temp_dir().join("tessel-tune")
    );
}

fn passing(i: i64) -> TrialRecord {
    let mut t = timed(i);
    t.verification = Some(VerifyRecord {
        passed: true,
        rel_error: 1e-4,
        tolerance: 1e-3,
        max_abs_error: 1e-3,
        poisoned: 0,
        nans: 0,
        infs: 0,
        summary: "PASS".into(),
    });
    t
}

fn winner(i: i64) -> WinnerRecord {
    WinnerRecord {
        config: cfg(i),
        median_ms: 2.0,
        tflops: None,
        finalists: Vec::new(),
        noise_band: 0.02,
        selection: "brute".into(),
        cublas: None,
        space: None,
    }
}

#[test]
fn a_winner_keeps_the_filter_report_it_was_chosen_from() {
    // A cached answer skips the legality filter: the report must come back from the file.
    let dir = common::scratch_dir("tune-cache-space");
    let mut st = TuneStore::open(&dir, key(), false);
    st.record(passing(1)).unwrap();
    let mut space = FilterReport {
        total: 40,
        legal: 12,
        smem_limit: 232_448,
        ..FilterReport::default()
    };
    space.removed.insert(FilterRule::SharedMemory, 28);
    space
        .example
        .insert(FilterRule::SharedMemory, "STAGES=5: too much".into());
    st.set_winner(WinnerRecord {
        space: Some(space.clone()),
        ..winner(1)
    })
    .unwrap();
    let again = TuneStore::open(&dir, key(), false);
    assert_eq!(
        again.trusted_winner().and_then(|w| w.space.clone()),
        Some(space)
    );
}

#[test]
fn one_bad_byte_or_a_damaged_header_loses_only_its_own_line() {
    let dir = common::scratch_dir("tune-cache-damage");
    let mut st = TuneStore::open(&dir, key(), false);
    for i in 0..4 {
        st.record(passing(i)).unwrap();
    }
    let path = st.path().to_path_buf();
    let good = std::fs::read(&path).unwrap();
    // A flipped byte inside the third trial line.
    let lines: Vec<&[u8]> = good.split(|b| *b == b'\n').collect();
    let offset: usize = lines[..3].iter().map(|l| l.len() + 1).sum::<usize>() + 10;
    let mut bad = good.clone();
    bad[offset] = 0xff;
    std::fs::write(&path, &bad).unwrap();
    let st = TuneStore::open(&dir, key(), false);
    assert_eq!(
        (st.loaded, st.trials.len(), st.skipped_lines),
        (Loaded::Matched, 3, 1)
    );
    // A damaged header: the records after it are kept (the file name carries the key).
    let mut bad = good.clone();
    bad[5] = b'#';
    std::fs::write(&path, &bad).unwrap();
    let mut st = TuneStore::open(&dir, key(), false);
    assert_eq!(
        (st.loaded, st.trials.len(), st.skipped_lines),
        (Loaded::Matched, 4, 1)
    );
    // The next write repairs the header.
    st.record(passing(4)).unwrap();
    let d = tessel_runtime::tune::store::decode(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(
        (d.key, d.trials.len(), d.skipped_lines),
        (Some(key()), 5, 0)
    );
}

#[test]
fn nan_and_infinity_are_stored_and_read_back() {
    let dir = common::scratch_dir("tune-cache-nan");
    let mut st = TuneStore::open(&dir, key(), false);
    let mut t = passing(0).failed(FailureKind::WrongResult, "NaN in the output");
    let v = t.verification.as_mut().unwrap();
    v.rel_error = f64::NAN;
    v.max_abs_error = f64::INFINITY;
    t.time.as_mut().unwrap().max_ms = f64::NEG_INFINITY;
    t.time.as_mut().unwrap().tflops = Some(f64::NAN);
    st.record(t).unwrap();
    let text = std::fs::read_to_string(st.path()).unwrap();
    assert!(
        text.contains("\"NaN\"") && text.contains("\"inf\"") && !text.contains("null,\"tolerance")
    );
    let back = TuneStore::open(&dir, key(), false);
    assert_eq!(back.skipped_lines, 0);
    let t = back
        .trial(&cfg(0), Phase::Full)
        .expect("the record survives");
    let v = t.verification.as_ref().unwrap();
    assert!(v.rel_error.is_nan() && v.max_abs_error == f64::INFINITY);
    assert_eq!(t.time.as_ref().unwrap().max_ms, f64::NEG_INFINITY);
    assert!(t.time.as_ref().unwrap().tflops.unwrap().is_nan());
}

#[test]
fn stale_temporaries_are_removed_and_live_ones_kept() {
    let dir = common::scratch_dir("tune-cache-temps");
    std::fs::create_dir_all(&dir).unwrap();
    // A writer that no longer runs (pid far above any pid_max) and one that does (this test).
    let dead = dir.join(".matmul-x.jsonl.tmp.4194305.0");
    let live = dir.join(format!(".matmul-x.jsonl.tmp.{}.0", std::process::id()));
    std::fs::write(&dead, "half a file").unwrap();
    std::fs::write(&live, "being written").unwrap();
    let _ = TuneStore::open(&dir, key(), false);
    assert!(!dead.exists(), "a dead writer's temporary is removed");
    assert!(live.exists(), "a live writer's temporary is kept");
    // The module cache cleans its folder the same way.
    let modules = dir.join("modules");
    std::fs::create_dir_all(&modules).unwrap();
    let dead = modules.join(".0123.tmod.tmp.4194305.3");
    std::fs::write(&dead, "half a cubin").unwrap();
    let _ = tessel_runtime::cache::ModuleCache::with_dir(&modules);
    assert!(!dead.exists());
}

#[test]
fn a_cached_winner_must_match_a_recorded_passing_trial() {
    let dir = common::scratch_dir("tune-cache-trusted");
    let mut st = TuneStore::open(&dir, key(), false);
    st.record(passing(1)).unwrap();
    st.record(timed(2).failed(FailureKind::WrongResult, "bad"))
        .unwrap();
    st.set_winner(winner(1)).unwrap();
    assert_eq!(st.trusted_winner().map(|w| w.config.clone()), Some(cfg(1)));
    for other in [2, 3] {
        st.set_winner(winner(other)).unwrap();
        assert!(st.trusted_winner().is_none(), "winner {other}");
    }
}

#[test]
fn a_failure_found_under_other_settings_is_a_different_key() {
    let mut k = key();
    k.settings = "trial_timeout=1000ms setup_timeout=180000ms spills=reject".into();
    assert_ne!(k.file_name(), key().file_name());
}

#[test]
fn threads_writing_one_cache_lose_nothing() {
    let dir = common::scratch_dir("tune-cache-threads");
    std::thread::scope(|s| {
        for w in 0..4i64 {
            let dir = &dir;
            s.spawn(move || {
                let mut st = TuneStore::open(dir, key(), false);
                for i in 0..25 {
                    st.record(passing(w * 100 + i)).unwrap();
                }
            });
        }
    });
    assert_eq!(TuneStore::open(&dir, key(), false).trials.len(), 100);
}

#[test]
fn export_from_one_cache_and_import_into_another() {
    use tessel_runtime::tune::cachedir;
    let a = common::scratch_dir("tune-cache-export-a");
    let b = common::scratch_dir("tune-cache-export-b");
    let mut st = TuneStore::open(&a, key(), false);
    for i in 0..5 {
        st.record(passing(i)).unwrap();
    }
    st.set_winner(winner(3)).unwrap();
    let mut other = key();
    other.kernel = "gemv".into();
    let mut st2 = TuneStore::open(&a, other.clone(), false);
    st2.record(passing(9)).unwrap();
    // b already has one trial of its own and a failed copy of one of a's.
    let mut sb = TuneStore::open(&b, key(), false);
    sb.record(passing(7)).unwrap();
    sb.record(timed(2).failed(FailureKind::Timeout, "hang"))
        .unwrap();
    let out = common::scratch_dir("tune-cache-export-bundle");
    let bundle = out.join("matmul.tune.jsonl");
    assert_eq!(cachedir::export(&a, Some("matmul"), &bundle).unwrap(), 1);
    let report = cachedir::import(&bundle, &b).unwrap();
    assert_eq!(
        (report.files, report.added, report.replaced),
        (1, 4, 1),
        "{report}"
    );
    let sb = TuneStore::open(&b, key(), false);
    assert_eq!(sb.trials.len(), 6);
    assert!(sb.trial(&cfg(2), Phase::Full).unwrap().failure.is_none());
    assert_eq!(sb.trusted_winner().unwrap().config, cfg(3));
    let ls = cachedir::list(&b).unwrap();
    assert_eq!(ls.len(), 1);
    assert_eq!(
        (ls[0].trials, ls[0].passed, ls[0].winner.clone()),
        (6, 6, Some(cfg(3)))
    );
    assert!(ls[0].summary().contains("winner"));
    // Merging a folder, then clearing one kernel.
    let r = cachedir::merge(&a, &b).unwrap();
    assert_eq!((r.files, r.added), (2, 1), "{r}");
    assert_eq!(cachedir::list(&b).unwrap().len(), 2);
    assert_eq!(cachedir::clear(&b, Some("gemv")).unwrap(), 1);
    assert_eq!(cachedir::list(&b).unwrap().len(), 1);
    // The launch-time lookup sees the winner.
    let got = tessel_runtime::tune::lookup::winner_in(&b, "matmul", &key().problem, None, None);
    assert_eq!(got.map(|c| c.values), Some(cfg(3)));
    assert!(tessel_runtime::tune::lookup::winner_in(&b, "matmul", "1x1x1", None, None).is_none());
}
