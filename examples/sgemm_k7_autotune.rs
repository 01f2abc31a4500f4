//! SGEMM ladder, kernel 7: autotuning — kernel 6 swept over the grid of the SGEMM worklog's autotuning kernel, its legality filter written as `require`s.
//!
//! The kernel is `kernels/sgemm_k7_autotune.co`; the emitted CUDA goes to `target/tessel/sgemm_k7_autotune/`. C = A · B,
//! f32, row-major, 4096³ by default, verified against cuBLAS SGEMM (pedantic f32, no TF32) over
//! the full output and timed against it. Swept by default (`--no-tune` runs the defaults; `--budget B` caps the configurations timed).
//!
//! Run: `cargo run --release --example sgemm_k7_autotune -- [--m M --n N --k K]`

tessel::gemm_kernel!(file = "kernels/sgemm_k7_autotune.co");

fn main() {
    std::process::exit(tessel_harness::sgemm::sgemm_main(
        &sgemm_k7::KERNEL,
        "sgemm_k7_autotune",
        true,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
