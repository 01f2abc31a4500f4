//! SGEMM ladder, kernel 4: 1-D block tiling — TM results per thread in a `local` register tile.
//!
//! The kernel is `kernels/sgemm_k4_1d_tiling.co`; the emitted CUDA goes to `target/tessel/sgemm_k4_1d_tiling/`. C = A · B,
//! f32, row-major, 4096³ by default, verified against cuBLAS SGEMM (pedantic f32, no TF32) over
//! the full output and timed against it. Runs the defaults (`--tune` sweeps the legal configurations; `--set NAME=V` picks one).
//!
//! Run: `cargo run --release --example sgemm_k4_1d_tiling -- [--m M --n N --k K]`

tessel::gemm_kernel!(file = "kernels/sgemm_k4_1d_tiling.co");

fn main() {
    std::process::exit(tessel_harness::sgemm::sgemm_main(
        &sgemm_k4::KERNEL,
        "sgemm_k4_1d_tiling",
        false,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
