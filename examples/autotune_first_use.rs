//! `autotuned(…).tune_on_first_use(…)`: each new problem shape is tuned on its first launch
//! (when the cache has no winner for it), then served by its winner — in this process and, from
//! the tune cache, in later ones. Run it twice: the second run answers every shape from the cache.
//!
//! Run: `cargo run --release --example autotune_first_use -- [--cache DIR] [--budget 6]`

use std::time::Instant;

use clap::Parser;
use half::f16;
use tessel::prelude::*;
use tessel::runtime::kernel::LaunchArg;
use tessel::runtime::tune::{Budget, Strategy, TuneOptions};
use tessel::runtime::verify;

gemm_kernel! {
    tunable TILE_M in [8, 16, 32] = 32;
    tunable TILE_N in [8, 16, 32] = 32;
    __co__ void hgemm(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] out) {
      parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, TILE_N)] : block,
               {thr_m, thr_n} by [TILE_M, TILE_N] : thread {
        f32 acc = 0.0f;
        foreach {iv_k} in [K]
          acc += lhs.at(block_m # thr_m, iv_k) * rhs.at(block_n # thr_n, iv_k);
        out.at(block_m # thr_m, block_n # thr_n) = acc;
      }
    }
}

/// Tune-on-first-use of an autotuned handle, shape by shape.
#[derive(Parser, Debug)]
#[command(
    version,
    about = "Autotuned launches that tune each new shape on first use, then answer from the cache",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
struct Cli {
    /// The tune cache folder (default: a folder under the system's temporary folder)
    #[arg(long, value_name = "DIR")]
    cache: Option<std::path::PathBuf>,
    /// Configurations timed per new shape (random strategy)
    #[arg(long, default_value_t = 6)]
    budget: usize,
}

fn main() {
    // A copy of this program re-launched by the tuner serves trials and exits here.
    tessel::runtime::tune::worker_main_if_requested(&[&hgemm::KERNEL]);
    let cli = Cli::parse();
    std::process::exit(match run(&cli) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err((code, msg)) => {
            eprintln!("autotune_first_use: {msg}");
            code
        }
    });
}

fn run(cli: &Cli) -> Result<bool, (i32, String)> {
    let e = |x: &dyn std::fmt::Display| (4, x.to_string());
    let dev = Device::open(0).map_err(|x| (3, x.to_string()))?;
    let stream = dev.stream().clone();
    let cache = cli
        .cache
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("tessel-autotune-first-use"));
    let opts = TuneOptions {
        strategy: Strategy::Random,
        budget: Some(Budget::Count(cli.budget)),
        ..TuneOptions::default()
    };
    let tuned = hgemm::autotuned(&stream)
        .map_err(|x| e(&x))?
        .with_tune_cache(&cache)
        .tune_on_first_use(opts);
    let mut ok = true;
    for (m, n, k) in [(512, 256, 128), (256, 512, 128), (512, 256, 128)] {
        let lhs = DeviceTensor::<f16>::random(&dev, &[m, k], 5).map_err(|x| e(&x))?;
        let rhs = DeviceTensor::<f16>::random(&dev, &[n, k], 6).map_err(|x| e(&x))?;
        let mut out = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).map_err(|x| e(&x))?;
        let t = Instant::now();
        tuned
            .launch(lhs.view(), rhs.view(), out.view_mut())
            .map_err(|x| e(&x))?;
        let first_ms = t.elapsed().as_secs_f64() * 1e3;
        let args = [
            LaunchArg::from(lhs.view()),
            rhs.view().into(),
            out.view().into(),
        ];
        let cfg = tuned.runtime().handle_for(&args).map_err(|x| e(&x))?;
        let want = verify::host_gemm_nt(
            &lhs.to_host().map_err(|x| e(&x))?,
            &rhs.to_host().map_err(|x| e(&x))?,
            m,
            n,
            k,
        );
        let tol = verify::gemm_tolerance(
            tessel::runtime::dtype::DType::F16,
            tessel::runtime::dtype::DType::F32,
            tessel::runtime::dtype::DType::F16,
            k,
        );
        let v = verify::verify_f64(&out.to_host().map_err(|x| e(&x))?, &want, tol)
            .map_err(|x| e(&x))?;
        ok &= v.passed();
        let config: Vec<String> = cfg
            .config()
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!(
            "shape    {m}x{n}x{k}: {} (first launch {first_ms:.0} ms) verify={}",
            config.join(" "),
            if v.passed() { "ok" } else { "FAILED" }
        );
    }
    println!("cache    {}", cache.display());
    Ok(ok)
}
