//! The checker never panics: extreme tunable values, problem sizes and literals only ever
//! produce diagnostics.

mod check_support;

use check_support::kernels::*;
use dsl_core::check::{Config, Limits, Problem, check_config, smem_bytes};
use dsl_core::ir::{Expr, Module};
use proptest::prelude::*;

fn value() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0),
        Just(-1),
        Just(1),
        0i64..600,
        any::<i64>()
    ]
}

fn kernels() -> Vec<Module> {
    vec![v0(), v1(), v2(), v3(), v4(), v4_wg3_consumers1()]
}

fn run(m: &Module, cfg: &Config, dims: &[i64]) {
    let p = Problem::default()
        .with("M", dims[0])
        .with("N", dims[1])
        .with("K", dims[2]);
    let _ = check_config(m, cfg, Some(&p), &Limits::SM90);
    let _ = check_config(m, cfg, None, &Limits::SM90);
    let _ = smem_bytes(m, cfg);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn extreme_configs_and_problems(vals in prop::collection::vec(value(), 4), dims in prop::collection::vec(value(), 3)) {
        for m in kernels() {
            let mut cfg = Config::defaults(&m);
            for (t, v) in m.tunables.iter().zip(&vals) {
                cfg = cfg.with(&t.name.name, *v);
            }
            run(&m, &cfg, &dims);
        }
    }

    #[test]
    fn extreme_literals(which in any::<prop::sample::Index>(), v in value(), dims in prop::collection::vec(value(), 3)) {
        for mut m in kernels() {
            let ints: Vec<_> = m.exprs.iter().filter(|(_, e)| matches!(e, Expr::Int(_))).map(|(h, _)| h).collect();
            let h = ints[which.index(ints.len())];
            m.exprs[h] = Expr::Int(v);
            let cfg = Config::defaults(&m);
            run(&m, &cfg, &dims);
        }
    }
}
