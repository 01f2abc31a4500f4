//! The accumulator element numbering of `codegen-cuda/cuda/lowering/frag_elem.cuh` (the
//! (row, column) of each element an `apply` or whole-fragment update visits) runs on the host,
//! no GPU: `tests/frag_host/layout.cpp` checks it for every thread of a warp (mma.sync m16n8
//! tiles, 16- and 8-row) and of a warpgroup (WGMMA m64nN) against the PTX ISA's accumulator
//! fragment tables, that the threads cover the tile exactly once, that row fragments hold each
//! row once per quad lane, that the row reductions pick each row's elements, and the f16
//! element proxy.
//!
//! Needs a C++17 host compiler (`c++`, or `$CXX`) with `_Float16`; without one the test prints
//! `SKIPPED` and passes, except under `CI=true`, where it fails.

mod common;

#[test]
fn accumulator_elements_follow_the_isa_fragment_tables() {
    let root = common::root();
    let dir = std::env::temp_dir().join(format!("tessel-frag-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Both sections, in the order the writer emits them.
    let header = dir.join("frag_host.h");
    let text = ["frag_elem.cuh", "frag_rows.cuh"]
        .map(|f| std::fs::read_to_string(root.join("codegen-cuda/cuda/lowering").join(f)).unwrap())
        .join("\n");
    std::fs::write(&header, text).unwrap();
    let Some((ok, text)) = common::host_cpp_run(
        "TSL_FRAG_ELEM_HOST",
        &header,
        &root.join("tests/frag_host/layout.cpp"),
        &dir,
    ) else {
        return;
    };
    assert!(ok, "the layout disagrees:\n{text}");
    assert!(text.contains("0 failures"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.ends_with(": ok")).count(),
        12,
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
