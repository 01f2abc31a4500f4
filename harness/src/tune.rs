//! The `main` of a tuning example (`v4_tuned`): tune the kernel's main tunables, print the
//! sweep, then hand the winner to the GEMM example runner ([`crate::gemm::run`]), which writes
//! the winning `.cu` and measures it against cuBLAS in this process.
//!
//! Flags: the GEMM examples' ([`GemmArgs`]; `--set` pins a tunable) plus [`TuneArgs`].

use std::path::PathBuf;
use std::time::Instant;

use dsl_core::def::KernelDef;
use tessel_runtime::tune::probe::parse_gpu_list;
use tessel_runtime::tune::{Budget, Shape, Shard, Strategy, Target, TuneError, TuneOptions, Tuner};

use crate::exit;
use crate::gemm::GemmArgs;

/// The tunables swept by default: the ones that decide a Hopper GEMM's tile and pipeline.
pub const DEFAULT_SPACE: [&str; 4] = ["WARP_N", "STAGES", "CONSUMERS", "TILE_K"];

/// The tuner's flags.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TuneArgs {
    /// Search strategy: brute, random or halving
    #[arg(long, default_value = "brute", value_parser = |s: &str| s.parse::<Strategy>())]
    pub strategy: Strategy,
    /// Budget: a count of configs (50) or seconds (30s)
    #[arg(long, value_parser = |s: &str| s.parse::<Budget>())]
    pub budget: Option<Budget>,
    /// Seed of the random strategy
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Ignore the cache and sweep again
    #[arg(long)]
    pub retune: bool,
    /// Time every config fully (no early stop of configs a probe shows slower than the best so far by 25%)
    #[arg(long)]
    pub no_early_stop: bool,
    /// GPU indices to tune on, e.g. 0,1 [default: every GPU of the first one's model]
    #[arg(long, value_parser = |s: &str| parse_gpu_list(s).map(GpuList))]
    pub gpus: Option<GpuList>,
    /// Time only shard i of n of the sweep (e.g. 0/4); merge the shards' caches afterwards
    #[arg(long, value_parser = |s: &str| s.parse::<Shard>())]
    pub shard: Option<Shard>,
    /// Folder of the CSV / JSON / SVG exports [default: TARGET/tessel/EXAMPLE]
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The tunable that colours the chart
    #[arg(long)]
    pub color: Option<String>,
    /// The tunables swept, comma-separated (the others stay at their defaults)
    #[arg(long, value_delimiter = ',')]
    pub sweep: Option<Vec<String>>,
}

/// `--gpus 0,1`: GPU indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuList(pub Vec<usize>);

impl TuneArgs {
    /// The `--gpus` list.
    pub fn gpu_list(&self) -> Option<Vec<usize>> {
        self.gpus.as_ref().map(|g| g.0.clone())
    }
}

/// A tuning example's command line.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Tunes a tessel GEMM kernel in fault-isolated worker processes, prints the sweep, then verifies and times the winner against cuBLAS",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct TuneCli {
    #[command(flatten)]
    pub gemm: GemmArgs,
    #[command(flatten)]
    pub tune: TuneArgs,
}

/// Narrows `target` to the swept tunables (`sweep`, default [`DEFAULT_SPACE`]): the others
/// stay at their defaults unless `sets` (`--set NAME=V`) gives them a value, which also pins a
/// swept one. Returns the sweep.
pub fn restrict(
    target: &mut Target,
    sweep: Option<&[String]>,
    sets: &[(String, i64)],
    kernel: &str,
) -> Result<Vec<String>, String> {
    restrict_in(target, sweep, sets, kernel, &DEFAULT_SPACE)
}

/// [`restrict`] with another default sweep than [`DEFAULT_SPACE`] (a kernel of other tunables).
pub fn restrict_in(
    target: &mut Target,
    sweep: Option<&[String]>,
    sets: &[(String, i64)],
    kernel: &str,
    default: &[&str],
) -> Result<Vec<String>, String> {
    let sweep: Vec<String> = sweep
        .map(<[String]>::to_vec)
        .unwrap_or_else(|| default.iter().map(|s| s.to_string()).collect());
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
    let cli = match exit::parse::<TuneCli>(example, args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    exit::finish(example, run(def, example, &cli))
}

/// A GEMM example that runs its defaults (verified against cuBLAS and timed), or with `--tune`
/// tunes `space` (the tunables swept unless `--sweep` names others) first and runs the winner.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Runs a tessel GEMM kernel: writes its .cu, verifies it against cuBLAS over the full output and times both; with --tune, tunes it first in fault-isolated worker processes and runs the winner",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct GemmTuneCli {
    #[command(flatten)]
    pub gemm: GemmArgs,
    /// Tune before running: sweep the kernel's main tunables and run the fastest verified one
    #[arg(long)]
    pub tune: bool,
    #[command(flatten)]
    pub tuner: TuneArgs,
}

/// The `main` of a GEMM example with an optional `--tune` over `space`; returns the exit code.
pub fn gemm_tune_main(
    def: &'static KernelDef,
    example: &str,
    space: &[&str],
    args: &[String],
) -> i32 {
    let cli = match exit::parse::<GemmTuneCli>(example, args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = if cli.tune {
        run_in(def, example, &cli.gemm, &cli.tuner, space)
    } else {
        crate::gemm::run(def, example, &cli.gemm.opts(example))
    };
    exit::finish(example, result)
}

fn run(def: &'static KernelDef, example: &str, cli: &TuneCli) -> Result<bool, exit::Error> {
    run_in(def, example, &cli.gemm, &cli.tune, &DEFAULT_SPACE)
}

fn run_in(
    def: &'static KernelDef,
    example: &str,
    gemm: &GemmArgs,
    f: &TuneArgs,
    space: &[&str],
) -> Result<bool, exit::Error> {
    let o = gemm.opts(example);
    let mut target = Target::dsl(def, o.variant).map_err(|e| e.to_string())?;
    let sweep = restrict_in(&mut target, f.sweep.as_deref(), &o.sets, def.name, space)
        .map_err(exit::Error::Usage)?;
    let color = f.color.clone().unwrap_or_else(|| {
        sweep
            .iter()
            .find(|s| s.as_str() == "STAGES")
            .or(sweep.first())
            .cloned()
            .unwrap_or_default()
    });
    let shape = Shape::new(o.m, o.n, o.k);
    // A trial is one launch, a full-output check on the GPU and ~25 timed launches: even at a slow 50 TFLOP/s
    // that is 25 × flops / 50e12 seconds; the watchdog allows 5 s more than 40 launches.
    let trial_timeout = std::time::Duration::from_secs_f64(5.0 + 40.0 * shape.flops() / 50e12);
    let opts = TuneOptions {
        trial_timeout,
        strategy: f.strategy,
        budget: f.budget,
        seed: f.seed,
        retune: f.retune,
        early_stop: if f.no_early_stop {
            None
        } else {
            TuneOptions::default().early_stop
        },
        gpus: f.gpu_list(),
        shard: f.shard,
        progress: Some(crate::progress::stderr()),
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
            return crate::gemm::run(def, example, &o);
        }
        Err(e) => return Err(e.to_string().into()),
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
    if let Some(p) = outcome.phase_line() {
        println!("{p}");
    }
    print!("{}", outcome.table(10));
    println!("{}", outcome.winner_line());
    if let Some(r) = outcome.roofline() {
        println!("{r}");
    }
    let out_dir = f
        .out
        .clone()
        .unwrap_or_else(|| crate::out::example_dir(example));
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
    for w in &outcome.warnings {
        eprintln!("{example}: warning: {w}");
    }
    if let Some(s) = f.shard {
        println!(
            "shard    {s} timed; merge the shards' caches (`tessel cache merge` / `import`) and run again without --shard to pick the winner"
        );
        return Ok(true);
    }
    let Some(w) = &outcome.winner else {
        return Err("no configuration verified; nothing to run".into());
    };
    let mut run_opts = o.clone();
    run_opts.sets = w.config.iter().map(|(k, v)| (k.clone(), *v)).collect();
    println!("--- the winner against cuBLAS ---");
    crate::gemm::run(def, example, &run_opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(v: &[&str]) -> Result<TuneCli, clap::Error> {
        TuneCli::try_parse_from(std::iter::once("v4_tuned").chain(v.iter().copied()))
    }

    #[test]
    fn tune_flags_beside_gemm_flags() {
        let c = parse(&[
            "--m=4096",
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
            "--shard",
            "1/4",
            "--sweep",
            "WARP_N,STAGES",
        ])
        .unwrap();
        let f = &c.tune;
        assert_eq!(f.strategy, Strategy::Halving);
        assert_eq!(f.budget, Some(Budget::Seconds(30.0)));
        assert_eq!(f.gpu_list(), Some(vec![0, 1]));
        assert_eq!((f.seed, f.retune), (9, true));
        assert_eq!(f.shard, Some(Shard { index: 1, count: 4 }));
        assert_eq!(
            f.sweep,
            Some(vec!["WARP_N".to_string(), "STAGES".to_string()])
        );
        assert_eq!(c.gemm.m, Some(4096));
        assert_eq!(c.gemm.sets, vec![("STAGES".to_string(), 2)]);
        assert!(parse(&["--strategy", "greedy"]).is_err());
        assert!(parse(&["--budget"]).is_err());
        assert!(parse(&["--gpus", "a"]).is_err());
        assert!(parse(&["--shard", "4/4"]).is_err());
    }
}
