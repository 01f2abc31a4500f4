//! `tessel check` / `tessel emit` on files written in today's Croqtile: several functions per
//! file, host C++ skipped with a note, constructs that do not lower yet listed as notes by
//! `check` and rejected by `emit`.

use tessel::cli::run;

fn cli(args: &[&str]) -> (String, i32) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run(&args)
}

#[test]
fn check_reports_every_function_of_a_file() {
    let (out, code) = cli(&["check", "dsl-core/tests/lang/multi.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("multi.co::first: ok"), "{out}");
    assert!(out.contains("multi.co::second: ok"), "{out}");
}

#[test]
fn check_notes_skipped_host_code_and_what_does_not_lower() {
    let (out, code) = cli(&["check", "dsl-core/tests/lang/program_file.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("note[E0030]"), "{out}");

    // Its atomic and its `[[launch_bounds]]` lower; a `[[schedule]]` hint does not.
    let (out, code) = cli(&["check", "dsl-core/tests/lang/hints_and_builtins.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("note[E13"), "{out}");
    let (out, code) = cli(&["emit", "dsl-core/tests/lang/hints_and_builtins.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("__launch_bounds__(16, (2))"), "{out}");
    let (out, code) = cli(&["check", "dsl-core/tests/lang/schedule.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("note[E1313]"), "{out}");
    let (out, code) = cli(&["emit", "dsl-core/tests/lang/schedule.co"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("not supported yet"), "{out}");
}

#[test]
fn emit_lowers_a_program_file() {
    let (out, code) = cli(&["emit", "dsl-core/tests/lang/program_file.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("__global__"), "{out}");
}

#[test]
fn check_says_a_thread_count_set_at_launch_has_no_number() {
    let (out, code) = cli(&["check", "tests/data/heldout/bad_thread_extent_runtime.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("ok (threads per block set at launch,"),
        "{out}"
    );
    assert!(out.contains("note[E1698]"), "{out}");
    assert!(!out.contains("1 threads per block"), "{out}");
}

#[test]
fn check_counts_shared_buffers_sized_at_launch_apart() {
    let (out, code) = cli(&["check", "dsl-core/tests/lowered/launch_sized_batch.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("0 bytes of shared memory and B * 4 * K * 4 bytes sized at launch"),
        "{out}"
    );
    let (out, code) = cli(&["check", "dsl-core/tests/lowered/decl_init.co"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("64 bytes of shared memory)"), "{out}");
}
