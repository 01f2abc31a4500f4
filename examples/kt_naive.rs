//! Kernel Tuner tutorial, kernel 1: naive, tuned over block_size_x × block_size_y.
//!
//! The kernel is `kernels/kt_naive.co`; the emitted CUDA goes to `target/tessel/kt_naive/`. C = A · B,
//! f32, row-major, 4096³ by default, verified against cuBLAS SGEMM (pedantic f32, no TF32) over
//! the full output and timed against it. Swept by default (`--no-tune` runs the defaults; `--budget B` caps the configurations timed).
//!
//! The grid is written in the kernel (`parallel {bx, by_} by [cdiv(N, …), cdiv(M, …)] : block`),
//! so unlike the tutorial's `tune_kernel(…, grid_div_x=[…], grid_div_y=[…])` no grid-divisor
//! lists are needed: every configuration launches exactly the blocks its own text asks for.
//!
//! Run: `cargo run --release --example kt_naive -- [--m M --n N --k K]`

tessel::gemm_kernel!(file = "kernels/kt_naive.co");

fn main() {
    std::process::exit(tessel_harness::sgemm::sgemm_main(
        &kt_naive::KERNEL,
        "kt_naive",
        true,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
