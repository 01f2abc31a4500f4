//! SGEMM ladder, kernel 6: vectorized access — float4 global loads, A stored transposed (`=> a_s.transpose()`), float4 register fragments.
//!
//! The kernel is `kernels/sgemm_k6_vectorize.co`; the emitted CUDA goes to `target/tessel/sgemm_k6_vectorize/`. C = A · B,
//! f32, row-major, 4096³ by default, verified against cuBLAS SGEMM (pedantic f32, no TF32) over
//! the full output and timed against it. Runs the defaults (`--tune` sweeps the legal configurations; `--set NAME=V` picks one).
//!
//! Run: `cargo run --release --example sgemm_k6_vectorize -- [--m M --n N --k K]`

tessel::gemm_kernel!(file = "kernels/sgemm_k6_vectorize.co");

fn main() {
    std::process::exit(tessel_harness::sgemm::sgemm_main(
        &sgemm_k6::KERNEL,
        "sgemm_k6_vectorize",
        false,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
