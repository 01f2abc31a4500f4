//! Where the examples write their outputs (instantiated `.cu`, tuning exports): under the
//! Cargo target directory, never relative to the working directory.

use std::path::PathBuf;

/// `$CARGO_TARGET_DIR` when set; else the target directory this example binary was built in
/// (`<target>/<profile>/examples/<name>`); else `target` in the working directory.
pub fn target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let exe = std::env::current_exe().ok();
    let built_in = exe.as_deref().and_then(|e| {
        let examples = e.parent()?;
        (examples.file_name()? == "examples").then_some(())?;
        Some(examples.parent()?.parent()?.to_path_buf())
    });
    built_in.unwrap_or_else(|| PathBuf::from("target"))
}

/// `<target>/tessel/<example>`.
pub fn example_dir(example: &str) -> PathBuf {
    target_dir().join("tessel").join(example)
}
