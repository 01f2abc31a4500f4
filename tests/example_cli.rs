//! Every example program's command line: `--help` prints help and exits 0 without running,
//! `--version` prints the version, `--m=4096` and `--m 4096` both parse, and a bad flag is a
//! usage error (exit 2). The examples are built (`cargo build --examples`, a no-op after
//! `cargo test --workspace`) into the target folder beside this test
//! (`<target>/<profile>/examples/`).

use std::path::PathBuf;
mod common;

use std::process::Command;

const EXAMPLES: &[&str] = &[
    "autotune_first_use",
    "bench",
    "frontend_limits",
    "gemm_s8",
    "gemm_sparse",
    "gemv",
    "kt_naive",
    "kt_shared",
    "kt_tiled",
    "ladder",
    "launch_overhead",
    "regimes",
    "sgemm_k1_naive",
    "sgemm_k2_coalesce",
    "sgemm_k3_smem",
    "sgemm_k4_1d_tiling",
    "sgemm_k5_2d_tiling",
    "sgemm_k6_vectorize",
    "sgemm_k7_autotune",
    "sgemm_k8_warptile",
    "tune_user",
    "v0_naive",
    "v1_shared",
    "v2_tma_wgmma",
    "v2_warp_mma",
    "v2_warp_pipe",
    "v2_warp_tma",
    "v2_warp_ws",
    "v3_warpspec",
    "v4_fp8",
    "v4_s8",
    "v4_tuned",
];

fn build_examples() {
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "--examples", "--quiet"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "cargo build --examples: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

fn example(name: &str) -> PathBuf {
    build_examples();
    // This test runs from <target>/<profile>/deps/.
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(|d| d.parent()).unwrap();
    let p = profile
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        p.exists(),
        "{} is missing: `cargo test` builds the examples beside the tests",
        p.display()
    );
    p
}

fn run(name: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(example(name))
        .args(args)
        // A run that got past parsing must not find a GPU or touch a real cache.
        .env("CUDA_VISIBLE_DEVICES", "")
        .env(
            "TESSEL_TUNE_CACHE",
            std::env::temp_dir().join("tessel-example-cli"),
        )
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_example_prints_help_and_version() {
    for name in EXAMPLES {
        let (code, out, err) = run(name, &["--help"]);
        assert_eq!(code, 0, "{name} --help: {err}");
        assert!(
            out.contains("Usage:") && out.contains("--help"),
            "{name}: {out}"
        );
        assert!(
            out.contains("Exit codes:"),
            "{name} documents its exit codes: {out}"
        );
        assert!(
            !out.contains("device "),
            "{name} --help must not run: {out}"
        );
        let (code, out, _) = run(name, &["--version"]);
        assert_eq!(code, 0, "{name} --version");
        assert!(out.contains(env!("CARGO_PKG_VERSION")), "{name}: {out}");
        let (code, _, err) = run(name, &["--no-such-flag"]);
        assert_eq!(code, 2, "{name}: a bad flag is a usage error: {err}");
    }
}

#[test]
fn equals_and_space_forms_parse_alike_and_errors_have_their_codes() {
    for form in [&["--m=0"][..], &["--m", "0"][..]] {
        let (code, _, err) = run("sgemm_k1_naive", form);
        assert_eq!(code, 2, "{form:?}: {err}");
        assert!(err.contains("positive"), "{err}");
    }
    // A valid size gets past parsing: with no GPU visible the run stops with exit code 3.
    for form in [
        &["--m=64", "--n", "64", "--k=64"][..],
        &["--m", "64", "--n=64", "--k", "64"][..],
    ] {
        let (code, _, err) = run("sgemm_k1_naive", form);
        assert_eq!(code, 3, "{form:?}: {err}");
    }
    // Outputs go under $CARGO_TARGET_DIR, not the working folder.
    let out = std::env::temp_dir().join(format!("tessel-example-out-{}", std::process::id()));
    let status = Command::new(example("sgemm_k1_naive"))
        .args(["--m=64", "--n=64", "--k=64"])
        .env("CUDA_VISIBLE_DEVICES", "")
        .env("CARGO_TARGET_DIR", &out)
        .output()
        .unwrap()
        .status;
    assert_eq!(status.code(), Some(3));
    let written: Vec<_> = std::fs::read_dir(out.join("tessel").join("sgemm_k1_naive"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        written.iter().any(|n| n.to_string_lossy().ends_with(".cu")),
        "{written:?}"
    );
    let _ = std::fs::remove_dir_all(&out);
    let (code, _, err) = run("v0_naive", &["--set", "NOT_A_TUNABLE=1"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = run("bench", &["--help"]);
    assert_eq!(code, 0);
    // The general tuner without a GPU: exit code 3, not a panic.
    let (code, _, err) = run("tune_user", &["--budget=2"]);
    assert_eq!(code, 3, "{err}");
    let (code, _, err) = run("tune_user", &["--budget", "0"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_gemm_examples_write_their_explain_page() {
    if !common::nvrtc_and_nvdisasm_available("the_gemm_examples_write_their_explain_page") {
        return;
    }
    let page = std::env::temp_dir().join(format!(
        "tessel-example-explain-{}.html",
        std::process::id()
    ));
    let p = page.to_str().unwrap();
    // Past parsing and before the GPU: the page of the configuration that would run.
    let (code, out, err) = run(
        "v1_shared",
        &["--m=64", "--explain", p, "--set", "TILE_M=16"],
    );
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("explain  "), "{out}");
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(html.contains("TILE_M") && html.contains("<html"), "no page");
}
