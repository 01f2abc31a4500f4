//! The pass list: the passes over the body nodes appear in the stage list in their order, the
//! verifier runs between them, and a region pass sees each `parallel` body.

use dsl_core::lower::STAGES;
use dsl_core::lower::kernel::{Call, Line, Mark, Op};
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
    let async_copy = Call::new("tsl_copy_g2s_async").targs(["4", "4", "4", "tsl_threads"]);
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
