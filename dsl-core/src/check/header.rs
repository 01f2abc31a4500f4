//! The header: tunable domains and defaults, the configuration, constants (evaluated in
//! order), `require`s, and duplicate names among tunables, constants, parameters and dims.
//!
//! Unknown names in header expressions are reported by `resolve`, not here.

use super::codes;
use super::eval::{Env, EvalError, eval};
use super::{Config, Problem, at_expr, walk_expr};
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Expr, Module};
use crate::span::Span;
use std::collections::{BTreeMap, HashMap};

pub(crate) struct Header {
    /// Tunables, constants and problem dims.
    pub env: Env,
    /// Tunables and constants.
    pub static_env: Env,
    pub constants: BTreeMap<String, i64>,
}

pub(crate) fn check_header(
    m: &Module,
    cfg: &Config,
    problem: Option<&Problem>,
    diags: &mut Diagnostics,
) -> Header {
    duplicates(m, diags);
    domains(m, diags);
    let mut static_env = Env::new();
    config_values(m, cfg, &mut static_env, diags);

    let mut constants = BTreeMap::new();
    for c in &m.constants {
        match eval(m, c.value, &static_env) {
            Ok(v) => {
                static_env.values.insert(c.name.name.clone(), v);
                constants.insert(c.name.name.clone(), v);
            }
            Err(err) => report_eval(
                m,
                &err,
                &format!("constant `{}`", c.name.name),
                &static_env,
                diags,
            ),
        }
    }

    let mut env = static_env.clone();
    if let Some(p) = problem {
        for (k, v) in &p.dims {
            env.values.insert(k.clone(), *v);
        }
    }

    let dims = m.symbolic_dims();
    for r in &m.requires {
        let mut mentions_dim = false;
        let mut names: Vec<String> = Vec::new();
        walk_expr(m, r.cond, &mut |e| {
            if let Expr::Name(n) = &m.exprs[e] {
                mentions_dim |= dims.contains(n);
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        });
        if mentions_dim && problem.is_none() {
            continue;
        }
        match eval(m, r.cond, &env) {
            Ok(0) => {
                let vals: Vec<String> = names
                    .iter()
                    .filter_map(|n| env.values.get(n).map(|v| format!("{n} = {v}")))
                    .collect();
                let what = if problem.is_some() {
                    "this configuration and problem"
                } else {
                    "this configuration"
                };
                diags.push(
                    Diagnostic::new(
                        codes::REQUIRE,
                        r.span,
                        format!(
                            "require `{}` is false for {what} ({})",
                            m.expr_to_string(r.cond),
                            vals.join(", ")
                        ),
                    )
                    .with_help(
                        "change the defaults (or the configuration) so that the restriction holds",
                    ),
                );
            }
            Ok(_) => {}
            // A problem dim the launcher did not give: nothing to check.
            Err(EvalError::NoValue { ref name, .. }) if dims.contains(name) => {}
            Err(err) => report_eval(m, &err, "this `require`", &env, diags),
        }
    }
    Header {
        env,
        static_env,
        constants,
    }
}

/// Reports an evaluation error, with the values of the names in the failing sub-expression.
/// A name without a value is not reported here: it is unknown (`resolve` reports it) or a
/// constant that already failed.
pub(crate) fn report_eval(
    m: &Module,
    err: &EvalError,
    what: &str,
    env: &Env,
    diags: &mut Diagnostics,
) {
    if matches!(err, EvalError::NoValue { .. }) {
        return;
    }
    let at = err.expr();
    let mut vals: Vec<String> = Vec::new();
    walk_expr(m, at, &mut |x| {
        if let Expr::Name(n) = &m.exprs[x]
            && let Some(v) = env.values.get(n)
        {
            let s = format!("{n} = {v}");
            if !vals.contains(&s) {
                vals.push(s);
            }
        }
    });
    let ctx = if vals.is_empty() {
        String::new()
    } else {
        format!(" ({})", vals.join(", "))
    };
    diags.push(
        at_expr(
            m,
            codes::EVAL,
            at,
            format!(
                "cannot evaluate {what}: {err} in `{}`{ctx}",
                m.expr_to_string(at)
            ),
        )
        .with_help("change the tunables it uses, or guard the expression (e.g. `max(T, 1)`)"),
    );
}

fn duplicates(m: &Module, diags: &mut Diagnostics) {
    let mut seen: HashMap<String, (Span, &'static str)> = HashMap::new();
    let mut add = |name: &str, span: Span, kind: &'static str, diags: &mut Diagnostics| {
        if let Some((first, first_kind)) = seen.get(name) {
            diags.push(
                Diagnostic::new(
                    codes::DUPLICATE_NAME,
                    span,
                    format!("`{name}` is declared twice (as a {first_kind} and as a {kind})"),
                )
                .with_note(*first, format!("first declared here as a {first_kind}"))
                .with_help(format!("rename one of the two `{name}`s")),
            );
        } else {
            seen.insert(name.to_string(), (span, kind));
        }
    };
    for t in &m.tunables {
        add(&t.name.name, t.name.span, "tunable", diags);
    }
    for c in &m.constants {
        add(&c.name.name, c.name.span, "constant", diags);
    }
    // Unnamed parameters (`int` alone, named `_`) cannot clash: nothing refers to them.
    for p in m.kernel.params.iter().filter(|p| p.name.name != "_") {
        add(&p.name.name, p.name.span, "parameter", diags);
    }
    // Symbolic dims cannot clash with tunables or constants by definition; check parameters.
    for p in &m.kernel.params {
        for &d in &p.shape {
            if let Expr::Name(n) = &m.exprs[d]
                && let Some(q) = m.kernel.params.iter().position(|q| &q.name.name == n)
            {
                diags.push(
                    Diagnostic::new(
                        codes::DUPLICATE_NAME,
                        m.expr_span(d),
                        format!(
                            "dimension `{n}` of `{}` has the name of parameter `{n}`",
                            p.name.name
                        ),
                    )
                    .with_note(m.kernel.params[q].name.span, "parameter declared here")
                    .with_help("give the dimension a name of its own (e.g. `M`, `N`, `K`)"),
                );
            }
        }
    }
}

fn domains(m: &Module, diags: &mut Diagnostics) {
    for t in &m.tunables {
        if t.domain.is_empty() {
            diags.push(
                Diagnostic::new(
                    codes::DEFAULT_DOMAIN,
                    t.domain_span,
                    format!("tunable `{}` has an empty domain", t.name.name),
                )
                .with_help("list at least one value, e.g. `in [64, 128]`"),
            );
        } else if !t.domain.contains(&t.default) {
            diags.push(
                Diagnostic::new(
                    codes::DEFAULT_DOMAIN,
                    t.default_span,
                    format!(
                        "the default {} of tunable `{}` is not in its domain {}",
                        t.default,
                        t.name.name,
                        show_domain(&t.domain)
                    ),
                )
                .with_note(t.domain_span, "domain declared here")
                .with_help(format!(
                    "use a value from the domain, e.g. {}",
                    nearest(&t.domain, t.default)
                )),
            );
        }
    }
}

fn config_values(m: &Module, cfg: &Config, env: &mut Env, diags: &mut Diagnostics) {
    for (k, v) in &cfg.values {
        if m.tunable(k).is_none() {
            let names: Vec<&str> = m.tunables.iter().map(|t| t.name.name.as_str()).collect();
            let mut d = Diagnostic::new(
                codes::CONFIG,
                m.kernel.name.span,
                format!("the configuration sets `{k}` = {v}, but the kernel has no tunable `{k}`"),
            );
            if let Some(s) = super::suggest::nearest(k, names.iter().copied()) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            diags.push(d);
        }
    }
    for t in &m.tunables {
        let v = cfg.get(&t.name.name).unwrap_or(t.default);
        // A tunable declared twice is reported as such (E1003); the configuration holds one
        // value for both, the other's default, which is not the mistake.
        let twice = m
            .tunables
            .iter()
            .filter(|u| u.name.name == t.name.name)
            .count()
            > 1;
        if v != t.default && !twice && !t.domain.is_empty() && !t.domain.contains(&v) {
            diags.push(
                Diagnostic::new(
                    codes::CONFIG,
                    t.name.span,
                    format!(
                        "the configuration sets `{}` = {v}, which is not in its domain {}",
                        t.name.name,
                        show_domain(&t.domain)
                    ),
                )
                .with_help(format!(
                    "use a value from the domain, e.g. {}",
                    nearest(&t.domain, v)
                )),
            );
        }
        env.values.insert(t.name.name.clone(), v);
    }
}

fn show_domain(d: &[i64]) -> String {
    if d.len() > 8 {
        format!(
            "[{}, {}, …, {}] ({} values)",
            d[0],
            d[1],
            d[d.len() - 1],
            d.len()
        )
    } else {
        let v: Vec<String> = d.iter().map(|x| x.to_string()).collect();
        format!("[{}]", v.join(", "))
    }
}

fn nearest(d: &[i64], v: i64) -> i64 {
    *d.iter().min_by_key(|x| (x.abs_diff(v), **x)).unwrap_or(&v)
}

/// Every parameter (and declared return) dimension with a compile-time value is at least 1.
pub(crate) fn check_param_dims(cx: &super::Cx, diags: &mut Diagnostics) {
    let m = cx.m;
    let ret = match &m.kernel.returns {
        crate::ir::Returns::Value { shape, .. } => shape.as_slice(),
        _ => &[],
    };
    let dims = m
        .kernel
        .params
        .iter()
        .flat_map(|p| {
            p.shape
                .iter()
                .map(move |&d| (d, format!("`{}`", p.name.name)))
        })
        .chain(ret.iter().map(|&d| (d, "the return type".to_string())));
    for (d, whose) in dims {
        if let Some(v) = cx.static_value(d).filter(|v| *v < 1) {
            diags.push(
                Diagnostic::new(
                    codes::PARAM_DIM,
                    m.expr_span(d),
                    format!(
                        "dimension `{}` of {whose} is {v}; a dimension is at least 1",
                        m.expr_to_string(d)
                    ),
                )
                .with_help("check the arithmetic of the shape"),
            );
        }
    }
}
