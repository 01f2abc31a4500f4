//! Structured-sparse WGMMA (`mma.row.row.sp acc, a, b, meta;`): parsing and its dump, the
//! rules (E1480–E1483), the gate (E1360–E1362) and what the lowering emits.

use dsl_core::check::{self, Config, Limits, codes as c};
use dsl_core::diag::Diagnostics;
use dsl_core::ir::Module;
use dsl_core::parse::parse_str;

/// A sparse GEMM kernel; `{T}` the operand type, `{ACC}` the accumulator, `{KA}`/`{KB}`/`{KM}`
/// the K of the A, B and metadata tiles, `{SA}`/`{SB}` their swizzles, `{MT}` the metadata
/// type, `{MMA}` the mma statement (over `lhs_s`, `rhs_s`, `me`).
const BASE: &str = "\
tunable WARP_N in [64, 128] = 128;
__co__ void matmul(global {T} [M, KP] lhs, global {MT} [M, KM] meta, global {T} [N, K] rhs,
                   global {OUT} [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, WARP_N)] : block, by 1 : group-4 {
    shared {T} [64, {KA}] lhs_s;
    shared {MT} [64, {KM}] meta_s;
    shared {T} [WARP_N, {KB}] rhs_s;
    shared {OUT} [64, WARP_N] output_s;
    mc = mma.fill.{ACC} 0.0f;
    foreach {iv_k} in [cdiv(K, {KB})] {
      tma.copy.swiz<{SA}> lhs.subspan(64, {KA}).at(block_m, iv_k) => lhs_s;
      dma.copy meta.subspan(64, {KM}).at(block_m, iv_k) => meta_s;
      tma.copy.swiz<{SB}> rhs.chunkat(block_n, iv_k) => rhs_s;
      me = mma.load meta_s;
      {MMA}
    }
    mma.store mc, output_s;
    tma.copy output_s => output.subspan(64, WARP_N).at(block_m, block_n);
  }
}
";

struct K<'a> {
    t: &'a str,
    acc: &'a str,
    out: &'a str,
    ka: &'a str,
    kb: &'a str,
    km: &'a str,
    sa: &'a str,
    sb: &'a str,
    mt: &'a str,
    mma: &'a str,
}

const F16: K = K {
    t: "f16",
    acc: "f32",
    out: "f16",
    ka: "32",
    kb: "64",
    km: "8",
    sa: "64",
    sb: "128",
    mt: "u8",
    mma: "mma.row.row.sp mc, lhs_s, rhs_s, me;",
};

fn src(k: &K) -> String {
    BASE.replace("{T}", k.t)
        .replace("{ACC}", k.acc)
        .replace("{OUT}", k.out)
        .replace("{KA}", k.ka)
        .replace("{KB}", k.kb)
        .replace("{KM}", k.km)
        .replace("{SA}", k.sa)
        .replace("{SB}", k.sb)
        .replace("{MT}", k.mt)
        .replace("{MMA}", k.mma)
}

fn parse(text: &str) -> Module {
    parse_str(text, Some("t.co"))
        .unwrap_or_else(|d| panic!("parse failed:\n{d}\n{text}"))
        .module
}

fn full(m: &Module) -> Result<check::KernelInfo, Diagnostics> {
    check::check_config(m, &Config::defaults(m), None, &Limits::SM90)
}

/// The lowered kernel body, one line per node.
fn lowered(k: &K) -> String {
    let m = parse(&src(k));
    let info = full(&m).unwrap_or_else(|d| panic!("check failed:\n{d}"));
    let kernel = dsl_core::lower::lower(&m, &info).unwrap_or_else(|d| panic!("lower:\n{d}"));
    kernel
        .body
        .iter()
        .map(|l| l.text())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The codes of the full check's errors.
fn error_codes(k: &K) -> Vec<&'static str> {
    let m = parse(&src(k));
    match full(&m) {
        Ok(_) => Vec::new(),
        Err(d) => d.iter().map(|x| x.code).collect(),
    }
}

#[test]
fn the_sparse_mma_parses_and_dumps() {
    let k = K {
        mma: "ma = mma.load lhs_s; mb = mma.load rhs_s; mma.row.row.sp mc, ma, mb, me;",
        ..F16
    };
    let m = parse(&src(&k));
    assert_eq!(m.sparse.len(), 1);
    assert_eq!(m.sparse[0].meta.name, "me");
    let text = m.to_string();
    assert!(text.contains("mma.row.row.sp mc, ma, mb, me;"), "{text}");
    full(&m).unwrap_or_else(|d| panic!("{d}"));
    // A dense mma has no metadata.
    let dense = src(&K {
        mma: "mma.row.row mc, lhs_s, rhs_s;",
        ..F16
    });
    assert!(parse(&dense).sparse.is_empty());
}

#[test]
fn f16_lowers_to_sparse_k_steps_reading_the_metadata_tile() {
    let body = lowered(&F16);
    assert!(
        body.contains("const tsl_u8* me = reinterpret_cast<const tsl_u8*>(meta_s);"),
        "{body}"
    );
    // 64 dense K per k-tile = two m64nNk32 sparse steps; metadata rows 8 bytes apart.
    assert!(
        body.contains("tsl_wgmma_sp_k_steps<tsl_wgmma_sp_f32_f16<WARP_N>, 2, 8>(mc, tsl_desc_a9, tsl_desc_b10, me);"),
        "{body}"
    );
    // The metadata is copied byte-wise (rows narrower than a cp.async chunk).
    assert!(
        body.contains("tsl_copy_g2s_bytes<64, 8, 8, tsl_threads>(meta_s, meta,"),
        "{body}"
    );
    assert!(!body.contains("tsl_wgmma<"), "no dense WGMMA: {body}");
}

#[test]
fn eight_bit_and_bf16_and_f16_accumulators_lower() {
    let fp8 = K {
        t: "f8_e4m3",
        ka: "64",
        kb: "128",
        km: "16",
        sa: "64",
        sb: "128",
        ..F16
    };
    let body = lowered(&fp8);
    assert!(
        body.contains("tsl_wgmma_sp_k_steps<tsl_wgmma_sp_f32_f8_e4m3<WARP_N>, 2, 16>("),
        "{body}"
    );
    let bf16 = K { t: "bf16", ..F16 };
    assert!(lowered(&bf16).contains("tsl_wgmma_sp_f32_bf16<WARP_N>"));
    let f16acc = K { acc: "f16", ..F16 };
    assert!(lowered(&f16acc).contains("tsl_wgmma_sp_f16_f16<WARP_N>"));
}

#[test]
fn half_k_slices_of_the_tiles_with_loaded_metadata() {
    // Croqtile's shape: each half of the k-tile is one sparse mma on `.chunkat(_, h)` of every
    // tile, A and B read straight from shared memory, the metadata loaded by name.
    let k = K {
        mma: "foreach {h} in [2] { me = mma.load meta_s.chunkat(_, h); mma.row.row.sp mc, lhs_s.chunkat(_, h), rhs_s.chunkat(_, h), me; }",
        ..F16
    };
    let body = lowered(&k);
    assert!(
        body.contains("reinterpret_cast<const tsl_u8*>(meta_s + h * 4)"),
        "{body}"
    );
    assert!(
        body.contains("tsl_wgmma_sp_k_steps<tsl_wgmma_sp_f32_f16<WARP_N>, 1, 8>("),
        "{body}"
    );
}

#[test]
fn metadata_written_as_a_shared_tile_is_an_error() {
    // As Croqtile: the metadata is loaded into registers with `mma.load` before the `mma`.
    let k = K {
        mma: "mma.row.row.sp mc, lhs_s, rhs_s, meta_s;",
        ..F16
    };
    let codes = error_codes(&k);
    assert!(codes.contains(&c::SPARSE_META), "{codes:?}");
}

#[test]
fn b_k_must_be_whole_sparse_steps() {
    // 48 dense K is not a multiple of the f16 sparse instruction's 32.
    let k = K {
        ka: "24",
        kb: "48",
        km: "6",
        sa: "32",
        sb: "64",
        ..F16
    };
    let codes = error_codes(&k);
    assert!(codes.contains(&c::SPARSE_K), "{codes:?}");
}

#[test]
fn packed_a_is_half_of_b() {
    let k = K {
        ka: "64",
        sa: "128",
        ..F16
    };
    let m = parse(&src(&k));
    let d = full(&m).expect_err("A's K = B's K");
    let e = d
        .iter()
        .find(|x| x.code == c::SPARSE_PACKED_K)
        .expect("E1481");
    assert!(e.message.contains("so its K must be 32"), "{e}");
    assert_eq!(d.len(), 1, "{d}");
}

#[test]
fn metadata_must_be_a_plain_u8_shared_tile_of_m_by_k_over_8() {
    // u16 metadata.
    let k = K {
        mt: "u16",
        km: "4",
        ..F16
    };
    assert_eq!(error_codes(&k), vec![c::SPARSE_META]);
    // The accumulator passed as metadata.
    let k = K {
        mma: "mma.row.row.sp mc, lhs_s, rhs_s, mc;",
        ..F16
    };
    assert!(error_codes(&k).contains(&c::SPARSE_META));
    // A swizzled metadata load.
    let text = src(&F16).replace("me = mma.load meta_s;", "me = mma.load.swiz<32> meta_s;");
    let d = full(&parse(&text)).expect_err("swizzled metadata");
    assert!(d.iter().any(|x| x.code == c::SPARSE_META), "{d}");
    // The wrong width: 4 bytes per row for 64 dense K.
    let k = K { km: "4", ..F16 };
    assert_eq!(error_codes(&k), vec![c::SPARSE_META_SHAPE]);
}

#[test]
fn unlowered_sparse_forms_are_gated() {
    // s8 operands: checked, not lowered.
    let s8 = K {
        t: "s8",
        acc: "s32",
        out: "s32",
        ka: "32",
        kb: "64",
        km: "8",
        sa: "32",
        sb: "64",
        ..F16
    };
    let text = src(&s8).replace("mma.fill.s32 0.0f", "mma.fill.s32 0");
    let m = parse(&text);
    let notes = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"))
        .1;
    assert!(
        notes.iter().any(|d| d.code == c::NOT_LOWERED_SPARSE_INT),
        "{notes}"
    );
    // promote on a sparse fp8 mma.
    let fp8 = K {
        t: "f8_e4m3",
        ka: "64",
        kb: "128",
        km: "16",
        ..F16
    };
    let text = format!("promote 1;\n{}", src(&fp8));
    let d = full(&parse(&text)).expect_err("promote");
    assert!(
        d.iter().any(|x| x.code == c::NOT_LOWERED_SPARSE_PROMOTE),
        "{d}"
    );
}

#[test]
fn u8_is_lowered_as_sparsity_metadata_only() {
    // The metadata tile, its source and a future's buffer of metadata are lowered …
    let m = parse(&src(&F16));
    full(&m).unwrap_or_else(|d| panic!("{d}"));
    // … element-wise u8 arithmetic is on the SIMT path (an integer element type) …
    let text = "__co__ void bump(u8 [M, N] a, u8 [M, N] b) {\n  parallel {i, j} by [16, 16] {\n    a.at(i, j) = b.at(i, j) + 1;\n  }\n}\n";
    full(&parse(text)).unwrap_or_else(|d| panic!("{d}"));
    // … but not on the TMA/WGMMA path (one note per tensor).
    let text = "__co__ void bump(u8 [M, N] a, u8 [M, N] b, f16 [M, 64] x) {\n  parallel {i, j} by [16, 16] {\n    shared f16 [16, 64] s;\n    tma.copy x.subspan(16, 64).at(i, 0) => s;\n    a.at(i, j) = b.at(i, j) + 1;\n  }\n}\n";
    let m = parse(text);
    let notes = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"))
        .1;
    assert_eq!(
        notes.iter().filter(|d| d.code == c::NOT_LOWERED_U8).count(),
        2,
        "{notes}"
    );
    assert!(full(&m).is_err());
    // A u8 tile next to the metadata that no sparse mma reads is gated too.
    let text = src(&F16).replace(
        "    shared u8 [64, 8] meta_s;\n",
        "    shared u8 [64, 8] meta_s;\n    shared u8 [64, 8] spare_s;\n",
    );
    let m = parse(&text);
    let d = full(&m).expect_err("an unused u8 tile");
    assert!(d.iter().all(|x| x.code == c::NOT_LOWERED_U8), "{d}");
    // A metadata buffer bound to a future (today's Croqtile form) is metadata.
    let text = src(&F16)
        .replace("    shared u8 [64, 8] meta_s;\n", "")
        .replace(
            "dma.copy meta.subspan(64, 8).at(block_m, iv_k) => meta_s;",
            "meta_s = dma.copy meta.subspan(64, 8).at(block_m, iv_k) => shared;",
        );
    let m = parse(&text);
    let notes = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"))
        .1;
    assert!(
        !notes.iter().any(|d| d.code == c::NOT_LOWERED_U8),
        "{notes}"
    );
}

#[test]
fn eight_bit_tiles_loaded_through_futures_are_wgmma_operands() {
    // `a_s = tma.copy … => shared;` read by the sparse mma: lhs and rhs are WGMMA operands'
    // sources (no E0306), whichever lowering gates the futures themselves.
    let text = "\
__co__ void spf(f8_e4m3 [128, 64] lhs, u8 [128, 16] meta, f8_e4m3 [64, 128] rhs, f16 [128, 64] output) {
  parallel {block_m, block_n} by [2, 1] : block {
    shared f16 [64, 64] out_s;
    mc = mma.fill.f32 0.0f;
    foreach {iv_k} in [1] {
      a_s = tma.copy.swiz<64> lhs.subspan(64, 64).at(block_m, iv_k) => shared;
      b_s = tma.copy.swiz<128> rhs.subspan(64, 128).at(block_n, iv_k) => shared;
      m_s = dma.copy meta.subspan(64, 16).at(block_m, iv_k) => shared;
      foreach {h} in [2] {
        parallel p by 1 : group-4 {
          me = mma.load m_s.chunkat(_, h);
          mma.row.row.sp mc, a_s.chunkat(_, h), b_s.chunkat(_, h), me;
        }
      }
    }
    mma.store mc, out_s;
    tma.copy out_s => output.subspan(64, 64).at(block_m, block_n);
  }
}
";
    let m = parse(text);
    let notes = check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90)
        .unwrap_or_else(|d| panic!("{d}"))
        .1;
    assert!(!notes.iter().any(|d| d.code == c::F8), "{notes}");
    assert!(
        !notes.iter().any(|d| d.code == c::NOT_LOWERED_U8),
        "{notes}"
    );
    // Without the mma (and its accumulator, which would then have no shape) the 8-bit
    // tensors are not operands.
    let text = text
        .replace(
            "          mma.row.row.sp mc, a_s.chunkat(_, h), b_s.chunkat(_, h), me;\n",
            "",
        )
        .replace("    mc = mma.fill.f32 0.0f;\n", "")
        .replace("    mma.store mc, out_s;\n", "");
    let m = parse(&text);
    let notes = match check::check_language(&m, &Config::defaults(&m), None, &Limits::SM90) {
        Ok((_, n)) => n,
        Err(d) => d,
    };
    assert!(notes.iter().any(|d| d.code == c::F8), "{notes}");
}
