//! Futures whose copy creates a fresh shared buffer (`f = dma.copy src => shared;`,
//! `f = tma.copy src => shared;`): the buffer has the source tile's shape whenever that shape is
//! known at compile time — a `.subspan(…)` tile, a `.chunkat(…)` chunk (composed indices and
//! `cdiv(M, T)` extents over problem dims included) — or at launch (a whole problem-sized
//! tensor: a buffer sized at launch, which the SIMT path copies with the tile's extents as
//! arguments; elsewhere E1686); a tile with no such shape is E1462. On the TMA/WGMMA path, synchronous `tma.copy` futures and synchronous u8
//! `dma.copy` futures (sparsity metadata) lower; an initializer on a `__co__ auto` output
//! lowers where no read or unwritten element can observe it.

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::lower::{CudaKernel, launch_form};
use dsl_core::parse::parse_str;

fn module(src: &str) -> Module {
    launch_form(
        parse_str(src, Some("t.co"))
            .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
            .module,
    )
}

/// The codes `check_config` reports, or the lowered kernel (check ok ⇒ lower ok).
fn lowered(src: &str) -> Result<CudaKernel, Vec<&'static str>> {
    let m = module(src);
    match check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok(info) => Ok(dsl_core::lower::lower(&m, &info).expect("check ok ⇒ lower ok")),
        Err(d) => Err(d.iter().map(|x| x.code).collect()),
    }
}

fn codes(src: &str) -> Vec<&'static str> {
    lowered(src).err().unwrap_or_default()
}

/// The body text of a lowered kernel.
fn body(k: &CudaKernel) -> String {
    k.body
        .iter()
        .map(|l| format!("{}\n", l.op))
        .collect::<String>()
}

/// A SIMT kernel whose future `x` copies `src` (in a block of TM × TK threads' tiles).
fn simt(src: &str) -> String {
    format!(
        "const TM = 16;\nconst TK = 32;\n__co__ void f(f16 [M, K] a, f32 [M, K] o) {{\n  parallel {{bm, bk}} by [cdiv(M, TM), cdiv(K, TK)] : block, {{t}} by [16] : thread {{\n    foreach {{h}} in [2] {{\n      x = dma.copy.async {src} => shared;\n      wait x;\n      o.at(bm#t, 0) = x.data.at(t, 0);\n    }}\n  }}\n}}\n"
    )
}

#[test]
fn a_chunk_of_a_problem_sized_tensor_sizes_the_buffer() {
    // `bm` over cdiv(M, TM): chunks of TM rows; `bk` over cdiv(K, TK): TK columns.
    let k = lowered(&simt("a.chunkat(bm, bk)")).unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    // A TM × TK tile (leading dimension TK) into the buffer `x`, zero-filled past the edges.
    assert!(
        b.contains("tsl_copy_g2s<TM, TK, TK, tsl_threads>(x, a,"),
        "{b}"
    );
    // A `.subspan(…).at(…)` tile with composed indices keeps its stated shape.
    assert_eq!(
        codes(&simt("a.subspan(TM, TK / 2).at(bm, bk # h)")),
        Vec::<&str>::new()
    );
    // A stepped tiling's tile: `[TM, TK]` at rows `bm · 32`.
    let k = lowered(&simt("a.subspan(TM, TK).step(32, TK).at(bm, bk)"))
        .unwrap_or_else(|c| panic!("{c:?}"));
    assert!(
        body(&k).contains("tsl_copy_g2s<TM, TK, TK, tsl_threads>(x, a, bm * 32,"),
        "{}",
        body(&k)
    );
    // A transposed tile has no fresh-buffer form.
    assert!(codes(&simt("a.chunkat(bm, bk).transpose()")).contains(&"E1462"));
    // A whole tensor of a problem-sized shape is a buffer sized at launch, copied with its
    // extents as arguments.
    let k = lowered(&simt("a")).unwrap_or_else(|c| panic!("{c:?}"));
    assert!(
        body(&k).contains("tsl_copy_g2s_n<tsl_threads>(M, K, K, x, a, 0, 0, M, K);"),
        "{}",
        body(&k)
    );
}

#[test]
fn chunks_of_static_tensors_divide_their_dims() {
    // [64, 128] split 4 × (2 · 2) ways: 16 × 32 chunks, composed index included.
    let src = "__co__ void f(f16 [64, 128] a, f32 [64, 128] o) {\n  parallel {bm, bk} by [4, 2] : block, {t} by [16] : thread {\n    foreach {h} in [2] {\n      x = dma.copy.async a.chunkat(bm, bk # h) => shared;\n      wait x;\n      o.at(bm#t, bk#h) = x.data.at(t, 0);\n    }\n  }\n}\n";
    let k = lowered(src).unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    // The buffer's copy is a 16 × 32 tile (64 / 4 rows, 128 / (2 · 2) columns).
    let copy = b
        .lines()
        .find(|l| l.contains("tsl_copy_g2s"))
        .unwrap_or_else(|| panic!("{b}"));
    assert!(copy.contains("<16, 32, 32, tsl_threads>(x, a,"), "{copy}");
}

/// The buffer has the shape of the view the copy moves, in one symbolic form: with a tunable
/// split, its leading dimension and the copied tile's columns are both `128 / (T * 2)` (the
/// checker's view of the source), not two spellings of one value.
#[test]
fn the_buffer_is_the_copied_view_in_one_form() {
    let src = "tunable T in [2, 4] = 2;\n__co__ void f(f16 [64, 128] a, f32 [64, 128] o) {\n  parallel {bm, bk} by [4, T] : block, {t} by [16] : thread {\n    foreach {h} in [2] {\n      x = dma.copy.async a.chunkat(bm, bk # h) => shared;\n      wait x;\n      o.at(bm#t, bk#h) = x.data.at(t, 0);\n    }\n  }\n}\n";
    let k = lowered(src).unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    let copy = b
        .lines()
        .find(|l| l.contains("tsl_copy_g2s"))
        .unwrap_or_else(|| panic!("{b}"));
    assert!(
        copy.contains("<16, 128 / (T * 2), (128 / (T * 2)), tsl_threads>(x, a,"),
        "{copy}"
    );
    assert!(b.contains("x[t * (128 / (T * 2))]"), "{b}");
    assert_eq!(
        k.plan.dynamic_smem_bytes.to_cpp(),
        "16 * (128 / (T * 2)) * 2 + 128"
    );
}

/// A Hopper kernel: a TMA future and a metadata future feeding a sparse WGMMA, `extra` inserted
/// after the copies.
fn sparse(lhs_copy: &str, meta_copy: &str) -> String {
    format!(
        "const TILE_K = 64;\n__co__ void f(f16 [M, KP] lhs, u8 [M, KM] meta, f16 [N, K] rhs, f16 [M, N] output) {{\n  parallel {{bm, bn}} by [cdiv(M, 64), cdiv(N, 64)] : block {{\n    mc = mma.fill.f32 0.0f;\n    foreach {{kt}} in [cdiv(K, TILE_K)] {{\n      {lhs_copy}\n      b = tma.copy.swiz<128> rhs.chunkat(bn, kt) => shared;\n      {meta_copy}\n      parallel p by 1 : group-4 {{\n        me = mma.load e;\n        mma.row.row.sp mc, a, b, me;\n      }}\n    }}\n    mma.store mc, output.chunkat(bm, bn);\n  }}\n}}\n"
    )
}

#[test]
fn synchronous_tma_and_metadata_futures_feed_a_sparse_wgmma() {
    let lhs = "a = tma.copy.swiz<64> lhs.subspan(64, TILE_K / 2).at(bm, kt) => shared;";
    let meta = "e = dma.copy meta.subspan(64, TILE_K / 8).at(bm, kt) => shared;";
    let k = lowered(&sparse(lhs, meta)).unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    // Each buffer is a pointer into the dynamic shared memory, filled by a synchronous TMA load
    // (waited before the metadata copy) or the byte copy.
    for f in ["a", "b", "e"] {
        assert!(b.contains(&format!("(tsl_smem + tsl_smem_{f})")), "{b}");
    }
    assert_eq!(b.matches("tsl_tma_load_2d(").count(), 2, "{b}");
    assert!(b.contains("tsl_mbar_wait_ring(&tsl_tma_bar"), "{b}");
    assert!(b.contains("tsl_copy_g2s_bytes"), "{b}");
    assert!(b.contains("tsl_wgmma_sp_k_steps"), "{b}");
    // The WGMMAs are done before the next k-tile's loads overwrite their operands.
    assert!(
        b.contains("tsl_wgmma_commit(); tsl_wgmma_wait<0>();\n}\n"),
        "{b}"
    );
    // A `wait` on these futures needs nothing: a copy without `.async` has completed.
    let waited = sparse(lhs, &format!("{meta}\n      wait a, b;\n      wait e;"));
    let w = body(&lowered(&waited).unwrap_or_else(|c| panic!("{c:?}")));
    assert!(!w.contains("cp_async"), "{w}");
    assert_eq!(w.lines().count(), b.lines().count(), "{w}");
    // Swizzles reach the descriptors from the futures' `.swiz<N>`.
    assert!(b.contains("tsl_wgmma_desc<64>(a"), "{b}");
    assert!(b.contains("tsl_wgmma_desc<128>(b"), "{b}");
}

#[test]
fn futures_the_tma_path_cannot_lower_keep_their_codes() {
    let lhs = "a = tma.copy.swiz<64> lhs.subspan(64, TILE_K / 2).at(bm, kt) => shared;";
    // An asynchronous metadata copy (the byte copy is synchronous).
    let async_meta =
        "e = dma.copy.async meta.subspan(64, TILE_K / 8).at(bm, kt) => shared;\n      wait e;";
    assert!(codes(&sparse(lhs, async_meta)).contains(&"E1345"));
    // A metadata chunk that the loop's extent does not size (KM split `cdiv(K, TILE_K)` ways).
    let ragged = "e = dma.copy meta.chunkat(bm, kt) => shared;";
    assert_eq!(codes(&sparse(lhs, ragged)), ["E0204"]);
    // A TMA future of such a chunk (KP split `cdiv(K, TILE_K)` ways).
    let lhs_dyn = "a = tma.copy.swiz<64> lhs.chunkat(bm, kt) => shared;";
    let meta = "e = dma.copy meta.subspan(64, TILE_K / 8).at(bm, kt) => shared;";
    assert_eq!(codes(&sparse(lhs_dyn, meta)), ["E0204"]);
    // A TMA future of a whole problem-sized tensor: a buffer sized at launch, which the
    // TMA/WGMMA path does not lower.
    let lhs_whole = "a = tma.copy.swiz<64> lhs => shared;";
    assert!(codes(&sparse(lhs_whole, meta)).contains(&"E1686"));
    // Copies under a level that splits the block (each warpgroup would load into the one
    // buffer, and the loads wait at block-wide barriers).
    let inner = |copy: &str| {
        sparse(lhs, meta).replace(
            "parallel p by 1 : group-4 {\n",
            &format!("parallel p by 2 : group-4 {{\n        {copy}\n"),
        )
    };
    let lhs2 = "a2 = tma.copy.swiz<64> lhs.subspan(64, TILE_K / 2).at(bm, kt) => shared;";
    let k = inner(lhs2).replace(
        "mma.row.row.sp mc, a, b, me;",
        "mma.row.row.sp mc, a2, b, me;",
    );
    assert!(codes(&k).contains(&"E1300"), "{k}");
    let meta2 = "e2 = dma.copy meta.subspan(64, TILE_K / 8).at(bm, kt) => shared;";
    let k = inner(meta2).replace("me = mma.load e;", "me = mma.load e2;");
    assert!(codes(&k).contains(&"E1345"), "{k}");
}

fn auto_out(store: &str) -> String {
    format!(
        "__co__ auto f(f16 [M, K] lhs, f16 [N, K] rhs) {{\n  f32 [M, N] output{{0.0f}};\n  parallel {{bm, bn}} by [cdiv(M, 16), cdiv(N, 16)] : block, {{tm, tn}} by [16, 16] : thread {{\n    shared f32 [16, 16] c;\n    c.at(tm, tn) = 1.0f;\n{store}\n  }}\n  return output;\n}}\n"
    )
}

#[test]
fn an_output_initializer_lowers_where_nothing_observes_it() {
    // Every tile of the output is written, nothing reads it.
    assert_eq!(
        codes(&auto_out("    dma.copy c => output.chunkat(bm, bn);")),
        Vec::<&str>::new()
    );
    // ... and nothing is emitted for it.
    let k = lowered(&auto_out("    dma.copy c => output.chunkat(bm, bn);")).unwrap();
    assert!(!body(&k).contains("tsl_i"), "{}", body(&k));
    // Written under a condition, some tiles keep the initial value: each block owns its tile,
    // so it writes the value there first.
    let k = lowered(&auto_out(
        "    if (bm > 0) {\n      dma.copy c => output.chunkat(bm, bn);\n    }",
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    assert!(
        body(&k).contains("for (int tsl_i = threadIdx.x;"),
        "{}",
        body(&k)
    );
    // Read, or written element by element: the runtime fills the output before each launch,
    // and the kernel emits nothing for it.
    for store in [
        "    dma.copy c => output.chunkat(bm, bn);\n    c.at(tm, tn) = output.at(bm#tm, bn#tn);",
        "    output.at(bm#tm, bn#tn) = c.at(tm, tn);",
    ] {
        let k = lowered(&auto_out(store)).unwrap_or_else(|c| panic!("{c:?}"));
        assert!(!body(&k).contains("tsl_i"), "{}", body(&k));
        assert_eq!(k.plan.fills.len(), 1, "{store}");
        let f = &k.plan.fills[0];
        assert_eq!(
            (f.param, f.value, f.elems.to_string()),
            (2, 0.0, "M * N".to_string())
        );
    }
    // A value the checker does not know stays not supported.
    let unknown = auto_out("    output.at(bm#tm, bn#tn) = c.at(tm, tn);")
        .replace("output{0.0f}", "output{M * 1.0f}");
    assert_eq!(codes(&unknown), ["E1306"]);
}

/// A kernel accumulating in its output (`mc = mma.load output…; …; mma.store mc, output…`),
/// with the warps' accesses `access` (twice: the load and the store). The operand tiles are
/// TM × TK and TK × TN whatever the grid, so the warps' fragments keep their shapes.
fn loadc(block: &str, access: &str) -> String {
    format!(
        "const TM = 32;\nconst TN = 16;\nconst TK = 8;\n__co__ auto f(f16 [M, K] lhs, f16 [K, N] rhs) {{\n  f16 [M, N] output{{0.0f}};\n  parallel {block} : block {{\n    foreach {{kt}} in [cdiv(K, TK)] {{\n      a = dma.copy lhs.subspan(TM, TK).at(bm, kt) => shared;\n      b = dma.copy rhs.subspan(TK, TN).at(kt, bn) => shared;\n      parallel {{wm, wn}} by [TM / 8, TN / 8] : group {{\n        mc = mma.load {access};\n        foreach {{wk}} in [TK / 4] {{\n          ma = mma.load a.chunkat(wm, wk);\n          mb = mma.load b.chunkat(wk, wn);\n          mma.row.col mc, ma, mb;\n        }}\n        mma.store mc, {access};\n      }}\n    }}\n  }}\n  return output;\n}}\n"
    )
}

#[test]
fn a_read_output_is_initialized_by_the_block_that_owns_each_tile() {
    let grid = "{bm, bn} by [cdiv(M, TM), cdiv(N, TN)]";
    let k = lowered(&loadc(grid, "output.subspan(8, 8).at(bm # wm, bn # wn)"))
        .unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    // Before the k loop: this block's (8 · TM/8) × (8 · TN/8) tile of `output` is zeroed by all
    // its threads, bounds-checked, then a barrier.
    let fill = b
        .find("for (int tsl_i = threadIdx.x;")
        .unwrap_or_else(|| panic!("{b}"));
    let kloop = b.find("for (int kt = 0;").unwrap_or_else(|| panic!("{b}"));
    assert!(fill < kloop, "{b}");
    assert!(b[fill..kloop].contains("tsl_i += tsl_threads"), "{b}");
    assert!(
        b[fill..kloop].contains("const int tsl_g0 = bm * (8 * (TM / 8))"),
        "{b}"
    );
    assert!(
        b[fill..kloop]
            .contains("if (tsl_g0 < M && tsl_g1 < N) output[(long long)tsl_g0 * N + tsl_g1] ="),
        "{b}"
    );
    assert!(b[fill..kloop].contains("__syncthreads();"), "{b}");
}

#[test]
fn a_read_output_not_owned_by_blocks_is_filled_by_the_runtime() {
    let access = "output.subspan(8, 8).at(bm # wm, bn # wn)";
    let filled =
        |k: &CudaKernel| !body(k).contains("tsl_i") && k.plan.fills.iter().map(|f| f.param).eq([2]);
    // A block variable that owns no dimension (two blocks share a tile): no block owns a
    // chunk, so the runtime fills the output.
    let k = lowered(&loadc(
        "{bm, bn, s} by [cdiv(M, TM), cdiv(N, TN), 2]",
        access,
    ))
    .unwrap_or_else(|c| panic!("{c:?}"));
    assert!(filled(&k), "{}", body(&k));
    // Blocks that own tiles not covering the output (`bm` runs over cdiv(M, 2 · TM) blocks of
    // TM rows, or the dimensions swapped between the blocks and the output): not supported yet.
    assert!(codes(&loadc("{bm, bn} by [cdiv(M, 2 * TM), cdiv(N, TN)]", access)).contains(&"E1306"));
    assert!(
        codes(&loadc(
            "{bm, bn} by [cdiv(M, TM), cdiv(N, TN)]",
            "output.subspan(8, 8).at(bn # wm, bm # wn)"
        ))
        .contains(&"E1306")
    );
}

/// A kernel over a 4-D tensor whose future `x` copies `src`; `v` names the head's matrix.
fn heads(view: &str, src: &str) -> String {
    format!(
        "const TM = 16;\nconst TK = 32;\n__co__ void f(f16 [B, H, S, D] a, f32 [S, D] o) {{\n  parallel {{bm, bh}} by [cdiv(S, TM), B * H] : block, {{t}} by [16] : thread {{\n    v = {view};\n    foreach {{h}} in [cdiv(D, TK)] {{\n      x = dma.copy.async {src} => shared;\n      wait x;\n      o.at(bm#t, 0) = x.data.at(t, 0);\n    }}\n  }}\n}}\n"
    )
}

#[test]
fn a_tile_of_a_squeezed_view_sizes_the_buffer() {
    // The head's [S, D] matrix, named; its [TM, TK] tile sizes the buffer, and the copy reads
    // it from the head's base with the head's own bounds (zero fill past S and D).
    let head = "a.subspan(1, 1, S, D).at(bh / H, bh % H, 0, 0).sqz()";
    let k =
        lowered(&heads(head, "v.subspan(TM, TK).at(bm, h)")).unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    assert!(
        b.contains("tsl_copy_g2s<TM, TK, TK, tsl_threads>(x, (a + (((bh / H) * H + bh % H) * S) * D), bm * TM, h * TK, S, D);"),
        "{b}"
    );
    // Written out in place, and chunked instead of tiled: the same buffer shape.
    let k = lowered(&heads(head, &format!("{head}.chunkat(bm, h)")))
        .unwrap_or_else(|c| panic!("{c:?}"));
    assert!(
        body(&k).contains("tsl_copy_g2s<TM, TK, TK, tsl_threads>(x, (a + "),
        "{}",
        body(&k)
    );
    // The squeeze lowers when it keeps whole trailing dimensions only: a partial one (rows
    // `bm · TM …` of the head) or one kept before a dropped one stays gated.
    let partial = "a.subspan(1, 1, TM, D).at(bh / H, bh % H, bm, 0).sqz()";
    assert!(
        codes(&heads(partial, "v.subspan(TM, TK).at(0, h)")).contains(&"E1307"),
        "a squeeze of a partial dimension is not lowered"
    );
    let middle = "a.subspan(1, H, 1, D).at(bh / H, 0, bm, 0).sqz()";
    assert!(
        codes(&heads(middle, "v.subspan(TM, TK).at(0, h)")).contains(&"E1307"),
        "a squeeze that keeps a dimension before a dropped one is not lowered"
    );
}

/// A WGMMA kernel whose operand `qt` is a `dma.copy{mods} … => shared` future of a head's tile.
fn swizzled(mods: &str, cols: &str) -> String {
    format!(
        "__co__ void f(f16 [B, H, S, D] q, f16 [N, 64] k, f32 [S, N] o) {{\n  parallel {{bm, bh}} by [cdiv(S, 64), B * H] : block {{\n    parallel p by 1 : group-4 {{\n      acc = mma.fill.f32 0.0f;\n      qt = dma.copy{mods} q.subspan(1, 1, S, D).at(bh / H, bh % H, 0, 0).sqz().subspan(64, {cols}).at(bm, 0) => shared;\n      kt = dma.copy.swiz<128> k.subspan(64, 64).at(0, 0) => shared;\n      mma.row.row acc, qt, kt;\n      mma.store acc, o.subspan(64, 64).at(bm, 0);\n    }}\n  }}\n}}\n"
    )
}

#[test]
fn swizzled_dma_futures_feed_wgmma_when_their_rows_are_one_span() {
    // 64 f16 columns are one 128-byte span: the block's threads store the tile swizzled.
    let k = lowered(&swizzled(".swiz<128>", "64")).unwrap_or_else(|c| panic!("{c:?}"));
    let b = body(&k);
    assert!(
        b.contains("tsl_copy_g2s_swz<64, 64, 128, tsl_threads>(qt, (q + "),
        "{b}"
    );
    assert!(b.contains("tsl_wgmma_desc<128>(qt, 0)"), "{b}");
    // Rows that are not one swizzle span: Croqtile swizzles them, tessel does not lower it.
    assert!(codes(&swizzled(".swiz<64>", "64")).contains(&"E1345"));
    // A plain future states no swizzle: tessel writes the whole tile, so it picks the swizzle
    // of its 128-byte rows.
    let k = lowered(&swizzled("", "64")).unwrap_or_else(|c| panic!("{c:?}"));
    assert!(
        body(&k).contains("tsl_copy_g2s_swz<64, 64, 128, tsl_threads>(qt, (q + "),
        "{}",
        body(&k)
    );
    // An async swizzled copy (E1345): not lowered.
    assert!(codes(&swizzled(".async.swiz<128>", "64")).contains(&"E1345"));
}
