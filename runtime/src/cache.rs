//! Compiled-module cache: in memory (a `HashMap`) and on disk.
//!
//! ```no_run
//! use tessel_runtime::{cache::ModuleCache, nvrtc::{Arch, CompileRequest}};
//! let cache = ModuleCache::from_env();
//! let req = CompileRequest::new("extern \"C\" __global__ void k() {}", Arch::Sm90a);
//! let (module, outcome) = cache.get_or_compile(&req)?; // Compiled, then MemoryHit / DiskHit
//! # Ok::<(), tessel_runtime::cache::CacheError>(())
//! ```
//!
//! * **Key**: 128-bit stable hash ([`crate::hash`]) of the entry format version, the source,
//!   the name expressions, the exact option list, the arch and the NVRTC version.
//! * **Disk**: `$TESSEL_CACHE_DIR` (`off` disables it), else the platform cache directory +
//!   `tessel/modules` (`dirs::cache_dir`, which honours `$XDG_CACHE_HOME`). One
//!   file per module, `<key>.tmod`, written to a unique temporary name in the same folder and
//!   renamed into place (atomic on POSIX), so readers never see half a file. Each entry stores
//!   the arch, options and name expressions it was built from and ends with a checksum of its
//!   bytes; an entry that fails either check is ignored (counted in [`CacheStats::corrupt`])
//!   and rebuilt.
//! * A disk write failure does not fail the compilation; it is counted and kept in
//!   [`CacheStats::last_write_error`].

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::hash::{Digest, StableHasher};
use crate::nvrtc::{self, Arch, CompileError, CompileRequest, CompiledModule};
use crate::ptxas;

const MAGIC: &[u8; 8] = b"TSLMOD\0\x01";
const FORMAT_VERSION: u64 = 1;

/// Where a module came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Found in this cache's memory.
    MemoryHit,
    /// Read from the disk folder.
    DiskHit,
    /// Compiled now.
    Compiled,
}

/// Counters, for tests and the tuner's report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Memory hits.
    pub memory_hits: u64,
    /// Disk hits.
    pub disk_hits: u64,
    /// Compilations.
    pub compiled: u64,
    /// Disk entries that failed the checksum or the inputs check.
    pub corrupt: u64,
    /// Disk writes that failed.
    pub write_errors: u64,
    /// The last disk write error.
    pub last_write_error: Option<String>,
}

/// Cache errors (compilation errors pass through).
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// Compiling failed.
    #[error(transparent)]
    Compile(#[from] CompileError),
}

/// The module cache. Share it (`&ModuleCache` is `Sync`).
#[derive(Debug)]
pub struct ModuleCache {
    memory: Mutex<HashMap<Digest, Arc<CompiledModule>>>,
    dir: Option<PathBuf>,
    stats: Mutex<CacheStats>,
}

impl ModuleCache {
    /// Memory only.
    pub fn in_memory() -> Self {
        Self {
            memory: Mutex::new(HashMap::new()),
            dir: None,
            stats: Mutex::new(CacheStats::default()),
        }
    }

    /// Memory plus the disk folder `dir` (created on first write).
    pub fn with_dir(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        // Temporaries of writers killed mid-write.
        remove_stale_temps(&dir, std::time::Duration::from_secs(3600));
        Self {
            dir: Some(dir),
            ..Self::in_memory()
        }
    }

    /// `$TESSEL_CACHE_DIR` (`off`, `0` or empty: memory only), else the platform cache
    /// directory + `tessel/modules` (`$XDG_CACHE_HOME` or `~/.cache` on Linux,
    /// `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows), else memory only.
    pub fn from_env() -> Self {
        match std::env::var_os("TESSEL_CACHE_DIR") {
            Some(v) if v.is_empty() || v == "off" || v == "0" => Self::in_memory(),
            Some(v) => Self::with_dir(v),
            None => match dirs::cache_dir() {
                Some(d) => Self::with_dir(d.join("tessel").join("modules")),
                None => Self::in_memory(),
            },
        }
    }

    /// The disk folder, if any.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> CacheStats {
        lock(&self.stats).clone()
    }

    /// The cache key of a request for a given NVRTC version.
    pub fn key(req: &CompileRequest, nvrtc_version: (i32, i32)) -> Digest {
        let mut h = StableHasher::new();
        h.u64(FORMAT_VERSION).str(&req.source);
        h.u64(req.name_expressions.len() as u64);
        for e in &req.name_expressions {
            h.str(e);
        }
        let opts = req.all_options();
        h.u64(opts.len() as u64);
        for o in &opts {
            h.str(o);
        }
        h.str(req.arch.as_str())
            .u64(nvrtc_version.0 as u64)
            .u64(nvrtc_version.1 as u64);
        h.finish()
    }

    /// The disk file of a key.
    pub fn entry_path(&self, key: Digest) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(format!("{key}.tmod")))
    }

    /// Returns the module for `req`, compiling it with NVRTC on a miss.
    pub fn get_or_compile(
        &self,
        req: &CompileRequest,
    ) -> Result<(Arc<CompiledModule>, CacheOutcome), CacheError> {
        let version = nvrtc::nvrtc_version()?;
        self.get_or_compile_with(req, version, nvrtc::compile)
    }

    /// Same as [`ModuleCache::get_or_compile`] with an explicit NVRTC version and compiler.
    pub fn get_or_compile_with(
        &self,
        req: &CompileRequest,
        nvrtc_version: (i32, i32),
        compile: impl FnOnce(&CompileRequest) -> Result<CompiledModule, CompileError>,
    ) -> Result<(Arc<CompiledModule>, CacheOutcome), CacheError> {
        let key = Self::key(req, nvrtc_version);
        if let Some(m) = lock(&self.memory).get(&key) {
            lock(&self.stats).memory_hits += 1;
            return Ok((m.clone(), CacheOutcome::MemoryHit));
        }
        if let Some(path) = self.entry_path(key)
            && let Ok(bytes) = std::fs::read(&path)
        {
            match decode(&bytes, key, req) {
                Some(m) => {
                    let m = Arc::new(m);
                    lock(&self.memory).insert(key, m.clone());
                    lock(&self.stats).disk_hits += 1;
                    return Ok((m, CacheOutcome::DiskHit));
                }
                None => lock(&self.stats).corrupt += 1,
            }
        }
        let module = Arc::new(compile(req)?);
        if let Some(path) = self.entry_path(key)
            && let Err(e) = write_atomic(&path, &encode(&module, key))
        {
            let mut s = lock(&self.stats);
            s.write_errors += 1;
            s.last_write_error = Some(format!("{}: {e}", path.display()));
        }
        lock(&self.memory).insert(key, module.clone());
        lock(&self.stats).compiled += 1;
        Ok((module, CacheOutcome::Compiled))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes `bytes` to a unique temporary file beside `path`, syncs it, renames it onto `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("entry");
    let tmp = dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Removes temporaries (`.<name>.tmp.<pid>.<n>`) in `dir` whose writer is gone: its process no
/// longer runs (where that can be seen) or the file is older than `max_age`. Returns how many.
pub fn remove_stale_temps(dir: &Path, max_age: std::time::Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some((_, rest)) = name.split_once(".tmp.") else {
            continue;
        };
        if !name.starts_with('.') {
            continue;
        }
        let pid = rest.split('.').next().and_then(|p| p.parse::<u32>().ok());
        let writer_gone = pid.is_some_and(|p| {
            p != std::process::id()
                && Path::new("/proc/self").exists()
                && !Path::new("/proc").join(p.to_string()).exists()
        });
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > max_age);
        if (writer_gone || old) && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn put(buf: &mut Vec<u8>, field: &[u8]) {
    buf.extend_from_slice(&(field.len() as u64).to_le_bytes());
    buf.extend_from_slice(field);
}

fn encode(m: &CompiledModule, key: Digest) -> Vec<u8> {
    let mut b = Vec::with_capacity(m.cubin.len() + m.log.len() + 512);
    b.extend_from_slice(MAGIC);
    put(&mut b, key.to_string().as_bytes());
    put(&mut b, m.arch.as_str().as_bytes());
    put(
        &mut b,
        format!("{}.{}", m.nvrtc_version.0, m.nvrtc_version.1).as_bytes(),
    );
    put(&mut b, &(m.options.len() as u64).to_le_bytes());
    for o in &m.options {
        put(&mut b, o.as_bytes());
    }
    put(&mut b, &(m.lowered_names.len() as u64).to_le_bytes());
    for (e, l) in &m.lowered_names {
        put(&mut b, e.as_bytes());
        put(&mut b, l.as_bytes());
    }
    put(&mut b, m.log.as_bytes());
    put(&mut b, &m.cubin);
    let sum = StableHasher::new().bytes(&b).finish();
    b.extend_from_slice(&sum.0.to_le_bytes());
    b
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn field(&mut self) -> Option<&'a [u8]> {
        let len = u64::from_le_bytes(self.0.get(..8)?.try_into().ok()?) as usize;
        let rest = self.0.get(8..)?;
        let (f, r) = (rest.get(..len)?, rest.get(len..)?);
        self.0 = r;
        Some(f)
    }
    fn string(&mut self) -> Option<String> {
        String::from_utf8(self.field()?.to_vec()).ok()
    }
    fn count(&mut self) -> Option<usize> {
        Some(u64::from_le_bytes(self.field()?.try_into().ok()?) as usize)
    }
}

/// Decodes an entry; `None` when corrupt or built from different inputs.
fn decode(bytes: &[u8], key: Digest, req: &CompileRequest) -> Option<CompiledModule> {
    let body_len = bytes.len().checked_sub(16)?;
    let (body, sum) = bytes.split_at(body_len);
    let expected = StableHasher::new().bytes(body).finish();
    if expected.0.to_le_bytes() != sum || !body.starts_with(MAGIC) {
        return None;
    }
    let mut r = Reader(&body[MAGIC.len()..]);
    if Digest::from_hex(&r.string()?)? != key {
        return None;
    }
    let arch: Arch = r.string()?.parse().ok()?;
    let version = r.string()?;
    let (ma, mi) = version.split_once('.')?;
    let nvrtc_version = (ma.parse().ok()?, mi.parse().ok()?);
    let n_opts = r.count()?;
    let options = (0..n_opts)
        .map(|_| r.string())
        .collect::<Option<Vec<_>>>()?;
    let n_names = r.count()?;
    let lowered_names = (0..n_names)
        .map(|_| Some((r.string()?, r.string()?)))
        .collect::<Option<Vec<_>>>()?;
    let log = r.string()?;
    let cubin = r.field()?.to_vec();
    if !r.0.is_empty()
        || arch != req.arch
        || options != req.all_options()
        || lowered_names
            .iter()
            .map(|(e, _)| e)
            .ne(req.name_expressions.iter())
    {
        return None;
    }
    Some(CompiledModule {
        cubin,
        lowered_names,
        resources: ptxas::parse_ptxas_log(&log),
        log,
        nvrtc_version,
        arch,
        options,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(req: &CompileRequest) -> CompiledModule {
        CompiledModule {
            cubin: vec![0x7f, b'E', b'L', b'F', 1, 2, 3],
            lowered_names: req
                .name_expressions
                .iter()
                .map(|e| (e.clone(), format!("_Z{}", e.len())))
                .collect(),
            log: "ptxas info    : Compiling entry function '_Z1k' for 'sm_90a'\nptxas info    : Used 8 registers\n".into(),
            nvrtc_version: (13, 0),
            arch: req.arch,
            options: req.all_options(),
            resources: Vec::new(),
        }
    }

    #[test]
    fn round_trips_and_rejects_corruption() {
        let req = CompileRequest::new("src", Arch::Sm90a).name_expression("k<1>");
        let key = ModuleCache::key(&req, (13, 0));
        let m = fake(&req);
        let bytes = encode(&m, key);
        let back = decode(&bytes, key, &req).unwrap();
        assert_eq!(back.cubin, m.cubin);
        assert_eq!(back.lowered_names, m.lowered_names);
        assert_eq!(back.resources.len(), 1);
        assert_eq!(back.resources[0].registers, 8);
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert!(decode(&flipped, key, &req).is_none());
        assert!(decode(&bytes[..bytes.len() - 1], key, &req).is_none());
        assert!(decode(&[], key, &req).is_none());
        let other = CompileRequest::new("src", Arch::Sm80).name_expression("k<1>");
        assert!(decode(&bytes, key, &other).is_none());
    }

    #[test]
    fn key_depends_on_every_input() {
        let base = CompileRequest::new("src", Arch::Sm90a).name_expression("k<1>");
        let k = ModuleCache::key(&base, (13, 0));
        assert_eq!(k, ModuleCache::key(&base.clone(), (13, 0)));
        let variants = [
            CompileRequest::new("src2", Arch::Sm90a).name_expression("k<1>"),
            CompileRequest::new("src", Arch::Sm80).name_expression("k<1>"),
            CompileRequest::new("src", Arch::Sm90a).name_expression("k<2>"),
            base.clone().option("-DX"),
        ];
        for v in &variants {
            assert_ne!(ModuleCache::key(v, (13, 0)), k, "{v:?}");
        }
        assert_ne!(ModuleCache::key(&base, (13, 1)), k);
    }
}
