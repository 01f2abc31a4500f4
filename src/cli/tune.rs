//! `tessel tune FILE.co --shape DIM=…,… [--set NAME=V] [--sweep A,B] [--strategy …]
//! [--budget …] [--seed S] [--retune]`: the runtime's tuner on a `.co` file. The tuner's
//! workers are this executable started again with the same arguments (and
//! `TESSEL_TUNE_WORKER=1`), so the kernel they serve is the file's.

use std::fmt::Write as _;

use clap::Args;
use tessel_runtime::tune::{
    self, Budget, Job, Shape, Strategy, Target, TuneError, TuneOptions, TuneSource, Tuner,
    WorkerCommand,
};

use super::exit;
use super::gpu::{ProblemArgs, kernel_def};
use super::source::{Failure, Loaded};
use super::tune_job;

/// Arguments of `tune`.
#[derive(Debug, Clone, Args)]
pub struct TuneArgs {
    #[command(flatten)]
    pub problem: ProblemArgs,
    /// The tunables swept (default: all; `--set` pins one to a value).
    #[arg(long, value_name = "NAME,…", value_delimiter = ',')]
    pub sweep: Option<Vec<String>>,
    /// brute, random or halving.
    #[arg(long, default_value = "brute", value_parser = parse_strategy)]
    pub strategy: Strategy,
    /// Stop after N configurations (`50`) or seconds (`30s`).
    #[arg(long, value_name = "N|Ns", value_parser = parse_budget)]
    pub budget: Option<Budget>,
    /// Seed of the random strategy.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Sweep again instead of answering from the tuning cache.
    #[arg(long)]
    pub retune: bool,
    /// Time every configuration fully: no early stop of those a short probe shows slower than
    /// the best so far by 25%.
    #[arg(long)]
    pub no_early_stop: bool,
    /// Write the trials as CSV, JSON and an SVG chart into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// How many of the fastest configurations to print.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,
}

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    s.parse()
}

fn parse_budget(s: &str) -> Result<Budget, String> {
    s.parse()
}

/// Runs `tune`; `argv` are the command's arguments, which a worker is started with.
///
/// A GEMM the GEMM tuner takes (f16 / bf16, `lhs[M, K]`, `rhs[N, K]`) is swept as one; any
/// other kernel `tessel run` can verify is swept as a general job (`tune_job.rs`).
pub fn run(args: &TuneArgs, argv: &[String]) -> Result<String, Failure> {
    let k = Loaded::load(&args.problem.kernel)?;
    let def = kernel_def(&k);
    // A worker is this command started again: it rebuilds the same job from the same arguments.
    // A registered builder lives for the program (`'static`): it owns its arguments and reads
    // the file again.
    let problem = args.problem.clone();
    let builder = move |key: &str| -> Result<Job, String> {
        let k = Loaded::load(&problem.kernel).map_err(|f| f.text)?;
        let job = tune_job::build(&k, def, &problem).map_err(|f| f.text)?;
        if job.key != key {
            return Err(format!(
                "the worker's arguments give problem `{}`, not `{key}`",
                job.key
            ));
        }
        Ok(job)
    };
    // In a worker process this serves trials and exits; otherwise it returns at once.
    tune::worker_main(&[TuneSource::Dsl(def)], &[(tune_job::JOB_NAME, &builder)]);

    let usage = |m: String| Failure::new(exit::USAGE, m);
    let (mut tuner, problem, flops) = match Target::dsl(def, args.problem.variant()) {
        Ok(target) => {
            let shape = gemm_shape(&args.problem)?;
            let text = shape.text();
            let flops = shape.flops();
            (
                Tuner::new(target, shape, TuneOptions::default()),
                text,
                flops,
            )
        }
        Err(_) => {
            let job = tune_job::build(&k, def, &args.problem)?;
            let text = job.key.clone();
            let flops = job.flops.unwrap_or(0.0);
            let tuner = Tuner::job(job, TuneOptions::default())
                .map_err(|e| Failure::new(exit::RUNTIME, e))?;
            (tuner, text, flops)
        }
    };
    let target = &mut tuner.target;
    let names: Vec<String> = target.tunables.iter().map(|t| t.name.clone()).collect();
    let sweep = args.sweep.clone().unwrap_or_else(|| names.clone());
    for s in &sweep {
        if !names.contains(s) {
            return Err(usage(format!(
                "--sweep: `{s}` is not a tunable of this kernel"
            )));
        }
    }
    let pins: Vec<(String, i64)> = target
        .tunables
        .iter()
        .filter(|t| !sweep.contains(&t.name))
        .map(|t| (t.name.clone(), t.default))
        .chain(args.problem.kernel.sets.iter().cloned())
        .collect();
    for (n, v) in pins {
        target.pin(&n, v).map_err(|e| usage(e.to_string()))?;
    }
    let worker = WorkerCommand {
        program: std::env::current_exe().map_err(|e| {
            Failure::new(exit::RUNTIME, format!("cannot find this executable: {e}"))
        })?,
        args: argv.to_vec(),
        env: Vec::new(),
    };
    // A trial is one launch, a download and ~25 timed launches: even at a slow 50 TFLOP/s
    // that is 25 × flops / 50e12 seconds; the watchdog allows 5 s more than 40 launches.
    let trial_timeout = std::time::Duration::from_secs_f64(5.0 + 40.0 * flops / 50e12);
    tuner.opts = TuneOptions {
        strategy: args.strategy,
        budget: args.budget,
        seed: args.seed,
        retune: args.retune,
        early_stop: if args.no_early_stop {
            None
        } else {
            TuneOptions::default().early_stop
        },
        worker: Some(worker),
        trial_timeout,
        ..TuneOptions::default()
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "tune     {} ({}) {} ({}), {} strategy, sweeping {}",
        tuner.target.name(),
        k.file,
        problem,
        tuner.target.dtypes(),
        args.strategy,
        sweep.join(", ")
    );
    let outcome = match tuner.run() {
        Ok(o) => o,
        Err(TuneError::NoGpu(why)) => {
            return Err(Failure::new(
                exit::NO_GPU,
                format!("no GPU to tune on: {why}"),
            ));
        }
        Err(e) => return Err(Failure::new(exit::RUNTIME, e)),
    };
    let _ = writeln!(out, "{}", outcome.filter);
    if outcome.from_cache {
        let _ = writeln!(
            out,
            "cache    answered from {} (--retune to sweep again)",
            outcome.cache_path.display()
        );
    } else {
        let _ = writeln!(
            out,
            "swept    {} trials ({} from the cache); cache {}",
            outcome.trials.len(),
            outcome.resumed,
            outcome.cache_path.display()
        );
    }
    if let Some(p) = outcome.phase_line() {
        let _ = writeln!(out, "{p}");
    }
    out.push_str(&outcome.table(args.top));
    let _ = writeln!(out, "{}", outcome.winner_line());
    if let Some(dir) = &args.out {
        // The chart colours points by STAGES when it is swept, else by the first swept tunable.
        let color = sweep
            .iter()
            .find(|s| s.as_str() == "STAGES")
            .or(sweep.first())
            .cloned()
            .unwrap_or_default();
        let stem = format!("{}_tune", k.module.kernel.name.name);
        let files = outcome.write_exports(dir, &stem, &color).map_err(|e| {
            Failure::new(
                exit::RUNTIME,
                format!("cannot write to {}: {e}", dir.display()),
            )
        })?;
        let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        let _ = writeln!(out, "exports  {}", names.join(", "));
    }
    match &outcome.winner {
        Some(w) => {
            let sets: Vec<String> = w
                .config
                .iter()
                .map(|(k, v)| format!("--set {k}={v}"))
                .collect();
            let _ = writeln!(
                out,
                "next     tessel run {} --shape {} {}",
                k.file,
                args.problem.shape_text().replace(' ', ","),
                sets.join(" ")
            );
            Ok(out)
        }
        None => Err(Failure {
            text: format!("{out}error: no configuration verified\n"),
            code: exit::FAILED,
        }),
    }
}

/// `M`, `N`, `K` from `--shape`, and no other dimension: the GEMM tuner's problem.
fn gemm_shape(problem: &ProblemArgs) -> Result<Shape, Failure> {
    let usage = |m: String| Failure::new(exit::USAGE, m);
    let dim = |d: &str| {
        problem.dim(d).map(|v| v as usize).ok_or_else(|| {
            usage(format!(
                "the tuner needs --shape M=…,N=…,K=…; `{d}` is missing"
            ))
        })
    };
    let shape = Shape::new(dim("M")?, dim("N")?, dim("K")?);
    if let Some((d, _)) = problem
        .shape
        .iter()
        .find(|(d, _)| !["M", "N", "K"].contains(&d.as_str()))
    {
        return Err(usage(format!(
            "the tuner runs GEMMs of shape M, N, K; `{d}` is not one of them"
        )));
    }
    Ok(shape)
}
