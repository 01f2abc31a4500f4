//! Register-A WGMMA with a `frag` of ones as the A operand (`kernels/wgmma_regs_fill.co`): every
//! output row is the row sums of `rhs`, `out[m, n] = Σ_k rhs[n, k]`, accumulated by
//! `wgmma.mma_async` with A in registers. Each shape is verified over the full output against
//! an f64 host computation and timed (one aligned shape, one ragged in M, N and K; the ragged K
//! tail reads zeros from TMA). The GEMM form (`kernels/wgmma_regs_a.co`, `mma.load.frag`) is
//! checked against cuBLAS by `tessel run`.
//!
//! Run: `cargo run --release --example register_a -- [--retune]`

use std::sync::Arc;

use tessel::runtime::dtype::DType;
use tessel::runtime::tune::job::{Fill, HostTensor, Job, Reference, parse_key};
use tessel::runtime::tune::{self, TuneError, TuneOptions, Tuner};
use tessel_harness::exit;

tessel::gemm_kernel!(file = "kernels/wgmma_regs_fill.co");

/// The row-sum kernel at key `M=…,N=…,K=…`.
fn job(key: &str) -> Result<Job, String> {
    let d = parse_key(key)?;
    let (m, n, k) = (d["M"], d["N"], d["K"]);
    Ok(Job::new("register_a", &rowsum::KERNEL, key)
        .input(&[n, k], DType::BF16, Fill::Random { seed: 7 })
        .output(&[m, n], DType::F32)
        .reference(Reference::Host(Arc::new(move |t: &[HostTensor]| {
            let b = &t[0].data;
            let sums: Vec<f64> = (0..n).map(|j| b[j * k..(j + 1) * k].iter().sum()).collect();
            (0..m * n).map(|i| sums[i % n]).collect()
        })))
        // The products x · 1 are exact; only the tensor cores' f32 additions round, each by at
        // most 2^-24 of the partial sum, K = 1024 of them on partial sums of bf16 values in
        // [-1, 1) that stay near √K · 0.6 ≈ 20: K · 2^-24 · 32 ≈ 2e-3 bounds the drift.
        .tolerance(2e-3, 1e-4)
        .flops(2.0 * (m * n * k) as f64))
}

fn run(retune: bool) -> Result<bool, exit::Error> {
    let mut ok = true;
    for key in ["M=1024,N=1024,K=1024", "M=1000,N=904,K=1000"] {
        let j = job(key)?;
        let (name, jkey) = (j.name.clone(), j.key.clone());
        let opts = TuneOptions {
            retune,
            progress: Some(tessel_harness::progress::stderr()),
            ..TuneOptions::default()
        };
        let out = match Tuner::job(j, opts).and_then(|t| t.run()) {
            Ok(o) => o,
            Err(TuneError::NoGpu(e)) => return Err(exit::Error::NoGpu(e)),
            Err(e) => return Err(e.to_string().into()),
        };
        println!("== {name} [{jkey}] ({})", out.dtypes);
        print!("{}", out.table(5));
        println!("{}", out.winner_line());
        for w in &out.warnings {
            eprintln!("register_a: warning: {w}");
        }
        ok &= out.winner.is_some();
    }
    Ok(ok)
}

fn main() {
    // A copy of this program re-launched by the tuner serves the trials and exits here.
    tune::worker_main_jobs(&[("register_a", &job)]);
    let retune = std::env::args().any(|a| a == "--retune");
    std::process::exit(exit::finish("register_a", run(retune)));
}
