//! The `tessel` executable as a user runs it: `--help`, `--version`, every subcommand's
//! `--help`, `--m=4096`-style long options, where the output goes and the exit codes
//! (`tessel::cli::exit`).

mod common;

use common::{tessel, text};

use pretty_assertions::assert_eq;
use tessel::cli::exit;

const V4: &str = "kernels/v4_tuned.co";

/// Every subcommand that takes a kernel file.
const SUBCOMMANDS: &[&str] = &["check", "ir", "emit", "compile", "run", "tune", "explain"];

#[test]
fn help_lists_every_subcommand_and_the_exit_codes() {
    for flag in ["--help", "-h", "help"] {
        let o = tessel(&[flag]);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(exit::OK), "{flag}: {out}");
        assert!(o.stderr.is_empty(), "{flag}: {}", text(&o.stderr));
        assert!(out.contains("Usage: tessel <COMMAND>"), "{out}");
        for sub in SUBCOMMANDS.iter().chain(&["cache", "setup-nvrtc"]) {
            assert!(
                out.lines().any(|l| l.trim_start().starts_with(sub)),
                "`{sub}` not listed:\n{out}"
            );
        }
        assert!(out.contains("Exit codes:"), "{out}");
        for code in ["0  success", "1  ", "2  usage", "3  no GPU", "4  "] {
            assert!(out.contains(code), "`{code}` missing:\n{out}");
        }
    }
}

#[test]
fn version_is_the_package_version() {
    for flag in ["--version", "-V"] {
        let o = tessel(&[flag]);
        assert_eq!(o.status.code(), Some(exit::OK));
        assert_eq!(
            text(&o.stdout).trim(),
            format!("tessel {}", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn every_subcommand_has_help() {
    for sub in SUBCOMMANDS {
        let o = tessel(&[sub, "--help"]);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(exit::OK), "{sub}: {out}");
        assert!(
            out.contains(&format!("Usage: tessel {sub}")),
            "{sub}:\n{out}"
        );
        assert!(out.contains("FILE.co"), "{sub}:\n{out}");
        assert!(out.contains("--set <NAME=V>"), "{sub}:\n{out}");
        // `tessel help SUB` says the same.
        let o2 = tessel(&["help", sub]);
        assert_eq!(text(&o2.stdout), out, "`tessel help {sub}`");
    }
    let o = tessel(&["setup-nvrtc", "--help"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(exit::OK), "{out}");
    assert!(out.contains("Usage: tessel setup-nvrtc"), "{out}");
    assert!(
        out.contains("--dir <DIR>") && out.contains("--python <PYTHON>"),
        "{out}"
    );
    let o = tessel(&["compile", "--help"]);
    let out = text(&o.stdout);
    assert!(
        out.contains("--arch <ARCH>") && out.contains("sm_90a"),
        "{out}"
    );
    assert!(out.contains("-o, --output <FILE.cubin>"), "{out}");
}

#[test]
fn long_options_take_their_value_after_an_equals_sign() {
    let spaced = tessel(&["emit", V4, "--set", "WARP_N=128"]);
    let joined = tessel(&["emit", V4, "--set=WARP_N=128"]);
    assert_eq!(spaced.status.code(), Some(exit::OK));
    assert_eq!(joined.status.code(), Some(exit::OK));
    assert_eq!(spaced.stdout, joined.stdout);
    let o = tessel(&["compile", V4, "--arch=sm_7x"]);
    assert_eq!(o.status.code(), Some(exit::USAGE));
    let err = text(&o.stderr);
    assert!(
        err.contains("unsupported GPU architecture `sm_7x`"),
        "{err}"
    );
    let o = tessel(&["compile", V4, "--arch=sm_80"]);
    assert_eq!(o.status.code(), Some(exit::USAGE));
    let err = text(&o.stderr);
    assert!(
        err.contains("Hopper path (TMA, WGMMA), which only sm_90a has; not sm_80"),
        "{err}"
    );
}

#[test]
fn exit_codes_tell_success_failed_check_and_usage_apart() {
    let ok = tessel(&["check", V4]);
    assert_eq!(ok.status.code(), Some(exit::OK));
    assert!(text(&ok.stdout).contains(": ok ("));
    assert!(ok.stderr.is_empty());

    // A DSL error: the diagnostic on stderr, exit 1.
    let bad = tessel(&["check", "tests/data/bad_swizzle.co"]);
    assert_eq!(bad.status.code(), Some(exit::FAILED));
    assert!(bad.stdout.is_empty());
    assert!(text(&bad.stderr).contains("error[E0401]"));

    for args in [
        &["frobnicate"][..],
        &["check"][..],
        &["check", V4, "--bogus"][..],
        &["check", "tests/data/does_not_exist.co"][..],
        &["check", V4, "--set", "NOPE=1"][..],
        &["compile", V4, "--arch"][..],
    ] {
        let o = tessel(args);
        assert_eq!(o.status.code(), Some(exit::USAGE), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(text(&o.stderr).starts_with("error: "), "{args:?}");
    }
}

#[test]
fn an_unwritable_output_is_a_runtime_error() {
    if !common::nvrtc_and_nvdisasm_available("an_unwritable_output_is_a_runtime_error") {
        return;
    }
    // A path under a regular file cannot be created.
    let blocker = std::env::temp_dir().join(format!("tessel-cli-blocker-{}", std::process::id()));
    std::fs::write(&blocker, b"").unwrap();
    let out = blocker.join("k.cubin");
    let o = tessel(&[
        "compile",
        "kernels/v0_naive.co",
        "-o",
        out.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_file(&blocker);
    assert_eq!(o.status.code(), Some(exit::RUNTIME), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("cannot create"),
        "{}",
        text(&o.stderr)
    );
}

/// Without a GPU, `run` and `tune` exit 3 with one sentence; on a GPU (the lead's run:
/// `cargo test --test cli_binary`), `run` verifies a kernel of each path and reference kind
/// and `tune` sweeps a few configurations to a verified winner.
#[test]
fn run_and_tune_need_a_gpu() {
    let has_gpu = tessel_runtime::device::Device::open(0).is_ok();
    let runs: &[(&str, &str, &str)] = &[
        // (kernel, shape, how it is verified)
        ("v0_naive", "M=512,N=512,K=512", "against cuBLAS (Nt)"),
        ("v4_tuned", "M=1024,N=1024,K=1024", "against cuBLAS (Nt)"),
        ("sgemm_k1_naive", "M=512,N=256,K=128", "against cuBLAS (Nn)"),
        ("gemv_direct", "N=1024,K=2048", "f64 host reference"),
    ];
    for (name, shape, how) in runs {
        let file = format!("kernels/{name}.co");
        let o = tessel(&["run", &file, "--shape", shape]);
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        if has_gpu {
            assert_eq!(o.status.code(), Some(exit::OK), "{name}:\n{out}{err}");
            assert!(out.contains("verify   PASS"), "{name}:\n{out}");
            assert!(out.contains(how), "{name}: not verified {how}:\n{out}");
            assert!(out.contains("time     tessel median"), "{name}:\n{out}");
        } else {
            assert_eq!(o.status.code(), Some(exit::NO_GPU), "{name}:\n{out}{err}");
            assert!(o.stdout.is_empty());
            assert_eq!(err.lines().count(), 1, "one sentence:\n{err}");
            assert!(err.starts_with("error: no GPU to run on: "), "{err}");
        }
    }
    let exports = std::env::temp_dir().join(format!("tessel-cli-tune-{}", std::process::id()));
    let o = tessel(&[
        "tune",
        "kernels/v0_naive.co",
        "--shape=M=1024,N=1024,K=1024",
        "--strategy=random",
        "--budget=3",
        "--retune",
        "--out",
        exports.to_str().unwrap(),
    ]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    if has_gpu {
        assert_eq!(o.status.code(), Some(exit::OK), "{out}{err}");
        assert!(
            out.contains("next     tessel run kernels/v0_naive.co"),
            "{out}"
        );
    } else {
        assert_eq!(o.status.code(), Some(exit::NO_GPU), "{out}{err}");
        assert!(err.starts_with("error: no GPU to tune on: "), "{err}");
    }
}

/// Kernels the GEMM tuner does not take (an f32 NN GEMM, a GEMV) are tuned as general jobs
/// with `tessel run`'s reference: without a GPU they get past their arguments and signature to
/// exit 3; on a GPU a small sweep reaches a verified winner and its `tessel run` line.
#[test]
fn tune_takes_any_kernel_run_verifies() {
    let has_gpu = tessel_runtime::device::Device::open(0).is_ok();
    for (file, shape) in [
        ("kernels/sgemm_k8_warptile.co", "M=256,N=256,K=256"),
        ("kernels/gemv_direct.co", "N=1024,K=1024"),
    ] {
        let o = tessel(&[
            "tune",
            file,
            "--shape",
            shape,
            "--strategy=random",
            "--budget=3",
            "--retune",
        ]);
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        if has_gpu {
            assert_eq!(o.status.code(), Some(exit::OK), "{file}:\n{out}{err}");
            assert!(
                out.contains(&format!("next     tessel run {file} --shape {shape}")),
                "{file}:\n{out}"
            );
        } else {
            assert_eq!(o.status.code(), Some(exit::NO_GPU), "{file}:\n{out}{err}");
            assert!(err.starts_with("error: no GPU to tune on: "), "{err}");
        }
    }
}

#[test]
fn run_refuses_what_it_cannot_size_or_verify_before_looking_for_a_gpu() {
    for (args, code, msg) in [
        (
            &["run", V4, "--shape", "M=64,N=64"][..],
            exit::USAGE,
            "dimension `K` of parameter `lhs` needs a size: --shape K=",
        ),
        (
            &["run", V4, "--shape", "M=64,N=64,K=64,Q=2"][..],
            exit::USAGE,
            "`Q` is not a dimension of any parameter",
        ),
        (&["run", V4][..], exit::USAGE, "--shape"),
        (
            &["run", V4, "--shape", "M=64,N=64,K=64", "--dtype", "f8"][..],
            exit::USAGE,
            "`f8` is not f16, bf16 or f32",
        ),
        (
            &["tune", V4, "--shape", "M=64,N=64"][..],
            exit::USAGE,
            "`K` is missing",
        ),
        (
            &["tune", V4, "--shape", "M=64,N=64,K=64", "--sweep", "NOPE"][..],
            exit::USAGE,
            "`NOPE` is not a tunable",
        ),
        (
            &["tune", "kernels/gemv_direct.co", "--shape", "N=64"][..],
            exit::USAGE,
            "dimension `K` of parameter `w` needs a size: --shape K=",
        ),
        (
            &[
                "tune",
                "kernels/sgemm_k8_warptile.co",
                "--shape",
                "M=64,N=64,K=64,Q=2",
            ][..],
            exit::USAGE,
            "`Q` is not a dimension of any parameter",
        ),
    ] {
        let o = tessel(args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

#[test]
fn explain_writes_a_self_contained_page() {
    if !common::nvrtc_and_nvdisasm_available("explain_writes_a_self_contained_page") {
        return;
    }
    let out = std::env::temp_dir().join(format!("tessel-cli-explain-{}.html", std::process::id()));
    let o = tessel(&[
        "explain",
        "kernels/v1_shared.co",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(exit::OK), "{}", text(&o.stderr));
    let page = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(
        page.starts_with("<!DOCTYPE html>") || page.starts_with("<!doctype html>"),
        "{}",
        &page[..80.min(page.len())]
    );
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "the page loads nothing"
    );
    // An unknown tunable is a usage error.
    let o = tessel(&[
        "explain",
        "kernels/v1_shared.co",
        "--set",
        "NOPE=1",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(exit::USAGE), "{}", text(&o.stderr));
}

/// `tessel cache export` on one machine, `import` on another: two cache folders, one bundle;
/// `merge` of a folder gives the same entries, and `clear` empties it.
#[test]
fn cache_export_on_one_machine_and_import_on_another() {
    use tessel_runtime::tune::record::{Phase, TimeStats, TrialRecord};
    use tessel_runtime::tune::store::{self, CacheKey, TuneStore};
    let base = std::env::temp_dir().join(format!("tessel-cli-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (a, b, c) = (base.join("a"), base.join("b"), base.join("c"));
    let key = CacheKey {
        format: store::FORMAT,
        gpu_name: "NVIDIA H100 80GB HBM3".into(),
        compute_capability: (9, 0),
        driver_version: 13000,
        nvrtc_version: (13, 0),
        kernel: "matmul".into(),
        source_hash: "0123456789abcdef".into(),
        problem: "K=64 M=128 N=256".into(),
        dtypes: "f16 in, f32 acc, f16 out".into(),
        settings: "test".into(),
    };
    let mut st = TuneStore::open(&a, key, false);
    for i in 0..3 {
        let mut t = TrialRecord::new([("WARP_N".to_string(), 128 + 8 * i)].into(), Phase::Full);
        t.time = Some(TimeStats {
            median_ms: 1.0 + i as f64,
            min_ms: 1.0,
            max_ms: 4.0,
            mean_ms: 2.0,
            runs: 20,
            tflops: None,
        });
        st.record(t).unwrap();
    }
    let bundle = base.join("bundle.jsonl");
    let run = |args: &[&str]| {
        let o = tessel(args);
        assert_eq!(
            o.status.code(),
            Some(exit::OK),
            "{args:?}: {}",
            text(&o.stderr)
        );
        text(&o.stdout)
    };
    let dir = |p: &std::path::Path| p.to_str().unwrap().to_string();
    run(&["cache", "--dir", &dir(&a), "export", &dir(&bundle)]);
    run(&["cache", "--dir", &dir(&b), "import", &dir(&bundle)]);
    // The listing without the folder's name: what each file holds.
    let ls = |p: &std::path::Path| run(&["cache", "--dir", &dir(p), "ls"]).replace(&dir(p), "DIR");
    let ls_a = ls(&a);
    let ls_b = ls(&b);
    assert!(ls_b.contains("matmul") && ls_b.contains("3"), "{ls_b}");
    assert_eq!(
        ls_a.lines().skip(1).collect::<Vec<_>>(),
        ls_b.lines().skip(1).collect::<Vec<_>>()
    );
    run(&["cache", "--dir", &dir(&c), "merge", &dir(&b)]);
    let ls_c = ls(&c);
    assert_eq!(
        ls_a.lines().skip(1).collect::<Vec<_>>(),
        ls_c.lines().skip(1).collect::<Vec<_>>()
    );
    run(&["cache", "--dir", &dir(&c), "clear"]);
    assert!(run(&["cache", "--dir", &dir(&c), "ls"]).contains("0 file(s)"));
    let _ = std::fs::remove_dir_all(&base);
}
