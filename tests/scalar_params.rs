//! Scalar parameters (`f32 alpha`, `f16 beta`, `int n`): passed by value — a `float` for a
//! floating type, an `int` for an integer one — and bound at launch: `tessel run` takes
//! `--scalar NAME=V` for each, verifies the output against a host reference that applies them
//! (`alpha · (lhs · rhsᵀ) + beta` in `kernels/gemm_scaled.co`), and refuses a missing or
//! unknown scalar before it looks for a GPU.

mod common;

use common::{tessel, text};
use tessel::cli::exit;

const FILE: &str = "kernels/gemm_scaled.co";

#[test]
fn scalars_are_kernel_arguments_by_value() {
    let o = tessel(&["emit", FILE]);
    assert_eq!(o.status.code(), Some(exit::OK), "{}", text(&o.stderr));
    let cu = text(&o.stdout);
    assert!(cu.contains("    const float alpha,\n"), "{cu}");
    assert!(cu.contains("    const float beta,\n"), "{cu}");
    assert!(cu.contains("alpha * acc + beta"), "{cu}");
    assert!(
        cu.contains("// arg 1: float value of scalar parameter #1"),
        "{cu}"
    );
    // An integer scalar is an `int`; a scalar of a type no lowering passes is not lowered yet.
    let dir = std::env::temp_dir().join(format!("tessel-scalars-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let int_file = dir.join("n.co");
    std::fs::write(
        &int_file,
        "__co__ void f(f32 [N] x, int bump, f32 [N] y) {\n  parallel {b} by [cdiv(N, 64)] : block, {t} by [64] : thread {\n    y.at(b#t) = x.at(b#t) + bump;\n  }\n}\n",
    )
    .unwrap();
    let o = tessel(&["emit", int_file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(exit::OK), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("    const int bump,\n"));
    let f64_file = dir.join("d.co");
    std::fs::write(
        &f64_file,
        "__co__ void f(f32 [N] x, f64 s, f32 [N] y) {\n  parallel {b} by [cdiv(N, 64)] : block, {t} by [64] : thread {\n    y.at(b#t) = x.at(b#t);\n  }\n}\n",
    )
    .unwrap();
    let o = tessel(&["emit", f64_file.to_str().unwrap()]);
    assert_ne!(o.status.code(), Some(exit::OK));
    assert!(text(&o.stderr).contains("E1309"), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_needs_a_value_for_each_scalar_and_no_other() {
    let shape = "M=256,N=128,K=96";
    for (args, msg) in [
        (
            vec!["run", FILE, "--shape", shape, "--scalar", "alpha=0.5"],
            "scalar parameter `beta` needs a value: --scalar beta=",
        ),
        (
            vec![
                "run",
                FILE,
                "--shape",
                shape,
                "--scalar",
                "alpha=0.5",
                "--scalar",
                "beta=1",
                "--scalar",
                "gamma=2",
            ],
            "`gamma` is not a scalar parameter",
        ),
        (
            vec!["run", FILE, "--shape", shape, "--scalar", "alpha"],
            "`alpha` is not NAME=VALUE",
        ),
    ] {
        let o = tessel(&args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(exit::USAGE), "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

/// On a GPU (the lead's run: `cargo test --test scalar_params`), the scaled GEMM is verified
/// against the host reference with the scalars applied; without one, `run` exits 3.
#[test]
fn run_applies_the_scalars_in_its_reference() {
    let has_gpu = tessel_runtime::device::Device::open(0).is_ok();
    let o = tessel(&[
        "run",
        FILE,
        "--shape",
        "M=256,N=128,K=96",
        "--scalar",
        "alpha=0.5",
        "--scalar",
        "beta=-1.25",
    ]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    if has_gpu {
        assert_eq!(o.status.code(), Some(exit::OK), "{out}{err}");
        assert!(out.contains("verify   PASS"), "{out}");
        assert!(
            out.contains("f64 host reference with its epilogue"),
            "{out}"
        );
    } else {
        assert_eq!(o.status.code(), Some(exit::NO_GPU), "{out}{err}");
    }
}
