//! The pass list: the passes over the body nodes appear in the stage list in their order, the
//! verifier runs between them, and a region pass sees each `parallel` body.

use dsl_core::lower::STAGES;
use dsl_core::lower::kernel::{CExpr, Call, Line, Mark, Op};
use dsl_core::lower::lowered::Body;
use dsl_core::lower::passes::{PASSES, run};

#[test]
fn the_passes_run_in_the_order_the_stage_list_gives() {
    let names: Vec<&str> = PASSES.iter().map(|p| p.0).collect();
    let in_stages: Vec<&str> = STAGES
        .iter()
        .copied()
        .filter(|s| names.contains(s))
        .collect();
    assert_eq!(names, in_stages);
}

#[test]
fn an_async_copy_body_is_drained_and_the_marks_are_removed() {
    let async_copy = Call::new("tsl_copy_g2s_async").targs([
        CExpr::int(4),
        CExpr::int(4),
        CExpr::int(4),
        CExpr::var("tsl_threads"),
    ]);
    let mut body = Body {
        lines: vec![
            Line::new(0, Op::Mark(Mark::ParallelStart)),
            Line::new(0, Op::Call(async_copy)),
            Line::new(0, Op::Mark(Mark::ParallelEnd)),
        ],
        ..Default::default()
    };
    run(&mut body).unwrap();
    let text: Vec<String> = body.lines.iter().map(|l| l.text()).collect();
    // No other tile helper: the basic copy; the body waits for it before it ends.
    assert_eq!(
        text,
        [
            "tsl_copy_g2s<4, 4, 4, tsl_threads>();",
            "tsl_cp_async_wait_all();  // no async copy outlives the block"
        ]
    );
}

#[test]
fn a_broken_body_is_reported_with_the_stage_that_left_it() {
    let mut body = Body {
        lines: vec![Line::new(0, Op::End)],
        ..Default::default()
    };
    let e = run(&mut body).unwrap_err();
    assert!(
        e.contains("after `body`") && e.contains("closes no block"),
        "{e}"
    );
}

/// Lowers `kernels/sgemm_k8_warptile.co` (loop versioning, async copies, stages). The
/// dump test below runs this test in a child process with `TESSEL_DUMP_PASSES=1`.
#[test]
fn lower_a_kernel_with_every_pass_at_work() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../kernels/sgemm_k8_warptile.co"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let m = dsl_core::parse::parse_str(&text, Some(path))
        .unwrap()
        .module;
    let info = dsl_core::check::check(&m).unwrap();
    let k = dsl_core::lower::lower(&m, &info).unwrap();
    assert!(!k.body.is_empty());
}

#[test]
fn dump_passes_prints_every_stage_in_order() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "lower_a_kernel_with_every_pass_at_work",
            "--nocapture",
        ])
        .env("TESSEL_DUMP_PASSES", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let mut at = 0;
    for stage in STAGES {
        let head = format!("== after pass `{stage}`:");
        let i = err[at..]
            .find(&head)
            .unwrap_or_else(|| panic!("no `{head}` after byte {at}:\n{err}"));
        at += i + head.len();
    }
    // The body dumps show the typed nodes as C++, the regions while they exist.
    assert!(err.contains("// <parallel>"), "{err}");
    assert!(err.contains("const bool tsl_even = "), "{err}");
}
