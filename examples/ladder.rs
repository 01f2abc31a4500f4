//! A whole ladder in one run, one table at the end: rung, time, TFLOP/s (or TB/s), % of cuBLAS,
//! verification.
//!
//! ```sh
//! cargo run --release --example ladder              # the SGEMM ladder, kernels 1–8 (4096³ f32)
//! cargo run --release --example ladder -- kt        # the Kernel Tuner tutorial trio (4096² f32)
//! cargo run --release --example ladder -- gemv      # GEMV on the standard shapes (TB/s, % of copy)
//! ```
//!
//! Each rung runs as its own example would (kernels 7 and 8 and the tutorial's kernels are swept;
//! `--tune` / `--no-tune` force it for every rung), on one set of inputs and one cuBLAS reference.
//! The other flags are the rung examples' (`--m --n --k --budget --runs`; GEMV: `--shape
//! --dtype`).

use tessel_harness::ladder::ladder_main;
use tessel_harness::sgemm::Rung;

tessel::gemm_kernel!(file = "kernels/sgemm_k1_naive.co");
tessel::gemm_kernel!(file = "kernels/sgemm_k2_coalesce.co");
tessel::gemm_kernel!(file = "kernels/sgemm_k3_smem.co");
tessel::gemm_kernel!(file = "kernels/sgemm_k4_1d_tiling.co");
tessel::gemm_kernel!(file = "kernels/sgemm_k5_2d_tiling.co");
tessel::gemm_kernel!(file = "kernels/sgemm_k6_vectorize.co");
tessel::gemm_kernel!(file = "kernels/sgemm_k7_autotune.co");
tessel::gemm_kernel!(file = "kernels/sgemm_k8_warptile.co");
tessel::gemm_kernel!(file = "kernels/kt_naive.co");
tessel::gemm_kernel!(file = "kernels/kt_shared.co");
tessel::gemm_kernel!(file = "kernels/kt_tiled.co");
tessel::gemm_kernel!(file = "kernels/gemv_direct.co");
tessel::gemm_kernel!(file = "kernels/gemv_staged.co");

fn rung(def: &'static tessel::KernelDef, example: &'static str, tuned: bool) -> Rung {
    Rung {
        def,
        example,
        tuned,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(ladder_main(
        &[
            rung(&sgemm_k1::KERNEL, "sgemm_k1_naive", false),
            rung(&sgemm_k2::KERNEL, "sgemm_k2_coalesce", false),
            rung(&sgemm_k3::KERNEL, "sgemm_k3_smem", false),
            rung(&sgemm_k4::KERNEL, "sgemm_k4_1d_tiling", false),
            rung(&sgemm_k5::KERNEL, "sgemm_k5_2d_tiling", false),
            rung(&sgemm_k6::KERNEL, "sgemm_k6_vectorize", false),
            rung(&sgemm_k7::KERNEL, "sgemm_k7_autotune", true),
            rung(&sgemm_k8::KERNEL, "sgemm_k8_warptile", true),
        ],
        &[
            rung(&kt_naive::KERNEL, "kt_naive", true),
            rung(&kt_shared::KERNEL, "kt_shared", true),
            rung(&kt_tiled::KERNEL, "kt_tiled", true),
        ],
        &[&gemv_direct::KERNEL, &gemv_staged::KERNEL],
        &args,
    ));
}
