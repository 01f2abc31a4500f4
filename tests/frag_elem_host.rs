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

use std::process::Command;

#[test]
fn accumulator_elements_follow_the_isa_fragment_tables() {
    let root = common::root();
    let dir = std::env::temp_dir().join(format!("tessel-frag-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("layout");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    // Both sections, in the order the writer emits them.
    let header = dir.join("frag_host.h");
    let text = ["frag_elem.cuh", "frag_rows.cuh"]
        .map(|f| std::fs::read_to_string(root.join("codegen-cuda/cuda/lowering").join(f)).unwrap())
        .join("\n");
    std::fs::write(&header, text).unwrap();
    let out = Command::new(&cxx)
        .args(["-std=c++17", "-O1", "-w"])
        .arg(format!("-DTSL_FRAG_ELEM_HOST=\"{}\"", header.display()))
        .arg(root.join("tests/frag_host/layout.cpp"))
        .arg("-o")
        .arg(&exe)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("no host C++ compiler `{cxx}` (required under CI=true): {e}")
        }
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: no host C++ compiler `{cxx}`: {e}"
            );
            return;
        }
    };
    assert!(
        out.status.success(),
        "{cxx} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("run the layout model");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "the layout disagrees:\n{text}");
    assert!(text.contains("0 failures"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.ends_with(": ok")).count(),
        12,
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
