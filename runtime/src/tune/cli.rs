//! The `main` of a tuning example (`v4_tuned`): tune seed 004's space, print the sweep, then
//! hand the winner to the GEMM example runner ([`crate::example::gemm_main`]), which writes the
//! winning `.cu` and measures it against cuBLAS in this process.
//!
//! Flags: the GEMM examples' (`--m --n --k --dtype --acc --set NAME=V --runs`; `--set` pins a
//! tunable) plus `--strategy brute|random|halving`, `--budget N|Ns`, `--seed S`, `--retune`,
//! `--gpus 0,1`, `--out DIR` (CSV / JSON / SVG; default `target/tessel/<example>/`),
//! `--color NAME` (the tunable that colours the chart), `--sweep A,B,…` (the tunables swept;
//! the others stay at their defaults; default: seed 004's WARP_N, STAGES, CONSUMERS, TILE_K).

use std::path::PathBuf;
use std::time::Instant;

use dsl_core::def::KernelDef;

use super::probe::parse_gpu_list;
use super::{Budget, Shape, Strategy, Target, TuneError, TuneOptions, Tuner};
use crate::example::{GEMM_USAGE, gemm_main, parse_opts};

/// The tunables seed 004 swept for v4.
pub const SEED_004_SPACE: [&str; 4] = ["WARP_N", "STAGES", "CONSUMERS", "TILE_K"];

pub const TUNE_USAGE: &str = "tuning flags: --strategy brute|random|halving, --budget N|Ns, --seed S, --retune, --gpus 0,1, --out DIR, --color NAME, --sweep A,B";

/// Tuning flags, and the remaining (GEMM example) flags.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneFlags {
    pub strategy: Strategy,
    pub budget: Option<Budget>,
    pub seed: u64,
    pub retune: bool,
    pub gpus: Option<Vec<usize>>,
    pub out: Option<PathBuf>,
    pub color: Option<String>,
    pub sweep: Option<Vec<String>>,
    pub rest: Vec<String>,
}

/// Splits the tuning flags from the GEMM example flags.
pub fn parse_tune_flags(args: &[String]) -> Result<TuneFlags, String> {
    let mut f = TuneFlags {
        strategy: Strategy::Brute,
        budget: None,
        seed: 0,
        retune: false,
        gpus: None,
        out: None,
        color: None,
        sweep: None,
        rest: Vec::new(),
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--retune" {
            f.retune = true;
            i += 1;
            continue;
        }
        let tune_flag = matches!(
            a,
            "--strategy" | "--budget" | "--seed" | "--gpus" | "--out" | "--color" | "--sweep"
        );
        if !tune_flag {
            f.rest.push(args[i].clone());
            i += 1;
            continue;
        }
        let v = args.get(i + 1).ok_or(format!("`{a}` needs a value"))?;
        match a {
            "--strategy" => f.strategy = v.parse()?,
            "--budget" => f.budget = Some(v.parse()?),
            "--seed" => {
                f.seed = v
                    .parse()
                    .map_err(|_| format!("seed `{v}` is not a number"))?
            }
            "--gpus" => f.gpus = Some(parse_gpu_list(v)?),
            "--out" => f.out = Some(PathBuf::from(v)),
            "--color" => f.color = Some(v.clone()),
            _ => f.sweep = Some(v.split(',').map(|s| s.trim().to_string()).collect()),
        }
        i += 2;
    }
    Ok(f)
}

/// Narrows `target` to the swept tunables (`--sweep`, default seed 004's four): the others stay
/// at their defaults unless `sets` (`--set NAME=V`) gives them a value, which also pins a swept
/// one. Returns the sweep.
pub fn restrict(
    target: &mut Target,
    sweep: Option<&[String]>,
    sets: &[(String, i64)],
    kernel: &str,
) -> Result<Vec<String>, String> {
    let sweep: Vec<String> = sweep
        .map(<[String]>::to_vec)
        .unwrap_or_else(|| SEED_004_SPACE.iter().map(|s| s.to_string()).collect());
    let names: Vec<(String, i64)> = target
        .tunables
        .iter()
        .map(|t| (t.name.clone(), t.default))
        .collect();
    for s in &sweep {
        if !names.iter().any(|(n, _)| n == s) {
            return Err(format!("--sweep: `{s}` is not a tunable of `{kernel}`"));
        }
    }
    for (n, d) in &names {
        if !sweep.contains(n) && !sets.iter().any(|(s, _)| s == n) {
            target.pin(n, *d).map_err(|e| e.to_string())?;
        }
    }
    for (n, v) in sets {
        target.pin(n, *v).map_err(|e| e.to_string())?;
    }
    Ok(sweep)
}

/// Tunes, reports, then runs the winner through the GEMM example; returns the exit code.
pub fn tune_main(def: &'static KernelDef, example: &str, args: &[String]) -> i32 {
    match run(def, example, args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("{example}: {msg}");
            1
        }
    }
}

fn run(def: &'static KernelDef, example: &str, args: &[String]) -> Result<i32, String> {
    let usage = |e: String| format!("{e}\n{GEMM_USAGE}\n{TUNE_USAGE}");
    let f = parse_tune_flags(args).map_err(usage)?;
    let o = parse_opts(example, &f.rest).map_err(usage)?;
    let mut target = Target::dsl(def, o.variant).map_err(|e| e.to_string())?;
    let sweep = restrict(&mut target, f.sweep.as_deref(), &o.sets, def.name)?;
    let color = f.color.clone().unwrap_or_else(|| {
        sweep
            .iter()
            .find(|s| s.as_str() == "STAGES")
            .or(sweep.first())
            .cloned()
            .unwrap_or_default()
    });
    let shape = Shape::new(o.m, o.n, o.k);
    // A trial is one launch, a download and ~25 timed launches: even at a slow 50 TFLOP/s
    // that is 25 × flops / 50e12 seconds; the watchdog allows 5 s more than 40 launches.
    let trial_timeout = std::time::Duration::from_secs_f64(5.0 + 40.0 * shape.flops() / 50e12);
    let opts = TuneOptions {
        trial_timeout,
        strategy: f.strategy,
        budget: f.budget,
        seed: f.seed,
        retune: f.retune,
        gpus: f.gpus.clone(),
        ..TuneOptions::default()
    };
    println!(
        "tune     {} {} ({}), {} strategy, sweeping {}",
        def.name,
        shape.text(),
        target.dtypes(),
        f.strategy,
        sweep.join(", ")
    );
    let t0 = Instant::now();
    let outcome = match Tuner::new(target, shape, opts).run() {
        Ok(o) => o,
        Err(TuneError::NoGpu(why)) => {
            println!("tune     no GPU to tune on ({why}); the default config follows");
            return Ok(gemm_main(def, example, &f.rest));
        }
        Err(e) => return Err(e.to_string()),
    };
    let secs = t0.elapsed().as_secs_f64();
    println!("{}", outcome.filter);
    let gpus: Vec<String> = outcome
        .gpus
        .iter()
        .map(|g| format!("{} {}", g.index, g.name))
        .collect();
    println!("gpus     {}", gpus.join(", "));
    if let Some(n) = &outcome.gpu_note {
        println!("gpus     {n}");
    }
    if outcome.from_cache {
        println!(
            "cache    answered from {} in {secs:.3} s (--retune to sweep again)",
            outcome.cache_path.display()
        );
    } else {
        println!(
            "swept    in {secs:.1} s: {} trials ({} from the cache), {} worker start(s){}; cache {}",
            outcome.trials.len(),
            outcome.resumed,
            outcome.worker_starts,
            if outcome.over_budget > 0 {
                format!(", {} over the time budget", outcome.over_budget)
            } else {
                String::new()
            },
            outcome.cache_path.display()
        );
    }
    print!("{}", outcome.table(10));
    println!("{}", outcome.winner_line());
    if let Some(r) = outcome.roofline() {
        println!("{r}");
    }
    let out_dir = f
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("target/tessel").join(example));
    match outcome.write_exports(&out_dir, &format!("{}_tune", def.name), &color) {
        Ok(files) => {
            let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
            println!("exports  {}", names.join(", "));
        }
        Err(e) => eprintln!(
            "{example}: cannot write the exports to {}: {e}",
            out_dir.display()
        ),
    }
    let Some(w) = &outcome.winner else {
        return Err("no configuration verified; nothing to run".into());
    };
    let mut rest = f.rest.clone();
    for (k, v) in &w.config {
        rest.push("--set".into());
        rest.push(format!("{k}={v}"));
    }
    println!("--- the winner against cuBLAS ---");
    Ok(gemm_main(def, example, &rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn tune_flags_are_split_from_gemm_flags() {
        let f = parse_tune_flags(&s(&[
            "--m",
            "4096",
            "--retune",
            "--strategy",
            "halving",
            "--budget",
            "30s",
            "--gpus",
            "0,1",
            "--set",
            "STAGES=2",
            "--seed",
            "9",
        ]))
        .unwrap();
        assert_eq!(f.strategy, Strategy::Halving);
        assert_eq!(f.budget, Some(Budget::Seconds(30.0)));
        assert_eq!(f.gpus, Some(vec![0, 1]));
        assert_eq!((f.seed, f.retune), (9, true));
        assert_eq!(f.rest, s(&["--m", "4096", "--set", "STAGES=2"]));
        assert!(parse_tune_flags(&s(&["--strategy", "greedy"])).is_err());
        assert!(parse_tune_flags(&s(&["--budget"])).is_err());
        assert!(parse_tune_flags(&s(&["--gpus", "a"])).is_err());
    }
}
