//! The `wgmma.mma_async` wrappers (`cuda/sm90_wgmma.cuh`), generated: `wgmma.mma_async.m64nNk16`
//! takes N/2 f32 (or N/4 f16x2) accumulator registers as separate asm operands, so each N in
//! 8..=256 (step 8) needs its own asm statement. A kernel gets only the specializations its
//! lowering says it needs ([`specializations`]); the whole header is committed for C++ users
//! and kept current by `tests/prelude_wgmma.rs`.

use std::fmt::Write as _;

/// One accumulator/input combination of `wgmma.mma_async` with both operands from shared memory.
pub struct Variant {
    /// C++ struct template name.
    pub name: &'static str,
    /// PTX type suffix `.<dtype>.<atype>.<btype>`.
    pub ptx_types: &'static str,
    /// C++ type of one accumulator register.
    pub reg_ty: &'static str,
    /// inline-asm constraint of one accumulator register.
    pub constraint: &'static str,
    /// accumulator registers per thread = N / `n_per_reg`.
    pub n_per_reg: usize,
    /// what the comment says about the accumulators.
    pub what: &'static str,
    /// the instruction's K (32 bytes of K: 16 for 16-bit inputs, 32 for 8-bit ones).
    pub k: usize,
    /// the operands after the descriptors and the `scale-d` predicate: the immediate
    /// negate/transpose flags the input type takes (f16/bf16: negate A, B and transpose A, B;
    /// f8: negate A, B; s8: none).
    pub imm: &'static str,
    /// the N this variant exists for (integer WGMMA skips some multiples of 8).
    pub n_ok: fn(usize) -> bool,
}

fn any_n(_: usize) -> bool {
    true
}

/// Integer WGMMA: N in {8, 16, 24} and the multiples of 16 from 32 to 256.
pub fn int_n(n: usize) -> bool {
    n <= 24 || n.is_multiple_of(16)
}

/// The 16-bit variants (m64nNk16) first: the dispatch struct `tsl_wgmma` names them, so their
/// primary templates are always declared; then the 8-bit ones (m64nNk32), written only where
/// used.
pub const VARIANTS: [Variant; 8] = [
    Variant {
        name: "tsl_wgmma_f32_f16",
        ptx_types: "f32.f16.f16",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        what: "f32 += f16 x f16",
        k: 16,
        imm: ", 1, 1, 0, 0",
        n_ok: any_n,
    },
    Variant {
        name: "tsl_wgmma_f32_bf16",
        ptx_types: "f32.bf16.bf16",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        what: "f32 += bf16 x bf16",
        k: 16,
        imm: ", 1, 1, 0, 0",
        n_ok: any_n,
    },
    Variant {
        name: "tsl_wgmma_f16_f16",
        ptx_types: "f16.f16.f16",
        reg_ty: "tsl_u32",
        constraint: "+r",
        n_per_reg: 4,
        what: "f16 += f16 x f16 (f16x2 pairs)",
        k: 16,
        imm: ", 1, 1, 0, 0",
        n_ok: any_n,
    },
    Variant {
        name: "tsl_wgmma_f32_f8_e4m3",
        ptx_types: "f32.e4m3.e4m3",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        what: "f32 += e4m3 x e4m3",
        k: 32,
        imm: ", 1, 1",
        n_ok: any_n,
    },
    Variant {
        name: "tsl_wgmma_f32_f8_e5m2",
        ptx_types: "f32.e5m2.e5m2",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        what: "f32 += e5m2 x e5m2",
        k: 32,
        imm: ", 1, 1",
        n_ok: any_n,
    },
    Variant {
        name: "tsl_wgmma_f16_f8_e4m3",
        ptx_types: "f16.e4m3.e4m3",
        reg_ty: "tsl_u32",
        constraint: "+r",
        n_per_reg: 4,
        what: "f16 += e4m3 x e4m3 (f16x2 pairs)",
        k: 32,
        imm: ", 1, 1",
        n_ok: any_n,
    },
    Variant {
        name: "tsl_wgmma_f16_f8_e5m2",
        ptx_types: "f16.e5m2.e5m2",
        reg_ty: "tsl_u32",
        constraint: "+r",
        n_per_reg: 4,
        what: "f16 += e5m2 x e5m2 (f16x2 pairs)",
        k: 32,
        imm: ", 1, 1",
        n_ok: any_n,
    },
    Variant {
        name: "tsl_wgmma_s32_s8",
        ptx_types: "s32.s8.s8",
        reg_ty: "int",
        constraint: "+r",
        n_per_reg: 2,
        what: "s32 += s8 x s8",
        k: 32,
        imm: "",
        n_ok: int_n,
    },
];

/// Variants declared in every kernel that uses WGMMA (the dispatch struct names them).
const ALWAYS: usize = 3;

/// Every legal N of m64nNk16 for 16-bit inputs.
pub fn all_n() -> impl Iterator<Item = usize> {
    (8..=256).step_by(8)
}

/// What the header says about the 8-bit variants, before the first of them.
const EIGHT_BIT_NOTE: &str = "\
// 8-bit inputs: wgmma.mma_async.sync.aligned.m64nNk32, both operands K-major (8-bit WGMMA has no
// transpose flags), one byte per element; called by name (tsl_wgmma_f32_f8_e4m3<N>::mma and so
// on), since e4m3, e5m2 and s8 tiles share the C++ byte types. f8: N any multiple of 8 in
// 8..=256, f32 or f16 accumulators, immScaleA = immScaleB = 1. s8: s32 accumulators (wrapping,
// no .satfinite), N in {8, 16, 24} or a multiple of 16 up to 256.
";

/// The start of a WGMMA wrapper's `asm volatile`: the `scale-d` predicate from operand `%sd`,
/// the instruction `instr`, and its `regs` accumulator operands, 16 a line.
pub(crate) fn asm_head(out: &mut String, sd: usize, instr: &str, regs: usize) {
    out.push_str("    asm volatile(\n");
    let _ = writeln!(
        out,
        "        \"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{sd}, 0;\\n\""
    );
    let _ = writeln!(out, "        \"{instr} \"");
    let ops: Vec<String> = (0..regs).map(|i| format!("%{i}")).collect();
    for (ci, chunk) in ops.chunks(16).enumerate() {
        let open = if ci == 0 { "{" } else { "" };
        let close = if (ci + 1) * 16 >= regs { "}" } else { "" };
        let _ = writeln!(out, "        \"{open}{}{close}, \"", chunk.join(", "));
    }
}

/// Whether the kernel's WGMMA type pairs include one of the family `prefix` (`sp_`, `rs_`).
pub(crate) fn family_needed(types: &[(String, String)], prefix: &str) -> bool {
    types.iter().any(|(_, i)| i.starts_with(prefix))
}

/// The section of one family of generated WGMMA wrappers (`prefix`: `sp_`, `rs_`): for each
/// variant whose `key` `(acc, input)` a kernel pairs as `(acc, prefix + input)` in `types`, its
/// primary template `head` and a specialization `spec` at every legal N of `ns`; then the
/// family's `helpers`.
pub(crate) fn family_section<V>(
    types: &[(String, String)],
    ns: &[i64],
    prefix: &str,
    variants: &[V],
    key: impl Fn(&V) -> (&'static str, &'static str),
    head: impl Fn(&V) -> String,
    spec: impl Fn(&mut String, &V, usize),
    helpers: &str,
) -> String {
    let mut s = String::new();
    for v in variants {
        let (acc, input) = key(v);
        let used = types
            .iter()
            .any(|(a, i)| a == acc && i.strip_prefix(prefix) == Some(input));
        if !used {
            continue;
        }
        let _ = writeln!(s, "{}", head(v));
        for &n in ns {
            let n = n as usize;
            if n.is_multiple_of(8) && (8..=256).contains(&n) {
                spec(&mut s, v, n);
            }
        }
        s.push('\n');
    }
    s.push_str(helpers);
    s.trim_end().to_string()
}

/// The specialization of `v` for one N.
fn specialization(out: &mut String, v: &Variant, n: usize) {
    let regs = n / v.n_per_reg;
    let (da, db, sd) = (regs, regs + 1, regs + 2);
    let _ = writeln!(out, "template <> struct {}<{n}> {{", v.name);
    let _ = writeln!(
        out,
        "  // wgmma m64n{n}k{} {}; A, B K-major smem descriptors; {regs} regs/thread.",
        v.k, v.what
    );
    let _ = writeln!(
        out,
        "  static TSL_DEVICE void mma({} (&d)[{regs}], tsl_u64 da, tsl_u64 db, int scale_d) {{",
        v.reg_ty
    );
    asm_head(
        out,
        sd,
        &format!(
            "wgmma.mma_async.sync.aligned.m64n{n}k{}.{}",
            v.k, v.ptx_types
        ),
        regs,
    );
    let _ = writeln!(out, "        \"%{da}, %{db}, p{};\\n}}\\n\"", v.imm);
    operands(
        out,
        regs,
        v.constraint,
        "\"l\"(da), \"l\"(db), \"r\"(scale_d)",
    );
}

/// The asm statement's operand lists and the struct's end: `regs` accumulator outputs
/// (`constraint`, eight per line), then `inputs`.
pub(crate) fn operands(out: &mut String, regs: usize, constraint: &str, inputs: &str) {
    let outs: Vec<String> = (0..regs)
        .map(|i| format!("\"{constraint}\"(d[{i}])"))
        .collect();
    for (ci, chunk) in outs.chunks(8).enumerate() {
        let lead = if ci == 0 { ": " } else { "  " };
        let _ = writeln!(out, "        {lead}{}", chunk.join(", ") + ",");
    }
    // The last chunk ends with a stray comma: drop it before the input list.
    if out.ends_with(",\n") {
        out.truncate(out.len() - 2);
        out.push('\n');
    }
    let _ = writeln!(out, "        : {inputs});");
    out.push_str("  }\n};\n");
}

/// The whole header `cuda/sm90_wgmma.cuh`: every variant at every N.
pub fn header() -> String {
    generate(&|_, _| true, true)
}

/// The part of the header a kernel needs: the primary templates, the specializations for
/// (accumulator, input) ∈ `types` (dtype names, `("f32", "f16")`) and N ∈ `ns`, and the
/// dispatch structs.
pub fn specializations(types: &[(String, String)], ns: &[i64]) -> String {
    let keep = |v: &Variant, n: usize| {
        let ty = v.name.strip_prefix("tsl_wgmma_").unwrap_or(v.name);
        types.iter().any(|(a, i)| *ty == format!("{a}_{i}")) && ns.contains(&(n as i64))
    };
    generate(&keep, false).trim_end().to_string()
}

/// The header with the specializations `keep` selects (`#pragma once` for the file only).
fn generate(keep: &dyn Fn(&Variant, usize) -> bool, pragma: bool) -> String {
    let mut s = String::new();
    s.push_str(
        "// GENERATED FILE - do not edit by hand.\n\
         // Written by codegen-cuda/tests/prelude_wgmma.rs; regenerate with\n\
         //   TSL_BLESS=1 cargo test -p codegen-cuda --test prelude_wgmma\n\
         // (the same test without TSL_BLESS fails when this file is stale).\n\
         //\n\
         // wgmma.mma_async.sync.aligned.m64nNk16 with A and B from shared memory through 64-bit\n\
         // descriptors (tsl_wgmma_desc_kmajor), both K-major (immTransA = immTransB = 0), no\n\
         // negation (immScaleA = immScaleB = 1), for every N in 8..=256 step 8:\n\
         //   tsl_wgmma_f32_f16<N>::mma(float (&d)[N/2], da, db, scale_d)    f32 += f16 x f16\n\
         //   tsl_wgmma_f32_bf16<N>::mma(float (&d)[N/2], da, db, scale_d)   f32 += bf16 x bf16\n\
         //   tsl_wgmma_f16_f16<N>::mma(tsl_u32 (&d)[N/4], da, db, scale_d)  f16 += f16 x f16\n\
         // scale_d = 0 computes D = A*B (old D ignored), non-zero D = A*B + D. There is no\n\
         // bf16 x bf16 -> f16 form in PTX, so none is generated. tsl_wgmma<TIn, TAcc, N> picks the\n\
         // struct from the element types and adds reg_t / NREG. Issue between tsl_wgmma_fence()\n\
         // and tsl_wgmma_commit(); all 128 threads of the warpgroup must execute it.\n\
         // Needs prelude.cuh; sm_90a only.\n",
    );
    s.push_str(if pragma { "#pragma once\n\n" } else { "\n" });
    // An 8-bit variant is written only where some N of it is kept.
    let written: Vec<&Variant> = VARIANTS
        .iter()
        .enumerate()
        .filter(|(i, v)| *i < ALWAYS || all_n().any(|n| (v.n_ok)(n) && keep(v, n)))
        .map(|(_, v)| v)
        .collect();
    for v in &written {
        let _ = writeln!(
            s,
            "template <int N> struct {};  // {}, N/{} registers",
            v.name, v.what, v.n_per_reg
        );
    }
    s.push('\n');
    for (i, v) in written.iter().enumerate() {
        if i == ALWAYS {
            s.push_str(EIGHT_BIT_NOTE);
        }
        let _ = writeln!(s, "// ---- {}: {} ----", v.name, v.what);
        for n in all_n().filter(|&n| (v.n_ok)(n) && keep(v, n)) {
            specialization(&mut s, v, n);
        }
        s.push('\n');
    }
    s.push_str(
        "// ---- dispatch on (input type, accumulator type) ----\n\
         template <typename TIn, typename TAcc, int N> struct tsl_wgmma;\n\
         template <int N> struct tsl_wgmma<tsl_f16, float, N> : tsl_wgmma_f32_f16<N> {\n\
         \x20 typedef float reg_t;\n\
         \x20 static constexpr int NREG = N / 2;\n\
         };\n\
         template <int N> struct tsl_wgmma<tsl_bf16, float, N> : tsl_wgmma_f32_bf16<N> {\n\
         \x20 typedef float reg_t;\n\
         \x20 static constexpr int NREG = N / 2;\n\
         };\n\
         template <int N> struct tsl_wgmma<tsl_f16, tsl_f16, N> : tsl_wgmma_f16_f16<N> {\n\
         \x20 typedef tsl_u32 reg_t;\n\
         \x20 static constexpr int NREG = N / 4;\n\
         };\n",
    );
    s
}
