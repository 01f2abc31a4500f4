//! The tuning cache: one JSON Lines file per [`CacheKey`].
//!
//! * **Where**: `$TESSEL_TUNE_CACHE`, else `$HOME/.cache/tessel/tune`, else
//!   `<temp dir>/tessel-tune`. File name `<kernel>-<16 hex digits of the key hash>.jsonl`.
//! * **What**: the first line is the key itself (`{"type":"header",…}`), then the cuBLAS
//!   reference, one line per trial (config, phase, time stats, TFLOP/s, verification,
//!   registers, smem, failure kind and message) and, once a sweep finished, the winner.
//! * **Atomic**: every change rewrites the whole file to a temporary beside it, fsyncs it and
//!   renames it into place ([`crate::cache::write_atomic`]), so a reader (or a sweep killed at
//!   any instant) sees either the old file or the new one. The reader still skips lines that do
//!   not parse (counted in [`TuneStore::skipped_lines`]) rather than failing.
//! * **Never foreign**: a file whose header differs from the key in any field (another GPU,
//!   driver, NVRTC, kernel source, shape or dtypes — e.g. a hash collision or a hand-copied
//!   file) is ignored and replaced at the next write.
//! * **Resume**: trials already in the file are not run again ([`TuneStore::trial`]); a sweep
//!   killed half-way continues where it stopped. `retune` starts from an empty file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cache::write_atomic;
use crate::hash::StableHasher;

use super::record::{ConfigMap, Phase, ReferenceRecord, TrialRecord, WinnerRecord};
use super::target::Shape;

/// Bumped when the record format changes (old files are then ignored).
pub const FORMAT: u32 = 1;

/// Everything a tuning result depends on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheKey {
    pub format: u32,
    pub gpu_name: String,
    pub compute_capability: (i32, i32),
    pub driver_version: i32,
    pub nvrtc_version: (i32, i32),
    pub kernel: String,
    /// [`super::Target::source_hash`].
    pub source_hash: String,
    pub shape: Shape,
    pub dtypes: String,
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
            .u64(self.shape.m as u64)
            .u64(self.shape.n as u64)
            .u64(self.shape.k as u64)
            .str(&self.dtypes);
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
    dir_from(
        std::env::var_os("TESSEL_TUNE_CACHE"),
        std::env::var_os("HOME"),
    )
}

/// [`default_dir`] from the values of `$TESSEL_TUNE_CACHE` and `$HOME`.
pub fn dir_from(tune_cache: Option<OsString>, home: Option<OsString>) -> PathBuf {
    if let Some(d) = tune_cache.filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    match home.filter(|h| !h.is_empty()) {
        Some(h) => PathBuf::from(h).join(".cache/tessel/tune"),
        None => std::env::temp_dir().join("tessel-tune"),
    }
}

/// One line of a cache file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Line {
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
    /// The file's header matched the key.
    Matched,
    /// A file was there but for another key (or unreadable): ignored.
    Foreign,
}

/// A key's cache file, in memory.
#[derive(Debug)]
pub struct TuneStore {
    path: PathBuf,
    key: CacheKey,
    pub loaded: Loaded,
    pub reference: Option<ReferenceRecord>,
    pub trials: Vec<TrialRecord>,
    pub winner: Option<WinnerRecord>,
    /// Lines that did not parse (a torn or hand-edited file).
    pub skipped_lines: usize,
}

impl TuneStore {
    /// Opens (reads) the file of `key` in `dir`; `retune` ignores its contents.
    pub fn open(dir: &Path, key: CacheKey, retune: bool) -> TuneStore {
        let path = dir.join(key.file_name());
        let mut store = TuneStore {
            path,
            key,
            loaded: Loaded::Fresh,
            reference: None,
            trials: Vec::new(),
            winner: None,
            skipped_lines: 0,
        };
        if retune {
            return store;
        }
        let Ok(text) = std::fs::read_to_string(&store.path) else {
            if store.path.exists() {
                store.loaded = Loaded::Foreign;
            }
            return store;
        };
        store.load_text(&text);
        store
    }

    fn load_text(&mut self, text: &str) {
        let mut header = false;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Line>(line) {
                Ok(Line::Header(k)) if !header => {
                    if k != self.key {
                        self.loaded = Loaded::Foreign;
                        self.reference = None;
                        self.trials.clear();
                        self.winner = None;
                        return;
                    }
                    header = true;
                }
                Ok(_) if !header => {
                    // Records before any header belong to no known key.
                    self.loaded = Loaded::Foreign;
                    return;
                }
                Ok(Line::Header(_)) => self.skipped_lines += 1,
                Ok(Line::Reference(r)) => self.reference = Some(r),
                Ok(Line::Trial(t)) => self.put(t),
                Ok(Line::Winner(w)) => self.winner = Some(w),
                Err(_) => self.skipped_lines += 1,
            }
        }
        self.loaded = if header {
            Loaded::Matched
        } else {
            Loaded::Fresh
        };
    }

    pub fn key(&self) -> &CacheKey {
        &self.key
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The recorded trial of a config in a phase.
    pub fn trial(&self, config: &ConfigMap, phase: Phase) -> Option<&TrialRecord> {
        self.trials
            .iter()
            .find(|t| t.phase == phase && &t.config == config)
    }

    fn put(&mut self, t: TrialRecord) {
        match self
            .trials
            .iter_mut()
            .find(|x| x.phase == t.phase && x.config == t.config)
        {
            Some(slot) => *slot = t,
            None => self.trials.push(t),
        }
    }

    /// Records a trial (replacing one of the same config and phase) and saves.
    pub fn record(&mut self, t: TrialRecord) -> std::io::Result<()> {
        self.put(t);
        self.save()
    }

    pub fn set_reference(&mut self, r: ReferenceRecord) -> std::io::Result<()> {
        self.reference = Some(r);
        self.save()
    }

    pub fn set_winner(&mut self, w: WinnerRecord) -> std::io::Result<()> {
        self.winner = Some(w);
        self.save()
    }

    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut lines = vec![Line::Header(self.key.clone())];
        lines.extend(self.reference.clone().map(Line::Reference));
        lines.extend(self.trials.iter().cloned().map(Line::Trial));
        lines.extend(self.winner.clone().map(Line::Winner));
        let mut s = String::new();
        for l in &lines {
            // Serializing plain data (no maps with non-string keys) cannot fail.
            s.push_str(&serde_json::to_string(l).unwrap_or_default());
            s.push('\n');
        }
        s
    }

    /// Rewrites the file atomically.
    pub fn save(&self) -> std::io::Result<()> {
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
            shape: Shape::cube(8192),
            dtypes: "f16 in, f16 acc, f16 out".into(),
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
        v.shape = Shape::new(8192, 8192, 4096);
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
