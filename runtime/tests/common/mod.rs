//! Helpers shared by the integration tests: scratch folders and the NVRTC/nvdisasm gate.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tessel_runtime::locate;

/// A fresh, empty folder unique to this process and `tag`, removed on drop.
pub struct ScratchDir(PathBuf);

impl std::ops::Deref for ScratchDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for ScratchDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Creates a [`ScratchDir`].
pub fn scratch_dir(tag: &str) -> ScratchDir {
    let dir = std::env::temp_dir().join(format!("tessel-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    ScratchDir(dir)
}

/// True when NVRTC is usable. Otherwise fails the test under `CI=true` /
/// `TESSEL_REQUIRE_NVRTC=1`, else prints a loud SKIPPED line and returns false.
pub fn nvrtc_available(test: &str) -> bool {
    match locate::ensure_nvrtc() {
        Ok(_) => true,
        Err(e) if locate::nvrtc_required() => {
            panic!("{test}: {e} (required: CI=true or TESSEL_REQUIRE_NVRTC=1)")
        }
        Err(e) => {
            eprintln!("SKIPPED: NVRTC not found ({test}): {e}");
            false
        }
    }
}

/// Same gate for NVRTC plus nvdisasm.
pub fn nvrtc_and_nvdisasm_available(test: &str) -> bool {
    if !nvrtc_available(test) {
        return false;
    }
    match locate::find_nvdisasm() {
        Ok(_) => true,
        Err(e) if locate::nvrtc_required() => {
            panic!("{test}: {e} (required: CI=true or TESSEL_REQUIRE_NVRTC=1)")
        }
        Err(e) => {
            eprintln!("SKIPPED: nvdisasm not found ({test}): {e}");
            false
        }
    }
}
