//! The public evaluator: C integer semantics, built-ins, `#`, intervals.

mod check_support;

use check_support::B;
use dsl_core::check::{Env, EvalError, Interval, eval, eval_interval};

fn ev(src: &str, env: &Env) -> Result<i64, EvalError> {
    let mut b = B::new();
    let e = b.e(src);
    eval(&b.m, e, env)
}

#[test]
fn c_semantics() {
    let env = Env::new().with_value("T", 64).with_value("M", 1000);
    assert_eq!(ev("cdiv(M, T)", &env), Ok(16));
    assert_eq!(ev("-7 / 2", &env), Ok(-3));
    assert_eq!(ev("-7 % 2", &env), Ok(-1));
    assert_eq!(ev("min(T, 3) + max(T, 3)", &env), Ok(67));
    assert_eq!(ev("T * 2 <= 128 && T > 0", &env), Ok(1));
    assert_eq!(ev("!T || 0", &env), Ok(0));
    assert_eq!(ev("1 << 4 | 3 ^ 1", &env), Ok(18));
    assert_eq!(ev("cdiv(-7, 2)", &env), Ok(-3));
}

#[test]
fn errors_point_at_the_subexpression() {
    let env = Env::new().with_value("Z", 0);
    let mut b = B::new();
    let e = b.e("4 + 8 / Z");
    let err = eval(&b.m, e, &env).unwrap_err();
    assert!(matches!(err, EvalError::DivByZero { .. }));
    assert_eq!(b.m.expr_to_string(err.expr()), "8 / Z");
    assert!(matches!(ev("Q + 1", &env), Err(EvalError::NoValue { ref name, .. }) if name == "Q"));
    assert!(matches!(
        ev("9223372036854775807 + 1", &env),
        Err(EvalError::Overflow { .. })
    ));
    assert!(matches!(
        ev("foo(1, 2)", &env),
        Err(EvalError::BadCall { .. })
    ));
    assert!(matches!(ev("1.5", &env), Err(EvalError::NotInteger { .. })));
}

#[test]
fn compose_uses_the_inner_extent() {
    let mut env = Env::new().with_value("bm", 3).with_value("tm", 5);
    assert!(matches!(
        ev("bm # tm", &env),
        Err(EvalError::NoExtent { .. })
    ));
    env.extents.insert("tm".into(), 32);
    assert_eq!(ev("bm # tm", &env), Ok(3 * 32 + 5));
}

#[test]
fn intervals() {
    let mut env = Env::new().with_value("S", 4);
    env.ranges.insert("wg".into(), Interval::new(1, 2));
    env.ranges.insert(
        "k".into(),
        Interval {
            lo: dsl_core::check::Ext::Fin(0),
            hi: dsl_core::check::Ext::PosInf,
        },
    );
    let mut b = B::new();
    let cases = [
        ("wg - 1", Interval::new(0, 1)),
        ("k % S", Interval::new(0, 3)),
        ("wg * S + 1", Interval::new(5, 9)),
        ("wg", Interval::new(1, 2)),
    ];
    for (src, want) in cases {
        let e = b.e(src);
        assert_eq!(eval_interval(&b.m, e, &env), want, "{src}");
    }
    let e = b.e("k + 1");
    assert_eq!(
        eval_interval(&b.m, e, &env).hi,
        dsl_core::check::Ext::PosInf
    );
    let e = b.e("k / 0");
    assert_eq!(eval_interval(&b.m, e, &env), Interval::TOP);
    assert_eq!(format!("{}", Interval::new(0, 2)), "[0, 3)");
}
