//! One process, one table: the v4 kernel tuned for fp16 and bf16 at 8192³ and
//! 4096³ (f32 and f16 accumulation) next to cuBLAS measured in the same process, the SGEMM
//! ladder's k8 rung (f32, 4096³, against cuBLAS SGEMM without TF32), GEMV on the standard shapes
//! (the faster of `gemv_direct` and `gemv_staged` per shape, TB/s against cuBLAS, roofline = %
//! of the copy bandwidth), and the device's copy bandwidth. Tuned configurations come from the
//! tuner's cache (`v4_tuned`, the SGEMM and the GEMV examples fill it),
//! tuning first where absent; every row is verified against cuBLAS over its full output.
//! Each GEMM row is then timed against the strongest reference (`cublasGemmEx` or the fastest
//! of cuBLASLt's top algorithms) in the burst and the sustained regime, with the SM clock and
//! power of each (the `burst` and `sustained` columns; `--no-regimes` skips them, `--soak S`
//! sets the thermal soak).
//!
//! Run: `cargo run --release --example bench -- [--strategy random --budget 40]` (`--budget N`
//! also caps the k8 sweep; default 256). The GEMM rows sweep WARP_N, STAGES, CONSUMERS and TILE_K unless
//! `--sweep A,B,…` names others; `--set NAME=V` pins one (e.g. `--sweep WARP_N,STAGES,GROUP_M
//! --set CONSUMERS=2 --set TILE_K=64`).

tessel::gemm_kernel!(file = "kernels/v4_tuned.co");
tessel::gemm_kernel!(file = "kernels/sgemm_k8_warptile.co");
tessel::gemm_kernel!(file = "kernels/gemv_direct.co");
tessel::gemm_kernel!(file = "kernels/gemv_staged.co");

use tessel_harness::bench::{bench_main, gemv_rows, sgemm_row};

fn main() {
    // First: a copy of this program re-launched by the tuner serves trials and exits here.
    tessel_harness::jobs::serve(
        &[tessel::runtime::tune::TuneSource::Dsl(&matmul::KERNEL)],
        &[&sgemm_k8::KERNEL],
        &[&gemv_direct::KERNEL, &gemv_staged::KERNEL],
    );
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(bench_main(&matmul::KERNEL, &args, &|dev, budget, rows| {
        rows.push(sgemm_row(dev, &sgemm_k8::KERNEL, budget));
        let copy = rows
            .iter()
            .find(|r| r.bandwidth)
            .map(|r| r.tessel)
            .unwrap_or(0.0);
        rows.extend(gemv_rows(
            dev,
            &[&gemv_direct::KERNEL, &gemv_staged::KERNEL],
            copy,
        ));
        Ok(())
    }));
}
