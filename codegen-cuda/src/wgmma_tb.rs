//! `wgmma.mma_async` wrappers with B MN-major (the instruction's B transpose, `imm-trans-b = 1`),
//! for `mma.row.col` with 16-bit operands: B is a `[K, N]` tile in shared memory whose rows of N
//! elements are one swizzle span. Generated for exactly the (accumulator, input, N) a kernel's
//! such `mma`s need, both with A from shared memory (type pair `(acc, "tb_<input>")`) and A in
//! registers (`(acc, "rstb_<input>")`); see `dsl-core/src/lower/hopper.rs`.

use std::fmt::Write as _;

// The combinations are the register-A families' (both take 16-bit operands).
use crate::wgmma_rs::{RS_VARIANTS as TB_VARIANTS, RsVariant as TbVariant};

/// The K-step helpers of the MN-major-B families.
const HELPERS: &str = "\
// MN-major B (`mma.row.col`, B a [K, N] tile): each K row of the tile is N 16-bit elements, one
// SWIZ-byte swizzle span, and the descriptor (tsl_wgmma_desc<SWIZ>: SBO = 8 rows * SWIZ bytes)
// reads it with the instruction's B transpose. A K-step of 16 is 16 rows: B's start address
// advances by 16 * SWIZ bytes (SWIZ in the >>4 start-address field); a K-major A advances by 32
// bytes as usual.
template <typename OP, int STEPS, int SWIZ, typename R, int NR>
TSL_DEVICE void tsl_wgmma_tb_k_steps(R (&acc)[NR], tsl_u64 da, tsl_u64 db) {
#pragma unroll
  for (int ks = 0; ks < STEPS; ++ks) OP::mma(acc, da + (tsl_u64)(2 * ks), db + (tsl_u64)(SWIZ * ks), 1);
}
// The same with A in registers (the A-fragment layout of tsl_wgmma_rs_k_steps).
template <typename OP, int STEPS, int SWIZ, typename R, int NR, int NA>
TSL_DEVICE void tsl_wgmma_rstb_k_steps(R (&acc)[NR], const tsl_u32 (&a)[NA], tsl_u64 db) {
  static_assert(NA == 4 * STEPS, \"an A fragment 16 columns wide per K-step is 4 words per thread\");
#pragma unroll
  for (int ks = 0; ks < STEPS; ++ks) OP::mma(acc, a + 4 * ks, db + (tsl_u64)(SWIZ * ks), 1);
}
";

fn ss_name(v: &TbVariant) -> String {
    format!("tsl_wgmma_tb_{}_{}", v.acc, v.input)
}

fn rs_name(v: &TbVariant) -> String {
    format!("tsl_wgmma_rstb_{}_{}", v.acc, v.input)
}

/// A from shared memory: negate A, negate B, transpose A = 0, transpose B = 1.
fn ss_specialization(out: &mut String, v: &TbVariant, n: usize) {
    let regs = n / v.n_per_reg;
    let (da, db, sd) = (regs, regs + 1, regs + 2);
    let _ = writeln!(out, "template <> struct {}<{n}> {{", ss_name(v));
    let _ = writeln!(
        out,
        "  static TSL_DEVICE void mma({} (&d)[{regs}], tsl_u64 da, tsl_u64 db, int scale_d) {{",
        v.reg_ty
    );
    crate::wgmma::asm_head(
        out,
        sd,
        &format!("wgmma.mma_async.sync.aligned.m64n{n}k16.{}", v.ptx_types),
        regs,
    );
    let _ = writeln!(out, "        \"%{da}, %{db}, p, 1, 1, 0, 1;\\n}}\\n\"");
    crate::wgmma::operands(
        out,
        regs,
        v.constraint,
        "\"l\"(da), \"l\"(db), \"r\"(scale_d)",
    );
}

/// A in registers: negate A, negate B, transpose B = 1.
fn rs_specialization(out: &mut String, v: &TbVariant, n: usize) {
    crate::wgmma_rs::register_a_mma(out, &rs_name(v), v, n, 1);
}

/// Whether the kernel's WGMMA type pairs include an MN-major-B one.
pub fn needed(types: &[(String, String)]) -> bool {
    crate::wgmma::family_needed(types, "tb_") || crate::wgmma::family_needed(types, "rstb_")
}

/// The MN-major-B wrappers for the pairs `(acc, "tb_<input>")` and `(acc, "rstb_<input>")` of
/// `types` at every N of `ns`, and their K-step helpers.
pub fn section(types: &[(String, String)], ns: &[i64]) -> String {
    let ss = crate::wgmma::family_section(
        types,
        ns,
        "tb_",
        &TB_VARIANTS,
        |v| (v.acc, v.input),
        |v| {
            format!(
                "template <int N> struct {};  // {} += {} (smem) x {} (smem, MN-major), N/{} registers",
                ss_name(v),
                v.acc,
                v.input,
                v.input,
                v.n_per_reg
            )
        },
        ss_specialization,
        "",
    );
    let rs = crate::wgmma::family_section(
        types,
        ns,
        "rstb_",
        &TB_VARIANTS,
        |v| (v.acc, v.input),
        |v| {
            format!(
                "template <int N> struct {};  // {} += {} (registers) x {} (smem, MN-major), N/{} registers",
                rs_name(v),
                v.acc,
                v.input,
                v.input,
                v.n_per_reg
            )
        },
        rs_specialization,
        "",
    );
    [ss.as_str(), rs.as_str(), HELPERS.trim_end()]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}
