//! `[[frag_prefetch]]` (the warp-level K loop with fragments loaded one k-step ahead): the
//! checker accepts the loop shape the lowering's reordering keeps the meaning of, and reports
//! each other order with its own code (E1600–E1606) at the construct; the accepted kernels
//! lower.

use dsl_core::check::{self, codes as c};
use dsl_core::ir::Module;

fn parse(src: &str) -> Module {
    dsl_core::parse::parse_str(src, Some("k.co"))
        .unwrap_or_else(|d| panic!("does not parse:\n{d}\n{src}"))
        .module
}

/// A warp kernel whose K-tile loop is `tile` (with `[[frag_prefetch]]` written by the test);
/// `lhs_s`/`rhs_s` are rings of `STAGES` shared tiles, `g` a plain shared tile.
fn kernel(bk: i64, tile: &str) -> String {
    format!(
        "const BM = 64;
const BN = 64;
const BK = {bk};
const STAGES = 3;
const PAD = 8;
__co__ void k(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] out) {{
  parallel {{bm, bn}} by [cdiv(M, BM), cdiv(N, BN)] : block, {{wm, wn}} by [2, 2] : group {{
    shared f16 [BM, BK + PAD] lhs_s[STAGES];
    shared f16 [BN, BK + PAD] rhs_s[STAGES];
    mc = mma.fill.f32 0.0f;
    foreach {{s}} in [STAGES - 1] {{
      dma.copy.async lhs.subspan(BM, BK).at(bm, s) => lhs_s[s].subspan(BM, BK).at(0, 0);
      dma.copy.async rhs.subspan(BN, BK).at(bn, s) => rhs_s[s].subspan(BN, BK).at(0, 0);
    }}
{tile}
    mma.store mc, out.subspan(32, 32).at(bm#wm, bn#wn);
  }}
}}
"
    )
}

const WAIT: &str = "      dma.wait 2 * (STAGES - 2);";
const COPIES: &str = "      dma.copy.async lhs.subspan(BM, BK).at(bm, kt + STAGES - 1)
        => lhs_s[(kt + STAGES - 1) % STAGES].subspan(BM, BK).at(0, 0);
      dma.copy.async rhs.subspan(BN, BK).at(bn, kt + STAGES - 1)
        => rhs_s[(kt + STAGES - 1) % STAGES].subspan(BN, BK).at(0, 0);";
const LOADS: &str = "        ma = mma.load lhs_s[kt % STAGES].subspan(32, 16).at(wm, kk);
        mb = mma.load rhs_s[kt % STAGES].subspan(32, 16).at(wn, kk);";
const MMA: &str = "        mma.row.row mc, ma, mb;";

/// The K-tile loop from its parts.
fn tile(head: &str, step: &str) -> String {
    format!(
        "    [[frag_prefetch]]
    foreach {{kt}} in [cdiv(K, BK)] {{
{head}
      foreach {{kk}} in [BK / 16] {{
{step}
      }}
    }}"
    )
}

fn codes(src: &str) -> Vec<&'static str> {
    let m = parse(src);
    match check::check(&m) {
        Ok(info) => {
            dsl_core::lower::lower(&m, &info)
                .unwrap_or_else(|d| panic!("checked but does not lower:\n{d}\n{src}"));
            Vec::new()
        }
        Err(d) => d.0.iter().map(|x| x.code).collect(),
    }
}

fn ok_head() -> String {
    format!("{WAIT}\n{COPIES}")
}

fn ok_step() -> String {
    format!("{LOADS}\n{MMA}")
}

#[test]
fn the_multistage_loop_checks_and_lowers() {
    for bk in [32, 64] {
        assert_eq!(
            codes(&kernel(bk, &tile(&ok_head(), &ok_step()))),
            Vec::<&str>::new()
        );
    }
    // No copies between the wait and the k-steps (a ring filled elsewhere) is the same shape.
    assert_eq!(
        codes(&kernel(32, &tile(WAIT, &ok_step()))),
        Vec::<&str>::new()
    );
}

#[test]
fn the_attribute_belongs_on_a_warp_k_loop() {
    // On the k-step loop's `mma`, not a loop.
    let src = kernel(32, &tile(&ok_head(), &ok_step())).replace(
        "        mma.row.row mc, ma, mb;",
        "        [[frag_prefetch]]\n        mma.row.row mc, ma, mb;",
    );
    assert_eq!(codes(&src), vec![c::FRAG_PREFETCH_TARGET]);
    // With an argument.
    let src = kernel(32, &tile(&ok_head(), &ok_step()))
        .replace("[[frag_prefetch]]", "[[frag_prefetch(2)]]");
    assert_eq!(codes(&src), vec![c::FRAG_PREFETCH_TARGET]);
}

#[test]
fn the_wait_comes_first() {
    let head = format!("{COPIES}\n{WAIT}");
    assert_eq!(
        codes(&kernel(32, &tile(&head, &ok_step()))),
        vec![c::FRAG_PREFETCH_WAIT]
    );
    assert_eq!(
        codes(&kernel(32, &tile(COPIES, &ok_step()))),
        vec![c::FRAG_PREFETCH_WAIT]
    );
}

#[test]
fn only_async_copies_stand_between_the_wait_and_the_steps() {
    // A synchronous copy would land before the next tile's first fragments are read.
    let head = format!(
        "{WAIT}\n      dma.copy lhs.subspan(BM, BK).at(bm, kt) => lhs_s[kt % STAGES].subspan(BM, BK).at(0, 0);"
    );
    assert_eq!(
        codes(&kernel(32, &tile(&head, &ok_step()))),
        vec![c::FRAG_PREFETCH_BODY]
    );
    // Something after the k-step loop.
    let src = kernel(32, &tile(&ok_head(), &ok_step())).replace(
        "      }\n    }\n    mma.store",
        "      }\n      dma.wait 0;\n    }\n    mma.store",
    );
    assert_eq!(codes(&src), vec![c::FRAG_PREFETCH_BODY]);
}

#[test]
fn a_step_loads_then_multiplies() {
    // The `mma` before the loads: it would read the fragments of the step before.
    let step = format!("{MMA}\n{LOADS}");
    let got = codes(&kernel(32, &tile(&ok_head(), &step)));
    assert!(got.contains(&c::FRAG_PREFETCH_ORDER), "{got:?}");
    // Two loads, two mmas, the second load between them.
    let step = "        ma = mma.load lhs_s[kt % STAGES].subspan(32, 16).at(wm, kk);
        mb = mma.load rhs_s[kt % STAGES].subspan(32, 16).at(wn, kk);
        mma.row.row mc, ma, mb;
        mb2 = mma.load rhs_s[kt % STAGES].subspan(32, 16).at(wn, kk);
        mma.row.row mc, ma, mb2;";
    assert_eq!(
        codes(&kernel(32, &tile(&ok_head(), step))),
        vec![c::FRAG_PREFETCH_ORDER]
    );
    // Other work in the step.
    let step = format!("{LOADS}\n        mc = mma.fill.f32 0.0f;\n{MMA}");
    let got = codes(&kernel(32, &tile(&ok_head(), &step)));
    assert!(got.contains(&c::FRAG_PREFETCH_ORDER), "{got:?}");
}

#[test]
fn a_steps_mmas_read_its_own_loads() {
    // `mb` loaded before the K loop: not double-buffered by the step.
    let src = kernel(
        32,
        &format!(
            "    mb = mma.load rhs_s[0].subspan(32, 16).at(wn, 0);\n{}",
            tile(
                &ok_head(),
                "        ma = mma.load lhs_s[kt % STAGES].subspan(32, 16).at(wm, kk);\n        mma.row.row mc, ma, mb;"
            )
        ),
    );
    assert_eq!(codes(&src), vec![c::FRAG_PREFETCH_OPERAND]);
}

#[test]
fn operands_come_from_shared_memory() {
    let step = "        ma = mma.load lhs_s[kt % STAGES].subspan(32, 16).at(wm, kk);
        mb = mma.load rhs.subspan(32, 16).at(bn#wn, kt # kk);
        mma.row.row mc, ma, mb;";
    let got = codes(&kernel(32, &tile(&ok_head(), step)));
    assert!(got.contains(&c::FRAG_PREFETCH_SOURCE), "{got:?}");
}

#[test]
fn a_tile_takes_an_even_number_of_steps() {
    // BK = 16: one k-step per tile; BK = 48: three.
    for bk in [16, 48] {
        let got = codes(&kernel(bk, &tile(&ok_head(), &ok_step())));
        assert_eq!(got, vec![c::FRAG_PREFETCH_STEPS], "BK = {bk}");
    }
}

#[test]
fn the_attribute_needs_a_warp_kernel() {
    // A SIMT kernel without `mma`.
    let src = "__co__ void k(global f32 [M] a) {
  parallel {b} by [cdiv(M, 32)] : block, {t} by [32] : thread {
    [[frag_prefetch]]
    foreach {i} in [4] { a.at(b#t) = 1.0f; }
  }
}
";
    assert_eq!(codes(src), vec![c::FRAG_PREFETCH_TARGET]);
}
