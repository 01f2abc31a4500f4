//! Golden CUDA: every `kernels/*.co`, parsed, checked and lowered at its defaults and emitted
//! with the default instance, must equal the committed `tests/golden/cu/<name>.cu`.
//!
//! Refresh after an intended change with `TESSEL_BLESS=1 cargo test --test golden_cu`, then
//! review the diff of `tests/golden/cu/` like any code change.

mod common;

use common::{emit_kernel, golden, kernel_files, parse_kernel};
use dsl_core::check::Config;

#[test]
fn every_kernel_matches_its_golden_cu() {
    let mut failures = Vec::new();
    for name in kernel_files() {
        let cfg = Config::defaults(&parse_kernel(&name));
        let (_, cu, _) = emit_kernel(&name, &cfg);
        if let Err(e) = golden(&format!("tests/golden/cu/{name}.cu"), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_golden_without_a_kernel() {
    let kernels = kernel_files();
    common::assert_no_stray_goldens("tests/golden/cu", &kernels, "kernels/ kernel");
}

/// The emitted text is a pure function of the kernel: emitting twice gives the same bytes, and
/// the facts the golden files rely on are in it.
#[test]
fn emission_is_deterministic_and_self_describing() {
    for name in kernel_files() {
        let cfg = Config::defaults(&parse_kernel(&name));
        let (k, a, expr) = emit_kernel(&name, &cfg);
        let (_, b, _) = emit_kernel(&name, &cfg);
        assert_eq!(a, b, "{name}: two emissions differ");
        assert!(
            a.contains(&format!("kernels/{name}.co")),
            "{name}: no source"
        );
        assert!(a.contains("// dsl:"), "{name}: no `// dsl:LINE` comments");
        if !k.tunables.is_empty() {
            assert!(
                a.contains(&format!("template __global__ void {expr}(")),
                "{name}: the default instance `{expr}` is not instantiated"
            );
            let first = &k.tunables[0].name;
            assert!(
                a.contains(&format!("template <int {first}")),
                "{name}: not a template over its tunables"
            );
        }
    }
}
