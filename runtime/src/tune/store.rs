//! The tuning cache: one JSON Lines file per [`CacheKey`].
//!
//! * **Where**: `$TESSEL_TUNE_CACHE`, else the platform cache directory (`dirs::cache_dir`:
//!   `$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%`
//!   on Windows) + `tessel/tune`, else `<temp dir>/tessel-tune`. File name
//!   `<kernel>-<16 hex digits of the key hash>.jsonl`.
//! * **What**: the first line is the key itself (`{"type":"header",…}`), then the cuBLAS
//!   reference, one line per trial (config, phase, time stats, TFLOP/s, verification,
//!   registers, smem, failure kind and message) and, once a sweep finished, the winner.
//! * **Shared**: every write takes an exclusive lock on `<file>.lock` (`fs4`), re-reads the
//!   file, merges this process's new records into what is there and rewrites it, so any number
//!   of tuners (processes, hosts on a shared file system) writing one cache lose nothing.
//! * **Atomic**: the rewrite goes to a temporary beside the file, is fsynced and renamed into
//!   place ([`crate::cache::write_atomic`]), so a reader (or a sweep killed at any instant)
//!   sees either the old file or the new one. Temporaries left by a killed writer are removed
//!   when a cache is opened.
//! * **Forgiving**: the file is decoded line by line; a line that does not parse (a torn write,
//!   a flipped byte) is skipped and counted ([`TuneStore::skipped_lines`]), the rest is kept. A
//!   damaged header does not discard the records after it (the file name carries the key's
//!   hash); a header that parses and names another key does.
//! * **Never foreign**: a file whose header differs from the key in any field (another GPU,
//!   driver, NVRTC, kernel source, problem, dtypes or failure-deciding settings) is ignored and
//!   replaced at the next write.
//! * **Resume**: trials already in the file are not run again ([`TuneStore::trial`]); a sweep
//!   killed half-way continues where it stopped. `retune` starts from an empty file.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use fs4::FileExt;
use serde::{Deserialize, Serialize};

use crate::cache::write_atomic;
use crate::hash::StableHasher;

use super::record::{ConfigMap, Phase, ReferenceRecord, TrialRecord, WinnerRecord};

/// Bumped when the record format changes (old files are then ignored).
pub const FORMAT: u32 = 2;

/// Everything a tuning result depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheKey {
    /// [`FORMAT`] when the file was written.
    pub format: u32,
    /// The GPU's name as the driver reports it.
    pub gpu_name: String,
    /// The GPU's compute capability.
    pub compute_capability: (i32, i32),
    /// The CUDA driver version (`cuDriverGetVersion`).
    pub driver_version: i32,
    /// The NVRTC version that compiled the trials.
    pub nvrtc_version: (i32, i32),
    /// The tuned kernel's name.
    pub kernel: String,
    /// Hash of the kernel's name, dtypes and comment-free CUDA ([`super::Target::source_hash`]):
    /// a change to the kernel's code gives a new key.
    pub source_hash: String,
    /// The problem-size key (`8192x8192x8192`, `N=4096 K=1024` …).
    pub problem: String,
    /// The dtypes (`f16 in, f32 acc, f16 out`).
    pub dtypes: String,
    /// The settings that decide whether a trial fails (watchdog, spill policy), so a result
    /// found under one policy is never reused under another.
    pub settings: String,
}

impl CacheKey {
    /// 32 hex digits over every field.
    pub fn digest(&self) -> String {
        let mut h = StableHasher::new();
        h.u64(u64::from(self.format))
            .str(&self.gpu_name)
            .u64(self.compute_capability.0 as u64)
            .u64(self.compute_capability.1 as u64)
            .u64(self.driver_version as u64)
            .u64(self.nvrtc_version.0 as u64)
            .u64(self.nvrtc_version.1 as u64)
            .str(&self.kernel)
            .str(&self.source_hash)
            .str(&self.problem)
            .str(&self.dtypes)
            .str(&self.settings);
        h.finish().to_string()
    }

    /// `matmul-0123456789abcdef.jsonl` (the kernel name reduced to `[A-Za-z0-9_-]`).
    pub fn file_name(&self) -> String {
        let name: String = self
            .kernel
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{name}-{}.jsonl", &self.digest()[..16])
    }
}

/// The cache folder (see the module doc).
pub fn default_dir() -> PathBuf {
    dir_from(std::env::var_os("TESSEL_TUNE_CACHE"), dirs::cache_dir())
}

/// [`default_dir`] from the value of `$TESSEL_TUNE_CACHE` and the platform cache directory.
pub fn dir_from(tune_cache: Option<OsString>, platform_cache: Option<PathBuf>) -> PathBuf {
    if let Some(d) = tune_cache.filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    match platform_cache.filter(|h| !h.as_os_str().is_empty()) {
        Some(h) => h.join("tessel").join("tune"),
        None => std::env::temp_dir().join("tessel-tune"),
    }
}

/// One line of a cache file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Line {
    Header(CacheKey),
    Reference(ReferenceRecord),
    Trial(TrialRecord),
    Winner(WinnerRecord),
}

/// What loading found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loaded {
    /// No file yet (or `retune`).
    Fresh,
    /// The file's header matched the key (or was damaged and the records were kept).
    Matched,
    /// A file was there but for another key (or unreadable): ignored.
    Foreign,
}

/// The records of one cache file, decoded line by line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Decoded {
    /// The header, when it parsed.
    pub key: Option<CacheKey>,
    /// cuBLAS time and copy bandwidth on the same problem, when recorded.
    pub reference: Option<ReferenceRecord>,
    /// Trials, one per (config, phase); a later line replaces an earlier one.
    pub trials: Vec<TrialRecord>,
    /// The chosen configuration, when a sweep finished and chose one.
    pub winner: Option<WinnerRecord>,
    /// Lines that did not parse.
    pub skipped_lines: usize,
}

/// Decodes a cache file's text line by line, skipping what does not parse. Records before a
/// second header are kept under the first.
pub fn decode(text: &str) -> Decoded {
    let mut d = Decoded::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Header(k)) if d.key.is_none() => d.key = Some(k),
            Ok(Line::Header(_)) => d.skipped_lines += 1,
            Ok(Line::Reference(r)) => d.reference = Some(r),
            Ok(Line::Trial(t)) => put(&mut d.trials, t),
            Ok(Line::Winner(w)) => d.winner = Some(w),
            Err(_) => d.skipped_lines += 1,
        }
    }
    d
}

/// Encodes a cache file's text.
pub fn encode(
    key: &CacheKey,
    reference: Option<&ReferenceRecord>,
    trials: &[TrialRecord],
    winner: Option<&WinnerRecord>,
) -> String {
    let mut lines = vec![Line::Header(key.clone())];
    lines.extend(reference.cloned().map(Line::Reference));
    lines.extend(trials.iter().cloned().map(Line::Trial));
    lines.extend(winner.cloned().map(Line::Winner));
    let mut s = String::new();
    for l in &lines {
        // Plain data with string map keys and non-finite floats written as strings
        // (`record::float`): serializing cannot fail.
        s.push_str(&serde_json::to_string(l).unwrap_or_default());
        s.push('\n');
    }
    s
}

fn put(trials: &mut Vec<TrialRecord>, t: TrialRecord) {
    match trials
        .iter_mut()
        .find(|x| x.phase == t.phase && x.config == t.config)
    {
        Some(slot) => *slot = t,
        None => trials.push(t),
    }
}

/// Holds `<file>.lock` exclusively while alive.
pub(crate) struct FileLock(File);

impl FileLock {
    /// Blocks until the lock of `path` (a cache file) is held.
    pub(crate) fn acquire(path: &Path) -> std::io::Result<FileLock> {
        let mut lock = path.as_os_str().to_owned();
        lock.push(".lock");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(PathBuf::from(lock))?;
        FileExt::lock(&f)?;
        Ok(FileLock(f))
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.0);
    }
}

/// A key's cache file, in memory.
#[derive(Debug)]
pub struct TuneStore {
    path: PathBuf,
    key: CacheKey,
    /// Whether opening found no file, this key's file or another key's file.
    pub loaded: Loaded,
    /// cuBLAS time and copy bandwidth on the same problem, when recorded.
    pub reference: Option<ReferenceRecord>,
    /// Every trial known (this process's and, after a write, every other writer's).
    pub trials: Vec<TrialRecord>,
    /// The chosen configuration, when a sweep finished and chose one.
    pub winner: Option<WinnerRecord>,
    /// Lines that did not parse (a torn or damaged file).
    pub skipped_lines: usize,
    /// Trials this process recorded (they win over the file's on a merge).
    mine: BTreeSet<(ConfigMap, Phase)>,
    own_reference: bool,
    own_winner: bool,
    /// `retune`: the file's records from before this store opened are dropped at the next write.
    fresh_start: bool,
}

impl TuneStore {
    /// Opens (reads) the file of `key` in `dir`; `retune` ignores its contents.
    pub fn open(dir: &Path, key: CacheKey, retune: bool) -> TuneStore {
        crate::cache::remove_stale_temps(dir, Duration::from_secs(3600));
        let path = dir.join(key.file_name());
        let mut store = TuneStore {
            path,
            key,
            loaded: Loaded::Fresh,
            reference: None,
            trials: Vec::new(),
            winner: None,
            skipped_lines: 0,
            mine: BTreeSet::new(),
            own_reference: false,
            own_winner: false,
            fresh_start: retune,
        };
        if retune {
            return store;
        }
        let Ok(bytes) = std::fs::read(&store.path) else {
            return store;
        };
        let d = decode(&String::from_utf8_lossy(&bytes));
        store.skipped_lines = d.skipped_lines;
        store.loaded = store.adopt(d);
        store
    }

    /// A store for `key` at `path` that reads nothing (its records are filled by the caller).
    pub fn detached(key: CacheKey, path: PathBuf) -> TuneStore {
        TuneStore {
            path,
            key,
            loaded: Loaded::Fresh,
            reference: None,
            trials: Vec::new(),
            winner: None,
            skipped_lines: 0,
            mine: BTreeSet::new(),
            own_reference: false,
            own_winner: false,
            fresh_start: false,
        }
    }

    /// Merges another copy's records into this store and saves: a trial this store lacks is
    /// added, one it has is replaced only when the incoming one passed and its own did not;
    /// the reference and winner are taken when missing. Returns (added, replaced).
    pub fn absorb(&mut self, d: Decoded) -> std::io::Result<(usize, usize)> {
        let (mut added, mut replaced) = (0, 0);
        let passed = |t: &TrialRecord| t.failure.is_none() && t.time.is_some();
        for t in d.trials {
            let take = match self.trial(&t.config, t.phase) {
                None => {
                    added += 1;
                    true
                }
                Some(old) if !passed(old) && passed(&t) => {
                    replaced += 1;
                    true
                }
                Some(_) => false,
            };
            if take {
                self.mine.insert((t.config.clone(), t.phase));
                put(&mut self.trials, t);
            }
        }
        if self.reference.is_none() && d.reference.is_some() {
            self.reference = d.reference;
            self.own_reference = true;
        }
        if self.winner.is_none() && d.winner.is_some() {
            self.winner = d.winner;
            self.own_winner = true;
        }
        self.save()?;
        Ok((added, replaced))
    }

    /// Takes the records of a decoded file when it belongs to this key.
    fn adopt(&mut self, d: Decoded) -> Loaded {
        if d.key.as_ref().is_some_and(|k| *k != self.key) {
            return Loaded::Foreign;
        }
        let any = d.key.is_some() || !d.trials.is_empty() || d.reference.is_some();
        if !self.own_reference {
            self.reference = d.reference.or(self.reference.take());
        }
        if !self.own_winner {
            self.winner = d.winner.or(self.winner.take());
        }
        for t in d.trials {
            if !self.mine.contains(&(t.config.clone(), t.phase)) {
                put(&mut self.trials, t);
            }
        }
        if any { Loaded::Matched } else { Loaded::Fresh }
    }

    /// The key this store's records belong to.
    pub fn key(&self) -> &CacheKey {
        &self.key
    }

    /// The path of the cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The recorded trial of a config in a phase.
    pub fn trial(&self, config: &ConfigMap, phase: Phase) -> Option<&TrialRecord> {
        self.trials
            .iter()
            .find(|t| t.phase == phase && &t.config == config)
    }

    /// The winner, when it matches a recorded passing full-phase trial (a winner without one
    /// is not trusted).
    pub fn trusted_winner(&self) -> Option<&WinnerRecord> {
        let w = self.winner.as_ref()?;
        let t = self.trial(&w.config, Phase::Full)?;
        let passed = t.failure.is_none()
            && t.time.is_some()
            && t.verification.as_ref().is_some_and(|v| v.passed);
        passed.then_some(w)
    }

    /// Records a trial (replacing one of the same config and phase) and saves.
    pub fn record(&mut self, t: TrialRecord) -> std::io::Result<()> {
        self.mine.insert((t.config.clone(), t.phase));
        put(&mut self.trials, t);
        self.save()
    }

    /// Records the reference measurement and saves.
    pub fn set_reference(&mut self, r: ReferenceRecord) -> std::io::Result<()> {
        self.reference = Some(r);
        self.own_reference = true;
        self.save()
    }

    /// Records the winner and saves.
    pub fn set_winner(&mut self, w: WinnerRecord) -> std::io::Result<()> {
        self.winner = Some(w);
        self.own_winner = true;
        self.save()
    }

    /// The file's text as this store would write it.
    pub fn to_text(&self) -> String {
        encode(
            &self.key,
            self.reference.as_ref(),
            &self.trials,
            self.winner.as_ref(),
        )
    }

    /// Under the file's lock: re-reads the file, merges this store's own records over it,
    /// rewrites it atomically. Afterwards the store also holds the other writers' records.
    pub fn save(&mut self) -> std::io::Result<()> {
        let _lock = FileLock::acquire(&self.path)?;
        if !self.fresh_start
            && let Ok(bytes) = std::fs::read(&self.path)
        {
            let d = decode(&String::from_utf8_lossy(&bytes));
            self.adopt(d);
        }
        self.fresh_start = false;
        write_atomic(&self.path, self.to_text().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> CacheKey {
        CacheKey {
            format: FORMAT,
            gpu_name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            driver_version: 13000,
            nvrtc_version: (13, 0),
            kernel: "matmul".into(),
            source_hash: "abc".into(),
            problem: "8192x8192x8192".into(),
            dtypes: "f16 in, f16 acc, f16 out".into(),
            settings: "timeout=15000ms spills=reject".into(),
        }
    }

    #[test]
    fn every_field_changes_the_digest_and_file_name() {
        let k = key();
        let mut variants = Vec::new();
        let mut v = k.clone();
        v.gpu_name = "NVIDIA H200".into();
        variants.push(v);
        let mut v = k.clone();
        v.compute_capability = (8, 0);
        variants.push(v);
        let mut v = k.clone();
        v.driver_version = 12080;
        variants.push(v);
        let mut v = k.clone();
        v.nvrtc_version = (12, 8);
        variants.push(v);
        let mut v = k.clone();
        v.source_hash = "abd".into();
        variants.push(v);
        let mut v = k.clone();
        v.problem = "8192x8192x4096".into();
        variants.push(v);
        let mut v = k.clone();
        v.settings = "timeout=30000ms spills=reject".into();
        variants.push(v);
        let mut v = k.clone();
        v.dtypes = "bf16 in, f32 acc, bf16 out".into();
        variants.push(v);
        let mut v = k.clone();
        v.kernel = "matmul2".into();
        variants.push(v);
        for v in &variants {
            assert_ne!(v.digest(), k.digest(), "{v:?}");
        }
        assert_eq!(k.digest(), key().digest());
        assert!(k.file_name().starts_with("matmul-") && k.file_name().ends_with(".jsonl"));
        let mut odd = k.clone();
        odd.kernel = "a/b c".into();
        assert!(odd.file_name().starts_with("a_b_c-"));
    }
}
