//! Constructs of today's Croqtile that tessel lowers: each `tests/lowered/*.co` is taken in its
//! launch form (`lower::launch_form`, what `tessel emit`, the runtime and the macro lower), its
//! IR dump must equal `tests/lowered/*.ir` (refresh with `TESSEL_BLESS=1`), and it must pass
//! `check_config` and lower. The emitted CUDA of the GPU-verified kernels is held by the root
//! crate's `kernels/*.co` goldens and NVRTC tests.

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::{ExtStmt, MemSpace, Module, Returns, Stmt};
use dsl_core::lower::launch_form;
use dsl_core::parse::parse_str;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/lowered")
}

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}"))
        .module
}

fn lowers(m: &Module, what: &str) -> dsl_core::lower::CudaKernel {
    let info = check::check_config(m, &Config::defaults(m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{what}: check_config failed:\n{d}"));
    dsl_core::lower::lower(m, &info).unwrap_or_else(|d| panic!("{what}: lowering failed:\n{d}"))
}

#[test]
fn each_construct_dumps_its_golden_and_lowers() {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(!names.is_empty());
    for name in names {
        let text = std::fs::read_to_string(dir().join(format!("{name}.co"))).unwrap();
        let m = launch_form(parse(&text));
        let dump = m.to_string();
        let path = dir().join(format!("{name}.ir"));
        if std::env::var_os("TESSEL_BLESS").is_some() {
            std::fs::write(&path, &dump).unwrap();
        } else {
            let want = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (bless with TESSEL_BLESS=1)", path.display()));
            assert_eq!(
                dump, want,
                "{name}: IR dump differs (TESSEL_BLESS=1 to accept)"
            );
        }
        lowers(&m, &name);
    }
}

#[test]
fn a_body_declared_output_becomes_the_last_parameter() {
    let raw = parse(&std::fs::read_to_string(dir().join("auto_output.co")).unwrap());
    // As written, the lowering gate refuses it: the function must be taken in its launch form.
    assert!(check::check_config(&raw, &Config::defaults(&raw), None, &Limits::SM90).is_err());
    let m = launch_form(raw);
    let names: Vec<&str> = m
        .kernel
        .params
        .iter()
        .map(|p| p.name.name.as_str())
        .collect();
    assert_eq!(names, ["x", "y"]);
    assert_eq!(m.kernel.params[1].space, MemSpace::Global);
    assert_eq!(m.kernel.returns, Returns::Void);
    // The problem-dependent integer moved into the `parallel`; nothing but it stays outside.
    assert_eq!(m.kernel.body.len(), 1);
    let Stmt::Parallel { body, .. } = &m.stmts[m.kernel.body[0]] else {
        panic!("not a parallel")
    };
    assert!(matches!(&m.stmts[body[0]], Stmt::ScalarDecl { name, .. } if name.name == "rows"));
    let k = lowers(&m, "auto_output");
    assert_eq!(
        k.params.len(),
        2 + 2,
        "two pointers and the dims M, N: {:?}",
        k.params
    );
    assert_eq!(
        (
            k.params[1].ty.to_string().as_str(),
            k.params[1].name.as_str()
        ),
        ("float* __restrict__", "y"),
        "{:?}",
        k.params
    );
}

#[test]
fn what_the_launch_form_cannot_move_stays_and_is_reported() {
    // An integer a `parallel`'s extents name must exist before the launch: it stays outside
    // (E0905 reports it), and so does a scalar result (no parameter can hold it).
    let src = "__co__ void f(f32 [M] x) {\n  int n = cdiv(M, 32);\n  parallel {b} by [n] : block, {t} by [32] : thread {\n    x.at(b#t) = 0.0f;\n  }\n}\n";
    let m = launch_form(parse(src));
    assert_eq!(m.kernel.body.len(), 2);
    let err = check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90).unwrap_err();
    assert!(err.iter().any(|d| d.code == "E0905"), "{err}");

    let src = "__co__ int f(f32 [M] x) {\n  parallel {b} by [cdiv(M, 32)] : block, {t} by [32] : thread {\n    x.at(b#t) = 0.0f;\n  }\n  return M;\n}\n";
    let m = launch_form(parse(src));
    assert!(matches!(m.kernel.returns, Returns::Value { .. }));
    assert!(
        m.kernel
            .body
            .iter()
            .any(|&s| matches!(m.stmts[s], Stmt::Ext(ExtStmt::Return { .. })))
    );
    assert!(check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90).is_err());
}

#[test]
fn a_module_without_any_of_it_is_unchanged() {
    let src = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../kernels/v1_shared.co"),
    )
    .unwrap();
    let m = parse(&src);
    assert_eq!(launch_form(m.clone()).to_string(), m.to_string());
}

fn codes_of(src: &str) -> Vec<&'static str> {
    let m = launch_form(parse(src));
    match check::check_config(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok(info) => {
            dsl_core::lower::lower(&m, &info).expect("check ok ⇒ lower ok");
            Vec::new()
        }
        Err(d) => d.iter().map(|x| x.code).collect(),
    }
}

fn future_kernel(copies: &str) -> String {
    format!(
        "__co__ void f(f16 [M, K] a, f32 [M, K] o) {{\n  parallel {{bm}} by [cdiv(M, 16)] : block, {{t}} by [16] : thread {{\n{copies}\n    o.at(bm#t, 0) = x.data.at(t, 0);\n  }}\n}}\n"
    )
}

#[test]
fn future_copies_lower_or_are_gated_with_their_codes() {
    let ok =
        future_kernel("    x = dma.copy.async a.subspan(16, 32).at(bm, 0) => shared;\n    wait x;");
    assert_eq!(codes_of(&ok), Vec::<&str>::new());
    // A fresh buffer's shape comes from the source's tile: a whole problem-sized tensor is a
    // buffer sized at launch.
    let whole = future_kernel("    x = dma.copy.async a => shared;\n    wait x;");
    assert_eq!(codes_of(&whole), Vec::<&str>::new());
    let two = future_kernel(
        "    x = dma.copy.async a.subspan(16, 32).at(bm, 0) => shared;\n    wait x;\n    x = dma.copy.async a.subspan(16, 64).at(bm, 0) => shared;\n    wait x;",
    );
    assert!(codes_of(&two).contains(&"E1462"), "{:?}", codes_of(&two));
    // `.zfill` into a fresh buffer of the source's shape is the plain copy (every copy reads
    // zeros past the tensor's edge); other modifiers on a future's copy are not lowered yet.
    let zfill = future_kernel(
        "    x = dma.copy.async.zfill a.subspan(16, 32).at(bm, 0) => shared;\n    wait x;",
    );
    assert_eq!(codes_of(&zfill), Vec::<&str>::new());
    let swiz = future_kernel(
        "    x = dma.copy.async.swiz<64> a.subspan(16, 32).at(bm, 0) => shared;\n    wait x;",
    );
    assert_eq!(codes_of(&swiz), ["E1345"]);
}

/// The threads that reach an event's first `trigger` are counted by a C++ predicate: the
/// enclosing `inthreads` conditions rendered as C++ over the thread variables, `p # lane`
/// as `p * 128 + lane` (the extent of `lane` is the stride), never the DSL's own text.
#[test]
fn an_arrival_predicate_is_cpp_over_the_thread_variables() {
    let text = std::fs::read_to_string(dir().join("trigger_compose.co")).unwrap();
    let k = lowers(&launch_form(parse(&text)), "trigger_compose");
    let reach: Vec<String> = k
        .body
        .iter()
        .filter_map(|l| match &l.op {
            dsl_core::lower::Op::Decl { name, init, .. } if name.starts_with("tsl_reach_") => {
                Some(format!(
                    "{name}: {}",
                    init.as_ref().map(|i| i.to_string()).unwrap_or_default()
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(reach.len(), 2, "{reach:?}");
    assert!(reach[0].ends_with("return (p == 0); }"), "{reach:?}");
    assert!(
        reach[1].ends_with("return (p >= 1 && p * 128 + lane >= 128); }"),
        "{reach:?}"
    );
    assert!(reach.iter().all(|r| !r.contains('#')), "{reach:?}");
}

/// Sibling thread-level `parallel`s each span the block's threads: the geometry comes from the
/// checker's chains (one per innermost `parallel`), not from all levels taken as one nest.
#[test]
fn sibling_thread_parallels_share_the_blocks_threads() {
    let text = std::fs::read_to_string(dir().join("sibling_parallels.co")).unwrap();
    let k = lowers(&launch_form(parse(&text)), "sibling_parallels");
    assert_eq!(k.plan.block_threads, dsl_core::lower::Sym::Int(64));
    let vars: Vec<String> = k
        .body
        .iter()
        .filter_map(|l| match &l.op {
            dsl_core::lower::Op::Decl { name, init, .. } if name == "t" || name == "u" => {
                Some(format!(
                    "{name} = {}",
                    init.as_ref().map(|i| i.to_string()).unwrap_or_default()
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(vars, ["t = threadIdx.x", "u = threadIdx.x"]);
}

/// A name declared again by a later `parallel` is another variable: each use and each formula
/// follows the checker's binding, not the first declaration of the name.
#[test]
fn a_reused_variable_name_is_its_own_variable() {
    let text = std::fs::read_to_string(dir().join("reused_names.co")).unwrap();
    let k = lowers(&launch_form(parse(&text)), "reused_names");
    assert_eq!(k.plan.block_threads, dsl_core::lower::Sym::Int(64));
    let vars: Vec<String> = k
        .body
        .iter()
        .filter_map(|l| match &l.op {
            dsl_core::lower::Op::Decl { name, init, .. } if name == "t" || name == "u" => {
                Some(format!(
                    "{name} = {}",
                    init.as_ref().map(|i| i.to_string()).unwrap_or_default()
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        vars,
        [
            "t = threadIdx.x",
            "t = threadIdx.x / 32",
            "u = threadIdx.x % 32"
        ]
    );
}

/// Kernel-scope values move into the `parallel` in the launch form; as written they already
/// pass `check_config`, and the lowering then declares them where they stand, before the
/// `parallel`'s region: either way each thread computes them before its work.
#[test]
fn kernel_scope_values_lower_as_written_and_in_the_launch_form() {
    let raw = parse(&std::fs::read_to_string(dir().join("kernel_scope.co")).unwrap());
    let as_written = lowers(&raw, "kernel_scope as written");
    let m = launch_form(raw);
    assert_eq!(m.kernel.body.len(), 1, "only the `parallel` stays outside");
    let Stmt::Parallel { body, .. } = &m.stmts[m.kernel.body[0]] else {
        panic!("not a parallel")
    };
    assert!(matches!(&m.stmts[body[0]], Stmt::ScalarDecl { name, .. } if name.name == "g2"));
    assert!(matches!(&m.stmts[body[3]], Stmt::Assign { .. }));
    let k = lowers(&m, "kernel_scope");
    for k in [&as_written, &k] {
        let text: Vec<String> = k.body.iter().map(|l| l.op.to_string()).collect();
        assert!(
            text.iter().any(|l| l.contains("(negate ? ")),
            "the `bool` parameter selects: {text:#?}"
        );
        let g2 = text
            .iter()
            .position(|l| l.contains("float g2 = gain * 2.0f"));
        let region = text.iter().position(|l| l.contains("threadIdx"));
        assert!(g2.is_some() && region.is_some(), "{text:#?}");
    }
}

/// The body text of a lowered kernel, one node a line.
fn body_text(k: &dsl_core::lower::CudaKernel) -> String {
    k.body.iter().map(|l| format!("{}\n", l.op)).collect()
}

/// The body of the kernel `src` lowers to, in its launch form (`what` names it in a failure).
fn lowered_body(src: &str, what: &str) -> String {
    body_text(&lowers(&launch_form(parse(src)), what))
}

/// A WGMMA accumulator masked under an `if` and then reduced: the WGMMAs' wait inside the
/// `if` runs on one path only, so the reduction after it commits and waits again.
#[test]
fn a_wgmma_wait_inside_an_if_does_not_cover_the_code_after_it() {
    let src = "const BM = 64;\n__co__ void f(f16 [M, K] q, f16 [N, K] k, bool masked, f32 [M] mx) {\n  parallel {bm} by [cdiv(M, BM)] : block {\n    shared f16 [BM, 64] q_s;\n    shared f16 [64, 64] k_s;\n    tma.copy.swiz<128> q.subspan(BM, 64).at(bm, 0) => q_s;\n    tma.copy.swiz<128> k.subspan(64, 64).at(0, 0) => k_s;\n    parallel p by 1 : group-4 {\n      frag f32 [BM] row_max;\n      s = mma.fill.f32 0.0f;\n      mma.row.row s, q_s, k_s;\n      if (masked) {\n        apply {i, j} in s.span {\n          if (j > i) s.at(i, j) = -inf;\n        }\n      }\n      reduce_max(row_max, s, 1);\n    }\n  }\n}\n";
    let m = launch_form(parse(src));
    let b = body_text(&lowers(&m, "masked reduce"));
    let reduce = b
        .find("tsl_frag_wgmma_reduce")
        .unwrap_or_else(|| panic!("{b}"));
    let close = b[..reduce].rfind('}').unwrap_or_else(|| panic!("{b}"));
    assert!(
        b[close..reduce].contains("tsl_wgmma_commit(); tsl_wgmma_wait<0>();"),
        "no wait between the `if` and the reduction:\n{b}"
    );
}

/// An element of a rank-3 global tensor: the leading dimensions fold into the row of the
/// guarded accessor, and a middle index past its dimension (or negative) reads zero.
#[test]
fn rank_three_elements_fold_their_leading_dimensions() {
    let src = "__co__ void f(f32 [B, S, D] u, f32 [S, D] o) {\n  parallel {b} by [B] : block, {i, j} by [16, 16] : thread {\n    o.at(i, j) = u.at(b, i, j);\n  }\n}\n";
    let m = launch_form(parse(src));
    let b = body_text(&lowers(&m, "rank 3"));
    assert!(
        b.contains(
            "tsl_ld_or_zero(u, ((unsigned)i < (unsigned)S ? (b * S + i) : B * S), j, B * S, D)"
        ),
        "{b}"
    );
}

#[test]
fn a_while_loop_of_per_thread_work_lowers_and_one_with_a_barrier_is_gated() {
    let k = |body: &str| {
        format!(
            "__co__ void k(f32 [N] x, f32 [N] y) {{\n  parallel {{b}} by [4] : block, {{t}} by [64] : thread {{\n    shared f32 [64] s;\n    mutable int i = b * 64 + t;\n    while (i < N) {{\n{body}\n      i += 256;\n    }}\n  }}\n}}\n"
        )
    };
    assert_eq!(
        codes_of(&k("      y.at(i) = x.at(i) + 1.0f;")),
        Vec::<&str>::new()
    );
    // A fence orders the thread's own accesses: per-thread work too.
    assert_eq!(
        codes_of(&k("      y.at(i) = x.at(i);\n      sync.fence : block;")),
        Vec::<&str>::new()
    );
    // A barrier (or a reduction, an `mma`, an event) in the loop: not lowered yet.
    let synced = k("      s.at(t) = x.at(i);\n      sync.shared;\n      y.at(i) = s.at(63 - t);");
    assert_eq!(codes_of(&synced), ["E1300"]);
    let block_synced =
        k("      s.at(t) = x.at(i);\n      sync.barrier : block;\n      y.at(i) = s.at(63 - t);");
    assert_eq!(codes_of(&block_synced), ["E1300"]);
}

#[test]
fn block_and_warp_barriers_and_fences_lower_and_divergent_ones_are_errors() {
    let k = |body: &str| {
        format!(
            "__co__ void k(f32 [N] x, f32 [N] y) {{\n  parallel {{b}} by [cdiv(N, 256)] : block, {{w}} by [8] : group, {{l}} by [32] : thread {{\n    shared f32 [8, 32] r;\n    r.at(w, l) = x.at(b # w # l);\n{body}\n    y.at(b # w # l) = r.at(w, (l + 1) % 32);\n  }}\n}}\n"
        )
    };
    let lowered = |body: &str| lowered_body(&k(body), body);
    assert!(lowered("    sync.barrier : block;").contains("__syncthreads();"));
    assert!(lowered("    sync.barrier;").contains("__syncthreads();"));
    assert!(lowered("    sync.barrier : group;").contains("__syncwarp();"));
    assert!(lowered("    sync.barrier : thread;").contains("__syncwarp();"));
    assert!(lowered("    sync.fence : block;").contains("__threadfence();"));
    assert!(lowered("    sync.fence : thread;").contains("__threadfence_block();"));
    // A warp's barrier under a condition every lane of the warp shares (a `: group` variable).
    assert!(
        lowered("    if (w < 4) {\n      sync.barrier : group;\n    }").contains("__syncwarp();")
    );
    // Under one that differs between lanes, or a block barrier under a warp's condition.
    assert_eq!(
        codes_of(&k("    if (l < 16) {\n      sync.barrier : group;\n    }")),
        ["E1690"]
    );
    assert_eq!(
        codes_of(&k("    if (w < 4) {\n      sync.barrier : block;\n    }")),
        ["E1690"]
    );
    // In a loop whose trip count differs between the threads (lanes) the barrier waits for:
    // those with fewer trips stop arriving. One the warp's lanes share keeps a warp barrier.
    assert_eq!(
        codes_of(&k(
            "    foreach {i} in [l % 4 + 1] {\n      sync.barrier : group;\n    }"
        )),
        ["E1690"]
    );
    assert_eq!(
        codes_of(&k(
            "    foreach {i} in [w + 1] {\n      sync.shared;\n    }"
        )),
        ["E1690"]
    );
    assert!(
        lowered("    foreach {i} in [w + 1] {\n      sync.barrier : group;\n    }")
            .contains("__syncwarp();")
    );
    // A block's copy into shared memory in such a loop: its barriers too (not lowered), and a
    // block reduction (an error).
    assert_eq!(
        codes_of(&k(
            "    foreach {i} in [l + 1] {\n      dma.copy x.subspan(256).at(b) => r.span_as([256]);\n    }"
        )),
        ["E1693"]
    );
    assert_eq!(
        codes_of(&k(
            "    f32 v = 1.0f;\n    foreach {i} in [l + 1] {\n      reduce.sum v : block;\n    }"
        )),
        ["E0907"]
    );
    // A warpgroup's barrier and a grid's are not lowered yet.
    assert_eq!(codes_of(&k("    sync.barrier : group-4;")), ["E1300"]);
    assert_eq!(codes_of(&k("    sync.global;")), ["E1300"]);
}

#[test]
fn an_atomics_old_value_kept_whole_in_a_scalar_lowers() {
    let k = |body: &str| {
        format!(
            "__co__ void k(s32 [N] x, s32 [N] y, s32 [1] total) {{\n  parallel {{b}} by [cdiv(N, 64)] : block, {{t}} by [64] : thread {{\n    shared s32 [1] next;\n    if (t == 0) {{\n      next.at(0) = 0;\n    }}\n    sync.shared;\n{body}\n  }}\n}}\n"
        )
    };
    let lowered = |body: &str| lowered_body(&k(body), body);
    let shared = lowered("    int mine = __atomic_add(next.at(0), 1);\n    y.at(b # t) = mine;");
    assert!(
        shared.contains("int mine = atomicAdd(&next[0], 1);"),
        "{shared}"
    );
    let assigned = lowered(
        "    mutable int mine = 0;\n    mine = __atomic_max(next.at(0), t);\n    y.at(b # t) = mine;",
    );
    assert!(
        assigned.contains("mine = atomicMax(&next[0], t);"),
        "{assigned}"
    );
    // On a global tensor, behind its bounds test: an index outside updates nothing, reads 0.
    // An integer index the extent shows inside needs no test.
    let global =
        lowered("    int g = __atomic_add(total.at(0), x.at(b # t));\n    y.at(b # t) = g;");
    assert!(
        global.contains("int g = atomicAdd(total + (long long)(0), "),
        "{global}"
    );
    let tested =
        lowered("    int g = __atomic_add(total.at(t % 2), x.at(b # t));\n    y.at(b # t) = g;");
    assert!(
        tested.contains(
            "int g = (((unsigned)(t % 2) < (unsigned)(1)) ? atomicAdd(total + (long long)(t % 2), "
        ),
        "{tested}"
    );
    // Deeper inside an expression, or stored straight to memory: not lowered yet.
    assert_eq!(
        codes_of(&k(
            "    int g = __atomic_add(next.at(0), 1) + 1;\n    y.at(b # t) = g;"
        )),
        ["E1303"]
    );
    assert_eq!(
        codes_of(&k("    y.at(b # t) = __atomic_add(next.at(0), 1);")),
        ["E1303"]
    );
}

#[test]
fn rank_three_tiles_made_of_rows_copy_through_shared_memory() {
    let k = |tile: &str, at: &str| {
        format!(
            "__co__ void k(f32 [B, M, K] x, f32 [B, M, K] y) {{\n  parallel {{b, bm}} by [B, cdiv(M, 16)] : block, {{t}} by [128] : thread {{\n    shared f32 [{tile}] s;\n    dma.copy x.subspan({tile}).at({at}) => s;\n    dma.copy s => y.subspan({tile}).at({at});\n  }}\n}}\n"
        )
    };
    // A plane of the batch (a pointer offset; a plane past B has no rows), then 16 rows of it;
    // the store waits for the copy to land.
    let b = lowered_body(&k("1, 16, 64", "b, bm, 0"), "batched");
    assert!(
        b.contains("tsl_copy_g2s<16, 64, 64, tsl_threads>(s, x + (long long)(b) * (M * K), bm * 16, 0, (((unsigned)(b) < (unsigned)(B)) ? M : 0), K);"),
        "{b}"
    );
    let wait = b.find("tsl_cp_async_wait_all();").expect("a wait");
    assert!(wait < b.find("tsl_copy_s2g").expect("a store"), "{b}");
    // A middle dimension neither 1 nor whole: its rows are not consecutive.
    assert_eq!(codes_of(&k("2, 16, 64", "b, bm, 0")), ["E1104", "E1104"]);
}

#[test]
fn elements_of_rank_three_shared_and_register_tiles_use_every_index() {
    let src = "__co__ void k(f32 [N] x, f32 [N] y) {\n  parallel {b} by [cdiv(N, 64)] : block, {t} by [64] : thread {\n    shared f32 [2, 4, 64] s;\n    local f32 [2, 2, 4] r;\n    s.at(1, 2, t) = x.at(b # t);\n    sync.shared;\n    r.at(1, 0, 3) = s.at(1, 2, 63 - t);\n    y.at(b # t) = r.at(1, 0, 3);\n  }\n}\n";
    let b = lowered_body(src, "rank 3");
    assert!(b.contains("s[1 * 256 + 2 * 64 + t] = "), "{b}");
    assert!(
        b.contains("r[1 * 8 + 3] = s[1 * 256 + 2 * 64 + 63 - t];"),
        "{b}"
    );
}

/// `.span_as(…)` of a whole tensor is the same pointer with the new shape's bounds; of a tile
/// (which could reach past the tensor's end) it is not lowered yet.
#[test]
fn a_whole_tensor_reshapes_and_a_tile_does_not_yet() {
    let k = |view: &str| {
        format!(
            "__co__ void k(f32 [B, 16, 8] a, f32 [B, 128] out) {{\n  parallel {{p}} by [B] : block, {{t}} by [128] : thread {{\n    out.at(p, t) = {view};\n  }}\n}}\n"
        )
    };
    let whole = lowered_body(&k("a.span_as(B, 128).at(p, t)"), "whole");
    assert!(whole.contains("tsl_ld_or_zero(a, p, t, B, 128)"), "{whole}");
    assert_eq!(
        codes_of(&k("a.subspan(1, 16, 8).at(p, 0, 0).span_as(128).at(t)")),
        ["E1307"]
    );
}

/// A TMA load outside every `inthreads` branch is issued by one thread for the whole block, so
/// a tile that depends on a `: group-4` variable would load one warpgroup's tile only.
#[test]
fn a_block_wide_tma_load_is_one_tile_for_the_block() {
    let k = |row: &str, stage: &str| {
        format!(
            "__co__ void k(global f16 [M, 64] x, global f16 [M, 64] y) {{\n  parallel {{b}} by [cdiv(M, 64)] : block, {{g}} by [2] : group-4 {{\n    shared f16 [64, 64] s[2];\n    tma.copy x.subspan(64, 64).at({row}, 0) => s[{stage}];\n    y.at(b * 64 + g, 0) = s[{stage}].at(g, 0);\n  }}\n}}\n"
        )
    };
    assert_eq!(codes_of(&k("b", "0")), Vec::<&str>::new());
    // The source or the destination (only warpgroup 0's buffer would be filled).
    assert_eq!(codes_of(&k("b + g", "0")), ["E1122"]);
    assert_eq!(codes_of(&k("b", "g")), ["E1122"]);
}

/// A fresh shared buffer whose tile depends on a `: thread` variable is each thread's own: a
/// slot per thread of the block, copied into by its thread alone with no barrier; every binding
/// of its name copies per thread (even one whose tile is the block's), and the budget counts
/// every slot.
#[test]
fn a_fresh_buffer_of_each_threads_own_tile_has_a_slot_per_thread() {
    let k = |threads: u32, tile: &str, again: &str| {
        format!(
            "__co__ void k(global f32 [M, 64] x, global f32 [M, 64] y) {{\n  parallel {{b}} by [cdiv(M, 2)] : block, {{t}} by [{threads}] : thread {{\n    f = dma.copy x.{tile} => shared;\n    y.at(b * 2, t) = f.data.at(0, 0);\n{again}  }}\n}}\n"
        )
    };
    let own = lowered_body(&k(8, "chunkat(b, t)", ""), "own");
    assert!(
        own.contains(
            "float* f = reinterpret_cast<float*>(tsl_smem + tsl_smem_f + threadIdx.x * 64);"
        ),
        "{own}"
    );
    assert!(
        own.contains("tsl_copy_g2r<2, 8, 8>(f, x, b * 2, t * 8, M, 64);"),
        "{own}"
    );
    assert!(!own.contains("__syncthreads"), "{own}");
    // The block's tile, copied by the block together into one buffer.
    let shared = lowered_body(&k(8, "subspan(2, 8).at(b, 0)", ""), "shared");
    assert!(shared.contains("tsl_smem + tsl_smem_f);"), "{shared}");
    assert!(shared.contains("__syncthreads"), "{shared}");
    // A second binding of the name with the block's tile still fills this thread's slot.
    let again = lowered_body(
        &k(
            8,
            "chunkat(b, t)",
            "    foreach {k} in [2] {\n      f = dma.copy x.subspan(2, 8).at(b, k) => shared;\n      y.at(b * 2 + 1, t) = f.data.at(1, 0);\n    }\n",
        ),
        "again",
    );
    assert_eq!(
        again.matches("tsl_copy_g2r<2, 8, 8>(f, x").count(),
        2,
        "{again}"
    );
    assert!(!again.contains("__syncthreads"), "{again}");
    // 1024 threads × [2, 8] f32 fits; 1024 × [2, 64] (512 KiB) does not.
    assert_eq!(
        codes_of(&k(1024, "subspan(2, 8).at(t, 0)", "")),
        Vec::<&str>::new()
    );
    assert_eq!(codes_of(&k(1024, "subspan(2, 64).at(t, 0)", "")), ["E0501"]);
    // `.async` into the thread's own buffer: copied as it is issued, its `wait` needs nothing.
    let async_own = k(8, "chunkat(b, t)", "").replace(
        "f = dma.copy x.chunkat(b, t) => shared;\n",
        "f = dma.copy.async x.chunkat(b, t) => shared;\n    wait f;\n",
    );
    let body = lowered_body(&async_own, "async own");
    assert!(
        body.contains("tsl_copy_g2r<2, 8, 8>(f, x, b * 2, t * 8, M, 64);"),
        "{body}"
    );
    assert!(!body.contains("cp_async"), "{body}");
    assert!(!body.contains("__syncthreads"), "{body}");
}
