//! Architecture rules, checked on the source text:
//!
//! * no import cycle among the files (modules) of `runtime/src`: every `use crate::…`,
//!   `use super::…` and inline `crate::…` path is an edge from its file's module to the
//!   longest module prefix it names (a parent `mod.rs` re-exporting its own child with
//!   `pub use` is the module's facade, not an edge);
//! * no `println!`, `print!`, `dbg!` or `io::stdout()` in the library crates (`runtime`,
//!   `dsl-core`, `codegen-cuda`, `dsl-macros`), and no `eprintln!` / `eprint!` / `io::stderr()`
//!   either except in `dsl-core` (its `TESSEL_DUMP_PASSES` dump; the tuner's progress goes to a
//!   sink the caller supplies): libraries return values and errors, binaries print. A file that
//!   speaks a protocol over a stream by design is listed, with its reason, in
//!   `STREAM_PROTOCOLS`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `tune/sweep.rs` → `tune::sweep`, `tune/mod.rs` → `tune`, `lib.rs` → `` (the crate root).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// Code without `//` comments (tessel's sources have no `//` inside string literals that
/// matter here).
fn code_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]).to_string())
        .collect()
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap_or(tree).trim().to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::").trim();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|i| !i.trim().is_empty())
        .flat_map(expand)
        .map(|p| {
            if p == "self" {
                prefix.to_string()
            } else {
                format!("{prefix}::{p}")
            }
        })
        .collect()
}

/// Module edges of one file.
fn edges_of(
    module: &str,
    is_mod_file: bool,
    text: &str,
    modules: &BTreeSet<String>,
) -> Vec<String> {
    let code = code_lines(text).join("\n");
    let parent = if is_mod_file {
        module.to_string()
    } else {
        module
            .rsplit_once("::")
            .map_or(String::new(), |x| x.0.to_string())
    };
    let resolve = |path: &str| -> Option<String> {
        let path = path.trim();
        let rest = if let Some(r) = path.strip_prefix("crate::") {
            r.to_string()
        } else if let Some(r) = path.strip_prefix("super::") {
            let grand = if is_mod_file {
                module
                    .rsplit_once("::")
                    .map_or(String::new(), |x| x.0.to_string())
            } else {
                parent.clone()
            };
            if grand.is_empty() {
                r.to_string()
            } else {
                format!("{grand}::{r}")
            }
        } else if let Some(r) = path.strip_prefix("self::") {
            if parent.is_empty() {
                r.to_string()
            } else {
                format!("{parent}::{r}")
            }
        } else {
            return None;
        };
        let segs: Vec<&str> = rest.split("::").collect();
        (0..=segs.len())
            .rev()
            .map(|n| segs[..n].join("::"))
            .find(|m| modules.contains(m))
    };
    let mut out = Vec::new();
    // `use` statements (possibly over several lines).
    let mut rest = code.as_str();
    while let Some(i) = rest.find("use ") {
        let before = &rest[..i];
        let at_start = before.is_empty()
            || before.ends_with('\n')
            || before.trim_end_matches(' ').ends_with('\n')
            || before.trim_end().ends_with("pub")
            || before.trim_end().ends_with(')');
        let stmt_end = rest[i..].find(';').map_or(rest.len(), |e| i + e);
        if at_start {
            let public = before.trim_end().ends_with("pub");
            for p in expand(&rest[i + 4..stmt_end]) {
                if let Some(m) = resolve(&p) {
                    let own_child = is_mod_file
                        && public
                        && m.strip_prefix(module)
                            .is_some_and(|r| r.starts_with("::") || module.is_empty());
                    if !own_child {
                        out.push(m);
                    }
                }
            }
        }
        rest = &rest[stmt_end.min(rest.len())..];
        if rest.is_empty() {
            break;
        }
        rest = &rest[1.min(rest.len())..];
    }
    // Inline `crate::…` paths.
    for (i, _) in code.match_indices("crate::") {
        let tail: String = code[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        if let Some(m) = resolve(tail.trim_end_matches(':')) {
            out.push(m);
        }
    }
    out.retain(|m| m != module && !m.is_empty());
    out.sort();
    out.dedup();
    out
}

/// A cycle of the graph, if any (depth-first search).
fn find_cycle(graph: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, Vec<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap_or(0);
                    let mut c = stack[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn graph_of(src: &Path) -> BTreeMap<String, Vec<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    files
        .iter()
        .map(|f| {
            let m = module_of(src, f);
            let is_mod = matches!(
                f.file_name().and_then(|n| n.to_str()),
                Some("mod.rs" | "lib.rs")
            );
            let text = std::fs::read_to_string(f).unwrap();
            let e = edges_of(&m, is_mod, &text, &modules);
            (m, e)
        })
        .collect()
}

#[test]
fn the_runtime_has_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph_of(&src);
    assert!(
        graph.contains_key("tune::sweep")
            && graph["tune::sweep"].contains(&"tune::store".to_string())
    );
    if let Some(c) = find_cycle(&graph) {
        panic!("import cycle in runtime/src: {}", c.join(" → "));
    }
}

#[test]
fn the_cycle_check_finds_a_planted_cycle() {
    let modules: BTreeSet<String> = ["a", "b", "tune", "tune::x", "tune::y"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut g = BTreeMap::new();
    g.insert(
        "a".to_string(),
        edges_of("a", false, "use crate::b::Thing;\n", &modules),
    );
    g.insert(
        "b".to_string(),
        edges_of("b", false, "fn f() { crate::a::g() }\n", &modules),
    );
    assert_eq!(find_cycle(&g).unwrap(), vec!["a", "b", "a"]);
    // Siblings through `super::{…}` groups, and a facade `pub use` that is not an edge.
    let x = edges_of(
        "tune::x",
        false,
        "use super::{y::{Y, Z}, Tuner};\n",
        &modules,
    );
    assert_eq!(x, vec!["tune".to_string(), "tune::y".to_string()]);
    let facade = edges_of(
        "tune",
        true,
        "pub use x::X;\npub use crate::a::A;\n",
        &modules,
    );
    assert_eq!(facade, vec!["a".to_string()]);
    let mut g = BTreeMap::new();
    g.insert("tune::x".to_string(), x);
    g.insert(
        "tune::y".to_string(),
        edges_of(
            "tune::y",
            false,
            "// use super::x;\nuse std::fmt;\n",
            &modules,
        ),
    );
    g.insert("tune".to_string(), facade);
    assert_eq!(find_cycle(&g), None);
}

/// Whether a line of code (comments removed) prints: `println!`/`print!`, `dbg!`, or a
/// handle on the process's standard output; with `stderr_too`, `eprintln!`/`eprint!` and
/// standard error as well.
fn prints(line: &str, stderr_too: bool) -> bool {
    let stdout = (line.contains("println!") && !line.contains("eprintln!"))
        || (line.contains("print!(") && !line.contains("eprint!("))
        || line.contains("dbg!(")
        || line.contains("io::stdout()");
    let stderr =
        line.contains("eprintln!") || line.contains("eprint!(") || line.contains("io::stderr()");
    stdout || (stderr_too && stderr)
}

/// Files of the library crates that write to a standard stream by design, and why.
const STREAM_PROTOCOLS: [(&str, &str); 1] = [(
    "runtime/src/tune/worker.rs",
    "a tuner worker process answers its parent on stdout (the worker protocol), not a print",
)];

#[test]
fn library_crates_do_not_print() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut offenders = Vec::new();
    for (krate, stderr_too) in [
        ("runtime", true),
        ("dsl-core", false),
        ("codegen-cuda", true),
        ("dsl-macros", true),
    ] {
        let mut files = Vec::new();
        rust_files(&root.join(krate).join("src"), &mut files);
        for f in files {
            let rel = f
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if STREAM_PROTOCOLS.iter().any(|(p, _)| rel == *p) {
                continue;
            }
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, line) in code_lines(&text).iter().enumerate() {
                if prints(line, stderr_too) {
                    offenders.push(format!("{}:{}: {}", rel, i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "printing in a library:\n{}",
        offenders.join("\n")
    );
    for (p, _) in STREAM_PROTOCOLS {
        assert!(
            root.join(p).exists(),
            "{p} is gone: drop it from STREAM_PROTOCOLS"
        );
    }
}

#[test]
fn the_print_check_finds_planted_prints() {
    for l in [
        r#"println!("{x}");"#,
        r#"print!("{x}")"#,
        "let y = dbg!(x);",
        "let mut o = std::io::stdout().lock();",
        r#"std::println!("x");"#,
    ] {
        assert!(prints(l, false), "{l}");
    }
    for l in [r#"eprintln!("x");"#, "let e = std::io::stderr();"] {
        assert!(!prints(l, false) && prints(l, true), "{l}");
    }
    // Code that only mentions printing in a string or a name does not print.
    for l in [
        "let s = format!(\"{x}\");",
        "fn print_table() {}",
        "writeln!(f, \"x\")?;",
    ] {
        assert!(!prints(l, true), "{l}");
    }
    // A comment is removed before the check.
    assert!(
        code_lines("// println!(\"doc\");\nlet a = 1;")
            .iter()
            .all(|l| !prints(l, true))
    );
}
