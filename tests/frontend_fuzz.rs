//! Fuzzing of the whole front end — parse → check → lower → emit — on `.co` text (file mode)
//! and on token streams (the macro's path), with structure-aware mutations of the kernels in
//! `kernels/`: statements deleted, duplicated or swapped, literals replaced by extreme values,
//! names swapped for other names of the same kernel, operators changed, header items added,
//! configurations and problem sizes drawn from the tunables' domains and from the edges of
//! `i64`. Every input must end in a result or in diagnostics: a panic, or an input that takes
//! longer than [`PER_INPUT`], fails the test.
//!
//! CI runs [`CI_INPUTS`] inputs from a fixed seed. The long run is the ignored test:
//!
//! ```sh
//! TESSEL_FUZZ_INPUTS=200000 TESSEL_FUZZ_SEED=7 cargo test --release --test frontend_fuzz -- --ignored --nocapture
//! ```
//!
//! A failure names the input's index; `TESSEL_FUZZ_ONLY=I` (with the same seed and count)
//! replays that input alone and prints its configuration.

use dsl_core::check::{Config, Limits, Problem, check_config};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Inputs per CI run (each goes through both entry points).
const CI_INPUTS: usize = 2500;
/// Longest time one input may take through all stages (debug build, shared CI machine).
const PER_INPUT: Duration = Duration::from_secs(20);

/// A small deterministic generator (xorshift64*): the same seed gives the same inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
}

fn kernels() -> Vec<(String, String)> {
    let dir = format!("{}/kernels", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("kernels/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).expect("readable"),
            )
        })
        .collect();
    v.sort();
    v
}

const EXTREME: &[&str] = &[
    "0",
    "-1",
    "1",
    "3",
    "7",
    "1000000",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775807",
    "4611686018427387904",
];
const OPS: &[&str] = &[
    "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "#", "==", "<", ">=",
];
const HEADER_ITEMS: &[&str] = &[
    "persistent;",
    "persistent 0;",
    "raster 8;",
    "raster 0;",
    "cluster 2;",
    "cluster 0;",
    "occupancy 2;",
    "occupancy 0;",
    "const Z = 0;",
    "require 1 == 0;",
    "tunable Q in [0, -1] = 0;",
];
const STATEMENTS: &[&str] = &[
    "sync.shared;",
    "mma.commit;",
    "dma.wait 0;",
    "trigger full[0];",
    "wait empty[0];",
    "x = 1 / 0;",
    "foreach {q} in [0] sync.shared;",
    "foreach {q} in [-3] { }",
    "inthreads (t == 0) { }",
    "if (1) { } else { }",
];

/// Splits `text` into statements at `;`, `{` and `}` (each piece keeps its terminator).
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if matches!(c, ';' | '{' | '}') {
            out.push(std::mem::take(&mut cur));
        }
    }
    out.push(cur);
    out
}

/// Identifier-like words of `text`.
fn words(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .map(str::to_string)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Words of the language (not swapped for names: most such swaps only fail to parse).
const KEYWORDS: &[&str] = &[
    "tunable",
    "const",
    "require",
    "raster",
    "persistent",
    "cluster",
    "occupancy",
    "in",
    "by",
    "step",
    "__co__",
    "void",
    "global",
    "shared",
    "local",
    "event",
    "parallel",
    "foreach",
    "block",
    "group",
    "thread",
    "unroll",
    "dma",
    "tma",
    "mma",
    "copy",
    "async",
    "swiz",
    "load",
    "fill",
    "store",
    "row",
    "commit",
    "wait",
    "trigger",
    "inthreads",
    "sync",
    "if",
    "else",
    "at",
    "subspan",
    "chunkat",
    "cdiv",
    "min",
    "max",
    "f16",
    "bf16",
    "f32",
    "reduce",
    "sum",
];

/// One structure-aware mutation of `text`.
fn mutate_once(rng: &mut Rng, text: &str) -> String {
    match rng.below(20) {
        // Delete, duplicate or swap whole statements (pieces ending in `;`).
        0..=5 => {
            let mut p = pieces(text);
            let stmts: Vec<usize> = (0..p.len()).filter(|&i| p[i].ends_with(';')).collect();
            if stmts.is_empty() {
                return text.to_string();
            }
            let i = *rng.pick(&stmts);
            match rng.below(3) {
                0 => {
                    p.remove(i);
                }
                1 => {
                    let s = p[i].clone();
                    p.insert(i, s);
                }
                _ => p.swap(i, *rng.pick(&stmts)),
            }
            p.concat()
        }
        // A literal replaced by an extreme value.
        6..=8 => {
            let nums: Vec<(usize, usize)> = number_spans(text);
            if nums.is_empty() {
                return text.to_string();
            }
            let (a, b) = *rng.pick(&nums);
            format!("{}{}{}", &text[..a], rng.pick(EXTREME), &text[b..])
        }
        // A name replaced by another name of the kernel.
        9..=11 => {
            let ws: Vec<String> = words(text)
                .into_iter()
                .filter(|w| !KEYWORDS.contains(&w.as_str()))
                .collect();
            if ws.len() < 2 {
                return text.to_string();
            }
            let from = rng.pick(&ws).clone();
            let to = rng.pick(&ws).clone();
            let hits: Vec<usize> = text.match_indices(from.as_str()).map(|(i, _)| i).collect();
            let at = *rng.pick(&hits);
            format!("{}{}{}", &text[..at], to, &text[at + from.len()..])
        }
        // An operator changed.
        12..=13 => {
            let spots: Vec<usize> = text
                .char_indices()
                .filter(|(_, c)| matches!(c, '+' | '*' | '/' | '%' | '#'))
                .map(|(i, _)| i)
                .collect();
            if spots.is_empty() {
                return text.to_string();
            }
            let at = *rng.pick(&spots);
            format!("{}{}{}", &text[..at], rng.pick(OPS), &text[at + 1..])
        }
        // A header item added at the top.
        14..=15 => format!("{}\n{text}", rng.pick(HEADER_ITEMS)),
        // A statement inserted after a `{` or `;` of the body.
        16..=17 => {
            let body = text.find("__co__").unwrap_or(0);
            let spots: Vec<usize> = text[body..]
                .char_indices()
                .filter(|(_, c)| matches!(c, ';' | '{'))
                .map(|(i, _)| body + i + 1)
                .collect();
            if spots.is_empty() {
                return text.to_string();
            }
            let at = *rng.pick(&spots);
            format!("{} {} {}", &text[..at], rng.pick(STATEMENTS), &text[at..])
        }
        // Unchanged text (the configuration and problem sizes still vary).
        18 => text.to_string(),
        // Truncated.
        _ => {
            let mut at = rng.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text[..at].to_string()
        }
    }
}

/// Byte ranges of integer literals.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i < b.len() && (b[i] == b'.' || b[i].is_ascii_alphabetic()) {
                continue;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Every stage on a parsed module, under a configuration drawn from `seed`.
fn stages(m: &dsl_core::ir::Module, seed: u64) -> usize {
    let mut rng = Rng(seed | 1);
    let mut cfg = Config::defaults(m);
    for t in &m.tunables {
        if rng.chance(50) && !t.domain.is_empty() {
            cfg = cfg.with(&t.name.name, *rng.pick(&t.domain));
        } else if rng.chance(5) {
            cfg = cfg.with(&t.name.name, rng.pick(EXTREME).parse().unwrap());
        }
    }
    let problem = rng.chance(30).then(|| {
        let mut p = Problem::default();
        for d in m.symbolic_dims() {
            let v = if rng.chance(30) {
                rng.pick(EXTREME).parse().unwrap()
            } else {
                [64i64, 100, 4096][rng.below(3)]
            };
            p = p.with(&d, v);
        }
        p
    });
    let mut reached = 1;
    if std::env::var("TESSEL_FUZZ_ONLY").is_ok() {
        eprintln!("{cfg:?} {problem:?}");
    }
    if let Ok(info) = check_config(m, &cfg, problem.as_ref(), &Limits::SM90) {
        reached = 2;
        let _ = dsl_core::render::render_capped("fuzz.co", "", info.warnings.iter(), 4);
        if let Ok(k) = dsl_core::lower::lower(m, &info) {
            let inst: Vec<i64> = m
                .tunables
                .iter()
                .map(|t| cfg.values[&t.name.name])
                .collect();
            let cu = codegen_cuda::emit(&codegen_cuda::Emit {
                kernel: &k,
                source: "fuzz.co",
                instance: Some(inst),
            });
            assert!(!cu.is_empty());
            reached = 4;
        }
    }
    reached
}

/// Both entry points on `text`: the deepest stage reached (1 parse … 4 emit) per path.
fn front_end(text: &str, seed: u64) -> [usize; 2] {
    let mut out = [0, 0];
    match dsl_core::parse::parse_str(text, Some("fuzz.co")) {
        Ok(p) => out[0] = stages(&p.module, seed),
        Err(d) => {
            let _ = dsl_core::render::render("fuzz.co", text, &d);
        }
    }
    if let Ok(ts) = text.parse::<proc_macro2::TokenStream>()
        && let Ok(p) = dsl_core::parse::parse_tokens(ts)
    {
        out[1] = stages(&p.module, seed);
    }
    out
}

/// Outcome of a run.
#[derive(Debug, Default)]
struct Tally {
    inputs: usize,
    /// Inputs whose file path reached parse-ok, check-ok, lower-ok, emit-ok.
    reached: [usize; 5],
    panics: Vec<String>,
    hangs: Vec<String>,
    slowest: Duration,
}

/// Runs `count` inputs from `seed`, each on a worker thread with a time limit.
fn run(count: usize, seed: u64) -> Tally {
    let ks = kernels();
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut t = Tally::default();
    // `TESSEL_FUZZ_ONLY=I` replays input I alone (and prints its configuration).
    let only: Option<usize> = std::env::var("TESSEL_FUZZ_ONLY")
        .ok()
        .and_then(|v| v.parse().ok());
    for i in 0..count {
        let (name, base) = rng.pick(&ks).clone();
        let mut text = base;
        for _ in 0..1 + rng.below(2) {
            text = mutate_once(&mut rng, &text);
        }
        let cfg_seed = rng.next();
        if only.is_some_and(|o| o != i) {
            continue;
        }
        let (tx, rx) = mpsc::channel();
        let input = text.clone();
        let start = Instant::now();
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                let r = catch_unwind(AssertUnwindSafe(|| front_end(&input, cfg_seed)));
                let _ = tx.send(r);
            })
            .expect("spawn");
        match rx.recv_timeout(PER_INPUT) {
            Ok(Ok(reached)) => {
                t.reached[reached[0]] += 1;
            }
            Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                t.panics.push(format!("input {i} (from {name}):\n{text}"))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                t.hangs.push(format!("input {i} (from {name}):\n{text}"))
            }
        }
        t.slowest = t.slowest.max(start.elapsed());
        t.inputs += 1;
    }
    t
}

fn assert_clean(t: &Tally) {
    assert!(
        t.panics.is_empty() && t.hangs.is_empty(),
        "{} panics, {} hangs; first:\n{}",
        t.panics.len(),
        t.hangs.len(),
        t.panics.first().or(t.hangs.first()).unwrap()
    );
}

#[test]
fn mutated_kernels_never_panic_or_hang() {
    let t = run(CI_INPUTS, 0x7e55_e1);
    assert_clean(&t);
    // The mutations keep a useful share of inputs deep in the pipeline.
    assert!(t.reached[4] >= CI_INPUTS / 10, "{t:?}");
}

#[test]
#[ignore = "long run: TESSEL_FUZZ_INPUTS / TESSEL_FUZZ_SEED; figures in RELIABILITY.md"]
fn long_fuzz_run() {
    let count = std::env::var("TESSEL_FUZZ_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let seed = std::env::var("TESSEL_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let start = Instant::now();
    let t = run(count, seed);
    println!(
        "{} inputs (seed {seed}) in {:.1} s, each through parse_str and parse_tokens; file path ended in: parse errors {}, check errors {}, lowering errors {}, emitted CUDA {}; panics {}, hangs {}; slowest input {:.2} s",
        t.inputs,
        start.elapsed().as_secs_f64(),
        t.reached[0],
        t.reached[1],
        t.reached[2],
        t.reached[4],
        t.panics.len(),
        t.hangs.len(),
        t.slowest.as_secs_f64()
    );
    assert_clean(&t);
}
