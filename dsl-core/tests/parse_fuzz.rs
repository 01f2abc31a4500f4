//! Robustness: the front end must never panic. A proptest mutates the corpus token streams
//! (delete, duplicate, swap, truncate, insert punctuation and keywords) and feeds the result to
//! both entry points, then checks and lowers what parses; a replay test runs every file of
//! `tests/corpus/` (the ladder's kernels and `ok_*` files must parse, `bad_*` files must fail with
//! diagnostics). The root crate's `frontend_fuzz` adds emission and structure-aware mutations.

use dsl_core::parse::{parse_str, parse_tokens};
use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// (file name, text) of every corpus file, sorted.
fn corpus() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).expect("readable corpus file");
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                String::from_utf8_lossy(&bytes).into_owned(),
            )
        })
        .collect();
    files.sort();
    files
}

/// A token as text, multi-character operators kept together (`==`, `=>`, `..=`).
fn words(ts: TokenStream, out: &mut Vec<String>) {
    let mut glue = false;
    for t in ts {
        match t {
            TokenTree::Group(g) => {
                let (o, c) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                out.push(o.to_string());
                words(g.stream(), out);
                out.push(c.to_string());
                glue = false;
            }
            TokenTree::Punct(p) => {
                if glue {
                    out.last_mut()
                        .expect("glued to a previous punct")
                        .push(p.as_char());
                } else {
                    out.push(p.as_char().to_string());
                }
                glue = p.spacing() == Spacing::Joint;
            }
            other => {
                out.push(other.to_string());
                glue = false;
            }
        }
    }
}

fn is_delim(w: &str) -> bool {
    matches!(w, "(" | ")" | "[" | "]" | "{" | "}")
}

/// Appends the closers a truncated word list is missing.
fn rebalance(ws: &mut Vec<String>) {
    let mut stack = Vec::new();
    for w in ws.iter() {
        match w.as_str() {
            "(" => stack.push(")"),
            "[" => stack.push("]"),
            "{" => stack.push("}"),
            ")" | "]" | "}" => {
                stack.pop();
            }
            _ => {}
        }
    }
    while let Some(c) = stack.pop() {
        ws.push(c.to_string());
    }
}

const INSERTS: &[&str] = &[
    ";",
    ",",
    ".",
    ":",
    "#",
    "=",
    "==",
    "=>",
    "<",
    ">",
    ">=",
    "-",
    "+",
    "*",
    "!",
    "..",
    "..=",
    "::",
    "@",
    "$",
    "?",
    "&&",
    "'",
    "\"",
    "()",
    "[]",
    "{}",
    "( )",
    "{ ; }",
    "_",
    "0",
    "1.5f",
    "2f",
    "99999999999999999999",
    "parallel",
    "foreach",
    "in",
    "by",
    "block",
    "group",
    "4",
    "3",
    "mma",
    "tma",
    "dma",
    "copy",
    "load",
    "fill",
    "swiz",
    "async",
    "shared",
    "event",
    "f16",
    "f8",
    "wait",
    "trigger",
    "after",
    "inthreads",
    "sync",
    "if",
    "else",
    "__co__",
    "void",
    "tunable",
    "const",
    "require",
    "define",
    "step",
    "cdiv",
    "at",
    "chunkat",
    "subspan",
    "data",
    "persistent",
    "raster",
    "cluster",
    "occupancy",
    "local",
    "reduce",
    "unroll",
    "transpose",
    "9223372036854775807",
    "<<",
    "%",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Truncate(usize),
    Insert(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => any::<usize>().prop_map(Mutation::Delete),
        2 => any::<usize>().prop_map(Mutation::Duplicate),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        4 => (any::<usize>(), 0..INSERTS.len()).prop_map(|(a, b)| Mutation::Insert(a, b)),
    ]
}

/// Applies the mutations. With `balanced`, delimiters are never moved or removed on their
/// own (inserts of a lone delimiter are skipped and truncation re-closes), so the result
/// still lexes and reaches the parser through `parse_tokens` too.
fn mutate(mut ws: Vec<String>, muts: &[Mutation], balanced: bool) -> Vec<String> {
    for m in muts {
        if ws.is_empty() {
            break;
        }
        let n = ws.len();
        let free = |w: &String| !(balanced && is_delim(w));
        match *m {
            Mutation::Delete(i) if free(&ws[i % n]) => {
                ws.remove(i % n);
            }
            Mutation::Duplicate(i) if free(&ws[i % n]) => {
                let w = ws[i % n].clone();
                ws.insert(i % n, w);
            }
            Mutation::Swap(a, b) if free(&ws[a % n]) && free(&ws[b % n]) => ws.swap(a % n, b % n),
            Mutation::Truncate(i) => {
                ws.truncate(i % n);
                if balanced {
                    rebalance(&mut ws);
                }
            }
            Mutation::Insert(i, k) if !(balanced && is_delim(INSERTS[k])) => {
                ws.insert(i % (n + 1), INSERTS[k].into())
            }
            _ => {}
        }
    }
    ws
}

/// Checks and lowers a parsed module (errors are fine, panics are not).
fn later_stages(m: &dsl_core::ir::Module) {
    if let Ok(info) = dsl_core::check::check(m) {
        let _ = dsl_core::lower::lower(m, &info);
    }
}

/// Runs both entry points on `text` (and check and lowering on what parses), failing (not
/// panicking) if any stage panics.
fn no_panic(text: &str) -> Result<(), String> {
    let file = catch_unwind(AssertUnwindSafe(|| {
        parse_str(text, Some("fuzz.co")).map(|p| {
            later_stages(&p.module);
            p.module.to_string()
        })
    }));
    if file.is_err() {
        return Err(format!("parse_str panicked on:\n{text}"));
    }
    if let Ok(ts) = text.parse::<TokenStream>() {
        let mac = catch_unwind(AssertUnwindSafe(|| {
            parse_tokens(ts).map(|p| {
                later_stages(&p.module);
                p.module.to_string()
            })
        }));
        if mac.is_err() {
            return Err(format!("parse_tokens panicked on:\n{text}"));
        }
    }
    Ok(())
}

/// The word lists of the corpus files that lex (computed once).
fn kernel_words() -> &'static [Vec<String>] {
    static WORDS: std::sync::OnceLock<Vec<Vec<String>>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        corpus()
            .into_iter()
            .filter(|(_, text)| text.parse::<TokenStream>().is_ok())
            .map(|(_, text)| {
                let mut ws = Vec::new();
                words(text.parse().unwrap(), &mut ws);
                ws
            })
            .collect()
    })
}

#[test]
fn unmutated_word_lists_parse_like_the_files() {
    // Re-joining the tokens with single spaces must not change the parse of a kernel.
    for (name, text) in corpus()
        .into_iter()
        .filter(|(n, _)| n.starts_with('v') || n.starts_with("ok_"))
    {
        let mut ws = Vec::new();
        words(text.parse().unwrap(), &mut ws);
        let joined = ws.join(" ");
        let a = parse_str(&text, None)
            .unwrap_or_else(|d| panic!("{name}: {d}"))
            .module
            .to_string();
        let b = parse_str(&joined, None)
            .unwrap_or_else(|d| panic!("{name} (re-joined): {d}"))
            .module
            .to_string();
        assert_eq!(a, b, "{name}");
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 2048,
        rng_seed: RngSeed::Fixed(0x7e55_e100),
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn mutated_corpus_never_panics(
        file in any::<usize>(),
        muts in prop::collection::vec(mutation(), 1..10),
        balanced in any::<bool>(),
        glued in any::<bool>(),
    ) {
        let all = kernel_words();
        let ws = mutate(all[file % all.len()].clone(), &muts, balanced);
        let text = ws.join(if glued { "" } else { " " });
        if let Err(e) = no_panic(&text) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn random_word_soup_never_panics(picks in prop::collection::vec(0..INSERTS.len(), 0..64)) {
        let text: Vec<&str> = picks.iter().map(|&k| INSERTS[k]).collect();
        if let Err(e) = no_panic(&text.join(" ")) {
            prop_assert!(false, "{}", e);
        }
    }
}

#[test]
fn corpus_replays_without_panics() {
    let files = corpus();
    assert!(files.len() >= 15, "corpus holds {} files", files.len());
    for (name, text) in files {
        if let Err(e) = no_panic(&text) {
            panic!("{name}: {e}");
        }
        let result = catch_unwind(AssertUnwindSafe(|| parse_str(&text, Some(&name))))
            .expect("checked above");
        if name.starts_with("bad_") {
            let diags = result
                .err()
                .unwrap_or_else(|| panic!("{name} should not parse"));
            assert!(!diags.is_empty());
            for d in diags.iter() {
                assert!(
                    d.code.starts_with("E00") && !d.message.is_empty(),
                    "{name}: {d}"
                );
                assert!(
                    d.span.start.line >= 1,
                    "{name}: diagnostic without a position: {d}"
                );
            }
        } else {
            let parsed = result.unwrap_or_else(|d| panic!("{name} should parse:\n{d}"));
            assert!(!parsed.module.kernel.body.is_empty(), "{name}");
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow_a_small_stack() {
    // Proc macros run on the compiler's thread; keep far from its stack limit. 1 MiB is a
    // quarter of what this test harness gives a thread by default.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let deep = [
                format!(
                    "__co__ void k(global f16 [M] a) {{ x = {}1{}; }}",
                    "(".repeat(5000),
                    ")".repeat(5000)
                ),
                format!(
                    "__co__ void k(global f16 [M] a) {{ {} y = 1; {} }}",
                    "if (1) { ".repeat(2000),
                    "} ".repeat(2000)
                ),
                format!(
                    "__co__ void k(global f16 [M] a) {{ x = {}1; }}",
                    "-".repeat(5000)
                ),
                format!(
                    "__co__ void k(global f16 [M] a) {{ x = a{}; }}",
                    ".at(0)".repeat(5000)
                ),
                format!(
                    "__co__ void k(global f16 [M] a) {{ x = 1{}; }}",
                    " + 1".repeat(5000)
                ),
                format!(
                    "__co__ void k(global f16 [M] a) {{ {} }}",
                    "foreach i in [1] ".repeat(2000)
                ),
            ];
            for text in &deep {
                assert!(parse_str(text, None).is_err(), "nesting is bounded");
            }
        })
        .expect("spawn");
    handle.join().expect("no stack overflow or panic");
}
