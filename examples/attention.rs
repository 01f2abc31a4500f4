//! Attention kernels on GPU 0, each output verified element by element against an f64 host
//! computation in the same process, at two shapes (one aligned, one ragged in every
//! dimension), causal and not:
//!
//! - `kernels/head_scores.co`: the scores s = (q · kᵀ) / √D of each (batch, head), -inf above
//!   the causal diagonal (keys ending `T − S` positions after the queries). Futures copy tiles
//!   of the heads' rank-reducing views (`.sqz()`) into fresh shared buffers.
//!
//! - `kernels/flash_attention.co`: o = softmax(q · kᵀ / √D) · v (D = 64), one 64-key tile at a
//!   time with a running row maximum and sum, the probabilities an f16 register-A WGMMA
//!   operand; v is passed transposed ([D, T] per head).
//!
//! Tolerance for the attention output: |got − ref| ≤ 1.5e-3 (every output is a convex
//! combination of values in [−1, 1], so |o| ≤ 1). The kernel rounds each probability to f16
//! before the P·V product (relative error ≤ 2⁻¹¹ ≈ 4.9e-4 of each term, so ≤ 4.9e-4 · max|v| on
//! the output) and stores o as f16 (another ≤ 4.9e-4); the f32 scores, exponentials and sums
//! add well under 1e-5.
//!
//! - `kernels/wgmma_head_scores.co`: the same scores (not masked) on tensor cores, the operand
//!   tiles stored swizzled by the block's threads from the heads' `.sqz()` views.
//!
//! Tolerance for the scores: |got − ref| ≤ 1e-5 + 5e-5 · Σ_d |q_d · k_d| / √D. The inputs are
//! f16 values (exact in f32) and their products exact in f32; the kernels sum D products in
//! f32 (in order with `fmaf`, or in the tensor cores' f32 accumulation), so the sum's error is
//! below D · 2⁻²³ · Σ|q_d · k_d| (≈ 8.6e-6 of it at D = 72, counting a truncated rather than
//! rounded tensor-core addition), and `rsqrtf` or the f32 scale add at most 2 ulps.
//!
//! Run on a GPU: `cargo run --release --example attention`

use tessel::prelude::*;
use tessel::runtime::dsl::{Instance, Prepared, TensorArg, module_cache};
use tessel::runtime::dtype::DType;

tessel::gemm_kernel!(file = "kernels/head_scores.co");
tessel::gemm_kernel!(file = "kernels/flash_attention.co");
tessel::gemm_kernel!(file = "kernels/wgmma_head_scores.co");

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

/// The scores kernel at `sh`, causal or not — `kernels/head_scores.co`, or with `wgmma` set
/// `kernels/wgmma_head_scores.co` (tensor cores; no mask, the scale a parameter): the number
/// of elements outside the tolerance.
fn scores(dev: &Device, sh: Shape, causal: bool, wgmma: bool) -> Res<usize> {
    let Shape { b, h, s, t, d } = sh;
    let (q, qh) = f16s(dev, &[b, h, s, d], 21)?;
    let (k, kh) = f16s(dev, &[b, h, t, d], 22)?;
    let out = DeviceTensor::<f32>::poisoned(dev, &[b, h, s, t])?;
    let scale = 1.0 / (d as f64).sqrt();
    if wgmma {
        let args = [
            q.as_arg(),
            k.as_arg(),
            TensorArg::scalar(DType::F32, scale),
            out.as_arg(),
        ];
        launch(
            dev,
            &wgmma_head_scores::KERNEL,
            &wgmma_head_scores::config(),
            &args,
        )?;
    } else {
        let args = [
            q.as_arg(),
            k.as_arg(),
            TensorArg::scalar(DType::S32, if causal { 1.0 } else { 0.0 }),
            out.as_arg(),
        ];
        launch(dev, &head_scores::KERNEL, &head_scores::config(), &args)?;
    }
    let got = out.to_host()?;
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
                if !((g - want).abs() <= 1e-5 + 5e-5 * mag * scale) {
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

/// The flash attention kernel at `sh` (D = 64), causal or not: the number of elements outside
/// the tolerance.
fn flash(dev: &Device, sh: Shape, causal: bool) -> Res<usize> {
    let Shape { b, h, s, t, d } = sh;
    let (q, qh) = f16s(dev, &[b, h, s, d], 31)?;
    let (k, kh_) = f16s(dev, &[b, h, t, d], 32)?;
    // v's values (the kernel reads them transposed, below).
    let (_, vh) = f16s(dev, &[b, h, t, d], 33)?;
    // v transposed per head: vt[bh, x, j] = v[bh, j, x].
    let mut vt_host = vec![f16::ZERO; b * h * d * t];
    for bh in 0..b * h {
        for j in 0..t {
            for x in 0..d {
                vt_host[(bh * d + x) * t + j] = f16::from_f64(vh[(bh * t + j) * d + x]);
            }
        }
    }
    let vt = DeviceTensor::<f16>::from_host(dev, &[b, h, d, t], &vt_host)?;
    let out = DeviceTensor::<f16>::poisoned(dev, &[b, h, s, d])?;
    let args = [
        q.as_arg(),
        k.as_arg(),
        vt.as_arg(),
        TensorArg::scalar(DType::S32, if causal { 1.0 } else { 0.0 }),
        out.as_arg(),
    ];
    launch(
        dev,
        &flash_attention::KERNEL,
        &flash_attention::config(),
        &args,
    )?;
    let got = out.to_host()?;
    let scale = 1.0 / (d as f64).sqrt();
    let past = t as i64 - s as i64;
    let mut bad = 0;
    for bh in 0..b * h {
        for i in 0..s {
            let keys = if causal {
                ((i as i64 + past + 1).clamp(0, t as i64)) as usize
            } else {
                t
            };
            let sc: Vec<f64> = (0..keys)
                .map(|j| {
                    (0..d)
                        .map(|x| qh[(bh * s + i) * d + x] * kh_[(bh * t + j) * d + x])
                        .sum::<f64>()
                        * scale
                })
                .collect();
            let mx = sc.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = sc.iter().map(|x| (x - mx).exp()).collect();
            let sum: f64 = w.iter().sum();
            for x in 0..d {
                let want: f64 = (0..keys)
                    .map(|j| w[j] * vh[(bh * t + j) * d + x])
                    .sum::<f64>()
                    / sum;
                let g = got[(bh * s + i) * d + x].to_f64();
                if !((g - want).abs() <= 1.5e-3) {
                    if bad < 5 {
                        eprintln!(
                            "flash_attention {sh:?} causal={causal}: o[{bh}, {i}, {x}] = {g}, want {want}"
                        );
                    }
                    bad += 1;
                }
            }
        }
    }
    Ok(bad)
}

fn report(what: &str, sh: Shape, causal: bool, r: Res<usize>) -> bool {
    match r {
        Ok(bad) => {
            println!(
                "{what} {sh:?} causal={causal}: {}",
                if bad == 0 {
                    "ok".to_string()
                } else {
                    format!("FAILED ({bad} elements)")
                }
            );
            bad == 0
        }
        Err(e) => {
            eprintln!("attention: {what}: {e}");
            std::process::exit(4);
        }
    }
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
            ok &= report("head_scores", sh, causal, scores(&dev, sh, causal, false));
        }
        ok &= report(
            "wgmma_head_scores",
            sh,
            false,
            scores(&dev, sh, false, true),
        );
    }
    // The flash kernel's head dimension is 64; the ragged shape is ragged in S and T.
    let flash_shapes = [
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
            d: 64,
        },
    ];
    for sh in flash_shapes {
        for causal in [false, true] {
            ok &= report("flash_attention", sh, causal, flash(&dev, sh, causal));
        }
    }
    std::process::exit(if ok { 0 } else { 1 });
}
