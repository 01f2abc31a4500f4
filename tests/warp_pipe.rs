//! `[[frag_prefetch]]`: the warp-level `mma` K loop with its fragments loaded one k-step ahead
//! (`kernels/v2_warp_pipe.co`, `dsl-core/src/lower/warp_pipe.rs`), no GPU needed:
//!
//! - the emitted loop has the sm_80 multistage shape: the first tile's wait, copies and first
//!   fragments before the loop; per k-step, the next tile's wait and copies before the last
//!   step, the next step's fragments into the other slot of a register double buffer, then the
//!   step's `mma.sync`s from its own slot;
//! - the kernel compiles with NVRTC for sm_80 and sm_90a at its defaults and across its domain
//!   (64 × 32, 32 × 64 and 64 × 64 warp tiles, 32- and 64-wide K tiles, two to four stages, one
//!   to three blocks per SM) to HMMA, LDSM and LDGSTS with no local memory and no spill, and
//!   every configuration the kernel's register `require` admits fits ptxas's allocation.
//!
//! Without NVRTC/nvdisasm the compile tests print `SKIPPED` and pass, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where they fail.

mod common;

use common::{emit_kernel, nvrtc_and_nvdisasm_available, parse_kernel};
use dsl_core::check::Config;
use tessel_runtime::nvrtc::Arch;

const KERNEL: &str = "v2_warp_pipe";

/// The lines of the kernel body from the first tile's block to the end of the even loop.
fn main_loop(cu: &str) -> Vec<String> {
    let from = cu
        .find("the first tile: its wait and copies")
        .expect("the first tile's block");
    let to = cu[from..].find("} else {").expect("the versioned loop") + from;
    cu[from..to]
        .lines()
        .map(|l| l.split("  //").next().unwrap_or(l).trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with("static_assert"))
        .collect()
}

#[test]
fn the_loop_loads_each_steps_fragments_one_step_ahead() {
    let m = parse_kernel(KERNEL);
    let (_, cu, _) = emit_kernel(KERNEL, &Config::defaults(&m));
    let got = main_loop(&cu);
    let ops: Vec<&str> = got
        .iter()
        .map(|l| {
            let l = l.as_str();
            match () {
                _ if l.starts_with("tsl_cp_async_wait") => "wait",
                _ if l.starts_with("__syncthreads") => "barrier",
                _ if l.starts_with("tsl_copy_g2s_async") => "copy",
                _ if l.starts_with("tsl_mma_load_a<") => "load a",
                _ if l.starts_with("tsl_mma_load_b<") => "load b",
                _ if l.starts_with("tsl_warp_mma<") => "mma",
                _ if l.starts_with("for (int kt") => "for kt",
                _ if l.starts_with("for (int kk") => "for kk",
                _ if l.starts_with("if (kk == (BK / 16) - 1 && kt + 1 < tsl_cdiv(K, BK))") => {
                    "if last step"
                }
                _ if l == "}" => "}",
                _ => "",
            }
        })
        .filter(|o| !o.is_empty())
        .collect();
    let want = [
        // The first tile: its wait, copies, first fragments.
        "wait",
        "barrier",
        "copy",
        "copy",
        "load a",
        "load b",
        "}",
        // Per k-step: the next tile's head before the last step, the next fragments, the mmas.
        "if last step",
        "wait",
        "barrier",
        "copy",
        "copy",
        "}",
        "}",
        "for kt",
        "for kk",
    ];
    // `for kt` and `for kk` open after the `if (tsl_even)` line, which the filter drops: the
    // order within the loop is what matters.
    let start = ops.iter().position(|o| *o == "for kt").expect("the K loop");
    assert_eq!(
        &ops[..7],
        &want[..7],
        "the first tile's block:\n{}",
        got.join("\n")
    );
    assert_eq!(
        &ops[start..],
        &[
            "for kt",
            "for kk",
            "if last step",
            "wait",
            "barrier",
            "copy",
            "copy",
            "}",
            "}",
            "load a",
            "load b",
            "}",
            "mma",
            "}",
            "}",
        ],
        "the K loop:\n{}",
        got.join("\n")
    );
    // The slots: loads into the next step's parity (inside the block that binds `kk` to the
    // next step), the mma from its own.
    let text = got.join("\n");
    for needle in [
        "tsl_u32 tsl_ma_buf[2][WM / 16 * 4];",
        "tsl_u32 tsl_mb_buf[2][WN / 8 * 2];",
        "const int tsl_next_kt = kk + 1 < (BK / 16) ? kt : (kt + 1 < tsl_cdiv(K, BK) ? kt + 1 : kt);",
        "const int kk = tsl_next_kk;",
        "(tsl_ma_buf[kk % 2], (lhs_s + (kt % STAGES) * (BM * (BK + PAD))) + (wm * WM) * (BK + PAD) + kk * 16);",
        "tsl_warp_mma<TSL_MMA_F16, WM / 16, WN / 8, 1>(mc, tsl_ma_buf[kk % 2], tsl_mb_buf[kk % 2]);",
    ] {
        assert!(
            cu.contains(needle) || text.contains(needle),
            "missing `{needle}`:\n{text}"
        );
    }
    assert!(
        cu.contains("__launch_bounds__(BM / WM * (BN / WN) * 32, (MINB))"),
        "the occupancy item"
    );
}

/// Compiles `cfg` for `arch`: the SASS of the kernel and ptxas's register count, after checking
/// no local memory, no spill and no ptxas performance warning.
fn compiled(cfg: &Config, arch: Arch) -> (String, u32) {
    let (_, cu, expr) = emit_kernel(KERNEL, cfg);
    let what = format!("{KERNEL} `{expr}` for {arch}");
    let c = common::clean_sass(KERNEL, &cu, &expr, arch);
    assert!(c.warnings.is_empty(), "{what}: {}", c.warnings.join("\n"));
    common::assert_ops(&what, &c.sass, &["HMMA.16816.F32", "LDSM.16.M88", "LDGSTS"]);
    (c.sass, c.registers)
}

fn cfg(pairs: &[(&str, i64)]) -> Config {
    let m = parse_kernel(KERNEL);
    pairs
        .iter()
        .fold(Config::defaults(&m), |c, (k, v)| c.with(k, *v))
}

/// The configurations the GPU sweep times (`tools/gpu-exp/warp_sweep.sh`), compiled for sm_80
/// and sm_90a.
#[test]
fn v2_warp_pipe_compiles_across_its_domain() {
    if !nvrtc_and_nvdisasm_available("v2_warp_pipe_compiles_across_its_domain") {
        return;
    }
    let configs = [
        cfg(&[]),
        cfg(&[("BK", 64), ("STAGES", 3)]),
        cfg(&[("WM", 32), ("WN", 64)]),
        cfg(&[("BN", 256), ("WN", 64), ("STAGES", 3)]),
        cfg(&[("BM", 64), ("BN", 128), ("WM", 32), ("WN", 64), ("MINB", 2)]),
        cfg(&[("BN", 64), ("WM", 32), ("WN", 32), ("MINB", 2)]),
    ];
    for c in &configs {
        for arch in [Arch::Sm80, Arch::Sm90a] {
            let (_, regs) = compiled(c, arch);
            eprintln!("{c:?} {arch}: {regs} registers");
        }
    }
}

/// The kernel's register model (`REGS` in `kernels/v2_warp_pipe.co`) against ptxas: for each
/// register class the requires admit — warp tile, K tile, blocks per SM and threads per block,
/// at the deepest legal ring — the sm_90a compile does not spill (`__launch_bounds__(THREADS,
/// MINB)` caps it at 65536 / (THREADS × MINB)), and the model is near what ptxas uses.
#[test]
fn every_register_class_the_requires_admit_fits() {
    if !nvrtc_and_nvdisasm_available("every_register_class_the_requires_admit_fits") {
        return;
    }
    use dsl_core::check::{Limits, check_config};
    let m = parse_kernel(KERNEL);
    let mut seen = Vec::new();
    for bm in [64, 128, 256] {
        for bn in [64, 128, 256] {
            for bk in [32, 64] {
                for (wm, wn) in [(32, 32), (32, 64), (64, 32), (64, 64)] {
                    for minb in [1, 2, 3] {
                        let legal = [4, 3, 2].into_iter().find_map(|stages| {
                            let c = cfg(&[
                                ("BM", bm),
                                ("BN", bn),
                                ("BK", bk),
                                ("WM", wm),
                                ("WN", wn),
                                ("MINB", minb),
                                ("STAGES", stages),
                            ]);
                            check_config(&m, &c, None, &Limits::default())
                                .is_ok()
                                .then_some(c)
                        });
                        let Some(c) = legal else { continue };
                        let threads = (bm / wm) * (bn / wn) * 32;
                        let class = (wm, wn, bk, minb, threads);
                        if seen.contains(&class) {
                            continue;
                        }
                        seen.push(class);
                        let chunks = (bm + bn) * bk / (8 * threads);
                        let model = (wm / 16) * (wn / 8) * 4
                            + 2 * ((wm / 16) * 4 + (wn / 8) * 2)
                            + 48
                            + 2 * chunks
                            + 12 * (bk / 16 - 2);
                        let (_, regs) = compiled(&c, Arch::Sm90a);
                        eprintln!("{class:?}: model {model}, ptxas {regs}");
                        assert!(
                            (i64::from(regs) - model).abs() <= 10 + model / 8,
                            "{c:?}: ptxas {regs} registers, the model {model}"
                        );
                    }
                }
            }
        }
    }
    assert!(seen.len() >= 10, "only {} classes", seen.len());
}
