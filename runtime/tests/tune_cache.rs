//! The tuning cache without a GPU: key, atomic writes, torn and foreign files, resume, retune.

mod common;

use tessel_runtime::tune::Shape;
use tessel_runtime::tune::record::{ConfigMap, FailureKind, Phase, TimeStats, TrialRecord};
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
        shape: Shape::cube(8192),
        dtypes: "f16 in, f16 acc, f16 out".into(),
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
        ("\"m\":8192", "\"m\":4096"),
    ] {
        std::fs::write(&mine, text.replacen(edit.0, edit.1, 1)).unwrap();
        let st = TuneStore::open(&dir, key(), false);
        assert_eq!(st.loaded, Loaded::Foreign, "{edit:?}");
        assert!(st.trials.is_empty());
    }
    // Records without any header belong to nobody.
    let body: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&mine, body).unwrap();
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
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert_eq!(TuneStore::open(&dir, key(), false).trials.len(), 150);
}

#[test]
fn the_default_folder_follows_the_environment() {
    use tessel_runtime::tune::store::dir_from;
    let p = std::path::PathBuf::from;
    assert_eq!(
        dir_from(Some("/x/tune".into()), Some("/home/u".into())),
        p("/x/tune")
    );
    assert_eq!(
        dir_from(None, Some("/home/u".into())),
        p("/home/u/.cache/tessel/tune")
    );
    assert_eq!(
        dir_from(Some("".into()), Some("/home/u".into())),
        p("/home/u/.cache/tessel/tune")
    );
    assert_eq!(
        dir_from(None, None),
        std::env::temp_dir().join("tessel-tune")
    );
}
