//! Warp-level tensor cores (`mma` under `: group` → `mma.sync`), no GPU needed:
//!
//! - the small kernels of `tests/data/warp/` (bf16 with a K × N operand through ldmatrix.trans,
//!   s8 → s32 through a cp.async ring, tf32 with one operand straight from global memory, and
//!   Croqtile's f16 form that loads and stores global tensors with `.chunkat(m # g0, k)`, an
//!   accumulator stored before the first `mma` updates it; the smaller instruction shapes —
//!   m16n8k8, m16n8k4 tf32, m16n8k16 and m8n8k16 for u8 and s8 × u8, f16 8 × 8 × 4 tiles —
//!   `mma.fill acc, v`, `mma.store.transp`, an accumulator loaded with `mma.load` and an
//!   array of accumulators) emit
//!   their golden `.cu` (`tests/golden/warp/`, `TESSEL_BLESS=1` to refresh);
//! - they and `kernels/v2_warp_mma.co` (at its defaults and across its domain) compile with NVRTC
//!   for sm_80, sm_86, sm_89 and sm_90a and show the tensor-core instruction of their type (HMMA,
//!   or IMMA for s8), LDSM where an operand comes from shared memory, LDGSTS where a cp.async
//!   ring feeds them, and no local memory or spills.
//!
//! Without NVRTC/nvdisasm the compile tests print `SKIPPED` and pass, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where they fail.

mod common;

use common::{
    assert_ops, clean_sass, emit_source, golden, nvrtc_and_nvdisasm_available, parse_file,
    parse_kernel,
};
use dsl_core::check::Config;
use dsl_core::ir::Module;
use dsl_core::lower::KernelPath;
use tessel_runtime::nvrtc::Arch;

/// The kernels of `tests/data/warp/`, with the instructions their SASS must show.
const SMALL: [(&str, &[&str]); 17] = [
    ("bf16_shared_col", &["HMMA", "LDSM.16.MT88"]),
    ("global_chunk", &["HMMA"]),
    ("s8_imma", &["IMMA", "LDSM", "LDGSTS"]),
    ("store_first", &["HMMA"]),
    ("tf32_mixed", &["HMMA", "LDSM"]),
    // The smaller instruction shapes: m16n8k8 (ldmatrix .x2, and .trans x2 + x1 for three n8
    // blocks), m8n8k16 u8 (ldmatrix of 8-row blocks), m16n8k16 s8 × u8 from global with a
    // re-initialized accumulator, f16 8 × 8 × 4 tiles as zero-padded m16n8k8, tf32 m16n8k4.
    (
        "f16_k8_shared",
        &[
            "HMMA.1688.F32",
            "LDSM.16.M88.2",
            "LDSM.16.MT88.2",
            "LDSM.16.MT88",
        ],
    ),
    (
        "u8_m8_shared",
        &["IMMA.8816.U8.U8", "LDSM.16.M88.4", "LDSM.16.M88.2"],
    ),
    ("s8u8_refill", &["IMMA.16816.S8.U8"]),
    ("f16_8x8x4", &["HMMA.1688.F16"]),
    ("tf32_k4", &["HMMA.1684.F32.TF32", "LDSM.16.M88.2"]),
    // `mma.store.transp` into a shared tile.
    ("f16_store_transp", &["HMMA.16816.F32", "STS"]),
    // An accumulator loaded from the output (`mc = mma.load …`).
    ("f16_loadc", &["HMMA.16816.F32"]),
    // An array of accumulators (`frag mc[1][2] {0.0f};`, `mc[0][1]`).
    ("f16_acc_array", &["HMMA.16816.F32"]),
    // One fragment name declared in two scopes, in the A role in one and the B role in the other.
    (
        "f16_scoped_names",
        &["HMMA.16816.F32", "LDSM.16.M88", "LDSM.16.MT88"],
    ),
    // `[[frag_prefetch]]` K loops: s8 (IMMA) in a two-stage ring, bf16 with a K × N B, and two
    // prefetched loops in one block with the same fragment names.
    ("s8_prefetch", &["IMMA.16832.S8.S8", "LDSM", "LDGSTS"]),
    (
        "bf16_prefetch_col",
        &["HMMA.16816.F32.BF16", "LDSM.16.MT88", "LDGSTS"],
    ),
    (
        "f16_two_prefetch",
        &["HMMA.16816.F32", "LDSM.16.M88", "LDGSTS"],
    ),
];

fn parse_data(name: &str) -> Module {
    parse_file(&format!("tests/data/warp/{name}.co"))
}

/// The `.cu` of `m` (from `source`) at `cfg`, its path and the instance's name expression.
fn emit(m: &Module, source: &str, cfg: &Config) -> (KernelPath, String, String) {
    let (k, cu, expr) = emit_source(m, source, cfg);
    (k.path, cu, expr)
}

/// The SASS of `expr`: no local memory, no spill and no ptxas performance warning.
fn sass_of(what: &str, cu: &str, expr: &str, arch: Arch) -> String {
    let c = clean_sass(what, cu, expr, arch);
    assert!(c.warnings.is_empty(), "{what}: {}", c.warnings.join("\n"));
    c.sass
}

#[test]
fn small_warp_kernels_match_their_golden_cu() {
    let mut failures = Vec::new();
    for (name, _) in SMALL {
        let m = parse_data(name);
        let source = format!("tests/data/warp/{name}.co");
        let (path, cu, _) = emit(&m, &source, &Config::defaults(&m));
        assert_eq!(
            path,
            KernelPath::Simt,
            "{name}: a warp kernel takes the SIMT path"
        );
        assert!(
            cu.contains("mma.sync.aligned"),
            "{name}: no mma.sync helper"
        );
        if let Err(e) = golden(&format!("tests/golden/warp/{name}.cu"), &cu) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn small_warp_kernels_compile_for_every_sm80_plus_arch() {
    if !nvrtc_and_nvdisasm_available("small_warp_kernels_compile_for_every_sm80_plus_arch") {
        return;
    }
    for (name, ops) in SMALL {
        let m = parse_data(name);
        let source = format!("tests/data/warp/{name}.co");
        let (_, cu, expr) = emit(&m, &source, &Config::defaults(&m));
        for arch in Arch::ALL {
            let sass = sass_of(name, &cu, &expr, arch);
            assert_ops(&format!("{name} for {arch}"), &sass, ops);
        }
    }
}

/// `ma` and `mb` are declared in two sibling loops with swapped roles: each load is lowered by
/// its own declaration's use (A with `tsl_mma_load_a` of 16-row blocks, B with
/// `tsl_mma_load_b`, the col-major `ma` transposed), not by the first `mma` naming it.
#[test]
fn fragments_of_one_name_in_two_scopes_are_two_fragments() {
    let m = parse_data("f16_scoped_names");
    let (_, cu, _) = emit(
        &m,
        "tests/data/warp/f16_scoped_names.co",
        &Config::defaults(&m),
    );
    let loads: Vec<&str> = cu
        .lines()
        .filter(|l| l.contains("tsl_mma_load_a<") || l.contains("tsl_mma_load_b<"))
        .map(|l| l.trim())
        .collect();
    let want = [
        "tsl_mma_load_a<TSL_MMA_F16, BM / 16, 1, false, BK + PAD, (BK + PAD) % 8 == 0>(ma, lhs_s + kk * 16);",
        "tsl_mma_load_b<TSL_MMA_F16, BN / 8, 1, false, BK + PAD, (BK + PAD) % 8 == 0>(mb, rhs_s + kk * 16);",
        "tsl_mma_load_a<TSL_MMA_F16, BM / 16, 1, false, BK + PAD, (BK + PAD) % 8 == 0>(mb, lhs_s + kh * 16);",
        "tsl_mma_load_b<TSL_MMA_F16, BN / 8, 1, true, BN + PAD, (BN + PAD) % 8 == 0>(ma, rhs_ts + (kh * 16) * (BN + PAD));",
    ];
    assert_eq!(loads.len(), want.len(), "{cu}");
    for (got, want) in loads.iter().zip(want) {
        assert!(got.starts_with(want), "got `{got}`, want `{want}`");
    }
}

/// A tunable warp-tile height: the emitted kernel asserts whole 16-row blocks and compiles at
/// every value of the tunable's domain (m16n8k8 from the constant K of 8).
#[test]
fn tunable_warp_rows_are_asserted_and_compile() {
    let m = parse_data("f16_tunable_rows");
    let source = "tests/data/warp/f16_tunable_rows.co";
    let (_, cu, _) = emit(&m, source, &Config::defaults(&m));
    assert!(
        cu.contains(
            "static_assert(WM % 16 == 0, \"the warp tile `ma` takes whole m16n8k8 instructions\");"
        ),
        "{cu}"
    );
    assert!(
        cu.contains("tsl_warp_mma<TSL_MMA_F16, WM / 16, 1, 1, TSL_MMA_HALF_K>"),
        "{cu}"
    );
    if !nvrtc_and_nvdisasm_available("tunable_warp_rows_are_asserted_and_compile") {
        return;
    }
    for wm in [16, 32] {
        let cfg = Config::defaults(&m).with("WM", wm);
        let (_, cu, expr) = emit(&m, source, &cfg);
        let sass = sass_of("f16_tunable_rows", &cu, &expr, Arch::Sm80);
        assert_ops(&format!("WM = {wm}"), &sass, &["HMMA.1688.F32"]);
    }
}

/// The v2 kernel at its defaults (128 × 256 blocks of 64 × 64 warp tiles, four stages) and
/// across its domain: 128 × 128 blocks of 64 × 32 warp tiles with three stages, 64-wide K tiles
/// in a two-stage ring, 64 × 64 blocks of a 2 × 2 warp grid.
#[test]
fn v2_warp_mma_uses_hmma_ldsm_and_cp_async() {
    if !nvrtc_and_nvdisasm_available("v2_warp_mma_uses_hmma_ldsm_and_cp_async") {
        return;
    }
    let m = parse_kernel("v2_warp_mma");
    let base = Config::defaults(&m);
    let configs = [
        base.clone(),
        base.clone()
            .with("BN", 128)
            .with("WN", 32)
            .with("STAGES", 3),
        base.clone().with("BK", 64).with("STAGES", 2),
        base.clone()
            .with("BM", 64)
            .with("BN", 64)
            .with("WM", 32)
            .with("WN", 32),
    ];
    for (i, cfg) in configs.iter().enumerate() {
        let (_, cu, expr) = emit(&m, "kernels/v2_warp_mma.co", cfg);
        let archs: &[Arch] = if i == 0 {
            &Arch::ALL
        } else {
            &[Arch::Sm80, Arch::Sm90a]
        };
        for &arch in archs {
            let sass = sass_of("v2_warp_mma", &cu, &expr, arch);
            assert_ops(
                &format!("v2_warp_mma `{expr}` for {arch}"),
                &sass,
                &["HMMA.16816.F32", "LDSM.16.M88.4", "LDGSTS"],
            );
        }
    }
}

/// The register `require` of the v2 kernel is true to ptxas at its edge: configurations ptxas
/// spills on are refused by the checker — a 32 × 128 warp tile with 64-wide K tiles at 255
/// registers; 512 threads, which `__launch_bounds__` caps at 128 registers, with 32 × 64 and
/// 64 × 64 warp tiles; 128 × 128 blocks of 64 × 64 warp tiles with 64-wide K tiles (254
/// registers at four stages, a spill at three) — and the admitted ones nearest the limits (the
/// tuner's earlier winner among them) compile for sm_90a without a spill.
#[test]
fn v2_warp_mma_registers_are_what_ptxas_allocates() {
    use dsl_core::check::{Limits, check_config};
    let m = parse_kernel("v2_warp_mma");
    let with = |pairs: &[(&str, i64)]| {
        pairs
            .iter()
            .fold(Config::defaults(&m), |c, (k, v)| c.with(k, *v))
    };
    let spilling = [
        with(&[
            ("BM", 64),
            ("BN", 256),
            ("BK", 64),
            ("WM", 32),
            ("WN", 128),
            ("STAGES", 3),
        ]),
        with(&[
            ("BM", 128),
            ("BN", 256),
            ("BK", 64),
            ("WM", 32),
            ("WN", 64),
            ("STAGES", 3),
        ]),
        with(&[
            ("BM", 256),
            ("BN", 256),
            ("BK", 32),
            ("WM", 64),
            ("WN", 64),
            ("STAGES", 2),
        ]),
        with(&[("BN", 128), ("BK", 64), ("STAGES", 3)]),
    ];
    for c in &spilling {
        let d = check_config(&m, c, None, &Limits::default())
            .expect_err(&format!("{c:?} spills: the require refuses it"));
        assert!(d.0.iter().all(|x| x.code == "E1001"), "{d}");
    }
    let edge = [
        with(&[("BM", 256), ("BN", 128), ("BK", 64), ("STAGES", 2)]),
        with(&[("BN", 128), ("WM", 32), ("WN", 128)]),
        with(&[
            ("BM", 256),
            ("BN", 128),
            ("WM", 128),
            ("WN", 32),
            ("STAGES", 3),
        ]),
        with(&[
            ("BN", 128),
            ("BK", 64),
            ("WM", 32),
            ("WN", 32),
            ("STAGES", 3),
        ]),
    ];
    for c in &edge {
        check_config(&m, c, None, &Limits::default())
            .unwrap_or_else(|d| panic!("{c:?} is admitted:\n{d}"));
    }
    if !nvrtc_and_nvdisasm_available("v2_warp_mma_registers_are_what_ptxas_allocates") {
        return;
    }
    for c in &edge {
        let (_, cu, expr) = emit(&m, "kernels/v2_warp_mma.co", c);
        let sass = sass_of("v2_warp_mma", &cu, &expr, Arch::Sm90a);
        assert_ops(&expr, &sass, &["HMMA.16816.F32", "LDSM"]);
    }
}

/// An f16 accumulator (`--acc f16`) and bf16 operands (`--dtype bf16`) of the v2 kernel: the
/// f16-accumulate and bf16 forms of the instruction, at 128 × 128 blocks of 64 × 32 warp tiles
/// (at the 128 × 256 defaults ptxas gives the f16-accumulator form 128 registers and spills 12
/// bytes on sm_80).
#[test]
fn v2_warp_mma_variants_compile() {
    if !nvrtc_and_nvdisasm_available("v2_warp_mma_variants_compile") {
        return;
    }
    use dsl_core::def::{Variant, retype};
    use dsl_core::ir::DType;
    let f16 = parse_kernel("v2_warp_mma");
    let runs = [
        (Some(DType::F16), Some(DType::F16), "HMMA.16816.F16"),
        (Some(DType::BF16), Some(DType::F32), "HMMA.16816.F32.BF16"),
    ];
    for (input, acc, op) in runs {
        let m = retype(&f16, Variant { input, acc });
        let cfg = Config::defaults(&m).with("BN", 128).with("WN", 32);
        let (_, cu, expr) = emit(&m, "kernels/v2_warp_mma.co", &cfg);
        let what = format!("v2_warp_mma {input:?}/{acc:?}");
        let sass = sass_of(&what, &cu, &expr, Arch::Sm80);
        assert_ops(&what, &sass, &[op]);
    }
}
