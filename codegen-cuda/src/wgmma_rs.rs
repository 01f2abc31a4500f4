//! Register-A `wgmma.mma_async` wrappers (A from registers, B through its shared-memory
//! descriptor) and their helpers, generated for exactly the (accumulator, input, N) a kernel's
//! register-A `mma`s need. The lowering records such an `mma` as the WGMMA type pair
//! `(acc, "rs_<input>")` (see `dsl-core/src/lower/hopper.rs`).

use std::fmt::Write as _;

/// One accumulator/input combination of `wgmma.mma_async` with A in registers.
pub(crate) struct RsVariant {
    /// The input type's name in the lowering's type pair (`f16`, `bf16`).
    pub(crate) input: &'static str,
    /// The accumulator's name (`f32`, `f16`).
    pub(crate) acc: &'static str,
    /// PTX type suffix `.<dtype>.<atype>.<btype>`.
    pub(crate) ptx_types: &'static str,
    /// C++ type and inline-asm constraint of one accumulator register.
    pub(crate) reg_ty: &'static str,
    pub(crate) constraint: &'static str,
    /// accumulator registers per thread = N / `n_per_reg`.
    pub(crate) n_per_reg: usize,
}

/// The 16-bit combinations (also those of the MN-major-B families, `wgmma_tb.rs`).
pub(crate) const RS_VARIANTS: [RsVariant; 3] = [
    RsVariant {
        input: "f16",
        acc: "f32",
        ptx_types: "f32.f16.f16",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
    },
    RsVariant {
        input: "bf16",
        acc: "f32",
        ptx_types: "f32.bf16.bf16",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
    },
    RsVariant {
        input: "f16",
        acc: "f16",
        ptx_types: "f16.f16.f16",
        reg_ty: "tsl_u32",
        constraint: "+r",
        n_per_reg: 4,
    },
];

/// The helpers every kernel with a register-A `mma` gets.
const HELPERS: &str = "\
// Register-A WGMMA: A is a 64xK tile of 16-bit elements spread over the warpgroup's 128 threads
// in the A-fragment layout, K/4 f16x2 words per thread. In warp w, lane l, word 2j + h holds row
// 16w + l/4 + 8h, columns 8j + 2(l % 4) (low half) and 8j + 2(l % 4) + 1 (high half) -- the
// layout of a 64xN f16 accumulator, so such an accumulator is a 64xN A fragment. The wgmma of
// K-step ks (16 columns) reads words 4ks .. 4ks + 3.
//
// `frag T [64, K] a {v};`: every element v.
template <typename T, int R> TSL_DEVICE void tsl_afrag_fill(tsl_u32 (&a)[R], float v) {
  const tsl_u32 p = tsl_pack2<T>(v, v);
#pragma unroll
  for (int i = 0; i < R; ++i) a[i] = p;
}
// `a = mma.load.frag t;`: the 64xK K-major tile `elems` elements past the shared buffer `base`
// (rows LD elements apart) into the A fragment. With SWIZ != 0 the buffer holds a TMA tile
// swizzled in SWIZ-byte rows from a base aligned to 8 * SWIZ bytes, so each 4-byte pair is read
// at its swizzled offset (a pair never straddles a 16-byte chunk).
template <int SWIZ, int LD, typename T, int R> TSL_DEVICE void tsl_afrag_load(tsl_u32 (&a)[R], const T *base, int elems) {
  const int t = threadIdx.x & 127;
  const int lane = t & 31;
  const int row = 16 * (t >> 5) + (lane >> 2);
  const int col = 2 * (lane & 3);
  const char *bytes = reinterpret_cast<const char *>(base);
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int r = row + 8 * (i & 1);
    const int c = 8 * (i >> 1) + col;
    tsl_u32 off = (tsl_u32)((elems + r * LD + c) * (int)sizeof(T));
    if constexpr (SWIZ != 0) off = tsl_swizzle<SWIZ>(off);
    a[i] = *reinterpret_cast<const tsl_u32 *>(bytes + off);
  }
}
// One register-A `mma` over STEPS K-steps of 16: wgmma ks reads A's words 4ks .. 4ks + 3 and B's
// descriptor advanced by 32 bytes (2 in the >>4 start-address field).
template <typename OP, int STEPS, typename R, int NR, int NA>
TSL_DEVICE void tsl_wgmma_rs_k_steps(R (&acc)[NR], const tsl_u32 (&a)[NA], tsl_u64 db) {
  static_assert(NA == 4 * STEPS, \"an A fragment 16 columns wide per K-step is 4 words per thread\");
#pragma unroll
  for (int ks = 0; ks < STEPS; ++ks) OP::mma(acc, a + 4 * ks, db + (tsl_u64)(2 * ks), 1);
}
";

fn struct_name(v: &RsVariant) -> String {
    format!("tsl_wgmma_rs_{}_{}", v.acc, v.input)
}

/// The specialization of `v` for one N.
fn specialization(out: &mut String, v: &RsVariant, n: usize) {
    register_a_mma(out, &struct_name(v), v, n, 0);
}

/// The register-A wrapper `name<n>` of `v`: negate A, negate B, B's transpose flag `trans_b`
/// (0: B K-major; 1: B MN-major, `wgmma_tb.rs`); A has no transpose flag.
pub(crate) fn register_a_mma(out: &mut String, name: &str, v: &RsVariant, n: usize, trans_b: u8) {
    let regs = n / v.n_per_reg;
    let (a0, db, sd) = (regs, regs + 4, regs + 5);
    let _ = writeln!(out, "template <> struct {name}<{n}> {{");
    let _ = writeln!(
        out,
        "  static TSL_DEVICE void mma({} (&d)[{regs}], const tsl_u32 *a, tsl_u64 db, int scale_d) {{",
        v.reg_ty
    );
    crate::wgmma::asm_head(
        out,
        sd,
        &format!("wgmma.mma_async.sync.aligned.m64n{n}k16.{}", v.ptx_types),
        regs,
    );
    let _ = writeln!(
        out,
        "        \"{{%{a0}, %{}, %{}, %{}}}, %{db}, p, 1, 1, {trans_b};\\n}}\\n\"",
        a0 + 1,
        a0 + 2,
        a0 + 3
    );
    crate::wgmma::operands(
        out,
        regs,
        v.constraint,
        "\"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(db), \"r\"(scale_d)",
    );
}

/// Whether the kernel's WGMMA type pairs include a register-A one.
pub fn needed(types: &[(String, String)]) -> bool {
    crate::wgmma::family_needed(types, "rs_")
}

/// The register-A wrappers for the pairs `(acc, "rs_<input>")` of `types` at every N of `ns`,
/// and the fragment helpers.
pub fn section(types: &[(String, String)], ns: &[i64]) -> String {
    crate::wgmma::family_section(
        types,
        ns,
        "rs_",
        &RS_VARIANTS,
        |v| (v.acc, v.input),
        |v| {
            format!(
                "template <int N> struct {};  // {} += {} (registers) x {} (smem), N/{} registers",
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
