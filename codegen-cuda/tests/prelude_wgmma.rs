//! Generator and golden test for `cuda/sm90_wgmma.cuh`, the N-specific `wgmma.mma_async` wrappers.
//!
//! `wgmma.mma_async.m64nNk16` takes N/2 f32 (or N/4 f16x2) accumulator registers as separate
//! asm operands, so each N in 8..=256 (step 8) needs its own asm statement. This test writes the
//! whole header and compares it with the committed file; run
//! `TSL_BLESS=1 cargo test -p tessel-codegen --test prelude_wgmma` to rewrite it after a change.

use std::fmt::Write as _;
use std::path::PathBuf;

/// One accumulator/input combination of `wgmma.mma_async` with both operands from shared memory.
struct Variant {
    /// C++ struct template name.
    name: &'static str,
    /// PTX type suffix `.<dtype>.<atype>.<btype>`.
    ptx_types: &'static str,
    /// C++ type of one accumulator register.
    reg_ty: &'static str,
    /// inline-asm constraint of one accumulator register.
    constraint: &'static str,
    /// accumulator registers per thread = N / `n_per_reg`.
    n_per_reg: usize,
    /// what the comment says about the accumulators.
    what: &'static str,
}

const VARIANTS: [Variant; 3] = [
    Variant {
        name: "tsl_wgmma_f32_f16",
        ptx_types: "f32.f16.f16",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        what: "f32 += f16 x f16",
    },
    Variant {
        name: "tsl_wgmma_f32_bf16",
        ptx_types: "f32.bf16.bf16",
        reg_ty: "float",
        constraint: "+f",
        n_per_reg: 2,
        what: "f32 += bf16 x bf16",
    },
    Variant {
        name: "tsl_wgmma_f16_f16",
        ptx_types: "f16.f16.f16",
        reg_ty: "tsl_u32",
        constraint: "+r",
        n_per_reg: 4,
        what: "f16 += f16 x f16 (f16x2 pairs)",
    },
];

/// Every legal N of m64nNk16 for 16-bit inputs.
fn all_n() -> impl Iterator<Item = usize> {
    (8..=256).step_by(8)
}

fn header_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cuda/sm90_wgmma.cuh")
}

/// The specialization of `v` for one N.
fn specialization(out: &mut String, v: &Variant, n: usize) {
    let regs = n / v.n_per_reg;
    let (da, db, sd) = (regs, regs + 1, regs + 2);
    let _ = writeln!(out, "template <> struct {}<{n}> {{", v.name);
    let _ = writeln!(
        out,
        "  // wgmma m64n{n}k16 {}; A, B K-major smem descriptors; {regs} regs/thread.",
        v.what
    );
    let _ = writeln!(
        out,
        "  static TSL_DEVICE void mma({} (&d)[{regs}], tsl_u64 da, tsl_u64 db, int scale_d) {{",
        v.reg_ty
    );
    out.push_str("    asm volatile(\n");
    let _ = writeln!(
        out,
        "        \"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{sd}, 0;\\n\"",
    );
    let _ = writeln!(
        out,
        "        \"wgmma.mma_async.sync.aligned.m64n{n}k16.{} \"",
        v.ptx_types
    );
    let ops: Vec<String> = (0..regs).map(|i| format!("%{i}")).collect();
    for (ci, chunk) in ops.chunks(16).enumerate() {
        let open = if ci == 0 { "{" } else { "" };
        let close = if (ci + 1) * 16 >= regs { "}" } else { "" };
        let _ = writeln!(out, "        \"{open}{}{close}, \"", chunk.join(", "));
    }
    let _ = writeln!(out, "        \"%{da}, %{db}, p, 1, 1, 0, 0;\\n}}\\n\"");
    let outs: Vec<String> = (0..regs)
        .map(|i| format!("\"{}\"(d[{i}])", v.constraint))
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
    out.push_str("        : \"l\"(da), \"l\"(db), \"r\"(scale_d));\n");
    out.push_str("  }\n};\n");
}

/// The whole generated header.
fn generate() -> String {
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
         // Needs prelude.cuh; sm_90a only.\n\
         #pragma once\n\n",
    );
    for v in &VARIANTS {
        let _ = writeln!(
            s,
            "template <int N> struct {};  // {}, N/{} registers",
            v.name, v.what, v.n_per_reg
        );
    }
    s.push('\n');
    for v in &VARIANTS {
        let _ = writeln!(s, "// ---- {}: {} ----", v.name, v.what);
        for n in all_n() {
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

#[test]
fn committed_header_matches_generator() {
    let want = generate();
    let path = header_path();
    if std::env::var_os("TSL_BLESS").is_some() {
        std::fs::write(&path, &want).expect("write sm90_wgmma.cuh");
        return;
    }
    let have = std::fs::read_to_string(&path).expect("read cuda/sm90_wgmma.cuh");
    assert!(
        have == want,
        "cuda/sm90_wgmma.cuh is stale; rerun with TSL_BLESS=1 to regenerate it"
    );
}

/// Each (variant, N) specialization exists once, names the right instruction, and lists exactly
/// N/2 (f32) or N/4 (f16x2) accumulator operands followed by the two descriptors and scale_d.
#[test]
fn every_n_has_each_variant_with_the_right_operand_count() {
    let text = generate();
    for v in &VARIANTS {
        for n in all_n() {
            let regs = n / v.n_per_reg;
            let head = format!("template <> struct {}<{n}> {{", v.name);
            assert_eq!(text.matches(&head).count(), 1, "{head}");
            let body_start = text.find(&head).unwrap();
            let body_len = text[body_start..].find("};").unwrap();
            let body = &text[body_start..body_start + body_len];
            let instr = format!("wgmma.mma_async.sync.aligned.m64n{n}k16.{} ", v.ptx_types);
            assert!(body.contains(&instr), "{instr}");
            assert_eq!(
                body.matches(&format!("\"{}\"(d[", v.constraint)).count(),
                regs
            );
            assert!(body.contains(&format!("(&d)[{regs}]")));
            assert!(body.contains(&format!("setp.ne.b32 p, %{}, 0;", regs + 2)));
            assert!(body.contains(&format!("%{}, %{}, p, 1, 1, 0, 0;", regs, regs + 1)));
            assert!(body.contains(&format!("%{}}}", regs - 1)));
        }
    }
}

#[test]
fn no_bf16_input_with_f16_accumulator() {
    let text = generate();
    assert!(!text.contains(".f16.bf16.bf16"));
    assert!(!text.contains("tsl_wgmma<tsl_bf16, tsl_f16"));
}
