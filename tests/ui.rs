//! Compile-fail tests of `gemm_kernel!`: every input must fail to compile with exactly the
//! diagnostic recorded in its `.stderr` file (one tessel error, code in brackets, caret under
//! the DSL token, help text).
//!
//! * `tests/ui/*.rs`: one checker or parser error each (the first line names the code; the
//!   dsl-core test `check_ui_inputs` checks the same inputs without the macro);
//! * `tests/ui_macro/*.rs`: the macro's own paths: `.co` files that fail to parse or to check
//!   (file mode: the message carries the file's `line:col`), an empty invocation, and a header
//!   parse error in macro mode.
//!
//! Regenerate after an intended change with `TRYBUILD=overwrite cargo test --test ui`, then
//! read every changed `.stderr`.
//!
//! File mode resolves `file = "…"` against `CARGO_MANIFEST_DIR`, which for trybuild's generated
//! crate is `<target>/tests/trybuild/<package name>`, not this repository. So the `.co` inputs under
//! `tests/ui_macro/data/` are staged there, at the same relative path, before compiling.

use std::path::{Path, PathBuf};

/// Cargo's target directory, as trybuild finds it (`cargo metadata`).
fn target_dir() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(out.status.success(), "cargo metadata failed: {out:?}");
    let json = String::from_utf8(out.stdout).expect("cargo metadata prints UTF-8");
    let key = "\"target_directory\":\"";
    let start = json.find(key).expect("target_directory in cargo metadata") + key.len();
    let end = start + json[start..].find('"').expect("closing quote");
    PathBuf::from(json[start..end].replace("\\\\", "\\"))
}

/// Copies `tests/ui_macro/data/*.co` into trybuild's crate at the same relative path.
fn stage_file_mode_inputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rel = Path::new("tests/ui_macro/data");
    let dest = target_dir()
        .join("tests/trybuild")
        .join(env!("CARGO_PKG_NAME"))
        .join(rel);
    std::fs::create_dir_all(&dest).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
    for entry in std::fs::read_dir(root.join(rel)).expect("tests/ui_macro/data") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|x| x == "co") {
            let to = dest.join(path.file_name().unwrap());
            std::fs::copy(&path, &to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
        }
    }
}

#[test]
fn ui() {
    stage_file_mode_inputs();
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.compile_fail("tests/ui_macro/*.rs");
}
