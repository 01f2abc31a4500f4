//! Name resolution: unknown names with suggestions, `_`, duplicates, kinds, calls, targets.

mod check_support;
mod kernel_files;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::codes as c;
use dsl_core::ir::{AssignOp, DType, MemSpace};

const F16: DType = DType::F16;

#[test]
fn unknown_tensor_suggests_nearest() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.scalar(F16, "acc", Some("0.0f")),
            b.foreach(&["ik"], &["TILE_K"], |b| {
                vec![b.assign("acc", AssignOp::Add, "lhs_S.at(thr_m, ik)")]
            }),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::UNKNOWN_NAME);
    assert_eq!(e.span, m.expr_span(find(&m, "lhs_S")[0]));
    assert!(e.message.contains("unknown tensor `lhs_S`"), "{e}");
    assert_eq!(e.help.as_deref(), Some("did you mean `lhs_s`?"));
}

#[test]
fn unknown_event_suggests_an_event() {
    let m = simple(|b| {
        vec![
            b.events(MemSpace::Shared, &[("full", Some("2"))]),
            b.trigger("full[0]"),
            b.wait("ful[0]"),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::UNKNOWN_NAME);
    assert_eq!(e.span, m.expr_span(find(&m, "ful")[0]));
    assert!(e.message.contains("unknown event `ful`"), "{e}");
    assert!(mentions(e, "did you mean `full`?"), "{e}");
}

#[test]
fn unknown_name_without_candidate_says_declare() {
    let m = simple(|b| vec![b.let_("x", "zzzz + 1")]);
    let d = check_err(&m);
    let e = only(&d, c::UNKNOWN_NAME);
    assert!(mentions(e, "declare `zzzz`"), "{e}");
}

#[test]
fn all_unknown_names_are_reported() {
    let m = simple(|b| vec![b.let_("x", "aaaa + 1"), b.let_("y", "bbbb + cccc")]);
    let d = check_err(&m);
    assert_eq!(codes(&d), vec![c::UNKNOWN_NAME; 3]);
}

#[test]
fn constant_used_before_its_definition() {
    let mut b = B::new();
    b.tunable("TILE_M", &[32], 32);
    b.constant("A", "B * 2");
    b.constant("B", "TILE_M");
    b.gemm_params(F16);
    let p = b.par(
        &[(&["bm"], &["cdiv(M, TILE_M)"], dsl_core::ir::Level::Block)],
        |_| vec![],
    );
    let m = b.finish(vec![p]);
    let d = check_err(&m);
    let e = only(&d, c::UNKNOWN_NAME);
    assert!(mentions(e, "defined later"), "{e}");
}

#[test]
fn wildcard_outside_chunkat() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.scalar(F16, "acc", Some("0.0f")),
            b.assign("acc", AssignOp::Add, "lhs_s.at(_, 0)"),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::WILDCARD);
    assert_eq!(e.span, m.expr_span(find(&m, "_")[0]));
    assert!(e.message.contains("chunkat"), "{e}");
}

#[test]
fn duplicate_declaration_in_one_scope() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.shared(F16, &["TILE_N", "TILE_K"], "lhs_s", None),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::DUPLICATE_DECL);
    assert!(e.message.contains("already declared"), "{e}");
    assert_eq!(e.notes.len(), 1);
    assert_ne!(e.span, e.notes[0].0);
}

#[test]
fn names_the_emitted_cuda_cannot_keep() {
    for (name, why) in [
        ("double", "C++ keyword"),
        ("threadIdx", "CUDA built-in"),
        ("tsl_acc", "tsl_"),
        ("__x", "reserved"),
    ] {
        let m = simple(|b| vec![b.let_(name, "3")]);
        let d = check_err(&m);
        let e = only(&d, c::RESERVED_NAME);
        assert!(e.message.contains(why), "{name}: {e}");
    }
    // Names that merely contain a keyword are fine.
    check_ok(&simple(|b| {
        vec![b.let_("doubled", "3"), b.let_("new_tile", "4")]
    }));
}

#[test]
fn shadowing_a_tunable() {
    let m = simple(|b| vec![b.let_("TILE_K", "3")]);
    let d = check_err(&m);
    assert!(only(&d, c::DUPLICATE_DECL).message.contains("shadows"));
}

#[test]
fn shadowing_in_an_inner_block_is_fine() {
    let m = simple(|b| {
        vec![
            b.let_("x", "thr_m"),
            b.foreach(&["i"], &["2"], |b| vec![b.let_("x", "i + thr_m")]),
        ]
    });
    check_ok(&m);
}

#[test]
fn tensor_used_as_value() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.scalar(F16, "acc", Some("0.0f")),
            b.assign("acc", AssignOp::Add, "lhs_s"),
        ]
    });
    let d = check_err(&m);
    let e = only(&d, c::WRONG_KIND);
    assert_eq!(e.span, m.expr_span(find(&m, "lhs_s")[0]));
    assert!(
        e.message.contains(
            "expected a value (a number, a scalar or a tensor element), found tensor `lhs_s`"
        ),
        "{e}"
    );
}

#[test]
fn waiting_on_a_tensor() {
    let m = simple(|b| {
        vec![
            b.shared(F16, &["TILE_M", "TILE_K"], "lhs_s", None),
            b.wait("lhs_s"),
        ]
    });
    let d = check_err(&m);
    assert!(
        only(&d, c::WRONG_KIND)
            .message
            .contains("expected an event")
    );
}

#[test]
fn unknown_function_suggests_builtin() {
    let m = simple(|b| vec![b.foreach(&["k"], &["cdvi(K, TILE_K)"], |_| vec![])]);
    let d = check_err(&m);
    let e = only(&d, c::BAD_CALL);
    assert!(e.message.contains("unknown function `cdvi`"), "{e}");
    assert_eq!(e.help.as_deref(), Some("did you mean `cdiv`?"));
}

#[test]
fn builtin_with_wrong_arity() {
    let m = simple(|b| vec![b.let_("x", "min(thr_m, 1, 2)")]);
    let d = check_err(&m);
    assert!(
        only(&d, c::BAD_CALL)
            .message
            .contains("takes 2 arguments, found 3")
    );
}

#[test]
fn assigning_a_loop_variable() {
    let m = simple(|b| vec![b.assign("thr_m", AssignOp::Set, "3")]);
    let d = check_err(&m);
    let e = only(&d, c::NOT_ASSIGNABLE);
    assert_eq!(e.span, m.expr_span(find(&m, "thr_m")[0]));
}

#[test]
fn scalars_and_elements_are_assignable() {
    let m = simple(|b| {
        vec![
            b.scalar(DType::I32, "n", Some("0")),
            b.assign("n", AssignOp::Add, "1"),
            b.assign(
                "output.at(block_m # thr_m, block_n # thr_n)",
                AssignOp::Set,
                "0.0f",
            ),
        ]
    });
    check_ok(&m);
}

#[test]
fn header_items_name_declared_values() {
    // `raster G;` and `persistent P;` read header names like `occupancy` and `cluster` do: an
    // undeclared one is an unknown name (the emitted CUDA would not compile).
    let text = kernel_files::kernel_file("v2_warp_mma");
    let line = text
        .lines()
        .find(|l| l.starts_with("tunable GROUP_M"))
        .expect("v2_warp_mma tunes GROUP_M");
    let m = kernel_files::parse(&text.replace(line, ""));
    let d = check_err(&m);
    let e = only(&d, c::UNKNOWN_NAME);
    assert!(e.message.contains("GROUP_M"), "{e}");
}
