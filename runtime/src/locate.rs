//! Finding the NVIDIA libraries and tools that tessel loads at run time, without panicking.
//!
//! cudarc (feature `dynamic-loading`) `dlopen`s libraries *by name* (`libnvrtc.so`,
//! `libnvrtc.so.13`, …) on first use and **panics** when none loads. So every entry point of
//! this crate probes first and returns a typed error instead:
//!
//! * **NVRTC** ([`ensure_nvrtc`]), searched in this order:
//!   1. `$TESSEL_NVRTC_DIR` (a folder holding `libnvrtc.so.13`);
//!   2. the system loader (`LD_LIBRARY_PATH`, ldconfig), i.e. whatever cudarc would find;
//!   3. the folder that `tessel setup-nvrtc` (or the repository's `tools/setup-nvrtc.sh`)
//!      installs the NVRTC wheel into, [`pip_cache_root`]: `$TESSEL_NVRTC_HOME`, default
//!      `<platform cache dir>/tessel/nvrtc-13.0.88` (`$XDG_CACHE_HOME` or `~/.cache` on Linux),
//!      then `nvidia/cu13/lib` below it.
//!
//!   A library found in a folder is preloaded by full path (builtins first) and kept loaded for
//!   the life of the process. glibc's `dlopen("libnvrtc.so.13")` then matches the already
//!   loaded object by its SONAME, so cudarc's by-name lookup succeeds without `LD_LIBRARY_PATH`.
//! * **nvdisasm** ([`find_nvdisasm`]): `$TESSEL_NVDISASM`, `bin/` beside `$TESSEL_NVRTC_DIR`,
//!   the pip cache, `PATH`, `/usr/local/cuda/bin`.
//! * **libcuda** ([`probe_libcuda`]) and **libcublas** ([`probe_cublas`]): the system loader
//!   only (the driver comes with the GPU; cuBLAS with a CUDA toolkit: set `LD_LIBRARY_PATH`),
//!   plus `$TESSEL_CUBLAS_DIR` for cuBLAS.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The NVRTC release `tessel setup-nvrtc` installs (PyPI wheel `nvidia-cuda-nvrtc`).
pub const NVRTC_PIP_VERSION: &str = "13.0.88";

/// The nvdisasm release `tessel setup-nvrtc` installs (PyPI wheel `nvidia-cuda-nvdisasm`; its
/// wheels start at 13.2, and a newer nvdisasm reads older cubins).
pub const NVDISASM_PIP_VERSION: &str = "13.2.86";

/// What to do about a missing NVRTC or nvdisasm, for the user of any crate that depends on
/// tessel: the `tessel` command installs both, or the variables point at an existing install.
pub const INSTALL_HINT: &str = "install NVRTC and nvdisasm with `tessel setup-nvrtc` (the `tessel` \
command: `cargo install tessel-dsl`; it runs `pip install nvidia-cuda-nvrtc nvidia-cuda-nvdisasm` \
into the cache folder, where tessel finds them), or point TESSEL_NVRTC_DIR at a folder holding \
libnvrtc.so.13 and TESSEL_NVDISASM at an nvdisasm executable";

/// Errors from locating libraries and tools.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocateError {
    /// No loadable NVRTC anywhere.
    #[error("NVRTC not found; {INSTALL_HINT} (searched: {searched})")]
    NvrtcNotFound {
        /// Every place looked at, in order.
        searched: String,
    },
    /// A library file exists but `dlopen` refused it (wrong architecture, missing dependency…).
    #[error("{library} found at {path} but it could not be loaded: {reason}")]
    LoadFailed {
        /// Which library (`NVRTC`, `cuBLAS`).
        library: &'static str,
        /// The file.
        path: PathBuf,
        /// The loader's message.
        reason: String,
    },
    /// No nvdisasm executable.
    #[error("nvdisasm not found; {INSTALL_HINT} (searched: {searched})")]
    NvdisasmNotFound {
        /// Every place looked at, in order.
        searched: String,
    },
    /// No NVIDIA driver library: there is no usable GPU on this machine.
    #[error("libcuda (the NVIDIA driver library) not found: this machine has no usable GPU driver")]
    LibcudaNotFound,
    /// No cuBLAS library.
    #[error(
        "libcublas not found: put a CUDA 13 toolkit's lib folder on LD_LIBRARY_PATH or set TESSEL_CUBLAS_DIR"
    )]
    CublasNotFound,
}

/// Where the NVRTC in use came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NvrtcSource {
    /// Preloaded from `$TESSEL_NVRTC_DIR`.
    EnvDir(PathBuf),
    /// Found by the system loader (`LD_LIBRARY_PATH`, ldconfig).
    SystemLoader,
    /// Preloaded from the folder `tessel setup-nvrtc` installs into ([`pip_cache_root`]).
    PipCache(PathBuf),
}

/// True when tests must fail (not skip) on a missing NVRTC or nvdisasm: `CI=true` or
/// `TESSEL_REQUIRE_NVRTC=1`.
pub fn nvrtc_required() -> bool {
    env_is("CI", "true") || env_is("TESSEL_REQUIRE_NVRTC", "1")
}

fn env_is(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v.eq_ignore_ascii_case(value))
}

/// The folder `tessel setup-nvrtc` installs the NVRTC and nvdisasm wheels into:
/// `$TESSEL_NVRTC_HOME`, else `<platform cache dir>/tessel/nvrtc-13.0.88` (the `dirs` crate:
/// `$XDG_CACHE_HOME` or `$HOME/.cache` on Linux). `None` when neither is known.
pub fn pip_cache_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TESSEL_NVRTC_HOME") {
        return Some(PathBuf::from(dir));
    }
    Some(
        dirs::cache_dir()?
            .join("tessel")
            .join(format!("nvrtc-{NVRTC_PIP_VERSION}")),
    )
}

/// The NVRTC library folder inside an install root (the wheel's layout).
pub fn pip_lib_dir(root: &Path) -> PathBuf {
    root.join("nvidia/cu13/lib")
}

/// The nvdisasm executable inside an install root (the wheel's layout).
pub fn pip_nvdisasm(root: &Path) -> PathBuf {
    root.join("nvidia/cu13/bin/nvdisasm")
}

/// Libraries preloaded by full path; never unloaded (cudarc keeps raw symbols into them).
fn keep_loaded() -> &'static Mutex<Vec<libloading::Library>> {
    static KEPT: OnceLock<Mutex<Vec<libloading::Library>>> = OnceLock::new();
    KEPT.get_or_init(|| Mutex::new(Vec::new()))
}

/// The NVRTC library file in `dir`, if any.
pub fn nvrtc_file_in(dir: &Path) -> Option<PathBuf> {
    ["libnvrtc.so.13", "libnvrtc.so"]
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
}

/// Preloads NVRTC (and its builtins library) from `dir` by full path.
fn preload_nvrtc_from(dir: &Path) -> Result<bool, LocateError> {
    let Some(lib) = nvrtc_file_in(dir) else {
        return Ok(false);
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("libnvrtc-builtins.so"))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.push(lib);
    let mut kept = keep_loaded().lock().unwrap_or_else(|e| e.into_inner());
    for path in files {
        // SAFETY: loading NVIDIA's NVRTC runs only its ELF initialisers, which have no
        // preconditions on our side.
        let loaded = unsafe { libloading::Library::new(&path) };
        match loaded {
            Ok(l) => kept.push(l),
            Err(e) => {
                return Err(LocateError::LoadFailed {
                    library: "NVRTC",
                    path,
                    reason: e.to_string(),
                });
            }
        }
    }
    Ok(true)
}

/// Makes NVRTC loadable for cudarc, once per process; see the module doc for the search order.
pub fn ensure_nvrtc() -> Result<NvrtcSource, LocateError> {
    static FOUND: OnceLock<Result<NvrtcSource, LocateError>> = OnceLock::new();
    FOUND.get_or_init(locate_nvrtc).clone()
}

fn locate_nvrtc() -> Result<NvrtcSource, LocateError> {
    let mut searched = Vec::new();
    if let Some(dir) = std::env::var_os("TESSEL_NVRTC_DIR").map(PathBuf::from) {
        searched.push(format!("$TESSEL_NVRTC_DIR={}", dir.display()));
        if preload_nvrtc_from(&dir)? && system_has_nvrtc() {
            return Ok(NvrtcSource::EnvDir(dir));
        }
    } else {
        searched.push("$TESSEL_NVRTC_DIR (unset)".to_string());
    }
    searched.push("system loader (LD_LIBRARY_PATH, ldconfig)".to_string());
    if system_has_nvrtc() {
        return Ok(NvrtcSource::SystemLoader);
    }
    if let Some(root) = pip_cache_root() {
        let dir = pip_lib_dir(&root);
        searched.push(dir.display().to_string());
        if preload_nvrtc_from(&dir)? && system_has_nvrtc() {
            return Ok(NvrtcSource::PipCache(dir));
        }
    }
    Err(LocateError::NvrtcNotFound {
        searched: searched.join(", "),
    })
}

fn system_has_nvrtc() -> bool {
    // SAFETY: only dlopen()s candidate names; no symbol is called.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Checks that the NVIDIA driver library can be loaded (cudarc would panic otherwise).
pub fn probe_libcuda() -> Result<(), LocateError> {
    // SAFETY: only dlopen()s candidate names; no symbol is called.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(LocateError::LibcudaNotFound)
    }
}

/// Checks that cuBLAS can be loaded, preloading it from `$TESSEL_CUBLAS_DIR` when set.
pub fn probe_cublas() -> Result<(), LocateError> {
    static FOUND: OnceLock<Result<(), LocateError>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            if let Some(dir) = std::env::var_os("TESSEL_CUBLAS_DIR").map(PathBuf::from) {
                let mut kept = keep_loaded().lock().unwrap_or_else(|e| e.into_inner());
                for name in ["libcublasLt.so.13", "libcublas.so.13"] {
                    let path = dir.join(name);
                    if !path.is_file() {
                        continue;
                    }
                    // SAFETY: as for NVRTC, only the library's initialisers run.
                    match unsafe { libloading::Library::new(&path) } {
                        Ok(l) => kept.push(l),
                        Err(e) => {
                            return Err(LocateError::LoadFailed {
                                library: "cuBLAS",
                                path,
                                reason: e.to_string(),
                            });
                        }
                    }
                }
            }
            // SAFETY: only dlopen()s candidate names.
            if unsafe { cudarc::cublas::sys::is_culib_present() } {
                Ok(())
            } else {
                Err(LocateError::CublasNotFound)
            }
        })
        .clone()
}

/// Finds an `nvdisasm` executable; see the module doc for the order.
pub fn find_nvdisasm() -> Result<PathBuf, LocateError> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("TESSEL_NVDISASM") {
        candidates.push(PathBuf::from(p));
    }
    if let Some(dir) = std::env::var_os("TESSEL_NVRTC_DIR") {
        candidates.push(PathBuf::from(dir).join("../bin/nvdisasm"));
    }
    if let Some(root) = pip_cache_root() {
        candidates.push(pip_nvdisasm(&root));
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("nvdisasm")));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/nvdisasm"));
    find_executable(&candidates).ok_or_else(|| LocateError::NvdisasmNotFound {
        searched: candidates
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// The first candidate that is an executable file.
pub fn find_executable(candidates: &[PathBuf]) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    candidates
        .iter()
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tessel-locate-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn empty_folder_has_no_nvrtc() {
        let dir = scratch("empty");
        assert_eq!(nvrtc_file_in(&dir), None);
        assert_eq!(preload_nvrtc_from(&dir), Ok(false));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_that_is_not_a_library_is_a_load_error() {
        let dir = scratch("bogus");
        std::fs::write(dir.join("libnvrtc.so.13"), b"not an ELF file").unwrap();
        match preload_nvrtc_from(&dir) {
            Err(LocateError::LoadFailed { library, path, .. }) => {
                assert_eq!(library, "NVRTC");
                assert!(path.ends_with("libnvrtc.so.13"));
            }
            other => panic!("expected LoadFailed, got {other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn find_executable_skips_non_executables() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("exe");
        let plain = dir.join("plain");
        let exe = dir.join("exe");
        std::fs::write(&plain, b"#!/bin/sh\n").unwrap();
        std::fs::write(&exe, b"#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
        let found = find_executable(&[dir.join("missing"), plain, exe.clone()]);
        assert_eq!(found, Some(exe));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn not_found_message_names_the_fix() {
        let e = LocateError::NvrtcNotFound {
            searched: "x".into(),
        };
        let msg = e.to_string();
        assert!(
            msg.starts_with(
                "NVRTC not found; install NVRTC and nvdisasm with `tessel setup-nvrtc`"
            )
        );
        assert!(msg.contains("cargo install tessel-dsl"), "{msg}");
        assert!(msg.contains("TESSEL_NVRTC_DIR"), "{msg}");
        assert!(msg.ends_with("(searched: x)"), "{msg}");
        let e = LocateError::NvdisasmNotFound {
            searched: "y".into(),
        };
        assert!(e.to_string().contains("`tessel setup-nvrtc`"));
    }
}
