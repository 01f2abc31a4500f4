//! Row softmax and log-softmax with a temperature (`kernels/row_softmax.co`: kernel-scope
//! values, a `bool` scalar parameter, `?:`, warp reductions), run on GPU 0 at two shapes — one
//! aligned, one ragged in both dimensions — in both modes, each output verified element by
//! element against an f64 host computation in the same process.
//!
//! Tolerance: |got − ref| ≤ 1e-6 + 1e-5 · |ref|. The kernel works in f32: each lane sums its
//! ⌈N/32⌉ terms in order and the warp adds the 32 partial sums in a tree, so the sum's relative
//! error stays below (N/32 + 5) · 2⁻²⁴ ≈ 2.2e-6 at N = 1024; `exp2f`, `logf` and the division
//! add a few ulps (≈ 4e-7) on top. The absolute term covers softmax outputs near zero.
//!
//! Run on a GPU: `cargo run --release --example softmax`

use tessel::prelude::*;
use tessel::runtime::dsl::{Instance, Prepared, TensorArg, module_cache};
use tessel::runtime::dtype::DType;

tessel::gemm_kernel!(file = "kernels/row_softmax.co");

/// The f64 reference of one row: softmax(x / t), or its logarithm.
fn reference(row: &[f32], t: f64, log_out: bool) -> Vec<f64> {
    let v: Vec<f64> = row.iter().map(|&x| f64::from(x) / t).collect();
    let mx = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = v.iter().map(|x| (x - mx).exp()).sum();
    v.iter()
        .map(|x| {
            if log_out {
                x - mx - sum.ln()
            } else {
                (x - mx).exp() / sum
            }
        })
        .collect()
}

fn run(
    dev: &Device,
    m: usize,
    n: usize,
    t: f32,
    log_out: bool,
) -> Result<bool, Box<dyn std::error::Error>> {
    let x = DeviceTensor::<f32>::random(dev, &[m, n], 11)?;
    let y = DeviceTensor::<f32>::poisoned(dev, &[m, n])?;
    let args = [
        x.as_arg(),
        TensorArg::scalar(DType::F32, f64::from(t)),
        TensorArg::scalar(DType::S32, if log_out { 1.0 } else { 0.0 }),
        y.as_arg(),
    ];
    let prepared = Prepared::get(&row_softmax::KERNEL, Default::default())?;
    let problem = prepared.bind(&args)?;
    let inst = Instance::new(
        dev,
        module_cache(),
        prepared.clone(),
        &row_softmax::config(),
        &problem,
    )?;
    let kargs = inst.args(&args)?;
    inst.launch(&kargs)?;
    dev.synchronize()?;
    let xs = x.to_host()?;
    let ys = y.to_host()?;
    let (mut worst, mut bad) = (0.0f64, 0usize);
    for r in 0..m {
        let want = reference(&xs[r * n..(r + 1) * n], f64::from(t), log_out);
        for (c, w) in want.iter().enumerate() {
            let got = f64::from(ys[r * n + c]);
            let err = (got - w).abs();
            worst = worst.max(err / (1e-6 + 1e-5 * w.abs()));
            if !(err <= 1e-6 + 1e-5 * w.abs()) {
                if bad < 5 {
                    eprintln!("softmax: M={m} N={n} log={log_out}: y[{r}, {c}] = {got}, want {w}");
                }
                bad += 1;
            }
        }
    }
    let mode = if log_out { "log-softmax" } else { "softmax" };
    println!(
        "{mode:<12} M={m:<5} N={n:<5} t={t}: {} ({bad} of {} elements outside the tolerance; worst error {worst:.3} of it)",
        if bad == 0 { "ok" } else { "FAILED" },
        m * n
    );
    Ok(bad == 0)
}

fn main() {
    let dev = match Device::open(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("softmax needs a CUDA GPU: {e}");
            std::process::exit(3);
        }
    };
    let mut ok = true;
    for (m, n) in [(256, 1024), (1000, 777)] {
        for log_out in [false, true] {
            match run(&dev, m, n, 0.7, log_out) {
                Ok(r) => ok &= r,
                Err(e) => {
                    eprintln!("softmax: {e}");
                    std::process::exit(4);
                }
            }
        }
    }
    std::process::exit(if ok { 0 } else { 1 });
}
