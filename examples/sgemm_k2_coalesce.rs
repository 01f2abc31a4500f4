//! SGEMM ladder, kernel 2: global memory coalescing — kernel 1 with the thread variables swapped.
//!
//! The kernel is `kernels/sgemm_k2_coalesce.co`; the emitted CUDA goes to `target/tessel/sgemm_k2_coalesce/`. C = A · B,
//! f32, row-major, 4096³ by default, verified against cuBLAS SGEMM (pedantic f32, no TF32) over
//! the full output and timed against it. Runs the defaults (`--tune` sweeps the legal configurations; `--set NAME=V` picks one).
//!
//! Run: `cargo run --release --example sgemm_k2_coalesce -- [--m M --n N --k K]`

tessel::gemm_kernel!(file = "kernels/sgemm_k2_coalesce.co");

fn main() {
    std::process::exit(tessel_harness::sgemm::sgemm_main(
        &sgemm_k2::KERNEL,
        "sgemm_k2_coalesce",
        false,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
