//! Golden test for `cuda/sm90_wgmma.cuh` (written by `codegen_cuda::wgmma`), the N-specific `wgmma.mma_async` wrappers.
//!
//! `wgmma.mma_async.m64nNk16` takes N/2 f32 (or N/4 f16x2) accumulator registers as separate
//! asm operands, so each N in 8..=256 (step 8) needs its own asm statement. This test writes the
//! whole header and compares it with the committed file; run
//! `TSL_BLESS=1 cargo test -p tessel-codegen --test prelude_wgmma` to rewrite it after a change.

use codegen_cuda::wgmma::{VARIANTS, all_n, header as generate};
use std::path::PathBuf;

fn header_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cuda/sm90_wgmma.cuh")
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
            if !(v.n_ok)(n) {
                let head = format!("template <> struct {}<{n}> {{", v.name);
                assert!(!text.contains(&head), "{head}: no such instruction");
                continue;
            }
            let regs = n / v.n_per_reg;
            let head = format!("template <> struct {}<{n}> {{", v.name);
            assert_eq!(text.matches(&head).count(), 1, "{head}");
            let body_start = text.find(&head).unwrap();
            let body_len = text[body_start..].find("};").unwrap();
            let body = &text[body_start..body_start + body_len];
            let instr = format!(
                "wgmma.mma_async.sync.aligned.m64n{n}k{}.{} ",
                v.k, v.ptx_types
            );
            assert!(body.contains(&instr), "{instr}");
            assert_eq!(
                body.matches(&format!("\"{}\"(d[", v.constraint)).count(),
                regs
            );
            assert!(body.contains(&format!("(&d)[{regs}]")));
            assert!(body.contains(&format!("setp.ne.b32 p, %{}, 0;", regs + 2)));
            // f16/bf16 take negate and transpose flags, f8 negate flags only, s8 neither.
            let imm = match v.k {
                16 => ", 1, 1, 0, 0",
                _ if v.ptx_types.starts_with("s32") => "",
                _ => ", 1, 1",
            };
            assert!(body.contains(&format!("%{}, %{}, p{imm};", regs, regs + 1)));
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

/// Integer WGMMA exists for N in {8, 16, 24} and the multiples of 16 up to 256; f8 for every
/// multiple of 8; a kernel that uses no 8-bit variant gets none of their text.
#[test]
fn eight_bit_variants_cover_their_shapes_only_where_used() {
    let text = generate();
    assert!(text.contains("wgmma.mma_async.sync.aligned.m64n24k32.s32.s8.s8 "));
    assert!(!text.contains("m64n40k32.s32.s8.s8"));
    assert!(text.contains("wgmma.mma_async.sync.aligned.m64n40k32.f32.e4m3.e4m3 "));
    let f16_only = codegen_cuda::wgmma::specializations(&[("f32".into(), "f16".into())], &[128]);
    assert!(
        !f16_only.contains("e4m3") && !f16_only.contains("s8"),
        "{f16_only}"
    );
    let fp8 = codegen_cuda::wgmma::specializations(&[("f32".into(), "f8_e4m3".into())], &[128]);
    assert!(fp8.contains("template <> struct tsl_wgmma_f32_f8_e4m3<128>"));
    assert!(!fp8.contains("template <> struct tsl_wgmma_f32_f16<128>"));
}
