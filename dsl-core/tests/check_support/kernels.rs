//! The v0–v4 ladder's kernels (kernels/*.co) built by hand, statement for statement.

use super::B;
use dsl_core::ir::{AssignOp, DType, Level, MemSpace, Module};

const F16: DType = DType::F16;

pub fn v0() -> Module {
    let mut b = B::new();
    b.tunable("TILE_M", &[8, 16, 32], 32);
    b.tunable("TILE_N", &[8, 16, 32], 32);
    b.require("TILE_M * TILE_N <= 1024");
    b.gemm_params(F16);
    let p = b.par(
        &[
            (
                &["block_m", "block_n"],
                &["cdiv(M, TILE_M)", "cdiv(N, TILE_N)"],
                Level::Block,
            ),
            (&["thr_m", "thr_n"], &["TILE_M", "TILE_N"], Level::Thread),
        ],
        |b| {
            vec![
                b.scalar(F16, "acc", Some("0.0f")),
                b.foreach(&["iv_k"], &["K"], |b| {
                    vec![b.assign(
                        "acc",
                        AssignOp::Add,
                        "lhs.at(block_m # thr_m, iv_k) * rhs.at(block_n # thr_n, iv_k)",
                    )]
                }),
                b.assign(
                    "output.at(block_m # thr_m, block_n # thr_n)",
                    AssignOp::Set,
                    "acc",
                ),
            ]
        },
    );
    b.finish(vec![p])
}

pub fn v1() -> Module {
    let mut b = B::new();
    b.tunable("TILE_M", &[16, 32], 32);
    b.tunable("TILE_N", &[16, 32], 32);
    b.tunable("TILE_K", &[32, 64, 128], 128);
    b.require("TILE_M * TILE_N <= 1024");
    b.gemm_params(F16);
    let p = b.par(
        &[
            (
                &["block_m", "block_n"],
                &["cdiv(M, TILE_M)", "cdiv(N, TILE_N)"],
                Level::Block,
            ),
            (&["thr_m", "thr_n"], &["TILE_M", "TILE_N"], Level::Thread),
        ],
        |b| {
            vec![
                b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
                b.shared(F16, &["TILE_N", "TILE_K"], "rhs_s", None),
                b.scalar(F16, "acc", Some("0.0f")),
                b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                    vec![
                        b.dma("lhs.subspan(TILE_M, TILE_K).at(block_m, iv_k)", "lhs_s"),
                        b.dma("rhs.subspan(TILE_N, TILE_K).at(block_n, iv_k)", "rhs_s"),
                        b.foreach(&["ik"], &["TILE_K"], |b| {
                            vec![b.assign(
                                "acc",
                                AssignOp::Add,
                                "lhs_s.at(thr_m, ik) * rhs_s.at(thr_n, ik)",
                            )]
                        }),
                    ]
                }),
                b.assign(
                    "output.at(block_m # thr_m, block_n # thr_n)",
                    AssignOp::Set,
                    "acc",
                ),
            ]
        },
    );
    b.finish(vec![p])
}

/// v2 with a header; `tma_swiz`/`load_swiz` are the stated swizzles (`None`: not stated).
pub fn v2_with(
    header: impl FnOnce(&mut B),
    tma_swiz: Option<&str>,
    load_swiz: Option<&str>,
) -> Module {
    let mut b = B::new();
    header(&mut b);
    b.gemm_params(F16);
    let p = b.par(
        &[
            (
                &["block_m", "block_n"],
                &["cdiv(M, WARP_M)", "cdiv(N, WARP_N)"],
                Level::Block,
            ),
            (&[], &["1"], Level::Group4),
        ],
        |b| {
            vec![
                b.shared(F16, &["WARP_M", "TILE_K"], "lhs_s", None),
                b.shared(F16, &["WARP_N", "TILE_K"], "rhs_s", None),
                b.shared(F16, &["WARP_M", "WARP_N"], "output_s", None),
                b.fill("mc", F16, "0.0f"),
                b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                    vec![
                        b.tma(None, tma_swiz, "lhs.chunkat(block_m, iv_k)", "lhs_s"),
                        b.tma(None, tma_swiz, "rhs.chunkat(block_n, iv_k)", "rhs_s"),
                        b.foreach(&["iv_wk"], &["cdiv(TILE_K, WARP_K)"], |b| {
                            vec![
                                b.load("ma", load_swiz, "lhs_s.chunkat(_, iv_wk)"),
                                b.load("mb", load_swiz, "rhs_s.chunkat(_, iv_wk)"),
                                b.mma("mc", "ma", "mb"),
                            ]
                        }),
                    ]
                }),
                b.store("mc", "output_s"),
                b.tma(
                    None,
                    None,
                    "output_s",
                    "output.subspan(WARP_M, WARP_N).at(block_m, block_n)",
                ),
            ]
        },
    );
    b.finish(vec![p])
}

pub fn v2_header(b: &mut B) {
    b.tunable("WARP_N", &[64, 128, 192, 256], 128);
    b.tunable("TILE_K", &[64], 64);
    b.constant("WARP_M", "64");
    b.constant("WARP_K", "16");
    b.constant("SWIZ", "128");
}

pub fn v2() -> Module {
    v2_with(v2_header, Some("SWIZ"), Some("SWIZ"))
}

/// The v3/v4 body: 1 producer + consumer warpgroups; `wg` is the warpgroup count.
pub fn warpspec(header: impl FnOnce(&mut B), wg: &str) -> Module {
    let mut b = B::new();
    header(&mut b);
    b.gemm_params(F16);
    let p = b.par(&[(&["block_m", "block_n"], &["cdiv(M, TILE_M)", "cdiv(N, WARP_N)"], Level::Block)], |b| {
        vec![
            b.events(MemSpace::Shared, &[("full", Some("STAGES")), ("empty", Some("STAGES"))]),
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", Some("STAGES")),
            b.shared(F16, &["WARP_N", "TILE_K"], "rhs_s", Some("STAGES")),
            b.shared(F16, &["WARP_M", "WARP_N"], "output_s", Some("CONSUMERS")),
            b.par(&[(&["wg"], &[wg], Level::Group4), (&["t"], &["128"], Level::Thread)], |b| {
                vec![
                    b.inthreads("wg == 0 && t == 0", |b| {
                        vec![b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                            vec![
                                b.let_("stage", "iv_k % STAGES"),
                                b.wait("empty[stage]"),
                                b.tma(Some("full[stage]"), Some("SWIZ"), "lhs.subspan(TILE_M, TILE_K).at(block_m, iv_k)", "lhs_s[stage]"),
                                b.tma(Some("full[stage]"), Some("SWIZ"), "rhs.subspan(WARP_N, TILE_K).at(block_n, iv_k)", "rhs_s[stage]"),
                                b.trigger("full[stage]"),
                            ]
                        })]
                    }),
                    b.inthreads("wg >= 1", |b| {
                        vec![
                            b.let_("cidx", "wg - 1"),
                            b.foreach(&["s"], &["STAGES"], |b| vec![b.trigger("empty[s]")]),
                            b.fill("mc", F16, "0.0f"),
                            b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
                                vec![
                                    b.let_("stage", "iv_k % STAGES"),
                                    b.wait("full[stage]"),
                                    b.foreach(&["iv_wk"], &["cdiv(TILE_K, WARP_K)"], |b| {
                                        vec![
                                            b.load("ma", Some("SWIZ"), "lhs_s[stage].subspan(WARP_M, WARP_K).at(cidx, iv_wk)"),
                                            b.load("mb", Some("SWIZ"), "rhs_s[stage].chunkat(_, iv_wk)"),
                                            b.mma("mc", "ma", "mb"),
                                        ]
                                    }),
                                    b.commit(),
                                    b.trigger("empty[stage]"),
                                ]
                            }),
                            b.store("mc", "output_s[cidx]"),
                            b.tma(
                                None,
                                None,
                                "output_s[cidx]",
                                "output.subspan(WARP_M, WARP_N).at(block_m * CONSUMERS + cidx, block_n)",
                            ),
                        ]
                    }),
                ]
            }),
        ]
    });
    b.finish(vec![p])
}

pub fn v3_header(b: &mut B) {
    b.tunable("WARP_N", &[64, 128, 192, 256], 128);
    b.tunable("STAGES", &[1, 2], 1);
    b.constant("WARP_M", "64");
    b.constant("WARP_K", "16");
    b.constant("TILE_K", "64");
    b.constant("SWIZ", "128");
    b.constant("CONSUMERS", "1");
    b.constant("TILE_M", "WARP_M * CONSUMERS");
}

pub fn v3() -> Module {
    warpspec(v3_header, "2")
}

/// v4's header with a chosen `CONSUMERS` default.
pub fn v4_header_with(consumers: i64) -> impl FnOnce(&mut B) {
    move |b: &mut B| {
        let warp_n: Vec<i64> = (128..=256).step_by(8).collect();
        b.tunable("WARP_N", &warp_n, 192);
        b.tunable("STAGES", &[1, 2, 3, 4], 2);
        b.tunable("CONSUMERS", &[1, 2], consumers);
        b.tunable("TILE_K", &[32, 64], 64);
        b.constant("WARP_M", "64");
        b.constant("WARP_K", "16");
        b.constant("TILE_M", "WARP_M * CONSUMERS");
        b.constant("SWIZ", "TILE_K * 2");
    }
}

pub fn v4() -> Module {
    warpspec(v4_header_with(2), "CONSUMERS + 1")
}

/// `parallel wg by 3` with `CONSUMERS = 1`: one warpgroup too many for output_s.
pub fn v4_wg3_consumers1() -> Module {
    warpspec(v4_header_with(1), "3")
}

/// v1's header and levels (`block_m, block_n` blocks of `thr_m, thr_n` threads) around `body`.
pub fn simple(body: impl FnOnce(&mut B) -> Vec<dsl_core::ir::StmtId>) -> Module {
    let mut b = B::new();
    b.tunable("TILE_M", &[16, 32], 32);
    b.tunable("TILE_N", &[16, 32], 32);
    b.tunable("TILE_K", &[32, 64, 128], 128);
    b.gemm_params(F16);
    let p = b.par(
        &[
            (
                &["block_m", "block_n"],
                &["cdiv(M, TILE_M)", "cdiv(N, TILE_N)"],
                Level::Block,
            ),
            (&["thr_m", "thr_n"], &["TILE_M", "TILE_N"], Level::Thread),
        ],
        body,
    );
    b.finish(vec![p])
}

/// v2's header and levels (one warpgroup per block) around `body`, with `extra` header lines.
pub fn wgmma(
    extra: impl FnOnce(&mut B),
    body: impl FnOnce(&mut B) -> Vec<dsl_core::ir::StmtId>,
) -> Module {
    let mut b = B::new();
    v2_header(&mut b);
    extra(&mut b);
    b.gemm_params(F16);
    let p = b.par(
        &[
            (
                &["block_m", "block_n"],
                &["cdiv(M, WARP_M)", "cdiv(N, WARP_N)"],
                Level::Block,
            ),
            (&[], &["1"], Level::Group4),
        ],
        body,
    );
    b.finish(vec![p])
}

/// The body of v2's block: shared tiles, fill, the k loop with loads and mma, the store.
/// `a_src`/`b_src` are the `mma.load` sources, `dt` the tile type, `acc` the accumulator type.
pub fn v2_body(
    b: &mut B,
    a_src: &str,
    b_src: &str,
    dt: DType,
    acc: DType,
) -> Vec<dsl_core::ir::StmtId> {
    vec![
        b.shared(dt, &["WARP_M", "TILE_K"], "lhs_s", None),
        b.shared(dt, &["WARP_N", "TILE_K"], "rhs_s", None),
        b.shared(acc, &["WARP_M", "WARP_N"], "output_s", None),
        b.fill("mc", acc, "0.0f"),
        b.foreach(&["iv_k"], &["cdiv(K, TILE_K)"], |b| {
            vec![
                b.tma(None, Some("SWIZ"), "lhs.chunkat(block_m, iv_k)", "lhs_s"),
                b.tma(None, Some("SWIZ"), "rhs.chunkat(block_n, iv_k)", "rhs_s"),
                b.foreach(&["iv_wk"], &["cdiv(TILE_K, WARP_K)"], |b| {
                    vec![
                        b.load("ma", Some("SWIZ"), a_src),
                        b.load("mb", Some("SWIZ"), b_src),
                        b.mma("mc", "ma", "mb"),
                    ]
                }),
            ]
        }),
        b.store("mc", "output_s"),
    ]
}
