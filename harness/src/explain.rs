//! `--explain PAGE.html` on the GEMM examples: the `tessel explain` page of the configuration
//! an example runs (the tuned winner for `v4_tuned`), written before the GPU is touched.
//!
//! The page is made by the facade crate (`tessel::explain`), which depends on this crate's
//! dependencies but not the other way round; an example installs it once with [`install`].

use std::path::Path;
use std::sync::OnceLock;

use dsl_core::def::KernelDef;

/// Writes the page of `def` at the tunables `config` to `out`; returns a one-line summary.
pub type ExplainHook = fn(&KernelDef, &[(String, i64)], &Path) -> Result<String, String>;

static HOOK: OnceLock<ExplainHook> = OnceLock::new();

/// Makes `--explain` available in this process.
pub fn install(hook: ExplainHook) {
    let _ = HOOK.set(hook);
}

/// Writes the page, or says why not (no page maker installed, or the maker's error).
pub fn write(def: &KernelDef, config: &[(String, i64)], out: &Path) -> Result<String, String> {
    let hook = HOOK
        .get()
        .ok_or("--explain is not available in this program (no page maker installed)")?;
    hook(def, config, out)
}
