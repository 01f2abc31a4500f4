//! GEMV: y[N] = W[N, K] · x[K], f16 or bf16 (`--dtype bf16`), f32 accumulation, on
//! the standard shapes (7168, 16384), (18432, 7168), (28672, 8192), (57344, 7168), (1024, 1024).
//!
//! Two kernels: `kernels/gemv_direct.co` (one warp per row, 16-byte loads straight into
//! registers, `reduce.sum acc : group` — warp shuffles) and `kernels/gemv_staged.co` (the same
//! with the W slab staged through a ring of shared-memory buffers by `dma.copy.async` and
//! `dma.wait`, STAGES deep). For each shape, each kernel's legal configurations (rows per block,
//! loads in flight, stages, tile width) are swept and verified against cuBLAS (GEMM with N = 1),
//! and the winner is reported in TB/s, as a percentage of the device's measured copy bandwidth
//! and against cuBLAS.
//!
//! Run: `cargo run --release --example gemv -- [--shape N,K] [--dtype bf16] [--kernel gemv_direct]`

tessel::gemm_kernel!(file = "kernels/gemv_direct.co");
tessel::gemm_kernel!(file = "kernels/gemv_staged.co");

fn main() {
    std::process::exit(tessel_harness::gemv::gemv_main(
        &[&gemv_direct::KERNEL, &gemv_staged::KERNEL],
        "gemv",
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
