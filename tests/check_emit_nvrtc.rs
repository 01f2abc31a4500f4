//! `check` ok ⇒ `emit` ok ⇒ NVRTC compiles, for every kernel of `kernels/`, every kernel of the
//! lowering and language IR tests (`dsl-core/tests/lowered/*.co`, `dsl-core/tests/lang/*.co`),
//! the warp-level `mma` test kernels (`tests/data/warp/*.co`), every well-formed kernel of the
//! parser corpus (`dsl-core/tests/corpus/ok_*.co`), and the same kernels with their tunables
//! frozen into constants, over a sample of each one's legal configurations: the default, and
//! configurations the checker accepts, drawn by a seeded generator from the whole cross product
//! of the tunable domains (`tunable::cross_product`) when it is small, else from the domains
//! one tunable at a time.
//!
//! A configuration the checker rejects is not in the sample (the premise fails); one it accepts
//! must lower and emit, and a sample of those must compile. Without NVRTC the compile step
//! prints `SKIPPED` and the first two steps still run, except under `CI=true` /
//! `TESSEL_REQUIRE_NVRTC=1`, where the test fails.

mod common;

use common::{kernel_files, nvrtc_available, read, root};
use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::lower::KernelPath;
use dsl_core::tunable::{Tunable, cross_product};
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};

/// Legal configurations checked and emitted per kernel (the default among them).
const CHECKED: usize = 24;
/// Of those, how many are compiled per kernel.
const COMPILED: usize = 2;
/// Configurations tried per kernel to find the legal ones.
const TRIED: usize = 400;
/// A cross product up to this size is enumerated whole (and shuffled).
const ENUMERATED: usize = 4096;

/// A small deterministic generator (splitmix64): the sample is the same on every run, so a
/// failure names a configuration that can be reproduced.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The default and up to `n - 1` distinct other configurations, in the order they are tried:
/// the whole cross product of the tunable domains shuffled when it has at most [`ENUMERATED`]
/// configurations, else random draws from each domain.
fn sample_configs(m: &Module, n: usize, seed: u64) -> Vec<Config> {
    let tunables = Tunable::of_module(m);
    let mut rng = Rng(seed);
    let size = tunables
        .iter()
        .try_fold(1usize, |acc, t| acc.checked_mul(t.domain.len()));
    let drawn: Vec<Config> = match size {
        Some(size) if size <= ENUMERATED => {
            let mut all: Vec<Config> = cross_product(&tunables, None)
                .into_iter()
                .map(|values| {
                    values
                        .iter()
                        .fold(Config::defaults(m), |c, (name, &v)| c.with(name, v))
                })
                .collect();
            // Fisher–Yates.
            for i in (1..all.len()).rev() {
                all.swap(i, (rng.next() % (i as u64 + 1)) as usize);
            }
            all
        }
        _ => (0..n * 8)
            .map(|_| {
                let mut cfg = Config::defaults(m);
                for t in &m.tunables {
                    let v = t.domain[(rng.next() % t.domain.len() as u64) as usize];
                    cfg = cfg.with(&t.name.name, v);
                }
                cfg
            })
            .collect(),
    };
    let mut out = vec![Config::defaults(m)];
    for cfg in drawn {
        if out.len() >= n {
            break;
        }
        if !out.contains(&cfg) {
            out.push(cfg);
        }
    }
    out
}

/// The default configuration, if legal, and up to `n - 1` other legal ones with the checker's
/// facts, from the first [`TRIED`] configurations of a sample (see [`sample_configs`]).
fn legal_configs(m: &Module, n: usize, seed: u64) -> Vec<(Config, check::KernelInfo)> {
    let mut out = Vec::new();
    for cfg in sample_configs(m, TRIED, seed) {
        if out.len() >= n {
            break;
        }
        if let Ok(info) = check::check_config(m, &cfg, None, &Limits::default()) {
            out.push((cfg, info));
        }
    }
    out
}

/// `src` with every `tunable NAME in DOMAIN = DEFAULT;` line made `const NAME = DEFAULT;`.
fn freeze_tunables(src: &str) -> String {
    src.lines()
        .map(|l| match l.trim_start().strip_prefix("tunable ") {
            Some(rest) => {
                let name = rest.split_whitespace().next().unwrap_or_default();
                let decl = rest.split(';').next().unwrap_or_default();
                let default = decl.rsplit_once('=').map(|d| d.1.trim()).unwrap_or("0");
                format!("const {name} = {default};")
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every kernel the property is tried on: (what, source).
fn kernels() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for name in kernel_files() {
        let rel = format!("kernels/{name}.co");
        out.push((rel.clone(), read(&rel)));
    }
    for dir in [
        "dsl-core/tests/lowered",
        "dsl-core/tests/lang",
        "tests/data/warp",
    ] {
        let mut files: Vec<_> = std::fs::read_dir(root().join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "co"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no kernels in {dir}");
        for p in files {
            let rel = p.strip_prefix(root()).unwrap().display().to_string();
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
    let corpus = root().join("dsl-core/tests/corpus");
    let mut ok: Vec<_> = std::fs::read_dir(&corpus)
        .expect("dsl-core/tests/corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("ok_"))
        })
        .collect();
    ok.sort();
    for p in ok {
        let rel = p.strip_prefix(root()).unwrap().display().to_string();
        out.push((rel, std::fs::read_to_string(&p).unwrap()));
    }
    let frozen: Vec<(String, String)> = out
        .iter()
        .map(|(what, src)| (format!("{what} (tunables frozen)"), freeze_tunables(src)))
        .collect();
    out.extend(frozen);
    out
}

#[test]
fn check_ok_implies_emit_ok_implies_nvrtc_compiles() {
    let nvrtc = nvrtc_available("check_ok_implies_emit_ok_implies_nvrtc_compiles");
    let mut checked = 0;
    let mut compiled = 0;
    // Kernels with tunables, and how many of them had a legal configuration besides the default
    // in the sample.
    let (mut tunable_kernels, mut beyond_default) = (0, 0);
    let mut kernels_checked = 0;
    for (i, (what, src)) in kernels().into_iter().enumerate() {
        let Ok(parsed) = dsl_core::parse::parse_str(&src, Some(&what)) else {
            continue;
        };
        // The launch form, which `tessel emit`, the runtime and the macro lower.
        let m = dsl_core::lower::launch_form(parsed.module);
        let mut to_compile = COMPILED;
        let legal = legal_configs(&m, CHECKED, 0x7e55e1 + i as u64);
        if !legal.is_empty() {
            kernels_checked += 1;
        }
        if !m.tunables.is_empty() && !legal.is_empty() {
            tunable_kernels += 1;
            if legal.iter().any(|(c, _)| *c != Config::defaults(&m)) {
                beyond_default += 1;
            }
        }
        for (cfg, info) in legal {
            checked += 1;
            let k = dsl_core::lower::lower(&m, &info)
                .unwrap_or_else(|d| panic!("{what} at {cfg:?} checks but does not lower:\n{d}"));
            let values: Vec<i64> = k
                .tunables
                .iter()
                .map(|t| cfg.get(&t.name).expect("a value per tunable"))
                .collect();
            let expr = k.name_expression(&values);
            let cu = codegen_cuda::emit(&codegen_cuda::Emit {
                kernel: &k,
                source: &what,
                instance: Some(values),
            });
            if !nvrtc || to_compile == 0 {
                continue;
            }
            to_compile -= 1;
            let arch = match k.path {
                KernelPath::Simt => Arch::Sm80,
                KernelPath::Hopper => Arch::Sm90a,
            };
            let module = compile(&CompileRequest::new(cu, arch).name_expression(expr.clone()))
                .unwrap_or_else(|e| {
                    panic!("{what} `{expr}` for {arch}: emitted but NVRTC failed: {e}")
                });
            assert!(
                module.lowered_name(&expr).is_some(),
                "{what}: no lowered name for `{expr}`"
            );
            compiled += 1;
        }
    }
    assert!(checked > 100, "only {checked} configurations checked");
    assert!(kernels_checked > 80, "only {kernels_checked} kernels check");
    // Most kernels with tunables have legal configurations besides their default.
    assert!(
        beyond_default * 4 > tunable_kernels * 3,
        "only {beyond_default} of {tunable_kernels} kernels with tunables were tried beyond their default"
    );
    if nvrtc {
        assert!(compiled > 30, "only {compiled} instances compiled");
    }
    eprintln!(
        "{kernels_checked} kernels, {checked} configurations checked and emitted, {compiled} compiled; \
         {beyond_default} of {tunable_kernels} kernels with tunables beyond their default"
    );
}

#[test]
fn the_sample_is_deterministic_and_starts_at_the_defaults() {
    let m = dsl_core::parse::parse_str(&read("kernels/v4_tuned.co"), None)
        .unwrap()
        .module;
    let a = sample_configs(&m, 10, 1);
    assert_eq!(a, sample_configs(&m, 10, 1));
    assert_eq!(a[0], Config::defaults(&m));
    assert_eq!(a.len(), 10);
    assert_ne!(a, sample_configs(&m, 10, 2));
}
