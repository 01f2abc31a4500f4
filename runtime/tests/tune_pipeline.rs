//! The whole tuner pipeline without a GPU: real filter, NVRTC compilation, lanes, watchdog,
//! cache and exports, with a stand-in worker (this test binary re-launched with
//! `TESSEL_FAKE_WORKER=1`) that answers like a GPU worker would — and faults, hangs, crashes
//! or computes wrong results for the configs that ask for it.
//!
//! `harness = false`: `main` must first decide whether this process is a worker.

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dsl_core::def::TunableDef;
use tessel_runtime::launch::LaunchConfig;
use tessel_runtime::tune::probe::GpuInfo;
use tessel_runtime::tune::protocol::{Reply, Request, encode_reply};
use tessel_runtime::tune::record::{
    ConfigMap, FailureKind, ReferenceRecord, RetimeEntry, TimeStats, TrialRecord, VerifyRecord,
};
use tessel_runtime::tune::{
    Budget, CudaTemplate, Shape, Strategy, Target, TuneOptions, TuneOutcome, Tuner, WorkerCommand,
};

/// X = 5 declares 40000 B of static shared memory: with the 32 KiB of dynamic shared memory
/// every config asks for, it exceeds the fake GPU's 64 KiB limit — found only after compiling.
const SOURCE: &str = r#"
template <int X, int MODE> __global__ void fake_gemm(const unsigned short* a, const unsigned short* b,
                                                     unsigned short* c, int M, int N, int K) {
  __shared__ unsigned short pad[X == 5 ? 20000 : 8];
  pad[threadIdx.x % (X == 5 ? 20000 : 8)] = a[threadIdx.x];
  __syncthreads();
  c[threadIdx.x] = pad[(threadIdx.x + 1) % (X == 5 ? 20000 : 8)] + b[0];
}
"#;

const SMEM_LIMIT: i32 = 64 * 1024;

fn launch(_: &ConfigMap, _: &Shape) -> LaunchConfig {
    LaunchConfig {
        grid: (1, 1, 1),
        block: (128, 1, 1),
        dynamic_smem_bytes: 32 * 1024,
    }
}

/// Faulty modes only with X = 6: 6 good configs plus one per failure mode.
fn restrictions(c: &ConfigMap, _: &Shape) -> Result<(), String> {
    if c["MODE"] == 0 || c["X"] == 6 {
        Ok(())
    } else {
        Err("faults are planted at X = 6 only".into())
    }
}

/// MODE: 0 good, 1 CUDA fault, 2 hang, 3 crash, 4 wrong result. X = 1 is the fastest; X = 5
/// has too much static shared memory.
static FAKE: CudaTemplate = CudaTemplate {
    name: "fake",
    source: SOURCE,
    function: "fake_gemm",
    tunables: &[
        TunableDef {
            name: "X",
            domain: &[1, 2, 3, 4, 5, 6],
            default: 1,
        },
        TunableDef {
            name: "MODE",
            domain: &[0, 1, 2, 3, 4],
            default: 0,
        },
    ],
    launch,
    restrictions,
};

const SHAPE: Shape = Shape {
    m: 1024,
    n: 1024,
    k: 1024,
};

fn fake_ms(c: &ConfigMap) -> f64 {
    1.0 + 0.25 * (c["X"] - 1) as f64
}

/// A general job's fake time: configs with larger values are slower.
fn generic_ms(c: &ConfigMap) -> f64 {
    1.0 + c.values().sum::<i64>() as f64 / 1000.0
}

fn stats(ms: f64) -> TimeStats {
    TimeStats {
        median_ms: ms,
        min_ms: ms,
        max_ms: ms,
        mean_ms: ms,
        runs: 20,
        tflops: Some(SHAPE.flops() / (ms * 1e-3) / 1e12),
    }
}

fn gpu(index: usize) -> GpuInfo {
    GpuInfo {
        index,
        name: "Fake GPU".into(),
        compute_capability: (9, 0),
        driver_version: 13000,
        sm_count: 132,
        max_smem_per_block_optin: SMEM_LIMIT,
    }
}

/// The stand-in worker: logs each request to `$TESSEL_FAKE_LOG`, answers per MODE.
fn fake_worker() -> ! {
    let log = std::env::var("TESSEL_FAKE_LOG").ok();
    let cvd = std::env::var("CUDA_VISIBLE_DEVICES").unwrap_or_default();
    let delay = Duration::from_millis(
        std::env::var("TESSEL_FAKE_DELAY_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
    );
    let mut gpu_index = 0;
    let send = |r: &Reply| {
        let mut o = std::io::stdout().lock();
        let _ = writeln!(o, "{}", encode_reply(r));
        let _ = o.flush();
    };
    let note = |line: String| {
        if let Some(p) = &log {
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .unwrap();
            // One write per line: workers append to one log at once (`writeln!` may split the
            // line and its newline into two writes that another worker's line lands between).
            let _ = f.write_all(format!("{line}\n").as_bytes());
        }
    };
    tessel_runtime::tune::worker::exit_with_parent();
    let wrong_id = std::env::var("TESSEL_FAKE_WRONG_ID").is_ok();
    let retime_extra = std::env::var("TESSEL_FAKE_RETIME_EXTRA").is_ok();
    let reverify_fails: Option<i64> = std::env::var("TESSEL_FAKE_REVERIFY_FAIL")
        .ok()
        .and_then(|v| v.parse().ok());
    println!("some library chatter that is not a reply");
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        match serde_json::from_str::<Request>(&line).unwrap() {
            Request::Setup { gpu: g, job, .. } => {
                gpu_index = g;
                if let Some(j) = &job {
                    note(format!("setup-job name={} key={}", j.name, j.key));
                }
                note(format!(
                    "setup gpu={g} pid={} cvd={cvd}",
                    std::process::id()
                ));
                send(&Reply::Ready {
                    gpu: gpu(g),
                    reference: Some(ReferenceRecord {
                        cublas: stats(1.1),
                        bandwidth_gbs: Some(3000.0),
                    }),
                });
            }
            Request::Trial { id, config, .. } if !config.contains_key("X") => {
                note(format!("trial gpu={gpu_index} {config:?}"));
                let mut rec =
                    TrialRecord::new(config.clone(), tessel_runtime::tune::record::Phase::Full);
                rec.verification = Some(VerifyRecord {
                    passed: true,
                    rel_error: 0.0,
                    tolerance: 1e-4,
                    max_abs_error: 0.0,
                    poisoned: 0,
                    nans: 0,
                    infs: 0,
                    summary: "PASS".into(),
                });
                rec.time = Some(stats(generic_ms(&config)));
                send(&Reply::Trial { id, record: rec });
            }
            Request::Trial { id, config, .. } if wrong_id => {
                note(format!(
                    "trial gpu={gpu_index} X={} MODE={}",
                    config["X"], config["MODE"]
                ));
                let mut other = config.clone();
                other.insert("X".into(), 99);
                send(&Reply::Trial {
                    id: id + 7,
                    record: TrialRecord::new(other, tessel_runtime::tune::record::Phase::Full),
                });
            }
            Request::Trial { id, config, .. } => {
                note(format!(
                    "trial gpu={gpu_index} X={} MODE={}",
                    config["X"], config["MODE"]
                ));
                std::thread::sleep(delay);
                let mut rec =
                    TrialRecord::new(config.clone(), tessel_runtime::tune::record::Phase::Full);
                rec.gpu = Some(gpu_index);
                rec.registers = Some(40);
                let ok = VerifyRecord {
                    passed: true,
                    rel_error: 1e-4,
                    tolerance: 1e-3,
                    max_abs_error: 1e-3,
                    poisoned: 0,
                    nans: 0,
                    infs: 0,
                    summary: "PASS".into(),
                };
                match config["MODE"] {
                    1 => {
                        send(&Reply::Trial {
                            id,
                            record: rec.failed(
                                FailureKind::CudaFault,
                                "CUDA_ERROR_ILLEGAL_ADDRESS, an illegal memory access",
                            ),
                        });
                        std::process::exit(3);
                    }
                    2 => std::thread::sleep(Duration::from_secs(600)),
                    3 => {
                        eprintln!("fake worker: segfault (simulated)");
                        std::process::exit(139);
                    }
                    4 => {
                        let mut v = ok;
                        v.passed = false;
                        v.rel_error = 0.5;
                        rec.verification = Some(v);
                        send(&Reply::Trial {
                            id,
                            record: rec.failed(FailureKind::WrongResult, "FAIL: rel_err 0.5"),
                        });
                    }
                    _ => {
                        rec.verification = Some(ok);
                        rec.time = Some(stats(fake_ms(&config)));
                        send(&Reply::Trial { id, record: rec });
                    }
                }
            }
            Request::Retime {
                id, mut configs, ..
            } => {
                note(format!("retime n={}", configs.len()));
                if retime_extra {
                    let mut other = configs[0].clone();
                    other.insert("X".into(), 42);
                    configs.push(other);
                }
                let entries = configs
                    .into_iter()
                    .map(|c| {
                        let ms = if c.contains_key("X") {
                            fake_ms(&c)
                        } else {
                            generic_ms(&c)
                        };
                        RetimeEntry {
                            config: c.clone(),
                            median_ms: ms,
                            rounds_ms: vec![ms; 5],
                            tflops: stats(ms).tflops,
                            reverified: Some(
                                reverify_fails.is_none() || reverify_fails != c.get("X").copied(),
                            ),
                        }
                    })
                    .collect();
                send(&Reply::Retime {
                    id,
                    entries,
                    cublas: Some(stats(1.05)),
                    error: None,
                });
            }
        }
    }
    std::process::exit(0);
}

struct Env {
    dir: PathBuf,
    log: PathBuf,
}

fn options(env: &Env, gpus: usize, delay_ms: u64) -> TuneOptions {
    let mut w = WorkerCommand::current_exe().unwrap();
    w.env = vec![
        ("TESSEL_FAKE_WORKER".into(), "1".into()),
        ("TESSEL_FAKE_LOG".into(), env.log.display().to_string()),
        ("TESSEL_FAKE_DELAY_MS".into(), delay_ms.to_string()),
    ];
    TuneOptions {
        cache_dir: Some(env.dir.join("tune")),
        module_dir: Some(env.dir.join("modules")),
        worker: Some(w),
        devices: Some((0..gpus).map(gpu).collect()),
        trial_timeout: Duration::from_millis(1500),
        setup_timeout: Duration::from_secs(20),
        progress: None,
        ..TuneOptions::default()
    }
}

fn tune(opts: TuneOptions) -> TuneOutcome {
    Tuner::new(Target::cuda(&FAKE), SHAPE, opts).run().unwrap()
}

fn log_lines(p: &Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn trials_logged(p: &Path) -> Vec<String> {
    log_lines(p)
        .into_iter()
        .filter(|l| l.starts_with("trial"))
        .map(|l| l.split_once(' ').map(|x| x.1).unwrap_or("").to_string())
        .map(|l| l.split_once(' ').map(|x| x.1).unwrap_or("").to_string())
        .collect()
}

fn key_of(c: &ConfigMap) -> String {
    format!("X={} MODE={}", c["X"], c["MODE"])
}

fn scratch(tag: &str) -> (common::ScratchDir, Env) {
    let d = common::scratch_dir(tag);
    let env = Env {
        dir: d.to_path_buf(),
        log: d.join("worker.log"),
    };
    (d, env)
}

fn sweep_isolates_faults_and_answers_the_second_run_from_the_cache() {
    let (_d, env) = scratch("tune-pipeline");
    let o = tune(options(&env, 1, 0));
    assert_eq!(o.filter.total, 30);
    assert_eq!(o.filter.legal, 10, "{}", o.filter);
    assert!(!o.from_cache);
    let fails = o.failure_counts();
    for k in [
        FailureKind::SmemLimit,
        FailureKind::CudaFault,
        FailureKind::Timeout,
        FailureKind::Crash,
        FailureKind::WrongResult,
    ] {
        assert_eq!(fails.get(&k), Some(&1), "{k}: {}", o.table(20));
    }
    assert_eq!(o.filter.static_smem, 1, "{}", o.filter);
    let smem = o
        .trials
        .iter()
        .find(|t| t.failure == Some(FailureKind::SmemLimit));
    assert_eq!(key_of(&smem.unwrap().config), "X=5 MODE=0");
    assert_eq!(o.ranked().len(), 5);
    let w = o.winner.as_ref().expect("a winner");
    assert_eq!(key_of(&w.config), "X=1 MODE=0");
    assert_eq!(w.finalists.len(), 3);
    // One worker, restarted after the fault, the hang and the crash.
    assert_eq!(o.worker_starts, 4, "{:?}", log_lines(&env.log));
    let crash = o
        .trials
        .iter()
        .find(|t| t.failure == Some(FailureKind::Crash));
    assert!(
        crash
            .unwrap()
            .error
            .as_ref()
            .unwrap()
            .contains("segfault (simulated)")
    );
    let table = o.table(10);
    assert!(
        table
            .contains("failures 5, smem_limit 1, cuda_fault 1, crash 1, timeout 1, wrong_result 1"),
        "{table}"
    );
    assert!(table.contains("X=1"), "{table}");
    // The winner against cuBLAS timed in the same final rounds (1.05 ms): 105 %.
    let line = o.winner_line();
    assert!(
        line.contains("105.0% of cuBLAS") && line.contains("same rounds"),
        "{line}"
    );
    assert!(
        o.roofline().unwrap().contains("compute-bound"),
        "{:?}",
        o.roofline()
    );
    // Exports.
    let files = o.write_exports(&env.dir.join("out"), "fake", "X").unwrap();
    let csv = std::fs::read_to_string(&files[0]).unwrap();
    assert_eq!(csv.lines().count(), 1 + o.trials.len());
    assert!(csv.starts_with("X,MODE,phase,median_ms"), "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[1]).unwrap()).unwrap();
    assert_eq!(json["trials"].as_array().unwrap().len(), o.trials.len());
    let svg = std::fs::read_to_string(&files[2]).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(
        svg.matches("<circle").count(),
        5 + 1 + 6,
        "dots, winner ring, legend"
    );
    // The second run: the cached answer, no worker, no trial, well under a second.
    let before = log_lines(&env.log).len();
    let t = Instant::now();
    let again = tune(options(&env, 1, 0));
    assert!(again.from_cache);
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(again.worker_starts, 0);
    assert_eq!(log_lines(&env.log).len(), before);
    assert_eq!(again.winner, o.winner);
    // A launch finds the winner by the key of its own problem binding.
    assert_eq!(o.problem, "K=1024 M=1024 N=1024");
    let found = tessel_runtime::tune::lookup::winner_in(
        &env.dir.join("tune"),
        "fake",
        &o.problem,
        Some("Fake GPU"),
        None,
    );
    assert_eq!(found.map(|c| c.values), Some(w.config.clone()));
    // --retune runs everything again.
    let re = tune(TuneOptions {
        retune: true,
        ..options(&env, 1, 0)
    });
    assert!(!re.from_cache && re.resumed == 0);
    assert_eq!(
        trials_logged(&env.log).len(),
        18,
        "9 reach the worker, twice"
    );
    assert_eq!(re.winner.unwrap().config, w.config);
}

fn several_gpus_each_get_a_worker_with_their_own_device() {
    let (_d, env) = scratch("tune-gpus");
    let o = tune(TuneOptions {
        gpus: Some(vec![0, 1]),
        ..options(&env, 2, 150)
    });
    let used: BTreeSet<usize> = o.trials.iter().filter_map(|t| t.gpu).collect();
    assert_eq!(used, BTreeSet::from([0, 1]), "{}", o.table(20));
    for l in log_lines(&env.log)
        .iter()
        .filter(|l| l.starts_with("setup"))
    {
        let g: usize = l
            .split("gpu=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let parent = std::env::var("CUDA_VISIBLE_DEVICES").ok();
        let want = tessel_runtime::tune::probe::visible_devices_for(g, parent.as_deref());
        assert!(l.ends_with(&format!("cvd={want}")), "{l}");
    }
    assert_eq!(o.winner.unwrap().config["X"], 1);
    // --gpus 1 only.
    let (_d2, env2) = scratch("tune-gpus1");
    let o = tune(TuneOptions {
        gpus: Some(vec![1]),
        ..options(&env2, 2, 0)
    });
    let gpus: BTreeSet<usize> = o.trials.iter().filter_map(|t| t.gpu).collect();
    assert_eq!(gpus, BTreeSet::from([1]));
}

fn a_killed_sweep_resumes_where_it_stopped() {
    let (_d, env) = scratch("tune-killed");
    // A sweeping parent (this binary again) with slow trials, killed once 4 trials are stored.
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .env("TESSEL_FAKE_PARENT", &env.dir)
        .spawn()
        .unwrap();
    let start = Instant::now();
    let cache = env.dir.join("tune");
    let stored = |p: &Path| -> Vec<String> {
        let Some(f) = std::fs::read_dir(p).ok().and_then(|mut d| {
            d.find_map(|e| {
                e.ok()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            })
        }) else {
            return Vec::new();
        };
        std::fs::read_to_string(f.path())
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(r#""type":"trial""#))
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("whole lines only");
                format!("X={} MODE={}", v["config"]["X"], v["config"]["MODE"])
            })
            .collect()
    };
    while stored(&cache).len() < 4 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the child never stored 4 trials"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done = stored(&cache);
    assert!(done.len() < 10, "killed before the end: {done:?}");
    let before = trials_logged(&env.log).len();
    let o = tune(options(&env, 1, 0));
    assert_eq!(o.resumed, done.len());
    let rerun: Vec<String> = trials_logged(&env.log)[before..].to_vec();
    for d in &done {
        assert!(!rerun.contains(d), "{d} was run again: {rerun:?}");
    }
    // X=5 MODE=0 never reaches a worker (removed after compiling, stored all the same).
    let done_in_worker = done.iter().filter(|d| d.as_str() != "X=5 MODE=0").count();
    assert_eq!(rerun.len() + done_in_worker, 9, "{rerun:?} + {done:?}");
    assert_eq!(o.winner.unwrap().config["X"], 1);
}

fn the_parent_that_gets_killed(dir: &str) -> ! {
    let env = Env {
        dir: PathBuf::from(dir),
        log: PathBuf::from(dir).join("worker.log"),
    };
    let _ = tune(options(&env, 1, 150));
    std::process::exit(0);
}

fn a_cache_file_of_another_device_is_never_used() {
    let (_d, env) = scratch("tune-foreign");
    let o = tune(options(&env, 1, 0));
    // Copy the finished file under the name another device's key would have… by editing the
    // header's GPU name in place: the key no longer matches, so nothing may be reused.
    let text = std::fs::read_to_string(&o.cache_path).unwrap();
    std::fs::write(&o.cache_path, text.replacen("Fake GPU", "Other GPU", 1)).unwrap();
    let n = trials_logged(&env.log).len();
    let again = tune(options(&env, 1, 0));
    assert!(!again.from_cache);
    assert_eq!(again.resumed, 0);
    assert_eq!(trials_logged(&env.log).len(), 2 * n);
    // A budget cut: random with 3 configs, deterministic for the seed.
    let (_d2, env2) = scratch("tune-random");
    let pick = |seed| {
        let o = tune(TuneOptions {
            strategy: Strategy::Random,
            budget: Some(Budget::Count(3)),
            seed,
            retune: true,
            ..options(&env2, 1, 0)
        });
        o.trials
            .iter()
            .map(|t| key_of(&t.config))
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(pick(11).len(), 3);
    assert_eq!(pick(11), pick(11));
}

fn halving_times_all_briefly_then_the_best_third_longer() {
    let (_d, env) = scratch("tune-halving");
    let o = tune(TuneOptions {
        strategy: Strategy::Halving,
        ..options(&env, 1, 0)
    });
    use tessel_runtime::tune::record::Phase;
    let brief = o.trials.iter().filter(|t| t.phase == Phase::Brief).count();
    let full: Vec<&TrialRecord> = o.trials.iter().filter(|t| t.phase == Phase::Full).collect();
    assert_eq!(brief, 10);
    assert_eq!(full.len(), 3, "best third of the 6 timed, at least 3");
    assert!(
        full.iter()
            .all(|t| t.config["X"] <= 3 && t.config["MODE"] == 0)
    );
    assert_eq!(o.winner.unwrap().config["X"], 1);
}

fn stored_trials(o: &TuneOutcome) -> Vec<TrialRecord> {
    let text = std::fs::read_to_string(&o.cache_path).unwrap();
    tessel_runtime::tune::store::decode(&text).trials
}

/// A child tuner (this binary again): shard `i` of `n` into the shared folder `dir`.
fn the_shard_tuner(spec: &str) -> ! {
    let mut parts = spec.split(';');
    let dir = PathBuf::from(parts.next().unwrap());
    let shard: tessel_runtime::tune::Shard = parts.next().unwrap().parse().unwrap();
    let env = Env {
        log: dir.join("worker.log"),
        dir,
    };
    let o = tune(TuneOptions {
        shard: Some(shard),
        ..options(&env, 1, 50)
    });
    assert!(o.winner.is_none(), "a shard picks no winner");
    std::process::exit(0);
}

fn four_concurrent_tuners_writing_one_cache_keep_every_trial() {
    let (_d, env) = scratch("tune-concurrent");
    let children: Vec<_> = (0..4)
        .map(|i| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .env(
                    "TESSEL_FAKE_SHARD_TUNER",
                    format!("{};{i}/4", env.dir.display()),
                )
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    // Every legal config was recorded by exactly one of the four processes, and all are kept:
    // the unsharded run finds all 10 (it retries only the hang and the crash once).
    let n = trials_logged(&env.log).len();
    let o = tune(options(&env, 1, 0));
    assert_eq!(o.resumed, 8, "{}", o.table(20));
    assert_eq!(trials_logged(&env.log).len(), n + 2);
    assert_eq!(stored_trials(&o).len(), 10);
    assert_eq!(o.winner.unwrap().config["X"], 1);
}

fn two_shards_merged_pick_the_unsharded_winner() {
    use tessel_runtime::tune::{Shard, cachedir};
    let (_d0, whole) = scratch("tune-unsharded");
    let unsharded = tune(options(&whole, 1, 0));
    let (_d1, a) = scratch("tune-shard-a");
    let (_d2, b) = scratch("tune-shard-b");
    let (_d3, c) = scratch("tune-shard-merged");
    for (env, index) in [(&a, 0), (&b, 1)] {
        let o = tune(TuneOptions {
            shard: Some(Shard { index, count: 2 }),
            ..options(env, 1, 0)
        });
        assert!(o.winner.is_none());
        assert_eq!(stored_trials(&o).len(), 5, "{}", o.table(20));
    }
    let ra = cachedir::merge(&a.dir.join("tune"), &c.dir.join("tune")).unwrap();
    let rb = cachedir::merge(&b.dir.join("tune"), &c.dir.join("tune")).unwrap();
    assert_eq!((ra.added, rb.added), (5, 5));
    let merged = tune(options(&c, 1, 0));
    // Every trial came from the shards; only the transient failures get their one retry.
    assert_eq!(merged.resumed, 8);
    let rerun: BTreeSet<String> = trials_logged(&c.log).into_iter().collect();
    assert_eq!(
        rerun,
        BTreeSet::from(["X=6 MODE=2".to_string(), "X=6 MODE=3".to_string()])
    );
    assert_eq!(
        merged.winner.unwrap().config,
        unsharded.winner.unwrap().config
    );
}

fn drop_the_winner(o: &TuneOutcome) {
    let text = std::fs::read_to_string(&o.cache_path).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.contains(r#""type":"winner""#))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&o.cache_path, kept).unwrap();
}

fn a_transient_timeout_or_crash_is_retried_once_on_resume() {
    let (_d, env) = scratch("tune-retry");
    let o = tune(options(&env, 1, 0));
    // As if the sweep had been killed before its final round.
    drop_the_winner(&o);
    let n = trials_logged(&env.log).len();
    let again = tune(options(&env, 1, 0));
    let rerun: BTreeSet<String> = trials_logged(&env.log)[n..].iter().cloned().collect();
    assert_eq!(
        rerun,
        BTreeSet::from(["X=6 MODE=2".to_string(), "X=6 MODE=3".to_string()]),
        "the hang and the crash, not the fault or the wrong result"
    );
    let hang = again.trials.iter().find(|t| t.config["MODE"] == 2).unwrap();
    assert_eq!(
        (hang.failure, hang.attempts),
        (Some(FailureKind::Timeout), 2)
    );
    drop_the_winner(&again);
    let n = trials_logged(&env.log).len();
    let _ = tune(options(&env, 1, 0));
    assert_eq!(trials_logged(&env.log).len(), n, "one retry only");
}

fn a_reply_to_another_request_is_not_taken() {
    let (_d, env) = scratch("tune-wrong-id");
    let mut opts = options(&env, 1, 0);
    if let Some(w) = opts.worker.as_mut() {
        w.env.push(("TESSEL_FAKE_WRONG_ID".into(), "1".into()));
    }
    let o = tune(opts);
    assert!(o.winner.is_none());
    assert!(o.ranked().is_empty(), "{}", o.table(20));
    let crashes: Vec<&TrialRecord> = o
        .trials
        .iter()
        .filter(|t| t.failure == Some(FailureKind::Crash))
        .collect();
    assert_eq!(crashes.len(), 9, "{}", o.table(20));
    assert!(
        crashes
            .iter()
            .all(|t| t.error.as_ref().unwrap().contains("another request") && t.config["X"] != 99)
    );
}

fn a_retime_answer_with_configs_not_asked_for_is_refused() {
    let (_d, env) = scratch("tune-retime-extra");
    let mut opts = options(&env, 1, 0);
    if let Some(w) = opts.worker.as_mut() {
        w.env.push(("TESSEL_FAKE_RETIME_EXTRA".into(), "1".into()));
    }
    let err = Tuner::new(Target::cuda(&FAKE), SHAPE, opts)
        .run()
        .expect_err("no winner from a confused answer");
    assert!(err.to_string().contains("not asked for"), "{err}");
}

fn a_finalist_that_fails_its_second_check_does_not_win() {
    let (_d, env) = scratch("tune-reverify");
    let mut opts = options(&env, 1, 0);
    if let Some(w) = opts.worker.as_mut() {
        w.env.push(("TESSEL_FAKE_REVERIFY_FAIL".into(), "1".into()));
    }
    let o = tune(opts);
    let w = o.winner.unwrap();
    assert_eq!(
        w.config["X"], 2,
        "X=1 is fastest but fails after its timing rounds"
    );
    assert_eq!(
        w.finalists
            .iter()
            .find(|e| e.config["X"] == 1)
            .unwrap()
            .reverified,
        Some(false)
    );
}

fn a_worker_dies_with_its_parent() {
    let (_d, env) = scratch("tune-orphan");
    let mut parent = std::process::Command::new(std::env::current_exe().unwrap())
        .env("TESSEL_FAKE_PARENT", &env.dir)
        .spawn()
        .unwrap();
    let start = Instant::now();
    let pid = loop {
        let found = log_lines(&env.log).iter().find_map(|l| {
            l.split("pid=")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<u32>()
                .ok()
        });
        if let Some(p) = found {
            break p;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no worker started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    parent.kill().unwrap();
    parent.wait().unwrap();
    let alive = |p: u32| {
        std::fs::read_to_string(format!("/proc/{p}/stat"))
            .map(|s| !s.contains(") Z "))
            .unwrap_or(false)
    };
    let t = Instant::now();
    while alive(pid) {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "worker {pid} outlived its parent"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn nvrtc_runs_under_a_watchdog() {
    let (_d, env) = scratch("tune-compile-watchdog");
    let o = tune(TuneOptions {
        compile_timeout: Duration::from_millis(1),
        ..options(&env, 1, 0)
    });
    assert!(o.winner.is_none());
    let timeouts = o
        .trials
        .iter()
        .filter(|t| {
            t.failure == Some(FailureKind::Timeout)
                && t.error.as_ref().unwrap().contains("compile watchdog")
        })
        .count();
    assert_eq!(timeouts, 10, "{}", o.table(20));
    assert!(trials_logged(&env.log).is_empty());
}

static KT_NAIVE: dsl_core::def::KernelDef = dsl_core::def::KernelDef {
    name: "kt_naive",
    dsl: include_str!("../../kernels/kt_naive.co"),
    file: Some("kernels/kt_naive.co"),
    cuda: "",
    ir: "",
    params: &[],
    tunables: &[],
};

/// A user's f32 GEMM (`c = a · b`) as a general job with a CPU reference.
fn kt_job(key: &str) -> Result<tessel_runtime::tune::Job, String> {
    use std::sync::Arc;
    use tessel_runtime::dtype::DType;
    use tessel_runtime::tune::job::{Fill, HostTensor, Job, Reference, parse_key};
    let d = parse_key(key)?;
    let (m, n, k) = (d["M"], d["N"], d["K"]);
    Ok(Job::new("kt_naive_f32", &KT_NAIVE, key)
        .input(&[m, k], DType::F32, Fill::Random { seed: 1 })
        .input(&[k, n], DType::F32, Fill::Random { seed: 2 })
        .output(&[m, n], DType::F32)
        .reference(Reference::Host(Arc::new(move |t: &[HostTensor]| {
            let mut c = vec![0.0; m * n];
            for i in 0..m {
                for j in 0..n {
                    c[i * n + j] = (0..k)
                        .map(|p| t[0].data[i * k + p] * t[1].data[p * n + j])
                        .sum();
                }
            }
            c
        })))
        .tolerance(1e-5, 1e-4)
        .flops(2.0 * (m * n * k) as f64))
}

fn a_general_job_is_tuned_cached_and_looked_up_by_its_key() {
    let (_d, env) = scratch("tune-job");
    let key = "M=256,N=128,K=64";
    let job = kt_job(key).unwrap();
    let o = Tuner::job(job, options(&env, 1, 0)).unwrap().run().unwrap();
    // kt_naive: 3 × 6 block shapes, less the one over 1024 threads.
    assert_eq!((o.filter.total, o.filter.legal), (18, 17), "{}", o.filter);
    assert_eq!(o.problem, key);
    assert!(o.dtypes.contains("f32[256, 64]"), "{}", o.dtypes);
    let w = o.winner.clone().expect("a winner");
    // The fake worker's fastest: the smallest block.
    assert_eq!(
        (w.config["block_size_x"], w.config["block_size_y"]),
        (16, 1)
    );
    assert!(
        log_lines(&env.log)
            .iter()
            .any(|l| l == &format!("setup-job name=kt_naive_f32 key={key}")),
        "{:?}",
        log_lines(&env.log)
    );
    assert_eq!(trials_logged(&env.log).len(), 17);
    // The launch-time lookup finds it by kernel and key; another key has none.
    let dir = env.dir.join("tune");
    let found = tessel_runtime::tune::lookup::winner_in(&dir, "kt_naive", key, None, None);
    assert_eq!(found.map(|c| c.values), Some(w.config.clone()));
    assert!(
        tessel_runtime::tune::lookup::winner_in(&dir, "kt_naive", "M=1,N=1,K=1", None, None)
            .is_none()
    );
    // The second run is answered from the cache.
    let again = Tuner::job(kt_job(key).unwrap(), options(&env, 1, 0))
        .unwrap()
        .run()
        .unwrap();
    assert!(again.from_cache);
    // A job whose parameters do not match the kernel is refused before anything runs.
    let mut bad = kt_job(key).unwrap();
    bad.tensors.pop();
    assert!(Tuner::job(bad, options(&env, 1, 0)).is_err());
}

fn the_local_strategy_strides_then_tries_the_neighbors_of_the_fastest() {
    let (_d, env) = scratch("tune-local");
    let o = tune(TuneOptions {
        strategy: Strategy::Local,
        budget: Some(Budget::Count(4)),
        ..options(&env, 1, 0)
    });
    // Coarse: the default (X=1), X=2 and X=6 by stride; then, round-robin over the fastest
    // three's neighbor lists, the first untried one: X=5 (a neighbor of X=6; it fails after
    // compiling, on shared memory).
    let recorded: BTreeSet<String> = o.trials.iter().map(|t| key_of(&t.config)).collect();
    assert_eq!(
        recorded,
        BTreeSet::from([
            "X=1 MODE=0".to_string(),
            "X=2 MODE=0".to_string(),
            "X=5 MODE=0".to_string(),
            "X=6 MODE=0".to_string()
        ])
    );
    assert_eq!(trials_logged(&env.log).len(), 3);
    let w = o.winner.unwrap();
    assert_eq!((w.config["X"], w.selection.as_str()), (1, "local budget=4"));
}

fn main() {
    if std::env::var("TESSEL_FAKE_WORKER").as_deref() == Ok("1") {
        fake_worker();
    }
    if let Ok(spec) = std::env::var("TESSEL_FAKE_SHARD_TUNER") {
        the_shard_tuner(&spec);
    }
    if let Ok(dir) = std::env::var("TESSEL_FAKE_PARENT") {
        the_parent_that_gets_killed(&dir);
    }
    if !common::nvrtc_available("tune_pipeline") {
        return;
    }
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let tests: [(&str, fn()); 15] = [
        (
            "a_retime_answer_with_configs_not_asked_for_is_refused",
            a_retime_answer_with_configs_not_asked_for_is_refused,
        ),
        (
            "the_local_strategy_strides_then_tries_the_neighbors_of_the_fastest",
            the_local_strategy_strides_then_tries_the_neighbors_of_the_fastest,
        ),
        (
            "a_general_job_is_tuned_cached_and_looked_up_by_its_key",
            a_general_job_is_tuned_cached_and_looked_up_by_its_key,
        ),
        (
            "four_concurrent_tuners_writing_one_cache_keep_every_trial",
            four_concurrent_tuners_writing_one_cache_keep_every_trial,
        ),
        (
            "two_shards_merged_pick_the_unsharded_winner",
            two_shards_merged_pick_the_unsharded_winner,
        ),
        (
            "a_transient_timeout_or_crash_is_retried_once_on_resume",
            a_transient_timeout_or_crash_is_retried_once_on_resume,
        ),
        (
            "a_reply_to_another_request_is_not_taken",
            a_reply_to_another_request_is_not_taken,
        ),
        (
            "a_finalist_that_fails_its_second_check_does_not_win",
            a_finalist_that_fails_its_second_check_does_not_win,
        ),
        (
            "a_worker_dies_with_its_parent",
            a_worker_dies_with_its_parent,
        ),
        ("nvrtc_runs_under_a_watchdog", nvrtc_runs_under_a_watchdog),
        (
            "sweep_isolates_faults_and_answers_the_second_run_from_the_cache",
            sweep_isolates_faults_and_answers_the_second_run_from_the_cache,
        ),
        (
            "several_gpus_each_get_a_worker_with_their_own_device",
            several_gpus_each_get_a_worker_with_their_own_device,
        ),
        (
            "a_killed_sweep_resumes_where_it_stopped",
            a_killed_sweep_resumes_where_it_stopped,
        ),
        (
            "a_cache_file_of_another_device_is_never_used",
            a_cache_file_of_another_device_is_never_used,
        ),
        (
            "halving_times_all_briefly_then_the_best_third_longer",
            halving_times_all_briefly_then_the_best_third_longer,
        ),
    ];
    let (mut failed, mut ran) = (0, 0);
    for (name, f) in tests {
        if filter.as_ref().is_some_and(|x| !name.contains(x.as_str())) {
            continue;
        }
        ran += 1;
        match std::panic::catch_unwind(f) {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed += 1;
            }
        }
    }
    let verdict = if failed > 0 { "FAILED" } else { "ok" };
    println!(
        "test result: {verdict}. {} passed; {failed} failed",
        ran - failed
    );
    if failed > 0 {
        std::process::exit(1);
    }
}
