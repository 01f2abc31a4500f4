//! Shared-memory races between the threads of a block (`W1212` a read and a write, `W1213`
//! two writes; `dsl-core/src/check/race.rs`) on the kernels of `tests/data/race/`.
//!
//! Each file states what `check` must say about it: the warnings' codes, the text under each
//! one's caret (the read, or the second write) and under its note (the other access). A racy
//! kernel has a twin with the barrier that draws none (`…_synced`, or a form whose accesses
//! never meet across threads). Every kernel is accepted: a race is a warning. The rendered
//! warnings are compared with `tests/golden/race/<stem>.txt` (refresh with
//! `TESSEL_BLESS=1 cargo test --test race_check`).

mod common;

use common::{golden, read, root};
use dsl_core::check::{self, Config, Limits, codes};
use dsl_core::diag::Diagnostic;
use dsl_core::span::Span;

/// A warning expected on a kernel: code, the text under the caret, the text under the note.
type Expect = (&'static str, &'static str, &'static str);

const RACE: &str = codes::SHARED_RACE;
const WRITES: &str = codes::SHARED_WRITE_RACE;

/// Every kernel of `tests/data/race/` and its warnings.
const KERNELS: &[(&str, &[Expect])] = &[
    // Stored by thread t, read by thread 63 - t.
    ("reverse", &[(RACE, "s.at(63 - t)", "s.at(t)")]),
    ("reverse_synced", &[]),
    // The same formula stored and read by one thread is no race.
    ("same_thread", &[]),
    // The read of iteration i against the store of iteration i + 1.
    ("loop_carried", &[(RACE, "s.at((t + 1) % 64)", "s.at(t)")]),
    ("loop_synced", &[]),
    // Step k + 1 reads what step k stored from other threads.
    ("tree_sum", &[(RACE, "s.at(t + (32 >> k))", "s.at(t)")]),
    ("tree_sum_synced", &[]),
    // One thread stores (under `inthreads` / under an `if`), all read.
    ("broadcast_inthreads", &[(RACE, "k.at(0)", "k.at(0)")]),
    ("broadcast_inthreads_synced", &[]),
    ("broadcast_if", &[(RACE, "off.at(w)", "off.at(w)")]),
    ("broadcast_if_synced", &[]),
    // Read and overwritten by different threads within one statement.
    ("shift_in_place", &[(RACE, "s.at(t + 1)", "s.at(t)")]),
    ("two_writers", &[(WRITES, "s.at(63 - t)", "s.at(t)")]),
    ("transpose", &[(RACE, "tile.at(tx, ty)", "tile.at(ty, tx)")]),
    // Register tiles copied into and out of shared memory, per thread.
    (
        "register_tiles",
        &[(RACE, "s.subspan(4).at((t + 1) % 64)", "s.subspan(4).at(t)")],
    ),
    // Sibling thread levels: no barrier between them.
    ("sibling_levels", &[(RACE, "s.at(l # w)", "s.at(t)")]),
    // `mma.store` / `mma.load`: each element by one unknown thread of the warps running it.
    (
        "mma_store_read",
        &[(
            RACE,
            "out_s.at(w # r, l)",
            "out_s.subspan(16, 16).at(wm, wn)",
        )],
    ),
    ("mma_store_read_synced", &[]),
    (
        "mma_load_after_stores",
        &[(
            RACE,
            "a_s.subspan(16, 16).at(wm, 0)",
            "a_s.at(wm # wn # i # r, c)",
        )],
    ),
    (
        "mma_load_loop_carried",
        &[(
            RACE,
            "a_s.subspan(16, 16).at(wm, 0)",
            "a_s.at(wm # wn # i # r, c)",
        )],
    ),
    ("mma_load_after_stores_synced", &[]),
    // Warpgroups in `inthreads` branches: a `wait` orders the triggering threads' stores.
    ("event_ordered", &[]),
    ("event_unwaited", &[(RACE, "s.at(127 - t)", "s.at(t)")]),
    // A cooperative copy between the accesses has barriers before and after it.
    ("copy_between", &[]),
    // An index read from memory: undecided, never reported.
    ("data_index", &[]),
    // An atomic update races with a plain read of its element; two atomics never race.
    ("atomic_read", &[(RACE, "c.at(t)", "c.at((t + 1) % 64)")]),
    ("atomic_synced", &[]),
    // An atomic whose old value a thread keeps writes its element like any atomic.
    ("atomic_old_value", &[(WRITES, "next.at(0)", "next.at(0)")]),
    // A warp's barrier orders the lanes of one warp, not two warps.
    ("warp_synced", &[]),
    (
        "warp_barrier_across_warps",
        &[(RACE, "r.at((w + 1) % 8, l)", "r.at(w, l)")],
    ),
];

fn rel(stem: &str) -> String {
    format!("tests/data/race/{stem}.co")
}

/// The source text a span covers (on one line).
fn spanned(text: &str, s: Span) -> String {
    let line = text
        .lines()
        .nth(s.start.line as usize - 1)
        .expect("span line");
    let end = if s.end.line == s.start.line {
        s.end.col as usize
    } else {
        line.chars().count()
    };
    line.chars()
        .skip(s.start.col as usize)
        .take(end - s.start.col as usize)
        .collect()
}

/// `check`'s warnings on the kernel (it must be accepted).
fn warnings(stem: &str) -> (String, Vec<Diagnostic>) {
    let path = rel(stem);
    let text = read(&path);
    let m = dsl_core::parse::parse_str(&text, Some(&path))
        .unwrap_or_else(|d| panic!("{path} does not parse:\n{d}"))
        .module;
    let m = dsl_core::lower::launch_form(m);
    let info = check::check_config(&m, &Config::defaults(&m), None, &Limits::default())
        .unwrap_or_else(|d| panic!("{path}: a race is a warning, yet check rejects it:\n{d}"));
    (text, info.warnings)
}

#[test]
fn every_race_kernel_is_listed_once_and_says_what_it_does() {
    let stems = common::co_stems("tests/data/race");
    let mut listed: Vec<String> = KERNELS.iter().map(|(s, _)| s.to_string()).collect();
    listed.sort();
    assert_eq!(stems, listed, "tests/data/race/ and KERNELS differ");
    for s in &stems {
        let text = read(&rel(s));
        assert!(
            text.starts_with("// ") && text.lines().next().unwrap().len() > 20,
            "{s}: the first line is no comment saying what the kernel does"
        );
    }
}

#[test]
fn races_are_reported_at_the_read_with_a_note_at_the_write() {
    let mut failures = Vec::new();
    for &(stem, expect) in KERNELS {
        let (text, w) = warnings(stem);
        let got: Vec<(String, String, Vec<String>)> = w
            .iter()
            .map(|d| {
                (
                    d.code.to_string(),
                    spanned(&text, d.span),
                    d.notes.iter().map(|(s, _)| spanned(&text, *s)).collect(),
                )
            })
            .collect();
        let want: Vec<(String, String, Vec<String>)> = expect
            .iter()
            .map(|(c, at, note)| (c.to_string(), at.to_string(), vec![note.to_string()]))
            .collect();
        if got != want {
            failures.push(format!("{stem}: expected {want:?}\n  got {got:?}"));
        }
        // Between `inthreads` branches a barrier is no help (E1690): an event is.
        let help = if stem.starts_with("event_") {
            "order them with an event: `trigger e;` after the first, `wait e;` before the second"
        } else {
            "add `sync.shared;` between them"
        };
        for d in &w {
            assert!(d.is_warning(), "{stem}: {d}");
            assert_eq!(d.help.as_deref(), Some(help), "{stem}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rendered_race_warnings_match_their_goldens() {
    let mut failures = Vec::new();
    for &(stem, _) in KERNELS {
        let (text, w) = warnings(stem);
        let out = dsl_core::render::render_capped(&format!("{stem}.co"), &text, w.iter(), 10);
        if let Err(e) = golden(&format!("tests/golden/race/{stem}.txt"), &out) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // No golden without its kernel.
    let dir = root().join("tests/golden/race");
    for e in std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
    {
        let p = e.path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            p.extension().is_some_and(|x| x == "txt") && KERNELS.iter().any(|(s, _)| *s == stem),
            "{} is no race kernel's golden: delete it",
            p.display()
        );
    }
}

/// The message names the two threads and the element, and says when the race crosses a
/// loop's back edge.
#[test]
fn the_message_names_the_threads_the_element_and_the_iteration() {
    let (_, w) = warnings("reverse");
    assert!(
        w[0].message.contains("thread `t = 0` reads element [63]")
            && w[0].message.contains("thread `t = 63` writes at line 5"),
        "{}",
        w[0]
    );
    let (_, w) = warnings("loop_carried");
    assert!(
        w[0].notes[0]
            .1
            .contains("in the next iteration of the loop"),
        "{}",
        w[0]
    );
    let (_, w) = warnings("tree_sum");
    assert!(
        w[0].notes[0]
            .1
            .contains("in the previous iteration of the loop"),
        "{}",
        w[0]
    );
    let (_, w) = warnings("transpose");
    assert!(w[0].message.contains("`ty = 0, tx = 1`"), "{}", w[0]);
}

/// Extreme numbers in place of each literal, and other operators in place of each one, of every
/// race kernel: `check` ends in diagnostics or warnings, never in a panic (the race check
/// evaluates indices, guards and loop bounds with checked arithmetic).
#[test]
fn mutated_race_kernels_never_panic() {
    const NUMBERS: &[&str] = &["0", "-1", "65", "2147483648", "9223372036854775807"];
    const OPS: &[&str] = &["-", "*", "/", "%", "<<", ">>", "#"];
    let mut count = 0;
    for &(stem, _) in KERNELS {
        let text = read(&rel(stem));
        let body = text.split_once('\n').map_or("", |(_, b)| b);
        let mut variants = Vec::new();
        let bytes = body.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c.is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
                let end = (i..bytes.len())
                    .find(|&j| !bytes[j].is_ascii_digit())
                    .unwrap_or(bytes.len());
                for n in NUMBERS {
                    variants.push(format!("{}{n}{}", &body[..i], &body[end..]));
                }
                i = end;
                continue;
            }
            if c == b'+' && bytes.get(i + 1) == Some(&b' ') {
                for op in OPS {
                    variants.push(format!("{}{op}{}", &body[..i], &body[i + 1..]));
                }
            }
            i += 1;
        }
        for v in variants {
            count += 1;
            if let Ok(p) = dsl_core::parse::parse_str(&v, Some("mutant.co")) {
                let m = dsl_core::lower::launch_form(p.module);
                let _ = check::check_config(&m, &Config::defaults(&m), None, &Limits::default());
            }
        }
    }
    assert!(count > 500, "only {count} mutants");
}
