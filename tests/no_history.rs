//! Code speaks of the code: no project history in the comments of the sources, the kernels,
//! the CUDA headers, the tools or the emitted `.cu` goldens — no seed-document numbers, issue
//! numbers or GPU run numbers (BENCHMARKS.md and the result documents keep the history).

mod common;

/// The history a comment must not cite, if any: `seed 004`, `issue #7`, `run 29`, `runs 7-27`.
fn cites_history(comment: &str) -> Option<&'static str> {
    let c = comment.to_ascii_lowercase();
    let digit_after = |word: &str| {
        c.match_indices(word).any(|(i, _)| {
            let before_ok = i == 0 || !c.as_bytes()[i - 1].is_ascii_alphanumeric();
            before_ok && c[i + word.len()..].starts_with(|ch: char| ch.is_ascii_digit())
        })
    };
    if c.contains("seed 00") {
        Some("a seed document")
    } else if c.contains("issue #") {
        Some("an issue number")
    } else if digit_after("run ") || digit_after("runs ") || digit_after("iter0") {
        Some("a run number")
    } else {
        None
    }
}

/// The comment text of a line: after `//` in Rust, CUDA and DSL files, after `#` in scripts.
fn comment_of<'a>(path: &str, line: &'a str) -> Option<&'a str> {
    let marker = if path.ends_with(".sh") || path.ends_with(".py") {
        "#"
    } else {
        "//"
    };
    line.find(marker).map(|i| &line[i + marker.len()..])
}

#[test]
fn the_history_check_sees_each_kind_of_citation() {
    assert!(cites_history(" defaults are seed 004's config").is_some());
    assert!(cites_history(" see issue #7").is_some());
    assert!(cites_history(" the winner of runs 7-27").is_some());
    assert!(cites_history(" (BENCHMARKS.md, run 29)").is_some());
    assert!(cites_history(" iter001's kernel").is_some());
    assert_eq!(cites_history(" the epilogue runs once per tile"), None);
    assert_eq!(
        comment_of("a.sh", "x --runs 20 # run twice"),
        Some(" run twice")
    );
}

#[test]
fn no_comment_cites_project_history() {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(common::root())
        .output()
        .expect("git ls-files");
    let mut found = Vec::new();
    for path in String::from_utf8_lossy(&out.stdout).split('\0') {
        let code = [".rs", ".co", ".cuh", ".cu", ".sh", ".py", ".html", ".js"]
            .iter()
            .any(|e| path.ends_with(e));
        // This file spells out what it looks for.
        if !code || path.is_empty() || path == "tests/no_history.rs" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(common::root().join(path)) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if let Some(what) = comment_of(path, line).and_then(cites_history) {
                found.push(format!("{path}:{}: {what}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "comments that cite project history:\n{}",
        found.join("\n")
    );
}
