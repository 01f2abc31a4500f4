//! `tessel check` on a `__co__` function reports what `tessel emit` will, for the launch form
//! `emit` lowers (a body-declared output made a parameter): each error `emit` gives is an error
//! or a note of `check` (`tests/data/launch_form/`).
//!
//! - `empty_output.co`: an output dimension that comes to 0 (`TILE / 32`) is E0044 for both
//!   (`check` said ok: the output's dimensions were judged only as a parameter's).
//! - `body_shaped_output.co`: an output shaped by a value of the body stays in the body of the
//!   launch form (E1304, a note of `check`, the error of `emit`); moved to the parameters it
//!   was E0103 in `emit` (its `let` shadowing the new problem size), which `check` never said.

use tessel::cli::{exit, run};

fn cli(args: &[&str]) -> (String, i32) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run(&args)
}

/// The codes of the `error[…]` and `note[…]` lines of a command's output.
fn codes(out: &str, kind: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix(&format!("{kind}[")))
        .filter_map(|l| l.split(']').next())
        .map(str::to_string)
        .collect()
}

/// `emit`'s errors are all among `check`'s errors and notes; returns both outputs.
fn emit_says_what_check_said(file: &str) -> ((String, i32), (String, i32)) {
    let check = cli(&["check", file]);
    let emit = cli(&["emit", file]);
    let said: Vec<String> = [codes(&check.0, "error"), codes(&check.0, "note")].concat();
    for code in codes(&emit.0, "error") {
        assert!(
            said.contains(&code),
            "{file}: emit's {code} is not in check's output:\n{}\n---\n{}",
            check.0,
            emit.0
        );
    }
    if check.1 == exit::OK && codes(&check.0, "note").is_empty() {
        assert_eq!(
            emit.1,
            exit::OK,
            "{file}: check ok, emit failed:\n{}",
            emit.0
        );
    }
    (check, emit)
}

#[test]
fn a_zero_output_dimension_is_an_error_of_check() {
    let ((out, code), (eout, ecode)) =
        emit_says_what_check_said("tests/data/launch_form/empty_output.co");
    assert_eq!(code, exit::FAILED, "{out}");
    assert_eq!(codes(&out, "error"), ["E0044"], "{out}");
    assert!(
        out.contains("dimension `TILE / 32` of `sums` is 0"),
        "{out}"
    );
    assert_eq!(ecode, exit::FAILED, "{eout}");
    assert_eq!(codes(&eout, "error"), ["E0044"], "{eout}");
}

#[test]
fn an_output_shaped_by_the_body_stays_in_the_body() {
    let ((out, code), (eout, ecode)) =
        emit_says_what_check_said("tests/data/launch_form/body_shaped_output.co");
    assert_eq!(code, exit::OK, "{out}");
    assert!(codes(&out, "note").contains(&"E1304".to_string()), "{out}");
    assert_eq!(ecode, exit::FAILED, "{eout}");
    assert!(
        codes(&eout, "error").contains(&"E1304".to_string()),
        "{eout}"
    );
    assert!(!eout.contains("E0103"), "{eout}");
}

#[test]
fn an_output_shaped_by_problem_sizes_is_a_parameter() {
    let ((out, code), (eout, ecode)) = emit_says_what_check_said("kernels/gemm_auto.co");
    assert_eq!(code, exit::OK, "{out}");
    assert!(codes(&out, "note").is_empty(), "{out}");
    assert_eq!(ecode, exit::OK, "{eout}");
    assert!(eout.contains("float* __restrict__ output"), "{eout}");
}
