//! The launch-time lookup: which cached winner does a loaded kernel use for a problem-size key?
//!
//! [`winner_for`] reads the tune cache folder once per process into an index (kernel, problem
//! key) → winners, so each later call is a hash-map lookup with no I/O. Only winners that match
//! a recorded passing trial are indexed. When several GPUs, drivers or kernel sources have a
//! winner for the same key, [`winner_for_device`] picks the one of the named GPU, else the most
//! recently written. [`refresh`] drops the index (after a sweep in this process).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

use dsl_core::check::Config;

use super::store::{self, CacheKey, TuneStore};

/// One indexed winner.
#[derive(Clone, Debug)]
struct Found {
    key: CacheKey,
    config: Config,
    written: SystemTime,
}

type Index = HashMap<(String, String), Vec<Found>>;

fn indexes() -> &'static Mutex<HashMap<PathBuf, Index>> {
    static CELL: OnceLock<Mutex<HashMap<PathBuf, Index>>> = OnceLock::new();
    CELL.get_or_init(Default::default)
}

fn build(dir: &Path) -> Index {
    let mut index = Index::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return index;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let d = store::decode(&String::from_utf8_lossy(&bytes));
        let Some(key) = d.key.clone() else { continue };
        let mut st = TuneStore::detached(key.clone(), path.clone());
        st.trials = d.trials;
        st.winner = d.winner;
        let Some(w) = st.trusted_winner() else {
            continue;
        };
        let written = e
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        index
            .entry((key.kernel.clone(), key.problem.clone()))
            .or_default()
            .push(Found {
                config: Config {
                    values: w.config.clone(),
                },
                key,
                written,
            });
    }
    index
}

/// The problem-size key of a DSL kernel's problem binding — `K=4096 M=4096 N=4096`, its
/// symbolic dimensions in name order. The GEMM tuner and the in-process sweep cache results
/// under it, and a loaded kernel derives it from the tensors it is launched with, so a launch
/// finds the winner tuned for its shapes. (A general [`super::Job`] is cached under its own
/// key; [`super::Job::dims_key`] gives this one.)
pub fn problem_key(problem: &dsl_core::check::Problem) -> String {
    problem
        .dims
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The cached winner of kernel `kernel` for the problem-size key `key` ([`problem_key`], or a
/// job's own key), from the default cache folder; the most recently written when several GPUs
/// or kernel versions have one.
pub fn winner_for(kernel: &str, key: &str) -> Option<Config> {
    winner_in(&store::default_dir(), kernel, key, None, None)
}

/// [`winner_for`] preferring the winner found on the GPU named `gpu_name` (the driver's name,
/// e.g. `NVIDIA H100 80GB HBM3`) and, when `source_hash` is given, only for that kernel source
/// ([`super::Target::source_hash`]).
pub fn winner_for_device(
    kernel: &str,
    key: &str,
    gpu_name: &str,
    source_hash: Option<&str>,
) -> Option<Config> {
    winner_in(
        &store::default_dir(),
        kernel,
        key,
        Some(gpu_name),
        source_hash,
    )
}

/// The lookup in cache folder `dir` (see [`winner_for_device`]).
pub fn winner_in(
    dir: &Path,
    kernel: &str,
    key: &str,
    gpu_name: Option<&str>,
    source_hash: Option<&str>,
) -> Option<Config> {
    let mut all = indexes().lock().unwrap_or_else(|e| e.into_inner());
    let index = all.entry(dir.to_path_buf()).or_insert_with(|| build(dir));
    let found = index.get(&(kernel.to_string(), key.to_string()))?;
    found
        .iter()
        .filter(|f| source_hash.is_none_or(|h| f.key.source_hash == h))
        .max_by_key(|f| (gpu_name.is_some_and(|g| f.key.gpu_name == g), f.written))
        .map(|f| f.config.clone())
}

/// Forgets the indexes, so the next lookup reads the cache folders again.
pub fn refresh() {
    indexes().lock().unwrap_or_else(|e| e.into_inner()).clear();
}
