//! SGEMM ladder, kernel 1: naive — one thread per element of C, consecutive threads down a column (uncoalesced).
//!
//! The kernel is `kernels/sgemm_k1_naive.co`; the emitted CUDA goes to `target/tessel/sgemm_k1_naive/`. C = A · B,
//! f32, row-major, 4096³ by default, verified against cuBLAS SGEMM (pedantic f32, no TF32) over
//! the full output and timed against it. Runs the defaults (`--tune` sweeps the legal configurations; `--set NAME=V` picks one).
//!
//! Run: `cargo run --release --example sgemm_k1_naive -- [--m M --n N --k K]`

tessel::gemm_kernel!(file = "kernels/sgemm_k1_naive.co");

fn main() {
    std::process::exit(tessel_harness::sgemm::sgemm_main(
        &sgemm_k1::KERNEL,
        "sgemm_k1_naive",
        false,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
