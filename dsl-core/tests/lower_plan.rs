//! Lowering: launch plans evaluated for concrete configs, the pipelined k-loop, grouped
//! rasterization, warp-specialization roles, and the constructs the lowering refuses.

mod kernel_files;

use dsl_core::check::{self, Config};
use dsl_core::lower::{self, CudaKernel, KernelArg, KernelPath, SymEnv};
use kernel_files::{kernel_file, parse};

fn lowered(text: &str) -> (dsl_core::ir::Module, CudaKernel) {
    let m = parse(text);
    let info = check::check(&m).unwrap_or_else(|d| panic!("{d}"));
    let k = lower::lower(&m, &info).unwrap_or_else(|d| panic!("{d}"));
    (m, k)
}

fn env(m: &dsl_core::ir::Module, cfg: &Config, dims: &[(&str, i64)]) -> SymEnv {
    let info = check::check_config(m, cfg, None, &check::Limits::default()).unwrap();
    let mut e: SymEnv = cfg.values.clone();
    e.extend(info.constants);
    e.extend(dims.iter().map(|(k, v)| (k.to_string(), *v)));
    e.insert("TSL_SM_COUNT".into(), 132);
    e
}

#[test]
fn v4_plan_evaluates_for_default_and_other_configs() {
    let (m, k) = lowered(&kernel_file("v4_tuned"));
    assert_eq!(k.path, KernelPath::Hopper);
    let dims = [("M", 8192), ("N", 8192), ("K", 8192)];
    let e = env(&m, &Config::defaults(&m), &dims);
    // persistent: one block per SM (132) walks the cdiv(M, 128) * cdiv(N, 192) tiles.
    assert_eq!(k.plan.grid[0].eval(&e).unwrap(), 132);
    let off = env(&m, &Config::defaults(&m).with("PERSISTENT", 0), &dims);
    // Switched off: one block per tile (raster GROUP_M keeps the grid 1-D).
    assert_eq!(k.plan.grid[0].eval(&off).unwrap(), 64 * 43);
    assert_eq!(k.plan.grid[1].eval(&e).unwrap(), 1);
    assert_eq!(k.plan.block_threads.eval(&e).unwrap(), 384);
    // 2 stages x (16 KiB lhs + 24 KiB rhs) + 2 x 24 KiB output tiles + 1 KiB alignment slack.
    assert_eq!(
        k.plan.dynamic_smem_bytes.eval(&e).unwrap(),
        2 * (16384 + 24576) + 2 * 24576 + 1024
    );
    let cfg = Config::defaults(&m)
        .with("WARP_N", 256)
        .with("STAGES", 3)
        .with("CONSUMERS", 1);
    let e = env(&m, &cfg, &dims);
    // 256 threads per block: two blocks per SM walk the 128 x 32 tiles.
    assert_eq!(k.plan.grid[0].eval(&e).unwrap(), 264);
    assert_eq!(k.plan.block_threads.eval(&e).unwrap(), 256);
    let boxes: Vec<(i64, i64, i64)> = k
        .plan
        .args
        .iter()
        .filter_map(|a| match a {
            KernelArg::TensorMap {
                box_rows,
                box_cols,
                swizzle,
                ..
            } => Some((
                box_rows.eval(&e).unwrap(),
                box_cols.eval(&e).unwrap(),
                swizzle.eval(&e).unwrap(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(boxes, vec![(64, 64, 128), (256, 64, 128), (64, 256, 0)]);
    // Every WGMMA width the WARP_N domain can reach is instantiable.
    assert_eq!(k.wgmma_ns, (128..=256).step_by(8).collect::<Vec<i64>>());
}

#[test]
fn v4_consumer_loop_is_pipelined_and_roles_rebalance_registers() {
    let (_, k) = lowered(&kernel_file("v4_tuned"));
    let body: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let text = body.join("\n");
    assert!(text.contains("tsl_wgmma_wait<1>();"), "{text}");
    assert!(
        text.contains(
            "tsl_mbar_arrive_cluster<CLUSTER, tsl_warp_empty>(&empty[(iv_k - 1) % STAGES]);"
        ),
        "{text}"
    );
    assert!(text.contains("tsl_setmaxnreg_dec<tsl_regs_producer>();"));
    assert!(text.contains("tsl_setmaxnreg_inc<tsl_regs_consumer>();"));
    assert!(
        k.launch_bounds
            .to_string()
            .contains("(CONSUMERS + 1) * 128 <= 256) * (WARP_N / 4 <= 64)"),
        "{}",
        k.launch_bounds
    );
    // Every lowered statement of the body names its DSL line.
    assert!(
        k.body
            .iter()
            .filter(|l| !l.text().starts_with('}') && !l.text().starts_with("#pragma"))
            .all(|l| l.dsl_line.is_some()
                || l.text().starts_with("tsl_mbar_wait_ring(&tsl_tma_bar")
                || l.text()
                    .starts_with("if (threadIdx.x == 0) tsl_mbar_arrive(&tsl_tma_bar)")),
        "{text}"
    );
}

#[test]
fn v1_uses_cooperative_copies_with_one_barrier_pair() {
    let (_, k) = lowered(&kernel_file("v1_shared"));
    assert_eq!(k.path, KernelPath::Simt);
    let owned: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let text: Vec<&str> = owned.iter().map(|l| l.as_str()).collect();
    assert_eq!(
        text.iter()
            .filter(|c| c.starts_with("tsl_copy_g2s<"))
            .count(),
        2
    );
    assert_eq!(
        text.iter()
            .filter(|c| c.starts_with("tsl_cp_async_wait_all"))
            .count(),
        1,
        "{text:#?}"
    );
    assert_eq!(
        text.iter()
            .filter(|c| c.starts_with("__syncthreads"))
            .count(),
        2,
        "{text:#?}"
    );
}

#[test]
fn trigger_under_if_is_rejected() {
    // `t` is a thread variable: the threads that reach the trigger would depend on it.
    let text = kernel_file("v3_warpspec").replace(
        "          trigger full[stage];",
        "          if (t == 0) trigger full[stage];",
    );
    let m = parse(&text);
    let err = check::check(&m).unwrap_err();
    let d = &err.0[0];
    assert_eq!(d.code, check::codes::TRIGGER_IN_IF);
    assert!(
        d.message.contains("`trigger` inside an `if`"),
        "{}",
        d.message
    );
    assert!(d.span.start.line > 0);
}

/// Under a condition with one value per block — loop variables, `: block` variables, `let`s
/// of them — the same threads reach the trigger or none do: the arrival count stands, and the
/// `if` is lowered around the arrival.
#[test]
fn trigger_under_a_block_uniform_if_lowers() {
    for cond in [
        "iv_k >= 0",
        "block_m + iv_k < 1000000",
        "stage == iv_k % STAGES",
    ] {
        let text = kernel_file("v3_warpspec").replace(
            "          trigger full[stage];",
            &format!("          if ({cond}) trigger full[stage];"),
        );
        let (_, k) = lowered(&text);
        let body: Vec<String> = k.body.iter().map(|l| l.text()).collect();
        let at = body
            .iter()
            .position(|l| l.contains("tsl_mbar_arrive_from<tsl_warp_full>"))
            .unwrap_or_else(|| panic!("{cond}: no arrival on full:\n{}", body.join("\n")));
        assert!(body[at - 1].contains("if ("), "{cond}: {}", body[at - 1]);
    }
    for cond in ["t < 64", "cidx == 0", "wg + iv_k > 1"] {
        let text = kernel_file("v3_warpspec").replace(
            "          trigger empty[stage];",
            &format!("          if ({cond}) trigger empty[stage];"),
        );
        let err = check::check(&parse(&text)).unwrap_err();
        assert!(
            err.0.iter().any(|d| d.code == check::codes::TRIGGER_IN_IF),
            "{cond}: {err:?}"
        );
    }
}

#[test]
fn persistent_branches_hoist_the_initial_credits_and_loop_over_tiles() {
    let (_, k) = lowered(&kernel_file("v4_tuned"));
    let owned: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let body: Vec<&str> = owned.iter().map(|l| l.trim()).collect();
    let text = body.join("\n");
    // Both branches walk the same tiles.
    assert_eq!(
        body.iter()
            .filter(|c| c.starts_with(
                "for (int tsl_tile = blockIdx.x; tsl_tile < tsl_tiles; tsl_tile += gridDim.x)"
            ))
            .count(),
        2,
        "{text}"
    );
    // The consumers' `foreach {s} in [STAGES] trigger empty[s];` runs once, before their loop.
    let credits = body
        .iter()
        .position(|c| c.starts_with("tsl_mbar_arrive_cluster<CLUSTER, tsl_warp_empty>(&empty[s]);"))
        .unwrap();
    let loops: Vec<usize> = body
        .iter()
        .enumerate()
        .filter(|(_, c)| c.starts_with("for (int tsl_tile"))
        .map(|(i, _)| i)
        .collect();
    assert!(credits < loops[1] && credits > loops[0], "{text}");
    // The accumulators are re-initialised per tile, inside the loop.
    let fill = body
        .iter()
        .position(|c| c.starts_with("tsl_acc_fill(mc"))
        .unwrap();
    assert!(fill > loops[1], "{text}");
}

#[test]
fn two_blocks_per_sm_only_when_the_accumulator_fits_the_entry_registers() {
    let text = kernel_file("v4_tuned");
    let base = parse(&text);
    let bf16 = dsl_core::def::retype(
        &base,
        dsl_core::def::Variant {
            input: Some(dsl_core::ir::DType::BF16),
            acc: Some(dsl_core::ir::DType::F32),
        },
    );
    let info = check::check(&bf16).unwrap();
    let k = lower::lower(&bf16, &info).unwrap();
    let dims = [("M", 8192), ("N", 8192), ("K", 8192)];
    // 256 threads, f32 fragment of N = 216 → 108 registers: one block per SM (132 blocks).
    let e = env(
        &bf16,
        &Config::defaults(&bf16)
            .with("CONSUMERS", 1)
            .with("WARP_N", 216)
            .with("STAGES", 3),
        &dims,
    );
    assert_eq!(k.plan.grid[0].eval(&e).unwrap(), 132);
    // N = 128 → 64 registers: two blocks per SM.
    let e = env(
        &bf16,
        &Config::defaults(&bf16)
            .with("CONSUMERS", 1)
            .with("WARP_N", 128)
            .with("STAGES", 3),
        &dims,
    );
    assert_eq!(k.plan.grid[0].eval(&e).unwrap(), 264);
    assert!(
        k.launch_bounds.to_string().contains("WARP_N / 2 <= 64"),
        "{}",
        k.launch_bounds
    );
}

/// WARP_N = 256 with 4 stages (TILE_K = 64, 2 consumers) fits 227 KiB only with the epilogue
/// in two column slices: 192 KiB of stages + 2 × [64, 128] f16 output tiles.
#[test]
fn v4_split_epilogue_fits_four_stages_at_warp_n_256() {
    let m = parse(&kernel_file("v4_tuned"));
    let lim = check::Limits::SM90;
    assert_eq!(lim.max_smem_per_block, 232_448);
    let whole = Config::defaults(&m)
        .with("WARP_N", 256)
        .with("STAGES", 4)
        .with("CONSUMERS", 2)
        .with("TILE_K", 64)
        .with("EPI_SPLIT", 1);
    let stages = 4 * (128 * 64 + 256 * 64) * 2;
    let events = 2 * 4 * 8;
    assert_eq!(stages, 196_608);
    // One [64, 256] tile per consumer: 64 KiB more, over budget.
    let d = check::check_config(&m, &whole, None, &lim).unwrap_err();
    assert!(d.iter().all(|e| e.code == check::codes::SMEM_BUDGET), "{d}");
    assert_eq!(
        check::smem_bytes(&m, &whole).unwrap(),
        stages + 2 * 64 * 256 * 2 + events
    );
    let split = whole.clone().with("EPI_SPLIT", 2);
    let info = check::check_config(&m, &split, None, &lim).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(info.smem_bytes, stages + 2 * 64 * 128 * 2 + events);
    assert_eq!(info.smem_bytes, 229_440);
    // What the launch asks for: the slots at 1024-B aligned offsets (these sizes are all
    // multiples of 1024, so no padding) plus 1024 B of slack to align the dynamic base, and
    // the 64 B of mbarriers are static shared memory: 230,464 B of 232,448.
    let k = lower::lower(&m, &info).unwrap_or_else(|d| panic!("{d}"));
    let e = env(&m, &split, &[("M", 4096), ("N", 4096), ("K", 4096)]);
    let dynamic = k.plan.dynamic_smem_bytes.eval(&e).unwrap();
    assert_eq!(dynamic, 196_608 + 32_768 + 1024);
    assert!(dynamic as u64 + events <= lim.max_smem_per_block);
    // The output TMA box is one slice: [64, 128].
    let boxes: Vec<(i64, i64)> = k
        .plan
        .args
        .iter()
        .filter_map(|a| match a {
            KernelArg::TensorMap {
                box_rows, box_cols, ..
            } => Some((box_rows.eval(&e).unwrap(), box_cols.eval(&e).unwrap())),
            _ => None,
        })
        .collect();
    assert_eq!(boxes, [(128, 64), (256, 64), (64, 128)]);
    // Slices must be whole 8-column register groups: 200 / 2 = 100 is not.
    let odd = split.clone().with("WARP_N", 200);
    let d = check::check_config(&m, &odd, None, &lim).unwrap_err();
    assert!(
        d.iter().any(|e| e.code == check::codes::REQUIRE
            && e.message
                .contains("EPI_SPLIT == 1 || WARP_N % (8 * EPI_SPLIT) == 0")),
        "{d}"
    );
}

/// Positions of the lines of `body` that start with `prefix`.
fn lines_at(body: &[&str], prefix: &str) -> Vec<usize> {
    body.iter()
        .enumerate()
        .filter(|(_, c)| c.starts_with(prefix))
        .map(|(i, _)| i)
        .collect()
}

/// The line that closes the block opened at `start` (the next line at its indent).
fn block_end(k: &CudaKernel, start: usize) -> usize {
    let indent = k.body[start].indent;
    (start + 1..k.body.len())
        .find(|&i| k.body[i].indent == indent)
        .unwrap_or_else(|| panic!("no end for line {start}"))
}

#[test]
fn persistent_epilogue_waits_for_the_tma_store_at_the_next_write() {
    let (_, k) = lowered(&kernel_file("v4_tuned"));
    let owned: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let body: Vec<&str> = owned.iter().map(|l| l.trim()).collect();
    let text = body.join("\n");
    let wait = "if (threadIdx.x % 128 == 0) tsl_tma_store_wait_read<0>();";
    let waits = lines_at(&body, wait);
    let stores = lines_at(&body, "tsl_acc_store_cols<WARP_N, EPI_N>(mc, h * EPI_N, ");
    let issues = lines_at(&body, "if (threadIdx.x % 128 == 0) { tsl_tma_store_2d(");
    let tiles = lines_at(&body, "for (int tsl_tile")[1];
    let slices = lines_at(&body, "for (int h = 0; h < EPI_SPLIT; ++h) {")[0];
    let slices_end = block_end(&k, slices);
    // One wait before the fragment's slice is written (inside the slice loop, inside the tile
    // loop), one after the tile loop.
    assert_eq!(
        (waits.len(), stores.len(), issues.len()),
        (2, 1, 1),
        "{text}"
    );
    assert!(
        tiles < slices && slices_end < block_end(&k, tiles),
        "{text}"
    );
    // Slice h + 1 overwrites the tile that slice h's TMA store reads (and the next tile's
    // slice 0 the one the last slice's store reads): the wait and the barrier that publishes
    // it precede every write, in the loop.
    assert!(
        slices < waits[0]
            && waits[0] < stores[0]
            && stores[0] < issues[0]
            && issues[0] < slices_end,
        "{text}"
    );
    assert!(
        body[waits[0] + 1].starts_with("tsl_named_barrier_sync(1 + threadIdx.x / 128, 128);"),
        "{text}"
    );
    assert!(waits[1] > block_end(&k, tiles), "{text}");
    // The store itself only commits; nothing waits right after it.
    assert!(
        body[issues[0]].contains("tsl_tma_store_commit(); }"),
        "{text}"
    );
    assert!(!text.contains("tsl_tma_store_flush()"), "{text}");
    // Slice h goes to column tile block_n * EPI_SPLIT + h, EPI_N wide.
    assert!(
        body[issues[0]].contains(
            ", (block_n * EPI_SPLIT + h) * EPI_N, (block_m * CONSUMERS + cidx) * WARP_M);"
        ),
        "{}",
        body[issues[0]]
    );
}

#[test]
fn non_persistent_or_shared_tiles_wait_right_after_the_store() {
    // v3 is not persistent: each block stores once, so the store waits where it is issued.
    let (_, k) = lowered(&kernel_file("v3_warpspec"));
    let owned: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let text: Vec<&str> = owned.iter().map(|l| l.trim()).collect();
    assert!(text.iter().any(|c| c.contains("tsl_tma_store_flush(); }")));
    assert!(!text.iter().any(|c| c.contains("tsl_tma_store_wait_read")));
    // A persistent kernel whose output tile is also written by something else than
    // `mma.store` keeps the immediate wait: the deferral would let that write race the read.
    let store = "          mma.store mc.subspan(WARP_M, EPI_N).at(0, h), output_s[cidx];";
    let v4 = kernel_file("v4_tuned");
    assert!(v4.contains(store));
    let v4 = v4.replace(
        store,
        &format!("          output_s[cidx].at(0, 0) = 0.0f;\n{store}"),
    );
    let (_, k) = lowered(&v4);
    let owned: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let text: Vec<&str> = owned.iter().map(|l| l.trim()).collect();
    assert!(
        text.iter().any(|c| c.contains("tsl_tma_store_flush(); }")),
        "{}",
        text.join("\n")
    );
    assert!(!text.iter().any(|c| c.contains("tsl_tma_store_wait_read")));
    // The fragment is written again (the next slice, the next tile) after a store only its
    // issuing thread waited for: a barrier before the write tells the others.
    let store = lines_at(&text, "tsl_acc_store_cols<")[0];
    assert!(
        text[store - 1].starts_with("tsl_named_barrier_sync(1 + threadIdx.x / 128, 128);  // the last TMA store from this tile has read it"),
        "{}",
        text.join("\n")
    );
}

/// v2 with its epilogue in `halves` column slices of the accumulator, `view` spelling slice `h`.
fn v2_sliced(halves: &str, view: &str) -> String {
    let v2 = kernel_file("v2_tma_wgmma");
    let epilogue = "    mma.store mc, output_s;\n    tma.copy output_s =>\n      output.subspan(WARP_M, WARP_N)\n        .at(block_m, block_n);";
    assert!(v2.contains(epilogue));
    v2.replace(
        "    shared f16 [WARP_M, WARP_N] output_s;",
        &format!("    shared f16 [WARP_M, WARP_N / {halves}] output_s;"),
    )
    .replace(
        epilogue,
        &format!(
            "    foreach {{h}} in [{halves}] : unroll {{\n      mma.store {view}, output_s;\n      tma.copy output_s => output.subspan(WARP_M, WARP_N / {halves}).at(block_m, block_n * {halves} + h);\n    }}"
        ),
    )
}

#[test]
fn a_column_slice_stores_a_register_range_of_the_fragment() {
    for view in [
        "mc.subspan(WARP_M, WARP_N / 2).at(0, h)",
        "mc.chunkat(_, h)",
    ] {
        let (_, k) = lowered(&v2_sliced("2", view));
        let owned: Vec<String> = k.body.iter().map(|l| l.text()).collect();
        let body: Vec<&str> = owned.iter().map(|l| l.trim()).collect();
        let text = body.join("\n");
        let stores: Vec<&&str> = body
            .iter()
            .filter(|c| c.contains("tsl_acc_store"))
            .collect();
        assert_eq!(stores.len(), 1, "{text}");
        // Columns [h * W, h * W + W) of the 64 x WARP_N fragment, into the [64, W] tile.
        let w = "WARP_N / 2";
        assert!(
            stores[0].starts_with(&format!(
                "tsl_acc_store_cols<WARP_N, {w}>(mc, h * ({w}), output_s);  // {w} fragment columns from h * ({w})"
            )),
            "{view}: {}",
            stores[0]
        );
        // Slice 1 overwrites the tile slice 0's TMA store read: thread 0 waited for that read
        // (the flush), and a barrier before the write tells the others.
        let store = lines_at(&body, "tsl_acc_store_cols<")[0];
        assert!(
            body[store - 1]
                .starts_with("__syncthreads();  // the last TMA store from this tile has read it"),
            "{text}"
        );
        // The loop around it is unrolled, so `h` is a constant and the registers stay named.
        let lp = lines_at(&body, "for (int h = 0; h < 2; ++h) {")[0];
        assert_eq!(body[lp - 1], "#pragma unroll", "{text}");
        // The TMA store of slice h goes to column tile block_n * 2 + h.
        assert!(
            text.contains("tsl_tma_store_2d(&tsl_tm_output, output_s, (block_n * 2 + h) * (WARP_N / 2), block_m * WARP_M); tsl_tma_store_flush(); }"),
            "{text}"
        );
    }
    // Without a slice the store is the whole fragment, as before.
    let (_, k) = lowered(&kernel_file("v2_tma_wgmma"));
    assert!(
        k.body
            .iter()
            .any(|l| { l.text().contains("tsl_acc_store<WARP_N>(mc, output_s);") }),
    );
}

#[test]
fn wgmma_descriptors_are_offsets_from_the_buffer_base() {
    let (_, k) = lowered(&kernel_file("v4_tuned"));
    let owned: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let body: Vec<&str> = owned.iter().map(|l| l.trim()).collect();
    let descs: Vec<&&str> = body
        .iter()
        .filter(|c| c.contains("tsl_wgmma_desc<"))
        .collect();
    assert_eq!(descs.len(), 2);
    assert!(descs[0].contains("tsl_wgmma_desc<SWIZ>(lhs_s, stage * (TILE_M * TILE_K) + (cidx * WARP_M) * TILE_K + iv_wk * WARP_K)"), "{}", descs[0]);
    assert!(
        descs[1]
            .contains("tsl_wgmma_desc<SWIZ>(rhs_s, stage * (WARP_N * TILE_K) + iv_wk * WARP_K)"),
        "{}",
        descs[1]
    );
}

/// `.subspan(R, C).step(SR, SC).at(i, j)`: tile `(i, j)` starts at `(i · SR, j · SC)`, its
/// extent still `R × C` (the TMA box); without `.step` it starts at `(i · R, j · C)`.
#[test]
fn step_spaces_the_tiles_a_copy_picks() {
    let text = kernel_file("v3_warpspec").replace(
        "lhs.subspan(TILE_M, TILE_K)",
        "lhs.subspan(TILE_M, TILE_K).step(2 * TILE_M, TILE_K + 8)",
    );
    let m = parse(&text);
    check::check(&m).unwrap_or_else(|e| panic!("{e:?}"));
    let (_, k) = lowered(&text);
    let body: Vec<String> = k.body.iter().map(|l| l.text()).collect();
    let load = body
        .iter()
        .find(|l| l.contains("tsl_tma_load_2d") && l.contains("tsl_tm_lhs"))
        .unwrap_or_else(|| panic!("no lhs load:\n{}", body.join("\n")));
    assert!(
        load.contains("iv_k * (TILE_K + 8), block_m * (2 * TILE_M)"),
        "{load}"
    );
    let (_, plain) = lowered(&kernel_file("v3_warpspec"));
    let plain: Vec<String> = plain.body.iter().map(|l| l.text()).collect();
    assert!(
        plain
            .iter()
            .any(|l| l.contains("tsl_tm_lhs, iv_k * TILE_K, block_m * TILE_M")),
        "{}",
        plain.join("\n")
    );
}

/// A `trigger` after WGMMAs that read shared memory completes them before the arrival (the
/// event may release their tiles). Under an `if`, the other path has not: the accumulators
/// are committed again before they are read.
#[test]
fn trigger_after_wgmmas_completes_them_first() {
    for (text, under_if) in [
        (kernel_file("ws_ring"), false),
        (
            kernel_file("ws_ring").replace(
                "          trigger empty.at(kt);",
                "          if (kt >= 0) trigger empty.at(kt);",
            ),
            true,
        ),
    ] {
        let (_, k) = lowered(&text);
        let body: Vec<String> = k.body.iter().map(|l| l.text().trim().to_string()).collect();
        let arrive = body
            .iter()
            .position(|l| l.starts_with("tsl_mbar_arrive_from<tsl_warp_empty>(&empty[kt"))
            .unwrap_or_else(|| panic!("no release:\n{}", body.join("\n")));
        assert!(
            body[arrive - 1].starts_with("tsl_wgmma_commit(); tsl_wgmma_wait<0>();"),
            "{}",
            body[arrive - 1]
        );
        let store = body
            .iter()
            .position(|l| l.starts_with("tsl_acc_store"))
            .unwrap();
        assert_eq!(
            body[store - 1].starts_with("tsl_wgmma_commit();"),
            under_if,
            "{}",
            body[store - 1]
        );
    }
}
