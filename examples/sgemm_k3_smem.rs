//! SGEMM ladder, kernel 3: shared-memory cache blocking (`shared` tiles filled by `dma.copy`).
//!
//! The kernel is `kernels/sgemm_k3_smem.co`; the emitted CUDA goes to `target/tessel/sgemm_k3_smem/`. C = A · B,
//! f32, row-major, 4096³ by default, verified against cuBLAS SGEMM (pedantic f32, no TF32) over
//! the full output and timed against it. Runs the defaults (`--tune` sweeps the legal configurations; `--set NAME=V` picks one).
//!
//! Run: `cargo run --release --example sgemm_k3_smem -- [--m M --n N --k K]`

tessel::gemm_kernel!(file = "kernels/sgemm_k3_smem.co");

fn main() {
    std::process::exit(tessel_harness::sgemm::sgemm_main(
        &sgemm_k3::KERNEL,
        "sgemm_k3_smem",
        false,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
