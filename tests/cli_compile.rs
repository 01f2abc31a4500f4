//! `tessel compile` on every kernel in `kernels/`: NVRTC → cubin, the ptxas report and the
//! SASS summary, through the executable as a user runs it (fails under `CI=true` without NVRTC
//! and nvdisasm).

mod common;

use std::process::Command;

use dsl_core::check::Config;
use dsl_core::lower::KernelPath;

#[test]
fn tessel_compile_reports_every_kernel() {
    if !common::nvrtc_and_nvdisasm_available("tessel_compile_reports_every_kernel") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("tessel-cli-compile-{}", std::process::id()));
    let mut failures = Vec::new();
    for name in common::kernel_files() {
        let m = common::parse_kernel(&name);
        let path = common::lower_for(&m, &Config::defaults(&m), &name).path;
        let cubin = dir.join(format!("{name}.cubin"));
        let o = Command::new(env!("CARGO_BIN_EXE_tessel"))
            .args(["compile", &format!("kernels/{name}.co"), "-o"])
            .arg(&cubin)
            .current_dir(common::root())
            .output()
            .expect("run tessel");
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        if o.status.code() != Some(0) {
            failures.push(format!("{name}: exit {:?}\n{err}", o.status.code()));
            continue;
        }
        let size = std::fs::metadata(&cubin).map(|m| m.len()).unwrap_or(0);
        // An ELF file: the cubin was written.
        let elf = std::fs::read(&cubin).is_ok_and(|b| b.starts_with(b"\x7fELF"));
        // 8-bit kernels issue QGMMA (f8) or IGMMA (s8) instead of HGMMA; warp-level `mma`s
        // fed by TMA issue HMMA (mma.sync).
        let lowered = common::lower_for(&m, &Config::defaults(&m), &name);
        let warp_mma = lowered.body.iter().any(|l| {
            l.op.calls()
                .iter()
                .any(|c| dsl_core::lower::WARP_MMA_HELPERS.contains(&c.name.as_str()))
        });
        let gmma = if warp_mma {
            "HMMA"
        } else if name.contains("fp8") {
            "QGMMA"
        } else if name.contains("s8") {
            "IGMMA"
        } else {
            "HGMMA"
        };
        // Operand tiles arrive by TMA, or through the threads' own swizzled shared stores when
        // `dma.copy.swiz` futures fill them (`lower/dma_swiz.rs`).
        let by_threads = lowered.body.iter().any(|l| {
            l.op.calls()
                .iter()
                .any(|c| c.name == dsl_core::lower::SWIZZLED_G2S)
        });
        let wants: &[&str] = match path {
            KernelPath::Hopper if by_threads => &[gmma, "STS"],
            KernelPath::Hopper => &[gmma, "UTMALDG"],
            KernelPath::Simt => &[],
        };
        let mut missing: Vec<String> = wants
            .iter()
            .filter(|w| !out.contains(&format!(" {w} ")))
            .map(|w| w.to_string())
            .collect();
        // Every kernel multiply-adds somewhere: on tensor cores or in FMA units.
        if !out.contains("  tensor core ") && !out.contains("  fp arithmetic ") {
            missing.push("a tensor core or fp arithmetic class".into());
        }
        for line in [
            "arch          sm_90a",
            "registers     ",
            "shared memory ",
            "spills        ",
            "sass          ",
            &format!("({size} bytes)"),
        ] {
            if !out.contains(line) {
                missing.push(format!("`{line}`"));
            }
        }
        if !elf || !missing.is_empty() {
            failures.push(format!("{name}: missing {missing:?} (ELF {elf}):\n{out}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
