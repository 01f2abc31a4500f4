//! Golden IR dumps of the seed kernels and SGEMM k8 (`kernels/*.co` → `tests/golden/<name>.ir`)
//! and of the valid corpus files (`tests/corpus/ok_*.co`).
//!
//! File mode (`parse_str`) must reproduce the committed dump; macro mode (the same text with
//! `a#b` spaced out, lexed as a token stream and given to `parse_tokens`) must dump
//! identically. Refresh the goldens with `TESSEL_BLESS=1 cargo test -p tessel-core --test
//! parse_golden`.

use dsl_core::ir::{Expr, Stmt};
use dsl_core::parse::{Parsed, parse_str, parse_tokens};
use std::path::{Path, PathBuf};

/// The seed kernels (`kernels/<name>.co`) and the valid corpus files that exercise every
/// accepted form (`tests/corpus/<name>.co`); each has a golden `tests/golden/<name>.ir`.
const KERNELS: &[&str] = &[
    "v0_naive",
    "v1_shared",
    "v2_tma_wgmma",
    "v3_warpspec",
    "v4_tuned",
    "sgemm_k8_warptile",
    "ok_all_forms",
    "ok_macro_spacing",
    "ok_scheduled_tiles",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn kernel_text(name: &str) -> String {
    let dir = if name.starts_with("ok_") {
        "tests/corpus"
    } else {
        "../kernels"
    };
    let path = root().join(dir).join(format!("{name}.co"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn parse_file(name: &str) -> Parsed {
    let text = kernel_text(name);
    parse_str(&text, Some(&format!("{name}.co")))
        .unwrap_or_else(|d| panic!("{name}.co failed to parse:\n{d}"))
}

/// Macro users must write `a # b` (rustc rejects `a#b`): space every `#` between identifier
/// characters.
fn macro_spelling(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let ident = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '#' && i > 0 && ident(chars.get(i - 1)) && ident(chars.get(i + 1)) {
            out.push_str(" # ");
        } else {
            out.push(c);
        }
    }
    out
}

/// A line-by-line diff that names the first differing line.
fn diff(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut out = String::new();
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i).copied(), a.get(i).copied());
        if x != y {
            out.push_str(&format!(
                "line {}:\n  expected: {}\n  actual:   {}\n",
                i + 1,
                x.unwrap_or("<none>"),
                y.unwrap_or("<none>")
            ));
            if out.lines().count() > 30 {
                break;
            }
        }
    }
    out
}

fn check_golden(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(format!("{name}.ir"));
    if std::env::var_os("TESSEL_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "missing golden {} ({e}); run with TESSEL_BLESS=1 to create it",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "IR dump of {name}.co differs from {}:\n{}\nrun with TESSEL_BLESS=1 to accept the new dump",
        path.display(),
        diff(&expected, actual)
    );
}

#[test]
fn file_mode_matches_goldens() {
    for name in KERNELS {
        let parsed = parse_file(name);
        assert_eq!(
            parsed.module.source.file.as_deref(),
            Some(format!("{name}.co").as_str())
        );
        check_golden(name, &parsed.module.to_string());
    }
}

#[test]
fn macro_mode_dumps_like_file_mode() {
    for name in KERNELS {
        let file = parse_file(name).module.to_string();
        let spaced = macro_spelling(&kernel_text(name));
        let ts: proc_macro2::TokenStream = spaced.parse().expect("spaced kernel lexes");
        let parsed =
            parse_tokens(ts).unwrap_or_else(|d| panic!("{name} (macro mode) failed:\n{d}"));
        assert!(parsed.module.source.file.is_none());
        let mac = parsed.module.to_string();
        assert!(
            file == mac,
            "{name}: macro mode differs from file mode:\n{}",
            diff(&file, &mac)
        );
    }
}

#[test]
fn macro_spelling_spaces_compose_only() {
    assert_eq!(
        macro_spelling("a#b #define X 1 c # d"),
        "a # b #define X 1 c # d"
    );
}

#[test]
fn every_span_points_into_the_token_table() {
    for name in KERNELS {
        let p = parse_file(name);
        let n = p.tokens.spans.len() as u32;
        let m = &p.module;
        let spans = m
            .exprs
            .iter()
            .map(|(h, _)| m.expr_span(h))
            .chain(m.stmts.iter().map(|(h, _)| m.stmt_span(h)));
        for s in spans {
            assert!(
                s.first_token <= s.last_token && s.last_token < n,
                "{name}: bad span {s:?}"
            );
            assert!(
                s.start.line >= 1 && s.start <= s.end,
                "{name}: bad position {s:?}"
            );
            let first = p.tokens.spans[s.first_token as usize].start();
            assert_eq!(
                (first.line as u32, first.column as u32),
                (s.start.line, s.start.col)
            );
        }
    }
}

#[test]
fn v3_structure() {
    let p = parse_file("v3_warpspec");
    let m = &p.module;
    let count = |f: &dyn Fn(&Stmt) -> bool| m.stmts.iter().filter(|(_, s)| f(s)).count();
    assert_eq!(
        count(&|s| matches!(s, Stmt::Parallel { .. })),
        2,
        "outer and inner parallel"
    );
    assert_eq!(
        count(&|s| matches!(s, Stmt::Let { name, .. } if name.name == "stage")),
        2
    );
    assert_eq!(
        count(&|s| matches!(s, Stmt::Let { name, .. } if name.name == "cidx")),
        1
    );
    assert_eq!(count(&|s| matches!(s, Stmt::MmaFill { .. })), 1);
    assert_eq!(
        count(&|s| matches!(
            s,
            Stmt::MmaLoad {
                swizzle: Some(_),
                ..
            }
        )),
        2
    );
    assert_eq!(
        count(&|s| matches!(
            s,
            Stmt::TmaCopy {
                event: Some(_),
                swizzle: Some(_),
                ..
            }
        )),
        2
    );
    assert_eq!(count(&|s| matches!(s, Stmt::Assign { .. })), 0);
    // The nested parallel: `wg by 2 : group-4, t by 128 : thread`.
    let inner = m.stmts.iter().find_map(|(_, s)| match s {
        Stmt::Parallel { levels, .. } if levels.len() == 2 && levels[0].vars.len() == 1 => {
            Some(levels.clone())
        }
        _ => None,
    });
    let inner = inner.expect("inner parallel");
    assert_eq!(inner[0].vars[0].name, "wg");
    assert_eq!(inner[0].level, dsl_core::ir::Level::Group4);
    assert_eq!(m.expr_to_string(inner[0].extents[0]), "2");
    assert_eq!(inner[1].level, dsl_core::ir::Level::Thread);
    // group-4's span covers `group`, `-` and `4` on the line of the inner parallel.
    let ls = inner[0].level_span;
    assert_eq!((ls.start.line, ls.last_token - ls.first_token), (24, 2));
}

#[test]
fn v0_compose_and_accumulate() {
    let p = parse_file("v0_naive");
    let m = &p.module;
    let composes = m
        .exprs
        .iter()
        .filter(|(_, e)| matches!(e, Expr::Compose { .. }))
        .count();
    assert_eq!(composes, 4);
    let acc = m.stmts.iter().find_map(|(_, s)| match s {
        Stmt::Assign {
            op: dsl_core::ir::AssignOp::Add,
            target,
            ..
        } => Some(*target),
        _ => None,
    });
    assert_eq!(m.expr_to_string(acc.expect("acc += …")), "acc");
    assert_eq!(m.tunables[0].domain, vec![8, 16, 32]);
}

#[test]
fn v4_range_tunable_expands() {
    let p = parse_file("v4_tuned");
    let t = p.module.tunable("WARP_N").expect("WARP_N");
    assert_eq!(t.domain.len(), 17);
    assert_eq!((t.domain[0], t.domain[16], t.default), (128, 256, 192));
    assert_eq!(t.default_span.start.line, 5);
}
