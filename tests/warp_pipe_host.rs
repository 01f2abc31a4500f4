//! The `[[frag_prefetch]]` kernel computes the product, no GPU needed: `kernels/v2_warp_pipe.co`
//! as `tessel emit` writes it (at small tiles, and at its 64 × 32 warp tiles) runs on the host
//! in `tests/warp_host/block.cpp` — every CUDA thread of a block a fiber, `__syncthreads` and
//! the warp-wide `ldmatrix` / `mma.sync` as meeting points, `cp.async` landing only at its
//! group's wait, or as issued — over whole grids at tile-multiple and ragged shapes, against a
//! double reference; also the bf16 data kernel whose B is a K × N tile (ldmatrix.trans). The reordered schedule is what is checked: a fragment loaded from the wrong
//! stage or step, a wait that moved too far, or a copy that refills a stage still being read
//! gives wrong outputs. `kernels/v2_warp_mma.co` runs the same way, as the control.
//!
//! Only the functions whose bodies are inline PTX are replaced (conversions, cp.async,
//! ldmatrix, mma.sync); everything else is the emitted text. Needs a C++17 host compiler with
//! `_Float16` and `<ucontext.h>`; without one the test prints `SKIPPED` and passes, except under
//! `CI=true`, where it fails.

mod common;

use common::{emit_kernel, parse_kernel};
use dsl_core::check::Config;

/// `text` without the top-level functions whose bodies hold inline PTX (`asm`), and without
/// its explicit instantiations.
fn strip_asm(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if l.starts_with("template __global__") {
            i += 1;
            continue;
        }
        let starts = l.starts_with("TSL_DEVICE") || l.starts_with("template <");
        if starts && !l.trim_end().ends_with(';') {
            // One function: to the line that closes it (a one-line body, or `}` in column 0).
            let end = if l.trim_end().ends_with('}') {
                i
            } else {
                (i..lines.len())
                    .find(|&j| lines[j] == "}" || lines[j].starts_with("};"))
                    .unwrap_or(lines.len() - 1)
            };
            let body = lines[i..=end].join("\n");
            if body.contains("asm(") || body.contains("asm volatile") {
                i = end + 1;
                continue;
            }
            out.extend_from_slice(&lines[i..=end]);
            i = end + 1;
            continue;
        }
        out.push(l);
        i += 1;
    }
    out.join("\n")
}

/// Runs `kernel` at `cfg` on the host over whole grids; panics on a wrong output.
fn run_on_host(kernel: &str, cfg: &Config, what: &str) {
    for early in [false, true] {
        let (ok, text) = run_mutated(kernel, cfg, what, early, |cu| cu.to_string());
        assert!(
            ok,
            "{what} (copies landing early: {early}) on the host:\n{text}"
        );
        assert!(
            text.contains("\n0 failures") || text == "SKIPPED",
            "{what}:\n{text}"
        );
    }
}

/// Runs `kernel` at `cfg` on the host with its `.cu` passed through `edit`, async copies
/// landing at their waits or (`early`) as issued: (all outputs right, the program's report);
/// `(true, "SKIPPED")` without a host compiler.
fn run_mutated(
    kernel: &str,
    cfg: &Config,
    what: &str,
    early: bool,
    edit: impl Fn(&str) -> String,
) -> (bool, String) {
    let (_, cu, expr) = emit_kernel(kernel, cfg);
    let get = |n: &str| cfg.get(n).unwrap_or_else(|| panic!("{n} in {cfg:?}"));
    let threads = (get("BM") / get("WM")) * (get("BN") / get("WN")) * 32;
    let grid = Grid {
        bm: get("BM"),
        bn: get("BN"),
        threads,
    };
    host_run(&edit(&cu), &expr, grid, &[], what, early)
}

/// A block's output tile and threads.
#[derive(Clone, Copy)]
struct Grid {
    bm: i64,
    bn: i64,
    threads: i64,
}

/// Runs the kernel `expr` of `cu` on the host over grids of `grid`'s blocks, with the
/// harness's `defines` (operand types and layouts).
fn host_run(
    cu: &str,
    expr: &str,
    grid: Grid,
    defines: &[&str],
    what: &str,
    early: bool,
) -> (bool, String) {
    let mut header = String::new();
    // A grid of block rows × block columns, or one rasterized dimension.
    if cu.contains("= blockIdx.y;") {
        header.push_str("#define TSL_GRID_2D 1\n");
    }
    for d in defines {
        header.push_str(&format!("#define {d} 1\n"));
    }
    header.push_str(&strip_asm(cu));
    assert!(!header.contains("asm("), "inline PTX left after stripping");
    if early {
        header.push_str("\n#define TSL_LAND_EARLY 1");
    }
    header.push_str(&format!(
        "\n#define TSL_RUN {expr}\n#define TSL_THREADS {}\n#define TSL_BM {}\n#define TSL_BN {}\n",
        grid.threads, grid.bm, grid.bn
    ));
    let dir = std::env::temp_dir().join(format!(
        "tessel-block-host-{}-{what}-{early}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let h = dir.join("kernel.h");
    std::fs::write(&h, header).unwrap();
    let Some((ok, text)) = common::host_cpp_run(
        "TSL_BLOCK_KERNEL",
        &h,
        &common::root().join("tests/warp_host/block.cpp"),
        &dir,
    ) else {
        return (true, "SKIPPED".into());
    };
    // Kept when the outputs are wrong, to rerun by hand.
    if ok {
        let _ = std::fs::remove_dir_all(&dir);
    }
    (ok, format!("`{expr}` ({}):\n{text}", dir.display()))
}

fn cfg(kernel: &str, pairs: &[(&str, i64)]) -> Config {
    let m = parse_kernel(kernel);
    pairs
        .iter()
        .fold(Config::defaults(&m), |c, (k, v)| c.with(k, *v))
}

#[test]
fn the_prefetched_loop_computes_the_product() {
    // 64 × 64 blocks of 32 × 32 warp tiles: three stages and two k-steps per tile, and two
    // stages with four k-steps.
    let small = [("BM", 64), ("BN", 64), ("WM", 32), ("WN", 32), ("MINB", 1)];
    let mut three = small.to_vec();
    three.extend([("BK", 32), ("STAGES", 3)]);
    run_on_host("v2_warp_pipe", &cfg("v2_warp_pipe", &three), "pipe-s3");
    let mut two = small.to_vec();
    two.extend([("BK", 64), ("STAGES", 2)]);
    run_on_host("v2_warp_pipe", &cfg("v2_warp_pipe", &two), "pipe-s2");
    // The kernel's own 64 × 32 warp tiles, four stages, 128 × 64 blocks.
    let own = cfg(
        "v2_warp_pipe",
        &[
            ("BM", 128),
            ("BN", 64),
            ("WM", 64),
            ("WN", 32),
            ("STAGES", 4),
        ],
    );
    run_on_host("v2_warp_pipe", &own, "pipe-s4");
}

#[test]
fn the_unprefetched_loop_computes_the_product() {
    let c = cfg(
        "v2_warp_mma",
        &[
            ("BM", 64),
            ("BN", 64),
            ("BK", 32),
            ("WM", 32),
            ("WN", 32),
            ("STAGES", 3),
        ],
    );
    run_on_host("v2_warp_mma", &c, "mma-s3");
}

/// The emulation notices a broken schedule: the same kernel with the next tile's wait and
/// copies moved to the first k-step (the copies then refill the stage the tile's later steps
/// still read, and the wait lands too little), or with the next step's fragments taken from
/// the current step, computes wrong outputs.
#[test]
fn a_broken_schedule_computes_wrong_outputs() {
    let c = cfg(
        "v2_warp_pipe",
        &[
            ("BM", 64),
            ("BN", 64),
            ("WM", 32),
            ("WN", 32),
            ("BK", 32),
            ("STAGES", 3),
        ],
    );
    let moved = |cu: &str| {
        assert!(cu.contains("if (kk == (BK / 16) - 1 && kt + 1 < tsl_cdiv(K, BK))"));
        cu.replace(
            "if (kk == (BK / 16) - 1 && kt + 1 < tsl_cdiv(K, BK))",
            "if (kk == 0 && kt + 1 < tsl_cdiv(K, BK))",
        )
    };
    let stale = |cu: &str| {
        assert!(cu.contains("const int tsl_next_kk = kk + 1 < (BK / 16) ? kk + 1 : 0;"));
        cu.replace(
            "const int tsl_next_kk = kk + 1 < (BK / 16) ? kk + 1 : 0;",
            "const int tsl_next_kk = kk;",
        )
    };
    for (what, edit) in [
        ("moved-wait", &moved as &dyn Fn(&str) -> String),
        ("stale-step", &stale),
    ] {
        let runs: Vec<(bool, String)> = [false, true]
            .into_iter()
            .map(|early| run_mutated("v2_warp_pipe", &c, what, early, edit))
            .collect();
        if runs.iter().any(|r| r.1 == "SKIPPED") {
            return;
        }
        assert!(
            runs.iter()
                .any(|(ok, text)| !ok && !text.contains("\n0 failures")),
            "{what} went unnoticed:\n{}\n{}",
            runs[0].1,
            runs[1].1
        );
    }
}

/// A prefetched bf16 loop whose B is a K × N tile (`mma.row.col`: ldmatrix.trans) in a
/// three-stage ring, f32 output (`tests/data/warp/bf16_prefetch_col.co`).
#[test]
fn the_prefetched_bf16_loop_with_a_k_by_n_operand_computes_the_product() {
    let rel = "tests/data/warp/bf16_prefetch_col.co";
    let m = dsl_core::parse::parse_str(&common::read(rel), Some(rel))
        .expect("parses")
        .module;
    let c = Config::defaults(&m);
    let k = common::lower_for(&m, &c, rel);
    let inst = common::instance(&k, &c);
    let expr = k.name_expression(&inst);
    let cu = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &k,
        source: rel,
        instance: Some(inst),
    });
    let grid = Grid {
        bm: 64,
        bn: 64,
        threads: 128,
    };
    for early in [false, true] {
        let (ok, text) = host_run(
            &cu,
            &expr,
            grid,
            &["TSL_IN_BF16", "TSL_RHS_KN", "TSL_OUT_F32"],
            "bf16-col",
            early,
        );
        assert!(ok, "bf16_prefetch_col (early: {early}):\n{text}");
        assert!(text.contains("\n0 failures") || text == "SKIPPED", "{text}");
    }
}
