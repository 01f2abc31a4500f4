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
