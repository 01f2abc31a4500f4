//! The header: requires, domains, duplicate names, configurations, constant evaluation.

mod check_support;

use check_support::kernels::*;
use check_support::*;
use dsl_core::check::{Config, Limits, check_config, codes as c};
use dsl_core::ir::{DType, Level};

fn with_header(h: impl FnOnce(&mut B)) -> dsl_core::ir::Module {
    let mut b = B::new();
    h(&mut b);
    b.gemm_params(DType::F16);
    let p = b.par(
        &[
            (&["bm"], &["cdiv(M, 64)"], Level::Block),
            (&["t"], &["128"], Level::Thread),
        ],
        |_| vec![],
    );
    b.finish(vec![p])
}

#[test]
fn require_false_for_defaults() {
    let m = with_header(|b| {
        b.tunable("TILE_M", &[32, 64], 64);
        b.tunable("TILE_N", &[32], 32);
        b.require("TILE_M * TILE_N <= 1024");
    });
    let d = check_err(&m);
    let e = only(&d, c::REQUIRE);
    assert_eq!(e.span, m.requires[0].span);
    assert!(
        e.message.contains("`TILE_M * TILE_N <= 1024` is false"),
        "{e}"
    );
    assert!(
        e.message.contains("TILE_M = 64") && e.message.contains("TILE_N = 32"),
        "{e}"
    );
    // Legal under another configuration.
    let cfg = Config::defaults(&m).with("TILE_M", 32);
    assert!(check_config(&m, &cfg, None, &Limits::SM90).is_ok());
}

#[test]
fn require_over_problem_dims_waits_for_the_problem() {
    let m = with_header(|b| {
        b.tunable("TILE_K", &[64], 64);
        b.require("K % TILE_K == 0");
    });
    check_ok(&m);
}

#[test]
fn default_outside_domain() {
    let m = with_header(|b| b.tunable("WARP_N", &[64, 128, 192], 180));
    let d = check_err(&m);
    let e = only(&d, c::DEFAULT_DOMAIN);
    assert_eq!(e.span, m.tunables[0].default_span);
    assert!(
        e.message.contains("default 180") && e.message.contains("[64, 128, 192]"),
        "{e}"
    );
    assert!(mentions(e, "e.g. 192"), "{e}");
}

#[test]
fn empty_domain() {
    let m = with_header(|b| b.tunable("X", &[], 1));
    let d = check_err(&m);
    assert!(only(&d, c::DEFAULT_DOMAIN).message.contains("empty domain"));
}

#[test]
fn duplicate_header_names() {
    let m = with_header(|b| {
        b.tunable("TILE", &[1], 1);
        b.constant("TILE", "2");
    });
    let d = check_err(&m);
    let e = only(&d, c::DUPLICATE_NAME);
    assert_eq!(e.span, m.constants[0].name.span);
    assert_eq!(e.notes[0].0, m.tunables[0].name.span);
    assert!(e.message.contains("as a tunable and as a constant"), "{e}");
}

#[test]
fn parameter_named_like_a_tunable() {
    let m = with_header(|b| b.tunable("lhs", &[1], 1));
    let d = check_err(&m);
    assert!(
        only(&d, c::DUPLICATE_NAME)
            .message
            .contains("tunable and as a parameter")
    );
}

#[test]
fn config_outside_domain_and_unknown_tunable() {
    let m = v2();
    let cfg = Config::defaults(&m).with("WARP_N", 100).with("WARP_NN", 3);
    let d = check_cfg_err(&m, &cfg, None);
    let e: Vec<_> = d.iter().filter(|x| x.code == c::CONFIG).collect();
    assert_eq!(e.len(), 2, "{d}");
    assert!(d.iter().any(|x| {
        x.message
            .contains("`WARP_N` = 100, which is not in its domain")
    }));
    assert!(
        d.iter()
            .any(|x| x.help.as_deref() == Some("did you mean `WARP_N`?"))
    );
}

#[test]
fn constant_division_by_zero() {
    let m = with_header(|b| {
        b.tunable("T", &[0, 1], 0);
        b.constant("X", "64 / T");
    });
    let d = check_err(&m);
    let e = only(&d, c::EVAL);
    assert_eq!(e.span, m.expr_span(find(&m, "64 / T")[0]));
    assert!(e.message.contains("division by zero"), "{e}");
    let cfg = Config::defaults(&m).with("T", 1);
    let info = check_config(&m, &cfg, None, &Limits::SM90).unwrap();
    assert_eq!(info.constants["X"], 64);
}

#[test]
fn constants_are_evaluated_in_order() {
    let m = v4();
    let info = check_ok(&m);
    assert_eq!(info.constants["TILE_M"], 128);
    assert_eq!(info.constants["SWIZ"], 128);
    let cfg = Config::defaults(&m).with("CONSUMERS", 1).with("TILE_K", 32);
    let info = check_config(&m, &cfg, None, &Limits::SM90).unwrap();
    assert_eq!((info.constants["TILE_M"], info.constants["SWIZ"]), (64, 64));
}
