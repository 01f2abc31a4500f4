//! Managing a tune cache folder as a whole: list, export, import, merge, clear — the library
//! behind `tessel cache ls|export|import|merge|clear`.
//!
//! An **export bundle** is the cache files of a folder concatenated (JSON Lines; each file
//! starts with its header line), so it can be copied to another machine, attached to a CI run
//! or committed. **Import** splits a bundle at its header lines and merges each part into the
//! destination's file of the same key; **merge** does the same from another cache folder (a
//! shard's, another host's). Merging takes the destination file's lock and never loses a
//! trial: a trial the destination lacks is added; one it has is replaced only by a passing
//! trial when its own failed (see [`TuneStore::absorb`]).
//!
//! ```no_run
//! use tessel_runtime::tune::cachedir;
//! # fn main() -> std::io::Result<()> {
//! let dir = tessel_runtime::tune::store::default_dir();
//! for e in cachedir::list(&dir)? {
//!     println!("{}", e.summary());
//! }
//! cachedir::export(&dir, Some("matmul"), "matmul.tune.jsonl".as_ref())?;
//! let report = cachedir::import("other-host.tune.jsonl".as_ref(), &dir)?;
//! println!("{report}");
//! # Ok(()) }
//! ```

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use super::record::{ConfigMap, config_text};
use super::store::{self, CacheKey, Decoded, TuneStore, decode, encode};

/// One cache file.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The cache file's path.
    pub path: PathBuf,
    /// Its key (`None` when the header is damaged).
    pub key: Option<CacheKey>,
    /// Trials recorded.
    pub trials: usize,
    /// Trials that verified and were timed.
    pub passed: usize,
    /// The winner, when one matches a recorded passing trial.
    pub winner: Option<ConfigMap>,
    /// Lines that did not parse.
    pub skipped_lines: usize,
    /// File size in bytes.
    pub bytes: u64,
}

impl Entry {
    /// `matmul  NVIDIA H100 (9.0)  8192x8192x8192  f16 in, …  312 trials (290 passed)  winner …`.
    pub fn summary(&self) -> String {
        let key = match &self.key {
            Some(k) => format!(
                "{}  {} ({}.{})  {}  {}",
                k.kernel,
                k.gpu_name,
                k.compute_capability.0,
                k.compute_capability.1,
                k.problem,
                k.dtypes
            ),
            None => "(damaged header)".into(),
        };
        let winner = self.winner.as_ref().map_or_else(
            || "no winner".to_string(),
            |w| format!("winner {}", config_text(w)),
        );
        format!(
            "{key}  {} trials ({} passed)  {winner}  {}",
            self.trials,
            self.passed,
            self.path.display()
        )
    }
}

/// What an import or merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Cache files written.
    pub files: usize,
    /// Trials added.
    pub added: usize,
    /// Failed trials replaced by passing ones.
    pub replaced: usize,
    /// Lines that did not parse, and parts without a usable header.
    pub skipped: usize,
}

impl fmt::Display for MergeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cache file(s): {} trial(s) added, {} replaced, {} line(s) skipped",
            self.files, self.added, self.replaced, self.skipped
        )
    }
}

fn cache_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            for e in entries {
                let p = e?.path();
                if p.extension().is_some_and(|x| x == "jsonl") && p.is_file() {
                    files.push(p);
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    files.sort();
    Ok(files)
}

fn read_decoded(path: &Path) -> io::Result<Decoded> {
    Ok(decode(&String::from_utf8_lossy(&std::fs::read(path)?)))
}

fn kernel_matches(d: &Decoded, kernel: Option<&str>) -> bool {
    kernel.is_none_or(|k| d.key.as_ref().is_some_and(|key| key.kernel == k))
}

/// Every cache file of `dir` (a missing folder is empty), sorted by file name.
pub fn list(dir: &Path) -> io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for path in cache_files(dir)? {
        let d = read_decoded(&path)?;
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let mut st = TuneStore::detached(
            d.key.clone().unwrap_or_else(|| placeholder_key(&path)),
            path.clone(),
        );
        st.trials = d.trials.clone();
        st.winner = d.winner.clone();
        out.push(Entry {
            winner: st.trusted_winner().map(|w| w.config.clone()),
            passed: d
                .trials
                .iter()
                .filter(|t| t.failure.is_none() && t.time.is_some())
                .count(),
            trials: d.trials.len(),
            skipped_lines: d.skipped_lines,
            key: d.key,
            path,
            bytes,
        });
    }
    Ok(out)
}

fn placeholder_key(path: &Path) -> CacheKey {
    CacheKey {
        format: store::FORMAT,
        gpu_name: String::new(),
        compute_capability: (0, 0),
        driver_version: 0,
        nvrtc_version: (0, 0),
        kernel: path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default(),
        source_hash: String::new(),
        problem: String::new(),
        dtypes: String::new(),
        settings: String::new(),
    }
}

/// The export bundle of `dir` (only kernel `kernel`'s files when given): every file with a
/// readable header, re-encoded (damaged lines dropped).
pub fn export_text(dir: &Path, kernel: Option<&str>) -> io::Result<(String, usize)> {
    let mut text = String::new();
    let mut files = 0;
    for path in cache_files(dir)? {
        let d = read_decoded(&path)?;
        let Some(key) = &d.key else { continue };
        if !kernel_matches(&d, kernel) {
            continue;
        }
        text.push_str(&encode(
            key,
            d.reference.as_ref(),
            &d.trials,
            d.winner.as_ref(),
        ));
        files += 1;
    }
    Ok((text, files))
}

/// Writes [`export_text`] to `out` (atomically); returns the number of cache files exported.
pub fn export(dir: &Path, kernel: Option<&str>, out: &Path) -> io::Result<usize> {
    let (text, files) = export_text(dir, kernel)?;
    crate::cache::write_atomic(out, text.as_bytes())?;
    Ok(files)
}

/// Splits a bundle at its header lines and merges each part into `dir`.
pub fn import_text(text: &str, dir: &Path) -> io::Result<MergeReport> {
    let mut report = MergeReport::default();
    let mut part = String::new();
    let mut parts = Vec::new();
    for line in text.lines() {
        if line.starts_with("{\"type\":\"header\"") && !part.is_empty() {
            parts.push(std::mem::take(&mut part));
        }
        part.push_str(line);
        part.push('\n');
    }
    if !part.is_empty() {
        parts.push(part);
    }
    for p in parts {
        merge_decoded(decode(&p), dir, &mut report)?;
    }
    Ok(report)
}

/// Imports the bundle file `bundle` into `dir`.
pub fn import(bundle: &Path, dir: &Path) -> io::Result<MergeReport> {
    import_text(&String::from_utf8_lossy(&std::fs::read(bundle)?), dir)
}

/// Merges every cache file of `src` into `dst`.
pub fn merge(src: &Path, dst: &Path) -> io::Result<MergeReport> {
    let mut report = MergeReport::default();
    for path in cache_files(src)? {
        merge_decoded(read_decoded(&path)?, dst, &mut report)?;
    }
    Ok(report)
}

fn merge_decoded(d: Decoded, dir: &Path, report: &mut MergeReport) -> io::Result<()> {
    report.skipped += d.skipped_lines;
    let Some(key) = d.key.clone() else {
        // Records without a key cannot be placed.
        report.skipped += d.trials.len();
        return Ok(());
    };
    let mut st = TuneStore::open(dir, key, false);
    let (added, replaced) = st.absorb(d)?;
    report.files += 1;
    report.added += added;
    report.replaced += replaced;
    Ok(())
}

/// Removes the cache files of `dir` (only kernel `kernel`'s when given) with their lock files;
/// returns how many cache files were removed.
pub fn clear(dir: &Path, kernel: Option<&str>) -> io::Result<usize> {
    let mut removed = 0;
    for path in cache_files(dir)? {
        if kernel.is_some() && !kernel_matches(&read_decoded(&path)?, kernel) {
            continue;
        }
        std::fs::remove_file(&path)?;
        let mut lock = path.as_os_str().to_owned();
        lock.push(".lock");
        let _ = std::fs::remove_file(PathBuf::from(lock));
        removed += 1;
    }
    crate::cache::remove_stale_temps(dir, std::time::Duration::from_secs(3600));
    super::lookup::refresh();
    Ok(removed)
}
