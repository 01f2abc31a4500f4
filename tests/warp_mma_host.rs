//! The warp-level MMA helpers (`codegen-cuda/cuda/lowering/warp_mma.cuh`, and
//! `warp_swz.cuh`'s loads of swizzled tiles) run on the host, no GPU:
//! `tests/warp_host/emulate.cpp` models `ldmatrix` and `mma.sync` from the PTX ISA's
//! fragment tables and runs one warp through the helpers — ldmatrix loads (both major orders,
//! odd n8 counts; swizzled 32-, 64- and 128-byte rows as a TMA load writes them), element gathers from shared and global tensors with ragged edges, every
//! instruction family (f16 and bf16 with f32 or f16 accumulators, tf32, s8 → s32) and the
//! bounds-checked stores — against a reference product. The header's inline-PTX functions
//! (the `tsl_ldsm_*` wrappers and the `tsl_mma_m16n8` instructions) are left out; everything
//! else is the emitted text.
//!
//! Needs a C++17 host compiler (`c++`, or `$CXX`) with `_Float16`; without one the test prints
//! `SKIPPED` and passes, except under `CI=true`, where it fails.

mod common;

/// `text` without the functions that hold inline PTX of `ldmatrix` / `mma.sync` (from their
/// first line to their closing brace in column 0).
fn strip_ptx(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let starts = (l.starts_with("template") || l.starts_with("TSL_DEVICE"))
            && (l.contains("tsl_ldsm_")
                || l.contains("tsl_mma_m16n8")
                || l.contains("tsl_mma_m8n8"));
        if starts && l.trim_end().ends_with(';') {
            // A declaration only.
            i += 1;
            continue;
        }
        if starts {
            let end = (i..lines.len())
                .find(|&j| lines[j] == "}")
                .unwrap_or(lines.len() - 1);
            i = end + 1;
            continue;
        }
        out.push(l);
        i += 1;
    }
    out.join("\n")
}

#[test]
fn warp_mma_helpers_compute_the_product_in_an_emulated_warp() {
    let root = common::root();
    let header = std::fs::read_to_string(root.join("codegen-cuda/cuda/lowering/warp_mma.cuh"))
        .expect("read warp_mma.cuh");
    // The swizzled loads build on warp_mma.cuh's ldmatrix wrappers (no PTX of their own).
    let swz = std::fs::read_to_string(root.join("codegen-cuda/cuda/lowering/warp_swz.cuh"))
        .expect("read warp_swz.cuh");
    let stripped = format!("{}\n{}", strip_ptx(&header), strip_ptx(&swz));
    assert!(
        !stripped.contains("asm("),
        "inline PTX left after stripping:\n{stripped}"
    );
    let dir = std::env::temp_dir().join(format!("tessel-warp-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h = dir.join("warp_mma_host.h");
    std::fs::write(&h, stripped).unwrap();
    let Some((ok, text)) = common::host_cpp_run(
        "TSL_WARP_MMA_HOST",
        &h,
        &root.join("tests/warp_host/emulate.cpp"),
        &dir,
    ) else {
        return;
    };
    assert!(ok, "the emulated warp disagrees:\n{text}");
    assert!(text.contains("0 failures"), "{text}");
    // Every case ran.
    assert_eq!(
        text.lines().filter(|l| l.ends_with(": ok")).count(),
        45,
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The stripping keeps the helpers and drops only the PTX wrappers.
#[test]
fn stripping_drops_only_the_ptx_wrappers() {
    let text = "TSL_DEVICE void tsl_ldsm_x2(tsl_u32 &r0) {\n  asm volatile(\"x\");\n}\n\
                template <int N> TSL_DEVICE void tsl_mma_fill(float *acc, float v) {\n  acc[0] = v;\n}\n\
                template <int KIND> TSL_DEVICE void tsl_mma_m16n8(float *d, const tsl_u32 *a, const tsl_u32 *b);\n";
    let s = strip_ptx(text);
    assert!(!s.contains("tsl_ldsm_x2"), "{s}");
    assert!(!s.contains("tsl_mma_m16n8"), "{s}");
    assert!(s.contains("tsl_mma_fill"), "{s}");
}
