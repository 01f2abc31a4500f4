//! The general tuner on kernels of one's own, each checked against the user's reference:
//!
//! * an f32 tiled GEMM `c = a · b` (`kernels/kt_tiled.co`), referenced by cuBLAS in the NN layout;
//! * an f16 GEMV `y = W · x` (`kernels/gemv_direct.co`) on two shapes, referenced by a CPU
//!   function in f64.
//!
//! Every config runs in a worker process (verified over the full output, then timed), results
//! go to the tune cache under the key a launch derives from its tensors, and the end shows the
//! launch-time lookup (`tune::winner_for`) picking each shape's own winner.
//!
//! Run: `cargo run --release --example tune_user -- [--budget 40] [--retune]`

use std::sync::Arc;

use tessel::runtime::dtype::DType;
use tessel::runtime::tune::job::{Fill, GemmLayout, HostTensor, Job, Reference, parse_key};
use tessel::runtime::tune::{self, Budget, Strategy, TuneError, TuneOptions, Tuner};
use tessel_harness::exit;
use tessel_harness::user::UserCli;

tessel::gemm_kernel!(file = "kernels/kt_tiled.co");
tessel::gemm_kernel!(file = "kernels/gemv_direct.co");

/// f32 `c[M,N] = a[M,K] · b[K,N]`, key `K=… M=… N=…`.
fn sgemm_job(key: &str) -> Result<Job, String> {
    let d = parse_key(key)?;
    let (m, n, k) = (d["M"], d["N"], d["K"]);
    Ok(Job::new("user_sgemm", &kt_tiled::KERNEL, key)
        .input(&[m, k], DType::F32, Fill::Random { seed: 1 })
        .input(&[k, n], DType::F32, Fill::Random { seed: 2 })
        .output(&[m, n], DType::F32)
        .reference(Reference::Cublas(GemmLayout::Nn))
        .tolerance(1e-5, 1e-4)
        .flops(2.0 * (m * n * k) as f64))
}

/// f16 `y[N] = W[N,K] · x[K]`, key `K=… N=…`, checked in f64 on the host.
fn gemv_job(key: &str) -> Result<Job, String> {
    let d = parse_key(key)?;
    let (n, k) = (d["N"], d["K"]);
    Ok(Job::new("user_gemv", &gemv_direct::KERNEL, key)
        .input(&[n, k], DType::F16, Fill::Random { seed: 11 })
        .input(&[k], DType::F16, Fill::Random { seed: 12 })
        .output(&[n], DType::F16)
        .reference(Reference::Host(Arc::new(move |t: &[HostTensor]| {
            let (w, x) = (&t[0].data, &t[1].data);
            (0..n)
                .map(|i| (0..k).map(|j| w[i * k + j] * x[j]).sum())
                .collect()
        })))
        // f16 output: half an ulp of the result plus the f32 accumulation's error.
        .tolerance(1e-3, 2e-3)
        .flops(2.0 * (n * k) as f64))
}

fn run(cli: &UserCli) -> Result<bool, exit::Error> {
    let opts = || TuneOptions {
        strategy: if cli.budget.is_some() {
            Strategy::Random
        } else {
            Strategy::Brute
        },
        budget: cli.budget.map(Budget::Count),
        retune: cli.retune,
        progress: Some(tessel_harness::progress::stderr()),
        ..TuneOptions::default()
    };
    let tune_one = |job: Job| -> Result<bool, exit::Error> {
        let name = job.name.clone();
        let key = job.key.clone();
        let out = match Tuner::job(job, opts()).and_then(|t| t.run()) {
            Ok(o) => o,
            Err(TuneError::NoGpu(e)) => return Err(exit::Error::NoGpu(e)),
            Err(e) => return Err(e.to_string().into()),
        };
        println!("== {name} [{key}] ({})", out.dtypes);
        print!("{}", out.table(5));
        println!("{}", out.winner_line());
        for w in &out.warnings {
            eprintln!("tune_user: warning: {w}");
        }
        Ok(out.winner.is_some())
    };
    let mut ok = true;
    let sgemm_key = sgemm_job("M=2048,N=2048,K=2048")?
        .dims_key()
        .map_err(exit::Error::Runtime)?;
    ok &= tune_one(sgemm_job(&sgemm_key)?)?;
    let mut gemv_keys = Vec::new();
    for (n, k) in [(4096, 4096), (16384, 1024)] {
        let key = gemv_job(&format!("N={n},K={k}"))?
            .dims_key()
            .map_err(exit::Error::Runtime)?;
        ok &= tune_one(gemv_job(&key)?)?;
        gemv_keys.push(key);
    }
    // What a loaded kernel's `autotuned` launch does: the cached winner for its own shapes.
    tune::lookup::refresh();
    for key in &gemv_keys {
        match tune::winner_for("gemv_direct", key) {
            Some(c) => println!(
                "lookup   gemv_direct [{key}] → {}",
                tune::record::config_text(&c.values)
            ),
            None => {
                println!("lookup   gemv_direct [{key}] → none");
                ok = false;
            }
        }
    }
    Ok(ok)
}

fn main() {
    // First: a copy of this program re-launched by the tuner serves trials and exits here.
    tune::worker_main_jobs(&[("user_sgemm", &sgemm_job), ("user_gemv", &gemv_job)]);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cli = match exit::parse::<UserCli>("tune_user", &args) {
        Ok(c) => c,
        Err(code) => std::process::exit(code),
    };
    std::process::exit(exit::finish("tune_user", run(&cli)));
}
