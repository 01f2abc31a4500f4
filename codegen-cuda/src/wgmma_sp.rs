//! The structured-sparse `wgmma.mma_async.sp` wrappers and their K-step helper, generated for
//! exactly the (accumulator, input, N) a kernel's sparse `mma`s need. The lowering records a
//! sparse `mma` as the WGMMA type pair `(acc, "sp_<input>")` (see `dsl-core/src/lower/sparse.rs`).

use std::fmt::Write as _;

/// One accumulator/input combination of `wgmma.mma_async.sp` (A and B from shared memory).
struct SpVariant {
    /// The input type's name in the lowering's type pair (`f16`, `f8_e4m3`, …).
    input: &'static str,
    /// The accumulator's name (`f32`, `f16`).
    acc: &'static str,
    /// PTX type suffix `.<dtype>.<atype>.<btype>`.
    ptx_types: &'static str,
    /// C++ type and inline-asm constraint of one accumulator register.
    reg_ty: &'static str,
    constraint: &'static str,
    /// accumulator registers per thread = N / `n_per_reg`.
    n_per_reg: usize,
    /// The instruction's (dense) K: 64 bytes of K.
    k: usize,
    /// Operands after `scale-d`: the negate flags, and for 16-bit inputs the transpose flags.
    imm: &'static str,
}

const SP_VARIANTS: [SpVariant; 7] = [
    SpVariant {
        input: "f16",
        acc: "f32",
        ptx_types: "f32.f16.f16",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        k: 32,
        imm: ", 1, 1, 0, 0",
    },
    SpVariant {
        input: "bf16",
        acc: "f32",
        ptx_types: "f32.bf16.bf16",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        k: 32,
        imm: ", 1, 1, 0, 0",
    },
    SpVariant {
        input: "f16",
        acc: "f16",
        ptx_types: "f16.f16.f16",
        reg_ty: "tsl_u32",
        constraint: "+r",
        n_per_reg: 4,
        k: 32,
        imm: ", 1, 1, 0, 0",
    },
    SpVariant {
        input: "f8_e4m3",
        acc: "f32",
        ptx_types: "f32.e4m3.e4m3",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        k: 64,
        imm: ", 1, 1",
    },
    SpVariant {
        input: "f8_e5m2",
        acc: "f32",
        ptx_types: "f32.e5m2.e5m2",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        k: 64,
        imm: ", 1, 1",
    },
    SpVariant {
        input: "f8_e4m3",
        acc: "f16",
        ptx_types: "f16.e4m3.e4m3",
        reg_ty: "tsl_u32",
        constraint: "+r",
        n_per_reg: 4,
        k: 64,
        imm: ", 1, 1",
    },
    SpVariant {
        input: "f8_e5m2",
        acc: "f16",
        ptx_types: "f16.e5m2.e5m2",
        reg_ty: "tsl_u32",
        constraint: "+r",
        n_per_reg: 4,
        k: 64,
        imm: ", 1, 1",
    },
];

/// The helpers every kernel with a sparse `mma` gets.
const HELPERS: &str = "\
// `dma.copy` of a u8 tile in a Hopper kernel (the sparsity metadata): the [ROWS, COLS] tile at
// (r0, c0) of a row-major [rows, cols] byte tensor into a shared tile with row pitch LD, all
// THREADS threads taking a strided share. Plain byte loads: metadata rows are often narrower than
// a 16-byte cp.async chunk. Bytes outside the tensor read 0x44 (positions 0 and 1 in both groups):
// the A values there are zero-filled by TMA, and 0 is not a valid metadata value. The caller
// synchronizes.
template <int ROWS, int COLS, int LD, int THREADS>
TSL_DEVICE void tsl_copy_g2s_bytes(tsl_u8 *dst, const tsl_u8 *src, int r0, int c0, int rows, int cols) {
  for (int i = threadIdx.x; i < ROWS * COLS; i += THREADS) {
    const int r = i / COLS, c = i % COLS;
    const int gr = r0 + r, gc = c0 + c;
    dst[r * LD + c] = (gr < rows && gc < cols) ? src[(long long)gr * cols + gc] : (tsl_u8)0x44;
  }
}
// Structured-sparse (2:4) WGMMA. A is the packed operand (two kept values of every four along K,
// so K/2 columns), B the dense one; the metadata tile is u8 [64, K/8]: row r holds, for each
// group g of four elements of A's dense row r, the two kept positions (0..3, lower one first) in
// bits 4g..4g+3 of the row's little-endian byte stream.
//
// The metadata word of one K-step for this thread (sparsity selector 0), one bit per dense
// element of A, the lowest column in bit 0. In warp w, lane l (g = l / 4) covers rows of
// 16w + g:
// - 16-bit inputs (32 columns per step, KB = 4 bytes per row): threads with l % 4 = 0 and 1
//   hold the word (the others repeat it); bits 15..0 are columns 16(l % 2) .. +15 of row
//   16w + g, bits 31..16 the same columns of row 16w + g + 8.
// - 8-bit inputs (64 columns per step, KB = 8): every thread's word is columns
//   32((l / 2) % 2) .. +31 of row 16w + g + 8(l % 2).
// (CUTLASS's ELayout_64x32 and ELayout_64x64 for SM90 sparse GMMA.) LD = bytes between rows.
template <int LD, int KB> TSL_DEVICE tsl_u32 tsl_sp_meta_word(const tsl_u8 *meta, int ks) {
  static_assert(KB == 4 || KB == 8, \"a sparse K-step is 32 (16-bit) or 64 (8-bit) columns\");
  const int t = threadIdx.x & 127;
  const int lane = t & 31;
  const tsl_u8 *step = meta + (16 * (t >> 5) + (lane >> 2)) * LD + ks * KB;
  if constexpr (KB == 4) {
    const tsl_u8 *r0 = step + 2 * (lane & 1);
    const tsl_u8 *r1 = r0 + 8 * LD;
    return (tsl_u32)r0[0] | ((tsl_u32)r0[1] << 8) | ((tsl_u32)r1[0] << 16) | ((tsl_u32)r1[1] << 24);
  } else {
    const tsl_u8 *r = step + 8 * (lane & 1) * LD + 4 * ((lane >> 1) & 1);
    return (tsl_u32)r[0] | ((tsl_u32)r[1] << 8) | ((tsl_u32)r[2] << 16) | ((tsl_u32)r[3] << 24);
  }
}
// One sparse `mma` over STEPS instruction-Ks: every thread reads its metadata words first, then
// the warpgroup issues STEPS wgmma.mma_async.sp of the variant OP, A's descriptor advanced by 32
// bytes per step (the packed half of 64 bytes of dense K), B's by 64.
template <typename OP, int STEPS, int LD, typename R, int NR>
TSL_DEVICE void tsl_wgmma_sp_k_steps(R (&acc)[NR], tsl_u64 da, tsl_u64 db, const tsl_u8 *meta) {
  tsl_u32 e[STEPS];
#pragma unroll
  for (int ks = 0; ks < STEPS; ++ks) e[ks] = tsl_sp_meta_word<LD, OP::META_BYTES>(meta, ks);
#pragma unroll
  for (int ks = 0; ks < STEPS; ++ks) OP::mma(acc, da + (tsl_u64)(2 * ks), db + (tsl_u64)(4 * ks), e[ks], 1);
}
";

fn struct_name(v: &SpVariant) -> String {
    format!("tsl_wgmma_sp_{}_{}", v.acc, v.input)
}

/// The specialization of `v` for one N.
fn specialization(out: &mut String, v: &SpVariant, n: usize) {
    let regs = n / v.n_per_reg;
    let (da, db, e, sd) = (regs, regs + 1, regs + 2, regs + 3);
    let name = struct_name(v);
    let _ = writeln!(out, "template <> struct {name}<{n}> {{");
    let _ = writeln!(
        out,
        "  enum {{ META_BYTES = {} }};  // metadata bytes per row per K-step",
        v.k / 8
    );
    let _ = writeln!(
        out,
        "  static TSL_DEVICE void mma({} (&d)[{regs}], tsl_u64 da, tsl_u64 db, tsl_u32 e, int scale_d) {{",
        v.reg_ty
    );
    crate::wgmma::asm_head(
        out,
        sd,
        &format!(
            "wgmma.mma_async.sp.sync.aligned.m64n{n}k{}.{}",
            v.k, v.ptx_types
        ),
        regs,
    );
    let _ = writeln!(
        out,
        "        \"%{da}, %{db}, %{e}, 0, p{};\\n}}\\n\"",
        v.imm
    );
    crate::wgmma::operands(
        out,
        regs,
        v.constraint,
        "\"l\"(da), \"l\"(db), \"r\"(e), \"r\"(scale_d)",
    );
}

/// Whether the kernel's WGMMA type pairs include a sparse one.
pub fn needed(types: &[(String, String)]) -> bool {
    crate::wgmma::family_needed(types, "sp_")
}

/// The sparse wrappers for the pairs `(acc, "sp_<input>")` of `types` at every N of `ns`, and
/// the K-step helpers.
pub fn section(types: &[(String, String)], ns: &[i64]) -> String {
    crate::wgmma::family_section(
        types,
        ns,
        "sp_",
        &SP_VARIANTS,
        |v| (v.acc, v.input),
        |v| {
            format!(
                "template <int N> struct {};  // {} += 2:4-sparse {} x {}, N/{} registers",
                struct_name(v),
                v.acc,
                v.input,
                v.input,
                v.n_per_reg
            )
        },
        specialization,
        HELPERS,
    )
}
