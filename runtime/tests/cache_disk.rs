//! The module cache's disk behaviour, with a stand-in compiler (no NVRTC needed): hits and
//! misses, atomic writes, corrupt entries, failed compilations, unwritable folders and
//! concurrent writers.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::scratch_dir;
use tessel_runtime::cache::{CacheOutcome, ModuleCache};
use tessel_runtime::nvrtc::{Arch, CompileError, CompileRequest, CompiledModule};
use tessel_runtime::ptxas::parse_ptxas_log;

const VERSION: (i32, i32) = (13, 0);

fn request() -> CompileRequest {
    CompileRequest::new("template <int N> __global__ void k() {}", Arch::Sm90a)
        .name_expression("k<4>")
}

fn fake_compile(req: &CompileRequest) -> Result<CompiledModule, CompileError> {
    let log = "ptxas info    : Compiling entry function '_Z1kILi4EEvv' for 'sm_90a'\nptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem\n";
    Ok(CompiledModule {
        cubin: b"\x7fELF fake cubin".to_vec(),
        lowered_names: vec![("k<4>".into(), "_Z1kILi4EEvv".into())],
        log: log.into(),
        nvrtc_version: VERSION,
        arch: req.arch,
        options: req.all_options(),
        resources: parse_ptxas_log(log),
    })
}

fn files(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn miss_then_memory_hit_then_disk_hit() {
    let dir = scratch_dir("cache-hits");
    let req = request();
    let calls = AtomicUsize::new(0);
    let counting = |r: &CompileRequest| {
        calls.fetch_add(1, Ordering::SeqCst);
        fake_compile(r)
    };
    let cache = ModuleCache::with_dir(&*dir);
    let (a, o1) = cache.get_or_compile_with(&req, VERSION, counting).unwrap();
    let (b, o2) = cache.get_or_compile_with(&req, VERSION, counting).unwrap();
    assert_eq!((o1, o2), (CacheOutcome::Compiled, CacheOutcome::MemoryHit));
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // Exactly one entry, named by the key, and no temporary files left behind.
    let key = ModuleCache::key(&req, VERSION);
    assert_eq!(files(&dir), vec![format!("{key}.tmod")]);
    assert_eq!(
        cache.entry_path(key).unwrap(),
        dir.join(format!("{key}.tmod"))
    );

    let fresh = ModuleCache::with_dir(&*dir);
    let (c, o3) = fresh.get_or_compile_with(&req, VERSION, counting).unwrap();
    assert_eq!(o3, CacheOutcome::DiskHit);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "disk hit compiles nothing");
    assert_eq!(*c, *a, "the module read back equals the one written");
    let r = c.resources_for("k<4>").unwrap();
    assert_eq!((r.registers, r.smem_bytes, r.barriers), (12, 4096, 1));
    let s = fresh.stats();
    assert_eq!((s.disk_hits, s.compiled, s.memory_hits), (1, 0, 0));
}

#[test]
fn another_nvrtc_version_misses() {
    let dir = scratch_dir("cache-version");
    let req = request();
    let cache = ModuleCache::with_dir(&*dir);
    cache
        .get_or_compile_with(&req, (13, 0), fake_compile)
        .unwrap();
    let (_, o) = ModuleCache::with_dir(&*dir)
        .get_or_compile_with(&req, (13, 1), fake_compile)
        .unwrap();
    assert_eq!(o, CacheOutcome::Compiled);
}

#[test]
fn corrupt_entry_is_rebuilt() {
    let dir = scratch_dir("cache-corrupt");
    let req = request();
    ModuleCache::with_dir(&*dir)
        .get_or_compile_with(&req, VERSION, fake_compile)
        .unwrap();
    let path = dir.join(format!("{}.tmod", ModuleCache::key(&req, VERSION)));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap(); // a torn write

    let cache = ModuleCache::with_dir(&*dir);
    let (_, o) = cache
        .get_or_compile_with(&req, VERSION, fake_compile)
        .unwrap();
    assert_eq!(o, CacheOutcome::Compiled);
    assert_eq!(cache.stats().corrupt, 1);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "entry rewritten whole"
    );
    let (_, o) = ModuleCache::with_dir(&*dir)
        .get_or_compile_with(&req, VERSION, fake_compile)
        .unwrap();
    assert_eq!(o, CacheOutcome::DiskHit);
}

#[test]
fn failed_compilation_is_not_cached() {
    let dir = scratch_dir("cache-fail");
    let cache = ModuleCache::with_dir(&*dir);
    let failing = |_: &CompileRequest| -> Result<CompiledModule, CompileError> {
        Err(CompileError::UnsupportedArch {
            arch: "sm_1".into(),
        })
    };
    assert!(
        cache
            .get_or_compile_with(&request(), VERSION, failing)
            .is_err()
    );
    assert!(files(&dir).is_empty());
    let (_, o) = cache
        .get_or_compile_with(&request(), VERSION, fake_compile)
        .unwrap();
    assert_eq!(o, CacheOutcome::Compiled);
}

#[test]
fn unwritable_folder_is_counted_not_fatal() {
    let dir = scratch_dir("cache-unwritable");
    let blocker = dir.join("not-a-dir");
    std::fs::write(&blocker, b"file").unwrap();
    let cache = ModuleCache::with_dir(blocker.join("modules"));
    let (m, o) = cache
        .get_or_compile_with(&request(), VERSION, fake_compile)
        .unwrap();
    assert_eq!(o, CacheOutcome::Compiled);
    assert!(!m.cubin.is_empty());
    let s = cache.stats();
    assert_eq!(s.write_errors, 1);
    assert!(s.last_write_error.unwrap().contains("modules"));
}

#[test]
fn concurrent_writers_leave_one_valid_entry() {
    let dir = scratch_dir("cache-concurrent");
    let req = request();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                let cache = ModuleCache::with_dir(&*dir);
                cache
                    .get_or_compile_with(&req, VERSION, fake_compile)
                    .unwrap();
            });
        }
    });
    assert_eq!(files(&dir).len(), 1, "{:?}", files(&dir));
    let (_, o) = ModuleCache::with_dir(&*dir)
        .get_or_compile_with(&req, VERSION, fake_compile)
        .unwrap();
    assert_eq!(o, CacheOutcome::DiskHit);
}

#[test]
fn memory_only_cache_writes_nothing() {
    let cache = ModuleCache::in_memory();
    assert!(cache.dir().is_none());
    let (_, o1) = cache
        .get_or_compile_with(&request(), VERSION, fake_compile)
        .unwrap();
    let (_, o2) = cache
        .get_or_compile_with(&request(), VERSION, fake_compile)
        .unwrap();
    assert_eq!((o1, o2), (CacheOutcome::Compiled, CacheOutcome::MemoryHit));
}
