//! The sweep behind every tuned example (SGEMM k7/k8, the Kernel Tuner trio, GEMV), and the
//! helpers the examples share.
//!
//! ```text
//! legal_configs   every tunable assignment (cross product of the domains) that passes every
//!                 check for this problem and device: the kernel's `require`s ARE the filter
//! pick            at most `budget` of them, always the default, an even stride otherwise
//! neighbors       the legal configurations one or two domain steps from a given one
//! precompile      NVRTC on all cores, into the module cache
//! sweep_with      evaluate (the caller launches, verifies, times) three quarters of the budget
//!                 picked by stride, then the rest on the neighbors of the fastest verified
//!                 (a coarse pass, then a local one); fastest verified wins, and is remembered
//! sweep_cached    the remembered winner for this kernel source, device and problem when a
//!                 sweep of at least this budget found it, else sweep_with
//! ```
//!
//! Winners are remembered in `<tune cache>/sweep/` ([`crate::tune::store::default_dir`]: set
//! `TESSEL_TUNE_CACHE` to move it), one small text file per (kernel source, device, problem).

use std::path::PathBuf;
use std::sync::Arc;

use dsl_core::check::{self, Config, Limits, Problem};
use dsl_core::def::KernelDef;
use dsl_core::ir::Module;

use crate::dsl::{Prepared, module_cache};
use crate::nvrtc::{Arch, CompileRequest};
use crate::timing::Timing;

/// `NAME=V`.
pub fn parse_set(v: &str) -> Result<(String, i64), String> {
    let (k, val) = v.split_once('=').ok_or("--set takes NAME=VALUE")?;
    let val = val
        .parse()
        .map_err(|_| format!("`{val}` is not an integer"))?;
    Ok((k.to_string(), val))
}

/// The kernel's default configuration with `sets` applied.
pub fn config_with(def: &KernelDef, sets: &[(String, i64)]) -> Result<Config, String> {
    let mut cfg = def.default_config();
    for (k, v) in sets {
        if !cfg.values.contains_key(k) {
            return Err(format!("`{k}` is not a tunable of `{}`", def.name));
        }
        cfg.values.insert(k.clone(), *v);
    }
    Ok(cfg)
}

/// `BM=128 BN=128 …` in declaration order.
pub fn config_text(def: &KernelDef, cfg: &Config) -> String {
    def.tunables
        .iter()
        .map(|t| format!("{}={}", t.name, cfg.get(t.name).unwrap_or(t.default)))
        .collect::<Vec<_>>()
        .join(" ")
}

// ---- the sweep -------------------------------------------------------------------------------

/// Every tunable assignment of `m` that passes every check for `problem` under `limits`, in
/// domain order (the first tunable varies slowest).
pub fn legal_configs(m: &Module, problem: &Problem, limits: &Limits) -> Vec<Config> {
    let mut all = vec![Config::defaults(m)];
    for t in &m.tunables {
        all = all
            .into_iter()
            .flat_map(|c| {
                t.domain
                    .iter()
                    .map(move |&v| c.clone().with(&t.name.name, v))
            })
            .collect();
    }
    all.into_iter()
        .filter(|c| check::check_config(m, c, Some(problem), limits).is_ok())
        .collect()
}

/// At most `budget` of `configs`, always including `keep` when it is among them: all of them
/// when they fit, else `keep` and an even stride through the rest (deterministic).
pub fn pick(configs: &[Config], budget: usize, keep: &Config) -> Vec<Config> {
    if configs.len() <= budget {
        return configs.to_vec();
    }
    let mut out: Vec<Config> = configs.iter().filter(|c| *c == keep).cloned().collect();
    let want = budget.saturating_sub(out.len()).max(1);
    let step = configs.len() as f64 / want as f64;
    for i in 0..want {
        let c = &configs[((i as f64 * step) as usize).min(configs.len() - 1)];
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    out
}

/// The configurations of `legal` that differ from `from` in one tunable by one step of its
/// domain, then those that differ in two (coupled tunables, like WM and WNITER, often move
/// together), in `legal`'s order.
pub fn neighbors(m: &Module, legal: &[Config], from: &Config) -> Vec<Config> {
    let step = |c: &Config| -> Option<usize> {
        let mut changed = 0;
        for t in &m.tunables {
            let (a, b) = (from.get(&t.name.name)?, c.get(&t.name.name)?);
            if a == b {
                continue;
            }
            let (ia, ib) = (
                t.domain.iter().position(|&v| v == a)?,
                t.domain.iter().position(|&v| v == b)?,
            );
            if ia.abs_diff(ib) > 1 {
                return None;
            }
            changed += 1;
        }
        (1..=2).contains(&changed).then_some(changed)
    };
    let mut out: Vec<(usize, Config)> = legal
        .iter()
        .filter_map(|c| step(c).map(|n| (n, c.clone())))
        .collect();
    out.sort_by_key(|x| x.0);
    out.into_iter().map(|x| x.1).collect()
}

/// Compiles the instances of `configs` with NVRTC on all cores (into the module cache, where
/// [`Instance::new`](crate::dsl::Instance::new) finds them). Returns the configurations that compiled and, for the others,
/// the error.
pub fn precompile(
    p: &Arc<Prepared>,
    configs: &[Config],
    arch: Arch,
) -> (Vec<Config>, Vec<(Config, String)>) {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(configs.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<(usize, Result<(), String>)>> = Default::default();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(cfg) = configs.get(i) else { break };
                    let expr = p.kernel.name_expression(&p.template_values(cfg));
                    let req = CompileRequest::new(p.cuda.clone(), arch).name_expression(expr);
                    let r = module_cache()
                        .get_or_compile(&req)
                        .map(|_| ())
                        .map_err(|e| e.to_string());
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, r));
                }
            });
        }
    });
    let mut r = results.into_inner().unwrap_or_else(|e| e.into_inner());
    r.sort_by_key(|x| x.0);
    let (mut ok, mut bad) = (Vec::new(), Vec::new());
    for (i, res) in r {
        match res {
            Ok(()) => ok.push(configs[i].clone()),
            Err(e) => bad.push((configs[i].clone(), e)),
        }
    }
    (ok, bad)
}

/// One timed configuration of a sweep.
#[derive(Clone, Debug)]
pub struct Trial {
    pub config: Config,
    pub median_ms: f64,
    pub verified: bool,
}

/// The sweep: the legal configurations of `p` for `problem` on this device, at most `budget`
/// of them, compiled in parallel, then `eval`uated one by one (`eval` returns whether the
/// output verified and the median time). Three quarters of the budget go to an even stride
/// through the legal space (always with the default), the rest to the neighbors of the three
/// fastest verified configurations of that pass. The fastest verified one wins; it is
/// remembered for [`sweep_cached`].
pub fn sweep_with(
    p: &Arc<Prepared>,
    problem: &Problem,
    info: &crate::device::DeviceInfo,
    budget: usize,
    mut eval: impl FnMut(&Config) -> Result<(bool, f64), String>,
) -> Result<Option<Config>, String> {
    let def = p.def;
    let limits = Limits {
        max_smem_per_block: info.max_smem_per_block_optin.max(0) as u64,
        ..Limits::default()
    };
    let arch = info.tessel_arch().ok_or("unsupported GPU")?;
    let legal = legal_configs(&p.module, problem, &limits);
    let coarse = if legal.len() <= budget {
        budget
    } else {
        budget - budget / 4
    };
    let chosen = pick(&legal, coarse.max(1), &def.default_config());
    println!(
        "sweep    {}: {} legal configurations (of {}), timing {}{}; compiling with NVRTC …",
        def.name,
        legal.len(),
        def.tunables
            .iter()
            .map(|t| t.domain.len())
            .product::<usize>(),
        chosen.len(),
        if chosen.len() < budget.min(legal.len()) {
            format!(
                " by stride, then up to {} neighbors of the fastest",
                budget - chosen.len()
            )
        } else {
            String::new()
        }
    );
    let mut trials = Vec::new();
    let mut failed = Vec::new();
    let mut run =
        |configs: Vec<Config>, trials: &mut Vec<Trial>, failed: &mut Vec<(Config, String)>| {
            let (compiled, bad) = precompile(p, &configs, arch);
            failed.extend(bad);
            let n = compiled.len();
            for (i, cfg) in compiled.into_iter().enumerate() {
                if i > 0 && i % 32 == 0 {
                    let best = trials
                        .iter()
                        .filter(|t| t.verified)
                        .map(|t| t.median_ms)
                        .fold(f64::INFINITY, f64::min);
                    println!("sweep    {i}/{n} timed, fastest verified so far {best:.4} ms");
                }
                match eval(&cfg) {
                    Ok((verified, median_ms)) => trials.push(Trial {
                        config: cfg,
                        median_ms,
                        verified,
                    }),
                    Err(e) => failed.push((cfg, e)),
                }
            }
        };
    run(chosen.clone(), &mut trials, &mut failed);
    let left = budget.saturating_sub(chosen.len());
    if left > 0 && chosen.len() < legal.len() {
        let mut best: Vec<&Trial> = trials.iter().filter(|t| t.verified).collect();
        best.sort_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
        let mut local: Vec<Config> = Vec::new();
        // Round-robin over the three best's neighbor lists, nearest first.
        let lists: Vec<Vec<Config>> = best
            .iter()
            .take(3)
            .map(|t| neighbors(&p.module, &legal, &t.config))
            .collect();
        let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
        'fill: for i in 0..longest {
            for l in &lists {
                if let Some(c) = l.get(i)
                    && !chosen.contains(c)
                    && !local.contains(c)
                {
                    local.push(c.clone());
                    if local.len() == left {
                        break 'fill;
                    }
                }
            }
        }
        if !local.is_empty() {
            println!(
                "sweep    {}: {} neighbors of the fastest {} …",
                def.name,
                local.len(),
                lists.len()
            );
            run(local, &mut trials, &mut failed);
        }
    }
    if let Some((cfg, e)) = failed.first() {
        println!(
            "sweep    e.g. {} failed: {}",
            config_text(def, cfg),
            first_line(e)
        );
    }
    let winner = report_sweep(def, &mut trials, failed.len());
    if let Some(w) = &winner {
        let ms = trials
            .iter()
            .find(|t| t.config == *w)
            .map(|t| t.median_ms)
            .unwrap_or(0.0);
        remember(p, problem, info, budget, w, ms);
    }
    Ok(winner)
}

// ---- remembered winners ----------------------------------------------------------------------

/// The file that remembers the winner for this kernel source, device and problem.
fn cache_path(p: &Prepared, problem: &Problem, info: &crate::device::DeviceInfo) -> PathBuf {
    let mut h = crate::hash::StableHasher::new();
    h.str(&p.cuda).str(&info.name).str(&info.arch);
    for (k, v) in &problem.dims {
        h.str(k).u64(*v as u64);
    }
    crate::tune::store::default_dir()
        .join("sweep")
        .join(format!("{}-{}.txt", p.def.name, h.finish().short()))
}

/// Writes `budget B`, `ms X` and `config NAME=V …` lines (best effort: a read-only cache only
/// costs the next run a sweep).
fn remember(
    p: &Prepared,
    problem: &Problem,
    info: &crate::device::DeviceInfo,
    budget: usize,
    winner: &Config,
    ms: f64,
) {
    let path = cache_path(p, problem, info);
    let text = format!(
        "# tessel sweep winner: {} on {} ({}), problem {:?}\nbudget {budget}\nms {ms}\nconfig {}\n",
        p.def.name,
        info.name,
        info.arch,
        problem.dims,
        winner
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = crate::cache::write_atomic(&path, text.as_bytes());
}

/// The remembered winner and the budget of the sweep that found it, if any; a file that does
/// not parse, or names a tunable `p` does not have, is ignored.
pub fn remembered(
    p: &Prepared,
    problem: &Problem,
    info: &crate::device::DeviceInfo,
) -> Option<(Config, usize)> {
    let text = std::fs::read_to_string(cache_path(p, problem, info)).ok()?;
    let names: Vec<&str> = p.def.tunables.iter().map(|t| t.name).collect();
    parse_remembered(&text, &names)
}

/// The winner and budget of a remembered sweep, when every tunable in `names` (and no other)
/// has a value.
fn parse_remembered(text: &str, names: &[&str]) -> Option<(Config, usize)> {
    let mut budget = None;
    let mut cfg = None;
    for line in text.lines() {
        if let Some(b) = line.strip_prefix("budget ") {
            budget = b.trim().parse::<usize>().ok();
        } else if let Some(c) = line.strip_prefix("config ") {
            let mut values = std::collections::BTreeMap::new();
            for kv in c.split_whitespace() {
                let (k, v) = parse_set(kv).ok()?;
                names.contains(&k.as_str()).then_some(())?;
                values.insert(k, v);
            }
            cfg = Some(Config { values });
        }
    }
    let cfg = cfg?;
    (cfg.values.len() == names.len()).then_some((cfg, budget?))
}

/// [`sweep_with`], unless a sweep of at least `budget` configurations already found the winner
/// for this kernel source, device and problem (then that winner; the caller verifies and times
/// it as usual). Returns the winner and whether it came from the cache.
pub fn sweep_cached(
    p: &Arc<Prepared>,
    problem: &Problem,
    info: &crate::device::DeviceInfo,
    budget: usize,
    eval: impl FnMut(&Config) -> Result<(bool, f64), String>,
) -> Result<Option<(Config, bool)>, String> {
    if let Some((cfg, b)) = remembered(p, problem, info)
        && b >= budget
    {
        println!(
            "sweep    {}: winner of an earlier sweep of {b} configurations (cached): {}",
            p.def.name,
            config_text(p.def, &cfg)
        );
        return Ok(Some((cfg, true)));
    }
    Ok(sweep_with(p, problem, info, budget, eval)?.map(|c| (c, false)))
}

/// Prints the sweep's fastest verified trials and returns the winner.
pub fn report_sweep(def: &KernelDef, trials: &mut [Trial], failed: usize) -> Option<Config> {
    trials.sort_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
    let ok: Vec<&Trial> = trials.iter().filter(|t| t.verified).collect();
    println!(
        "sweep    {} configurations timed, {} failed verification, {failed} did not compile or launch; fastest:",
        trials.len(),
        trials.len() - ok.len()
    );
    for t in ok.iter().take(10) {
        println!(
            "         {:>9.4} ms  {}",
            t.median_ms,
            config_text(def, &t.config)
        );
    }
    ok.first().map(|t| t.config.clone())
}

/// Timing rounds per side (interleaved: tessel, cuBLAS, tessel, …).
pub const ROUNDS: usize = 3;

/// Median of the rounds' medians; min and max over all rounds.
pub fn combine(rounds: &[Timing], flops: Option<f64>) -> Timing {
    let mut med: Vec<f64> = rounds.iter().map(|t| t.median_ms).collect();
    med.sort_by(|a, b| a.total_cmp(b));
    let median_ms = med[med.len() / 2];
    Timing {
        median_ms,
        min_ms: rounds
            .iter()
            .map(|t| t.min_ms)
            .fold(f64::INFINITY, f64::min),
        max_ms: rounds.iter().map(|t| t.max_ms).fold(0.0, f64::max),
        mean_ms: rounds.iter().map(|t| t.mean_ms).sum::<f64>() / rounds.len() as f64,
        runs: rounds.iter().map(|t| t.runs).sum(),
        tflops: flops.map(|f| f / (median_ms * 1e-3) / 1e12),
    }
}

/// The first line of a message.
pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

/// Writes `target/tessel/<example>/<kernel>.cu` for `cfg`; returns the path.
pub fn write_cuda(p: &Prepared, example: &str, cfg: &Config) -> Result<std::path::PathBuf, String> {
    let dir = std::path::Path::new("target/tessel").join(example);
    let path = dir.join(format!("{}.cu", p.def.name));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(&path, p.instantiated_cuda(cfg))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// No GPU: compile the instance with NVRTC when possible, then one sentence.
pub fn no_gpu(p: &Prepared, cfg: &Config, why: &str) -> String {
    let arch = match p.kernel.path {
        dsl_core::lower::KernelPath::Hopper => Arch::Sm90a,
        dsl_core::lower::KernelPath::Simt => Arch::Sm80,
    };
    let expr = p.kernel.name_expression(&p.template_values(cfg));
    let req = CompileRequest::new(p.cuda.clone(), arch).name_expression(&expr);
    let compiled = match module_cache().get_or_compile(&req) {
        Ok(_) => format!("compiled `{expr}` for {} with NVRTC", arch.as_str()),
        Err(e) => format!("did not compile it ({})", first_line(&e.to_string())),
    };
    format!("no GPU to run on ({why}); wrote the .cu and {compiled}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(name: &str) -> Module {
        let path = format!("{}/../kernels/{name}.co", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        dsl_core::parse::parse_str(&text, Some(&path))
            .unwrap()
            .module
    }

    fn square(d: i64) -> Problem {
        Problem::default().with("M", d).with("N", d).with("K", d)
    }

    #[test]
    fn kernel_tuner_restrictions_filter_like_the_tutorial() {
        // kt_shared: square blocks only — the tutorial's 2 configurations.
        let legal = legal_configs(&module("kt_shared"), &square(4096), &Limits::default());
        let pairs: Vec<(i64, i64)> = legal
            .iter()
            .map(|c| {
                (
                    c.get("block_size_x").unwrap(),
                    c.get("block_size_y").unwrap(),
                )
            })
            .collect();
        assert_eq!(pairs, vec![(16, 16), (32, 32)]);
        // kt_tiled: block_size_x == block_size_y * tile_size_y and at most 1024 threads: 8
        // (block, tile_size_y) pairs × 3 tile_size_x, less the 3 with 64 × 32 threads. (The
        // tutorial's log shows 20 of these 21.)
        let legal = legal_configs(&module("kt_tiled"), &square(4096), &Limits::default());
        assert!(legal.iter().all(|c| c.get("block_size_x").unwrap()
            == c.get("block_size_y").unwrap() * c.get("tile_size_y").unwrap()));
        assert_eq!(legal.len(), 21);
    }

    #[test]
    fn sgemm_k7_filter_matches_seed_000() {
        // The seed's Python filter (plus BM % TM == 0, BN % TN == 0) keeps 210 of 324 tuples.
        let legal = legal_configs(
            &module("sgemm_k7_autotune"),
            &square(4096),
            &Limits::default(),
        );
        assert_eq!(legal.len(), 210);
        let winner = Config::defaults(&module("sgemm_k7_autotune"));
        assert!(
            legal.contains(&winner),
            "the H100 winner 128/128/16/8/8 is legal"
        );
        for c in &legal {
            let g = |n: &str| c.get(n).unwrap();
            let threads = g("BM") * g("BN") / (g("TM") * g("TN"));
            assert!((64..=1024).contains(&threads));
            assert_eq!(g("BM") * g("BK") % (4 * threads), 0);
        }
    }

    #[test]
    fn sgemm_k8_filter_keeps_warp_shaped_configurations() {
        // Cross-checked with a Python transcription of the `require`s: 1443 of 5832, 929 with
        // MINB = 1 (1064 pass the per-thread register ceiling, 135 of those need more than
        // 65536 / THREADS) and 514 with MINB = 2 (registers under 65536 / (2 × THREADS)).
        let m = module("sgemm_k8_warptile");
        let legal = legal_configs(&m, &square(4096), &Limits::default());
        assert_eq!(legal.len(), 1443);
        let two = legal.iter().filter(|c| c.get("MINB") == Some(2)).count();
        assert_eq!(two, 514);
        assert!(legal.contains(&Config::defaults(&m)));
        for c in &legal {
            let g = |n: &str| c.get(n).unwrap();
            let wmiter = g("WM") * g("WN") / (32 * g("TM") * g("TN") * g("WNITER"));
            let (wsubm, wsubn) = (g("WM") / wmiter, g("WN") / g("WNITER"));
            assert_eq!(
                (wsubm / g("TM")) * (wsubn / g("TN")),
                32,
                "a warp covers a sub-tile"
            );
        }
    }

    #[test]
    fn neighbors_are_one_or_two_domain_steps_away() {
        let m = module("sgemm_k8_warptile");
        let legal = legal_configs(&m, &square(4096), &Limits::default());
        let from = Config::defaults(&m);
        let nb = neighbors(&m, &legal, &from);
        assert!(nb.len() >= 4, "{} neighbors", nb.len());
        let steps = |c: &Config| {
            m.tunables
                .iter()
                .filter(|t| c.get(&t.name.name) != from.get(&t.name.name))
                .map(|t| {
                    let i = |c: &Config| {
                        t.domain
                            .iter()
                            .position(|&v| Some(v) == c.get(&t.name.name))
                            .unwrap()
                    };
                    i(c).abs_diff(i(&from))
                })
                .collect::<Vec<_>>()
        };
        let mut changed = Vec::new();
        for c in &nb {
            assert!(legal.contains(c) && *c != from);
            let s = steps(c);
            assert!(
                (1..=2).contains(&s.len()) && s.iter().all(|&d| d == 1),
                "{s:?}"
            );
            changed.push(s.len());
        }
        assert!(
            changed.windows(2).all(|w| w[0] <= w[1]),
            "one-step moves first"
        );
    }

    #[test]
    fn remembered_winners_parse_back() {
        let text = "# tessel sweep winner\nbudget 48\nms 1.5\nconfig BK=16 BM=128\n";
        let (cfg, budget) = parse_remembered(text, &["BM", "BK"]).unwrap();
        assert_eq!(
            (cfg.get("BM"), cfg.get("BK"), budget),
            (Some(128), Some(16), 48)
        );
        // A tunable the kernel does not have, a missing one, or no budget: not a winner.
        assert!(parse_remembered(text, &["BM"]).is_none());
        assert!(parse_remembered(text, &["BM", "BK", "TM"]).is_none());
        assert!(parse_remembered("config BK=16 BM=128", &["BM", "BK"]).is_none());
    }

    #[test]
    fn pick_keeps_the_default_and_respects_the_budget() {
        let m = module("sgemm_k7_autotune");
        let legal = legal_configs(&m, &square(4096), &Limits::default());
        let keep = Config::defaults(&m);
        let p = pick(&legal, 16, &keep);
        assert!(p.len() <= 16 && p.contains(&keep));
        assert_eq!(pick(&legal, 1000, &keep).len(), legal.len());
    }
}
