//! Golden CUDA of the language constructs that lower: every `dsl-core/tests/lowered/*.co`
//! (each a small kernel of one construct of today's Croqtile), in its launch form, lowered at
//! its defaults and emitted with the default instance, must equal the committed
//! `tests/data/lang_cu/<name>.cu`. Their IR goldens are `dsl-core/tests/lowered/*.ir`
//! (`lowered_lang.rs`); their NVRTC compiles and SASS checks are `nvrtc_lowered.rs`'s.
//!
//! Refresh after an intended change with `TESSEL_BLESS=1 cargo test --test lang_golden_cu`,
//! then review the diff of `tests/data/lang_cu/` like any code change.

mod common;

use common::{golden, lower_for, read, root};
use dsl_core::check::Config;

fn lowered_names() -> Vec<String> {
    let dir = root().join("dsl-core/tests/lowered");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The emitted CUDA of `dsl-core/tests/lowered/<name>.co` (launch form, defaults).
fn emit(name: &str) -> String {
    let rel = format!("dsl-core/tests/lowered/{name}.co");
    let m = dsl_core::lower::launch_form(
        dsl_core::parse::parse_str(&read(&rel), Some(&rel))
            .unwrap_or_else(|d| panic!("{rel}:\n{d}"))
            .module,
    );
    let cfg = Config::defaults(&m);
    let k = lower_for(&m, &cfg, &rel);
    let inst = common::instance(&k, &cfg);
    codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &k,
        source: &rel,
        instance: Some(inst),
    })
}

#[test]
fn every_lowered_construct_matches_its_golden_cu() {
    let names = lowered_names();
    assert!(names.len() >= 10, "{names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let cu = emit(name);
        assert!(cu.contains("// dsl:"), "{name}: no `// dsl:LINE` comments");
        assert_eq!(cu, emit(name), "{name}: two emissions differ");
        if let Err(e) = golden(&format!("tests/data/lang_cu/{name}.cu"), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_golden_without_a_construct() {
    let names = lowered_names();
    let dir = root().join("tests/data/lang_cu");
    for e in std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
    {
        let p = e.path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            p.extension().is_some_and(|x| x == "cu") && names.contains(&stem),
            "{} has no dsl-core/tests/lowered/{stem}.co: delete it",
            p.display()
        );
    }
}
