//! Block-scaled fp8 GEMM (`kernels/wgmma_fp8_blockscale.co`, `mma.row.row.scale`): e4m3 operands,
//! per-row f32 scales of `lhs` and one f32 scale per 128 × 128 block of `rhs`, for every K block
//! of 128. Each shape is verified over the full output against an f64 host computation of
//! `out[m, n] = Σ_kb sa[m, kb] · sb[n / 128, kb] · Σ_{k in kb} lhs[m, k] · rhs[n, k]` and timed
//! (one aligned shape, one ragged in M, N and K); and the same for per-tensor scales
//! (`kernels/wgmma_fp8_scaled.co`: one f32 value per operand); and the block-scaled GEMM with the
//! scales applied once per K block by a standalone `mma.scale` (`kernels/wgmma_fp8_blockscale_acc.co`).
//!
//! Run: `cargo run --release --example blockscale -- [--retune]`

use std::sync::Arc;

use tessel::runtime::dtype::DType;
use tessel::runtime::tune::job::{Fill, HostTensor, Job, Reference, parse_key};
use tessel::runtime::tune::{self, TuneError, TuneOptions, Tuner};
use tessel_harness::exit;

tessel::gemm_kernel!(file = "kernels/wgmma_fp8_blockscale.co");
mod per_block {
    tessel::gemm_kernel!(file = "kernels/wgmma_fp8_blockscale_acc.co");
}
mod per_tensor {
    tessel::gemm_kernel!(file = "kernels/wgmma_fp8_scaled.co");
}

/// The block-scaled GEMM at key `M=…,N=…,K=…,KB=…,NB=…` (KB = ⌈K/128⌉, NB = ⌈N/128⌉).
fn job(key: &str) -> Result<Job, String> {
    scaled_job("blockscale", &matmul::KERNEL, key)
}

/// The same GEMM with the scales applied once per K block (`kernels/wgmma_fp8_blockscale_acc.co`,
/// a standalone `mma.scale`).
fn per_block_job(key: &str) -> Result<Job, String> {
    scaled_job("blockscale_acc", &per_block::matmul::KERNEL, key)
}

fn scaled_job(name: &str, kernel: &'static tessel::KernelDef, key: &str) -> Result<Job, String> {
    let d = parse_key(key)?;
    let (m, n, k, kb, nb) = (d["M"], d["N"], d["K"], d["KB"], d["NB"]);
    if kb != k.div_ceil(128) || nb != n.div_ceil(128) {
        return Err(format!("{key}: KB must be ⌈K/128⌉ and NB ⌈N/128⌉"));
    }
    Ok(Job::new(name, kernel, key)
        .input(&[m, k], DType::F8E4M3, Fill::Random { seed: 1 })
        .input(&[m, kb], DType::F32, Fill::Random { seed: 2 })
        .input(&[n, k], DType::F8E4M3, Fill::Random { seed: 3 })
        .input(&[nb, kb], DType::F32, Fill::Random { seed: 4 })
        .output(&[m, n], DType::F16)
        .reference(Reference::Host(Arc::new(move |t: &[HostTensor]| {
            let (a, sa, b, sb) = (&t[0].data, &t[1].data, &t[2].data, &t[3].data);
            let mut out = vec![0.0; m * n];
            for i in 0..m {
                for j in 0..n {
                    let mut acc = 0.0;
                    for q in 0..kb {
                        let block = q * 128..((q + 1) * 128).min(k);
                        let p: f64 = block.map(|x| a[i * k + x] * b[j * k + x]).sum();
                        acc += sa[i * kb + q] * sb[(j / 128) * kb + q] * p;
                    }
                    out[i * n + j] = acc;
                }
            }
            out
        })))
        // f16 output: half an ulp (2^-11 relative); each 32-product WGMMA step accumulates at
        // reduced precision (about 2^-13 of its partial) before the f32 scaling, so a small
        // absolute term covers sums near zero.
        .tolerance(2e-2, 2e-3)
        .flops(2.0 * (m * n * k) as f64))
}

/// The per-tensor-scaled fp8 GEMM (`kernels/wgmma_fp8_scaled.co`) at key `M=…,N=…,K=…`:
/// `out = scale_a · scale_b · (lhs · rhsᵀ)`.
fn per_tensor_job(key: &str) -> Result<Job, String> {
    let d = parse_key(key)?;
    let (m, n, k) = (d["M"], d["N"], d["K"]);
    Ok(Job::new("fp8_scaled", &per_tensor::matmul::KERNEL, key)
        .input(&[m, k], DType::F8E4M3, Fill::Random { seed: 5 })
        .input(&[n, k], DType::F8E4M3, Fill::Random { seed: 6 })
        .input(&[1], DType::F32, Fill::Value(0.75))
        .input(&[1], DType::F32, Fill::Value(-1.5))
        .output(&[m, n], DType::F16)
        .reference(Reference::Host(Arc::new(move |t: &[HostTensor]| {
            let (a, b, s) = (&t[0].data, &t[1].data, t[2].data[0] * t[3].data[0]);
            let mut out = vec![0.0; m * n];
            for i in 0..m {
                for j in 0..n {
                    let p: f64 = (0..k).map(|x| a[i * k + x] * b[j * k + x]).sum();
                    out[i * n + j] = s * p;
                }
            }
            out
        })))
        // As for the block-scaled GEMM (f16 output, 32-product WGMMA steps).
        .tolerance(2e-2, 2e-3)
        .flops(2.0 * (m * n * k) as f64))
}

fn key(m: usize, n: usize, k: usize) -> String {
    format!(
        "M={m},N={n},K={k},KB={},NB={}",
        k.div_ceil(128),
        n.div_ceil(128)
    )
}

fn run(retune: bool) -> Result<bool, exit::Error> {
    let mut ok = true;
    let shapes = [(1024, 1024, 1024), (1000, 904, 1008)];
    let jobs = shapes
        .iter()
        .map(|&(m, n, k)| job(&key(m, n, k)))
        .chain(shapes.iter().map(|&(m, n, k)| per_block_job(&key(m, n, k))))
        .chain(
            shapes
                .iter()
                .map(|&(m, n, k)| per_tensor_job(&format!("M={m},N={n},K={k}"))),
        );
    for j in jobs {
        let j = j?;
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
            eprintln!("blockscale: warning: {w}");
        }
        ok &= out.winner.is_some();
    }
    Ok(ok)
}

fn main() {
    // A copy of this program re-launched by the tuner serves the trials and exits here.
    tune::worker_main_jobs(&[
        ("blockscale", &job),
        ("blockscale_acc", &per_block_job),
        ("fp8_scaled", &per_tensor_job),
    ]);
    let retune = std::env::args().any(|a| a == "--retune");
    std::process::exit(exit::finish("blockscale", run(retune)));
}
