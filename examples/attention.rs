//! Attention kernels on GPU 0, each output verified element by element against an f64 host
//! computation in the same process, at two shapes (one aligned, one ragged in every
//! dimension), causal and not:
//!
//! - `kernels/head_scores.co`: the scores s = (q · kᵀ) / √D of each (batch, head), -inf above
//!   the causal diagonal (keys ending `T − S` positions after the queries). Futures copy tiles
//!   of the heads' rank-reducing views (`.sqz()`) into fresh shared buffers.
//!
//! Tolerance for the scores: |got − ref| ≤ 1e-5 + 1e-5 · Σ_d |q_d · k_d| / √D. The inputs are
//! f16 values (exact in f32) and their products exact in f32; the kernel sums D products with
//! `fmaf` in order, so the sum's error is below D · 2⁻²⁴ · Σ|q_d · k_d| (≈ 7.6e-6 of it at
//! D = 128), and `rsqrtf` adds at most 2 ulps.
//!
//! Run on a GPU: `cargo run --release --example attention`

use tessel::prelude::*;
use tessel::runtime::dsl::{Instance, Prepared, TensorArg, module_cache};
use tessel::runtime::dtype::DType;

tessel::gemm_kernel!(file = "kernels/head_scores.co");

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Shape of one attention problem: batch, heads, queries, keys, head dimension.
#[derive(Clone, Copy, Debug)]
struct Shape {
    b: usize,
    h: usize,
    s: usize,
    t: usize,
    d: usize,
}

fn f16s(dev: &Device, n: &[usize], seed: u64) -> Res<(DeviceTensor<f16>, Vec<f64>)> {
    let x = DeviceTensor::<f16>::random(dev, n, seed)?;
    let host = x.to_host()?.iter().map(|v| v.to_f64()).collect();
    Ok((x, host))
}

/// Launches `def` (its default configuration) on `args`.
fn launch(dev: &Device, def: &'static KernelDef, cfg: &Config, args: &[TensorArg]) -> Res<()> {
    let prepared = Prepared::get(def, Default::default())?;
    let problem = prepared.bind(args)?;
    let inst = Instance::new(dev, module_cache(), prepared.clone(), cfg, &problem)?;
    let kargs = inst.args(args)?;
    inst.launch(&kargs)?;
    dev.synchronize()?;
    Ok(())
}

/// The scores kernel at `sh`, causal or not: the number of elements outside the tolerance.
fn scores(dev: &Device, sh: Shape, causal: bool) -> Res<usize> {
    let Shape { b, h, s, t, d } = sh;
    let (q, qh) = f16s(dev, &[b, h, s, d], 21)?;
    let (k, kh) = f16s(dev, &[b, h, t, d], 22)?;
    let out = DeviceTensor::<f32>::poisoned(dev, &[b, h, s, t])?;
    let args = [
        q.as_arg(),
        k.as_arg(),
        TensorArg::scalar(DType::S32, if causal { 1.0 } else { 0.0 }),
        out.as_arg(),
    ];
    launch(dev, &head_scores::KERNEL, &head_scores::config(), &args)?;
    let got = out.to_host()?;
    let scale = 1.0 / (d as f64).sqrt();
    let past = t as i64 - s as i64;
    let mut bad = 0;
    for bh in 0..b * h {
        for i in 0..s {
            for j in 0..t {
                let g = f64::from(got[(bh * s + i) * t + j]);
                if causal && j as i64 > i as i64 + past {
                    if g != f64::NEG_INFINITY {
                        bad += 1;
                    }
                    continue;
                }
                let (mut dot, mut mag) = (0.0, 0.0);
                for x in 0..d {
                    let p = qh[(bh * s + i) * d + x] * kh[(bh * t + j) * d + x];
                    dot += p;
                    mag += p.abs();
                }
                let want = dot * scale;
                if !((g - want).abs() <= 1e-5 + 1e-5 * mag * scale) {
                    if bad < 5 {
                        eprintln!(
                            "head_scores {sh:?} causal={causal}: s[{bh}, {i}, {j}] = {g}, want {want}"
                        );
                    }
                    bad += 1;
                }
            }
        }
    }
    Ok(bad)
}

fn main() {
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("attention needs a CUDA GPU: {e}");
            std::process::exit(3);
        }
    };
    let shapes = [
        Shape {
            b: 2,
            h: 4,
            s: 256,
            t: 256,
            d: 64,
        },
        Shape {
            b: 3,
            h: 2,
            s: 100,
            t: 173,
            d: 72,
        },
    ];
    let mut ok = true;
    for sh in shapes {
        for causal in [false, true] {
            match scores(&dev, sh, causal) {
                Ok(bad) => {
                    println!(
                        "head_scores {sh:?} causal={causal}: {}",
                        if bad == 0 {
                            "ok".to_string()
                        } else {
                            format!("FAILED ({bad} elements)")
                        }
                    );
                    ok &= bad == 0;
                }
                Err(e) => {
                    eprintln!("attention: {e}");
                    std::process::exit(4);
                }
            }
        }
    }
    std::process::exit(if ok { 0 } else { 1 });
}
