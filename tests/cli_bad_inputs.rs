//! Bad input on the command line: each is a clear message and its exit code (1 a DSL
//! diagnostic, 2 a usage error, 4 a kernel `tessel run` has no reference for), never a panic,
//! and nothing reaches the GPU. The held-out kernels of `tests/data/heldout/` are the subjects.

use tessel::cli::{exit, run};

const AXPY: &str = "tests/data/heldout/axpy.co";

fn cli(args: &[&str]) -> (String, i32) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run(&args)
}

fn expect(args: &[&str], code: i32, needle: &str) {
    let (out, got) = cli(args);
    assert_eq!(got, code, "{args:?}:\n{out}");
    assert!(out.contains(needle), "{args:?}: no `{needle}` in\n{out}");
}

fn scratch(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tessel-bad-inputs-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn unreadable_and_empty_files() {
    let d = scratch("files");
    let dir = d.join("a_directory.co");
    std::fs::create_dir_all(&dir).unwrap();
    let binary = d.join("binary.co");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let empty = d.join("empty.co");
    std::fs::write(&empty, "").unwrap();
    let blank = d.join("blank.co");
    std::fs::write(&blank, "\n   \n// only a comment\n").unwrap();
    let s = |p: &std::path::Path| p.display().to_string();
    for cmd in ["check", "ir", "emit", "compile"] {
        expect(
            &[cmd, &s(&d.join("missing.co"))],
            exit::USAGE,
            "cannot read",
        );
        expect(&[cmd, &s(&dir)], exit::USAGE, "cannot read");
        expect(&[cmd, &s(&binary)], exit::USAGE, "valid UTF-8");
        expect(
            &[cmd, &s(&empty)],
            exit::FAILED,
            "error[E0018]: no `__co__` kernel found",
        );
        expect(
            &[cmd, &s(&blank)],
            exit::FAILED,
            "error[E0018]: no `__co__` kernel found",
        );
    }
    expect(
        &["run", &s(&empty), "--shape", "M=1"],
        exit::FAILED,
        "error[E0018]",
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn tunables_set_outside_their_domain_are_diagnostics() {
    for v in ["100", "0", "-1", "99999999999"] {
        expect(
            &["emit", AXPY, "--set", &format!("VB={v}")],
            exit::FAILED,
            &format!(
                "error[E1004]: the configuration sets `VB` = {v}, which is not in its domain [128, 256, 512]"
            ),
        );
    }
    expect(
        &[
            "check",
            "tests/data/heldout/layernorm.co",
            "--set",
            "VB=128",
        ],
        exit::USAGE,
        "`VB` is not a tunable of this kernel (it has none)",
    );
    expect(
        &["emit", AXPY, "--set", "VB=1e3"],
        exit::USAGE,
        "`1e3` is not an integer",
    );
}

#[test]
fn run_and_compile_refuse_bad_arguments_before_any_gpu_work() {
    expect(
        &["run", AXPY, "--shape", "N=0", "--scalar", "a=1"],
        exit::USAGE,
        "`N` must be positive, not 0",
    );
    expect(
        &["run", AXPY, "--shape", "N=8,Q=3", "--scalar", "a=1"],
        exit::USAGE,
        "--shape: `Q` is not a dimension of any parameter",
    );
    expect(
        &["run", AXPY, "--shape", "N=8", "--scalar", "a=nan"],
        exit::USAGE,
        "`a` must be finite",
    );
    let scaled = "kernels/gemm_scaled.co";
    expect(
        &[
            "run",
            scaled,
            "--shape",
            "M=8,N=8,K=8",
            "--scalar",
            "alpha=1",
        ],
        exit::USAGE,
        "scalar parameter `beta` needs a value: --scalar beta=…",
    );
    expect(
        &[
            "run",
            scaled,
            "--shape",
            "M=8,N=8,K=8",
            "--scalar",
            "alpha=1",
            "--scalar",
            "beta=1",
            "--scalar",
            "gamma=2",
        ],
        exit::USAGE,
        "--scalar: `gamma` is not a scalar parameter of the kernel",
    );
    expect(&["run", AXPY], exit::USAGE, "--shape");
    // A kernel that is no contraction: the message names the way to verify it.
    expect(
        &["run", AXPY, "--shape", "N=8", "--scalar", "a=1"],
        exit::RUNTIME,
        "give the expected outputs: --expect NAME=FILE.npy",
    );
    // A GEMM whose store reads its output (`beta * c.at(i, j)`): no reference, not a FAIL.
    expect(
        &[
            "run",
            "tests/data/heldout/gemm_alpha_beta.co",
            "--shape",
            "M=8,N=8,K=8",
            "--scalar",
            "alpha=1",
            "--scalar",
            "beta=1",
        ],
        exit::RUNTIME,
        "stores into `c` a value other than `ACT(alpha * acc + bias)`",
    );
    // Only the dimensions a `--shape` can size are listed (not the literal 256).
    expect(
        &[
            "run",
            "tests/data/heldout/default_levels_relu.co",
            "--shape",
            "R=2,Q=1",
        ],
        exit::USAGE,
        "(they are [\"R\"])",
    );
    expect(
        &["compile", AXPY, "--arch", "sm_70"],
        exit::USAGE,
        "unsupported GPU architecture `sm_70`",
    );
    expect(
        &[
            "compile",
            "tests/data/heldout/wgmma_nn_gelu.co",
            "--arch",
            "sm_80",
        ],
        exit::USAGE,
        "lowers to the Hopper path (TMA, WGMMA), which only sm_90a has",
    );
    // `emit` takes one function: a file of two asks which (`--function`).
    expect(
        &["emit", "tests/data/heldout/multi_kernels.co"],
        exit::USAGE,
        "choose one with --function NAME",
    );
}

#[test]
fn a_file_of_several_functions_names_the_one_a_command_works_on() {
    let d = scratch("functions");
    let two = d.join("two.co");
    let body = |name: &str, k: &str| {
        format!(
            "__co__ void {name}(global f32 [N] x, global f32 [N] y) {{\n  parallel {{b}} by [cdiv(N, 128)] : block, {{t}} by [128] : thread {{\n    y.at(b # t) = x.at(b # t) * {k};\n  }}\n}}\n"
        )
    };
    std::fs::write(&two, body("twice", "2.0f") + &body("thrice", "3.0f")).unwrap();
    let two = two.display().to_string();
    // `check` takes every function; the others need one named.
    expect(&["check", &two], 0, "::thrice: ok");
    for cmd in ["ir", "emit", "compile"] {
        expect(
            &[cmd, &two],
            exit::USAGE,
            "holds 2 `__co__` functions (twice, thrice): choose one with --function NAME",
        );
        expect(
            &[cmd, &two, "--function", "halve"],
            exit::USAGE,
            "has no `__co__` function `halve` (it holds: twice, thrice)",
        );
    }
    let (cu, code) = cli(&["emit", &two, "--function", "thrice"]);
    assert_eq!(code, 0, "{cu}");
    assert!(
        cu.contains("tsl_thrice(") && !cu.contains("tsl_twice("),
        "{cu}"
    );
    expect(&["check", &two, "--function", "twice"], 0, "ok");
    // Two functions of one name: a spanned error, whichever command.
    let dup = d.join("dup.co");
    std::fs::write(&dup, body("twice", "2.0f") + &body("twice", "3.0f")).unwrap();
    let dup = dup.display().to_string();
    for cmd in ["check", "emit"] {
        expect(
            &[cmd, &dup],
            exit::FAILED,
            "error[E0018]: a second `__co__` function named `twice` (the first is on line 1)",
        );
    }
}
