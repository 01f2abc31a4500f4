//! Static checks of the hand-written CUDA building blocks in `codegen-cuda/cuda/`.
//!
//! The headers are compiled and disassembled by `cuda/check_nvrtc.sh` (NVRTC wheel, no GPU) and
//! run on a GPU by `cuda/reference/run_ref.sh`; neither runs in CI. These tests pin what CI can
//! check without a CUDA toolchain: the headers include nothing (NVRTC gets no include path),
//! every helper is a `tsl_`-prefixed `__device__ __forceinline__` function with a comment, every
//! PTX statement with side effects is `asm volatile`, the API the lowering pass calls exists
//! with the expected signature, and the reference kernel keeps its contract signature.

use std::path::PathBuf;

fn read(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("cuda")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

const HEADERS: [&str; 5] = [
    "prelude.cuh",
    "sm80_async.cuh",
    "sm90_hopper.cuh",
    "sm90_cluster.cuh",
    "sm90_wgmma.cuh",
];

/// Function name of a top-level `TSL_DEVICE` definition line, if it is one.
fn device_fn_name(line: &str) -> Option<&str> {
    let rest = line.split("TSL_DEVICE").nth(1)?;
    let before_paren = rest.split('(').next()?;
    before_paren.split_whitespace().last()
}

#[test]
fn headers_include_nothing() {
    for h in HEADERS {
        for (i, line) in read(h).lines().enumerate() {
            assert!(
                !line.trim_start().starts_with("#include"),
                "{h}:{}: headers must be self-contained (NVRTC gets no include path): {line}",
                i + 1
            );
        }
        assert!(
            read(h).contains("#pragma once"),
            "{h}: missing #pragma once"
        );
    }
}

#[test]
fn helpers_are_prefixed_forceinline_and_commented() {
    for h in [
        "prelude.cuh",
        "sm80_async.cuh",
        "sm90_hopper.cuh",
        "sm90_cluster.cuh",
    ] {
        let text = read(h);
        let lines: Vec<&str> = text.lines().collect();
        let mut prev_name: Option<String> = None;
        for (i, line) in lines.iter().enumerate() {
            // Only top-level definitions (struct members are indented).
            if line.starts_with(' ') || !line.contains("TSL_DEVICE") || line.starts_with("#define")
            {
                continue;
            }
            let name = device_fn_name(line).unwrap_or_else(|| panic!("{h}:{}: {line}", i + 1));
            assert!(
                name.starts_with("tsl_"),
                "{h}:{}: `{name}` lacks the tsl_ prefix",
                i + 1
            );
            // The comment sits above the definition (and above a `template <...>` line, if it
            // is on its own line); overloads of the previous function share its comment.
            let mut j = i;
            while j > 0 && lines[j - 1].starts_with("template <") {
                j -= 1;
            }
            let commented = j > 0 && lines[j - 1].trim_start().starts_with("//");
            let overload = prev_name.as_deref() == Some(name);
            assert!(
                commented || overload,
                "{h}:{}: `{name}` needs a comment saying what PTX it issues and why",
                i + 1
            );
            prev_name = Some(name.to_string());
        }
    }
    assert!(read("prelude.cuh").contains("#define TSL_DEVICE __device__ __forceinline__"));
}

#[test]
fn side_effecting_ptx_is_volatile() {
    for h in [
        "sm80_async.cuh",
        "sm90_hopper.cuh",
        "sm90_cluster.cuh",
        "sm90_wgmma.cuh",
    ] {
        for (i, line) in read(h).lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("asm(") || t.starts_with("asm (") {
                // cvta is the one pure statement in these files.
                assert!(
                    t.contains("cvta"),
                    "{h}:{}: use asm volatile: {line}",
                    i + 1
                );
            }
        }
    }
}

#[test]
fn braces_and_parentheses_balance() {
    for h in HEADERS.iter().chain(["reference/ws_gemm.cu"].iter()) {
        // Line comments may hold prose like "rows [a, b)"; count code only.
        let text: String = read(h)
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        for (open, close) in [('{', '}'), ('(', ')'), ('[', ']')] {
            let o = text.matches(open).count();
            let c = text.matches(close).count();
            assert_eq!(o, c, "{h}: {o} `{open}` vs {c} `{close}`");
        }
    }
}

/// The API the lowering pass and `lowering/*.cuh` call. Renaming any of these breaks generated
/// code, so it must be a deliberate change here too.
#[test]
fn helper_api_is_stable() {
    let api: [(&str, &str); 36] = [
        (
            "prelude.cuh",
            "struct alignas(64) tsl_tensor_map { tsl_u64 opaque[16]; };",
        ),
        (
            "prelude.cuh",
            "struct alignas(2) tsl_f16 { tsl_u16 bits; };",
        ),
        (
            "prelude.cuh",
            "struct alignas(2) tsl_bf16 { tsl_u16 bits; };",
        ),
        (
            "prelude.cuh",
            "struct alignas(4) tsl_f16x2 { tsl_u32 bits; };",
        ),
        (
            "prelude.cuh",
            "TSL_DEVICE tsl_f16 tsl_f16_from_f32(float x)",
        ),
        ("prelude.cuh", "TSL_DEVICE float tsl_f16_to_f32(tsl_f16 x)"),
        (
            "prelude.cuh",
            "TSL_DEVICE tsl_bf16 tsl_bf16_from_f32(float x)",
        ),
        (
            "prelude.cuh",
            "TSL_DEVICE float tsl_bf16_to_f32(tsl_bf16 x)",
        ),
        (
            "prelude.cuh",
            "TSL_DEVICE tsl_u32 tsl_pack_f16x2(float lo, float hi)",
        ),
        (
            "prelude.cuh",
            "TSL_DEVICE tsl_u32 tsl_pack_bf16x2(float lo, float hi)",
        ),
        (
            "prelude.cuh",
            "template <typename T> TSL_DEVICE T tsl_from_f32(float x)",
        ),
        (
            "prelude.cuh",
            "TSL_DEVICE tsl_f16 tsl_fma(tsl_f16 a, tsl_f16 b, tsl_f16 c)",
        ),
        (
            "prelude.cuh",
            "TSL_DEVICE tsl_f16x2 tsl_fma(tsl_f16x2 a, tsl_f16x2 b, tsl_f16x2 c)",
        ),
        (
            "prelude.cuh",
            "TSL_DEVICE float tsl_fma(float a, float b, float c)",
        ),
        (
            "prelude.cuh",
            "TSL_DEVICE tsl_u32 tsl_smem_addr(const void *p)",
        ),
        (
            "sm80_async.cuh",
            "TSL_DEVICE void tsl_cp_async_16(tsl_u32 dst, const void *src, int src_bytes)",
        ),
        (
            "sm80_async.cuh",
            "template <int N> TSL_DEVICE void tsl_cp_async_wait()",
        ),
        (
            "sm90_hopper.cuh",
            "TSL_DEVICE void tsl_mbar_init(tsl_u32 bar, tsl_u32 count)",
        ),
        ("sm90_hopper.cuh", "TSL_DEVICE void tsl_mbar_init_fence()"),
        (
            "sm90_hopper.cuh",
            "TSL_DEVICE void tsl_mbar_arrive(tsl_u32 bar)",
        ),
        (
            "sm90_hopper.cuh",
            "TSL_DEVICE void tsl_mbar_arrive_expect_tx(tsl_u32 bar, tsl_u32 bytes)",
        ),
        (
            "sm90_hopper.cuh",
            "TSL_DEVICE void tsl_mbar_wait(tsl_u32 bar, tsl_u32 parity)",
        ),
        (
            "sm90_hopper.cuh",
            "TSL_DEVICE void tsl_tma_load_2d(tsl_u32 dst, const tsl_tensor_map *tm, int c0, int c1,",
        ),
        (
            "sm90_hopper.cuh",
            "TSL_DEVICE void tsl_tma_store_2d(const tsl_tensor_map *tm, int c0, int c1, tsl_u32 src)",
        ),
        (
            "sm90_hopper.cuh",
            "template <int N> TSL_DEVICE void tsl_tma_store_wait_read()",
        ),
        ("sm90_hopper.cuh", "TSL_DEVICE void tsl_fence_proxy_async()"),
        (
            "sm90_hopper.cuh",
            "TSL_DEVICE void tsl_prefetch_tensormap(const tsl_tensor_map *tm)",
        ),
        (
            "sm90_hopper.cuh",
            "template <int SWIZ> TSL_DEVICE tsl_u64 tsl_wgmma_desc_kmajor(tsl_u32 smem_addr)",
        ),
        (
            "sm90_hopper.cuh",
            "TSL_DEVICE tsl_u64 tsl_wgmma_desc_advance_k16(tsl_u64 desc, int ks)",
        ),
        (
            "sm90_hopper.cuh",
            "template <int N> TSL_DEVICE void tsl_wgmma_wait()",
        ),
        (
            "sm90_hopper.cuh",
            "template <int R> TSL_DEVICE void tsl_pin(float (&acc)[R])",
        ),
        (
            "sm90_hopper.cuh",
            "template <int R> TSL_DEVICE void tsl_setmaxnreg_inc()",
        ),
        (
            "sm90_hopper.cuh",
            "template <int R> TSL_DEVICE void tsl_setmaxnreg_dec()",
        ),
        (
            "sm90_hopper.cuh",
            "template <typename T, int N> TSL_DEVICE void tsl_acc_pack(const float (&d)[N / 2],",
        ),
        (
            "sm90_hopper.cuh",
            "template <int N, int LAYOUT> TSL_DEVICE void tsl_acc_store_smem(const tsl_u32 (&p)[N / 4],",
        ),
        (
            "sm90_wgmma.cuh",
            "template <typename TIn, typename TAcc, int N> struct tsl_wgmma;",
        ),
    ];
    for (file, sig) in api {
        assert!(read(file).contains(sig), "{file}: missing `{sig}`");
    }
}

/// Facts from HOPPER_NOTES that are easy to get wrong by an edit, checked in the text.
#[test]
fn ptx_spellings_follow_the_notes() {
    let h = read("sm90_hopper.cuh");
    for s in [
        "fence.mbarrier_init.release.cluster;",
        "mbarrier.try_wait.parity.shared::cta.b64",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
        "cp.async.bulk.wait_group.read %0;",
        "fence.proxy.async.shared::cta;",
        "stmatrix.sync.aligned.m8n8.x4.shared.b16",
        // descriptor: SBO = 8 rows of SWIZ bytes, LBO field 1, mode 1/2/3 for 128/64/32 B.
        "constexpr tsl_u64 sbo = (8 * SWIZ) >> 4;",
        "constexpr tsl_u64 mode = SWIZ == 128 ? 1 : (SWIZ == 64 ? 2 : 3);",
        "(1ull << 16) | (sbo << 32) | (mode << 62)",
    ] {
        assert!(h.contains(s), "sm90_hopper.cuh: missing `{s}`");
    }
    // cvt.rn.f16x2.f32 d, a, b puts a in the high half: the asm must get (hi, lo).
    let p = read("prelude.cuh");
    assert!(p.contains(r#"asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));"#));
    assert!(p.contains(r#"asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));"#));
}

#[test]
fn reference_kernel_keeps_its_contract() {
    let k = read("reference/ws_gemm.cu");
    for s in [
        "template <int WARP_N, int STAGES, int CONSUMERS, int TILE_K, int SWIZ, typename TIn, typename TAcc>",
        "__global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1)",
        "tsl_ref_ws_gemm(const __grid_constant__ tsl_tensor_map tm_lhs,",
        "const __grid_constant__ tsl_tensor_map tm_rhs,",
        "const __grid_constant__ tsl_tensor_map tm_out, int M, int N, int K)",
    ] {
        assert!(k.contains(s), "ws_gemm.cu: missing `{s}`");
    }
    let host = read("reference/ws_gemm_host.cu");
    assert!(host.contains("cuTensorMapEncodeTiled"));
    assert!(host.contains("cublasGemmEx"));
}
