//! SGEMM ladder, kernel 8: warptiling — block → warp (`: group`) → thread tiles with WMITER × WNITER sub-tiles, tuned.
//!
//! The kernel is `kernels/sgemm_k8_warptile.co`; the emitted CUDA goes to `target/tessel/sgemm_k8_warptile/`. C = A · B,
//! f32, row-major, 4096³ by default, verified against cuBLAS SGEMM (pedantic f32, no TF32) over
//! the full output and timed against it. Swept by default (`--no-tune` runs the defaults; `--budget B` caps the configurations timed).
//!
//! Run: `cargo run --release --example sgemm_k8_warptile -- [--m M --n N --k K]`

tessel::gemm_kernel!(file = "kernels/sgemm_k8_warptile.co");

fn main() {
    std::process::exit(tessel_harness::sgemm::sgemm_main(
        &sgemm_k8::KERNEL,
        "sgemm_k8_warptile",
        true,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
