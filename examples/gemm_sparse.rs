//! 2:4 structured-sparse GEMM on Hopper: `kernels/gemm_sparse.co` (f16, `wgmma.mma_async.sp`
//! m64nNk32) and `kernels/gemm_sparse_fp8.co` (e4m3, m64nNk64), verified over the full output.
//!
//! The host builds a dense A [M, K] whose every group of four consecutive elements along K has
//! exactly two non-zeros (at random positions), packs it into the kernel's operands — the kept
//! values `lhs` [M, K/2] and the metadata `meta` [M, K/8] (4 bits per group: the two positions,
//! the lower one in bits 0..1; group g in bits 4g..4g+3 of the row, little-endian) — and
//! compares the sparse kernel's output with a dense GEMM on the unpacked A: cuBLAS (f16, f32
//! accumulation) for the f16 kernel, an f64 host GEMM for the e4m3 one. The f16 kernel is also
//! timed beside cuBLAS's dense GEMM of the same shape. The same operands also go through the
//! kernels written with futures (`kernels/gemm_sparse_futures.co`, `…_futures_fp8.co`: fresh
//! shared buffers filled by synchronous copies bound to futures), checked against the same
//! references.
//!
//! Run: `cargo run --release --example gemm_sparse -- [--m M --n N --k K] [--set WARP_N=V]`
//! (default 4096³; M a multiple of 64 and K of 128; the e4m3 check runs at min(M, 512) ×
//! min(N, 512) × min(K, 1024)).

use clap::Parser;
use tessel_harness::exit;

use tessel::prelude::*;
use tessel::runtime::cublas_ref::{CublasRef, GemmCompute};
use tessel::runtime::dtype::{Element, F8E4M3};
use tessel::runtime::kernel;
use tessel::runtime::timing::{TimingConfig, gemm_flops, time_gpu};
use tessel::runtime::verify;

tessel::gemm_kernel!(file = "kernels/gemm_sparse.co");
tessel::gemm_kernel!(file = "kernels/gemm_sparse_fp8.co");
tessel::gemm_kernel!(file = "kernels/gemm_sparse_futures.co");
tessel::gemm_kernel!(file = "kernels/gemm_sparse_futures_fp8.co");

/// A deterministic xorshift stream: uniform values in [-1, 1) and small integers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn uniform(&mut self) -> f64 {
        ((self.next() >> 40) as f64 / (1u64 << 24) as f64) * 2.0 - 1.0
    }
    fn below(&mut self, n: u64) -> u64 {
        (self.next() >> 33) % n
    }
}

/// A 2:4 sparse A: the dense matrix (zeros included), the packed kept values and the metadata.
struct Sparse<T> {
    dense: Vec<T>,
    packed: Vec<T>,
    meta: Vec<u8>,
}

/// Builds a random 2:4 sparse [m, k] matrix; `value` turns a uniform draw into a non-zero element.
fn sparse_a<T: Element>(m: usize, k: usize, seed: u64, value: impl Fn(f64) -> T) -> Sparse<T> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let zero = T::from_f64(0.0);
    let mut dense = vec![zero; m * k];
    let mut packed = vec![zero; m * k / 2];
    let mut meta = vec![0u8; m * k / 8];
    for r in 0..m {
        for g in 0..k / 4 {
            // Two distinct positions of the group, the lower first.
            let p0 = rng.below(4) as usize;
            let mut p1 = rng.below(3) as usize;
            if p1 >= p0 {
                p1 += 1;
            }
            let (lo, hi) = (p0.min(p1), p0.max(p1));
            for (j, pos) in [lo, hi].into_iter().enumerate() {
                let mut v = rng.uniform();
                if v.abs() < 0.125 {
                    v = if v < 0.0 { -0.5 } else { 0.5 };
                }
                let x = value(v);
                dense[r * k + 4 * g + pos] = x;
                packed[r * k / 2 + 2 * g + j] = x;
            }
            let nibble = (lo | (hi << 2)) as u8;
            meta[r * k / 8 + g / 2] |= nibble << (4 * (g % 2));
        }
    }
    Sparse {
        dense,
        packed,
        meta,
    }
}

fn uniform_b<T: Element>(len: usize, seed: u64, value: impl Fn(f64) -> T) -> Vec<T> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..len).map(|_| value(rng.uniform())).collect()
}

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Runs the 2:4 structured-sparse GEMM kernels (f16 and e4m3): verifies them against a dense GEMM of the unpacked A over the full output and times the f16 one beside cuBLAS",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
struct Cli {
    /// Rows of A and out (a multiple of 64)
    #[arg(long, default_value_t = 4096, value_parser = tessel_harness::flags::positive)]
    m: usize,
    /// Rows of rhs, columns of out
    #[arg(long, default_value_t = 4096, value_parser = tessel_harness::flags::positive)]
    n: usize,
    /// Dense reduction dimension (a multiple of 128)
    #[arg(long, default_value_t = 4096, value_parser = tessel_harness::flags::positive)]
    k: usize,
    /// Set a tunable of the f16 kernel: NAME=VALUE (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = tessel_harness::sweep::parse_set)]
    sets: Vec<(String, i64)>,
}

fn run(cli: &Cli) -> Result<bool, exit::Error> {
    let (m, n, k) = (cli.m, cli.n, cli.k);
    if m % 64 != 0 || k % 128 != 0 {
        return Err(exit::Error::Usage(format!(
            "M = {m} must be a multiple of 64 and K = {k} of 128"
        )));
    }
    let cfg =
        tessel_harness::sweep::config_with(&spmm::KERNEL, &cli.sets).map_err(exit::Error::Usage)?;
    let dev = Device::open(0).map_err(|e| exit::Error::NoGpu(format!("no GPU: {e}")))?;
    let stream = dev.stream().clone();
    let info = dev.info().clone();
    println!(
        "device   {} ({} SMs, {})",
        info.name, info.sm_count, info.arch
    );

    // f16: the sparse kernel against cuBLAS on the unpacked A.
    let handle = kernel::load(&spmm::KERNEL, &stream, &cfg).map_err(|e| e.to_string())?;
    let a = sparse_a(m, k, 1, f16::from_f64);
    let b = uniform_b(n * k, 2, f16::from_f64);
    let dense = DeviceTensor::from_host(&dev, &[m, k], &a.dense).map_err(|e| e.to_string())?;
    let lhs = DeviceTensor::from_host(&dev, &[m, k / 2], &a.packed).map_err(|e| e.to_string())?;
    let meta = DeviceTensor::from_host(&dev, &[m, k / 8], &a.meta).map_err(|e| e.to_string())?;
    let rhs = DeviceTensor::from_host(&dev, &[n, k], &b).map_err(|e| e.to_string())?;
    let mut out = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).map_err(|e| e.to_string())?;
    let mut want = DeviceTensor::<f16>::alloc(&dev, &[m, n]).map_err(|e| e.to_string())?;
    let cublas = CublasRef::new(&dev).map_err(|e| e.to_string())?;
    cublas
        .gemm_nt(&dense, &rhs, &mut want, GemmCompute::F32)
        .map_err(|e| e.to_string())?;
    let launch = |out: &mut DeviceTensor<f16>| {
        handle.launch(&[
            lhs.view().into(),
            meta.view().into(),
            rhs.view().into(),
            out.view_mut().into(),
        ])
    };
    launch(&mut out).map_err(|e| e.to_string())?;
    dev.synchronize().map_err(|e| e.to_string())?;
    let got = out.to_host().map_err(|e| e.to_string())?;
    let reference = want.to_host().map_err(|e| e.to_string())?;
    let tol = verify::gemm_tolerance(
        tessel::runtime::dtype::DType::F16,
        tessel::runtime::dtype::DType::F32,
        tessel::runtime::dtype::DType::F16,
        k,
    );
    let v16 = verify::verify(&got, &reference, tol).map_err(|e| e.to_string())?;
    println!(
        "verify   spmm f16 {m}x{n}x{k} (WARP_N = {:?}) vs cuBLAS dense: {v16}",
        cfg.get("WARP_N")
    );
    let flops = Some(gemm_flops(m, n, k));
    let t = time_gpu(&dev, &TimingConfig::default(), flops, || launch(&mut out))
        .map_err(|e| e.to_string())?;
    let tc = time_gpu(&dev, &TimingConfig::default(), flops, || {
        cublas.gemm_nt(&dense, &rhs, &mut want, GemmCompute::F32)
    })
    .map_err(|e| e.to_string())?;
    // The futures form of the f16 kernel, on the same operands.
    let hf = kernel::load(&spmm_futures::KERNEL, &stream, &spmm_futures::config())
        .map_err(|e| e.to_string())?;
    let mut outf = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).map_err(|e| e.to_string())?;
    hf.launch(&[
        lhs.view().into(),
        meta.view().into(),
        rhs.view().into(),
        outf.view_mut().into(),
    ])
    .map_err(|e| e.to_string())?;
    dev.synchronize().map_err(|e| e.to_string())?;
    let gotf = outf.to_host().map_err(|e| e.to_string())?;
    let vf = verify::verify(&gotf, &reference, tol).map_err(|e| e.to_string())?;
    println!("verify   spmm_futures f16 {m}x{n}x{k} vs cuBLAS dense: {vf}");
    println!("time     spmm f16 (dense-equivalent FLOP/s): {t}");
    println!("time     cuBLAS dense f16: {tc}");

    // e4m3: the sparse kernel against an f64 host GEMM on the unpacked A.
    let (m8, n8, k8) = (m.min(512), n.min(512), k.min(1024));
    let h8 =
        kernel::load(&spmm_fp8::KERNEL, &stream, &spmm_fp8::config()).map_err(|e| e.to_string())?;
    let a8 = sparse_a(m8, k8, 3, F8E4M3::from_f64);
    let b8 = uniform_b(n8 * k8, 4, F8E4M3::from_f64);
    let lhs8 =
        DeviceTensor::from_host(&dev, &[m8, k8 / 2], &a8.packed).map_err(|e| e.to_string())?;
    let meta8 =
        DeviceTensor::from_host(&dev, &[m8, k8 / 8], &a8.meta).map_err(|e| e.to_string())?;
    let rhs8 = DeviceTensor::from_host(&dev, &[n8, k8], &b8).map_err(|e| e.to_string())?;
    let mut out8 = DeviceTensor::<f16>::poisoned(&dev, &[m8, n8]).map_err(|e| e.to_string())?;
    h8.launch(&[
        lhs8.view().into(),
        meta8.view().into(),
        rhs8.view().into(),
        out8.view_mut().into(),
    ])
    .map_err(|e| e.to_string())?;
    dev.synchronize().map_err(|e| e.to_string())?;
    let got8 = out8.to_host().map_err(|e| e.to_string())?;
    let want8 = verify::host_gemm_nt(&a8.dense, &b8, m8, n8, k8);
    let tol8 = verify::gemm_tolerance(
        tessel::runtime::dtype::DType::F8E4M3,
        tessel::runtime::dtype::DType::F32,
        tessel::runtime::dtype::DType::F16,
        k8,
    );
    let v8 = verify::verify_f64(&got8, &want8, tol8).map_err(|e| e.to_string())?;
    println!("verify   spmm_fp8 e4m3 {m8}x{n8}x{k8} vs f64 host GEMM: {v8}");
    // The futures form of the e4m3 kernel (`__co__ auto`: the output is its last parameter).
    let hf8 = kernel::load(
        &spmm_fp8_futures::KERNEL,
        &stream,
        &spmm_fp8_futures::config(),
    )
    .map_err(|e| e.to_string())?;
    let mut outf8 = DeviceTensor::<f16>::poisoned(&dev, &[m8, n8]).map_err(|e| e.to_string())?;
    hf8.launch(&[
        lhs8.view().into(),
        meta8.view().into(),
        rhs8.view().into(),
        outf8.view_mut().into(),
    ])
    .map_err(|e| e.to_string())?;
    dev.synchronize().map_err(|e| e.to_string())?;
    let gotf8 = outf8.to_host().map_err(|e| e.to_string())?;
    let vf8 = verify::verify_f64(&gotf8, &want8, tol8).map_err(|e| e.to_string())?;
    println!("verify   spmm_fp8_futures e4m3 {m8}x{n8}x{k8} vs f64 host GEMM: {vf8}");
    Ok(v16.passed() && v8.passed() && vf.passed() && vf8.passed())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match exit::parse::<Cli>("gemm_sparse", &args) {
        Ok(cli) => exit::finish("gemm_sparse", run(&cli)),
        Err(code) => code,
    };
    std::process::exit(code);
}
