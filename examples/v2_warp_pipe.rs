//! GEMM ladder, kernel 2 with the sm_80 multistage mainloop: `v2_warp_mma`'s warp-level tensor
//! cores with the K loop marked `[[frag_prefetch]]` — each k-step's fragments loaded one step
//! ahead into register double buffers, the next tile's wait and copies before a tile's last
//! k-step — f16 in, f32 accumulate, f16 out.
//!
//! The kernel is `kernels/v2_warp_pipe.co`; the emitted CUDA goes to `target/tessel/v2_warp_pipe/`.
//! `out = lhs · rhsᵀ` (lhs [M, K], rhs [N, K], row-major), 8192³ by default, verified against
//! cuBLAS over the full output and timed against it in the same process. `--tune` first sweeps
//! the block tile, warp tile, K tile, ring depth and blocks per SM through the tuner
//! (fault-isolated workers, cached) and runs the winner.
//!
//! Run: `cargo run --release --example v2_warp_pipe -- [--m M --n N --k K] [--tune]`

tessel::gemm_kernel!(file = "kernels/v2_warp_pipe.co");

/// The tunables `--tune` sweeps.
const SPACE: [&str; 7] = ["BM", "BN", "BK", "WM", "WN", "STAGES", "MINB"];

fn main() {
    tessel_harness::explain::install(tessel::explain::write_for_def);
    // First: a copy of this program re-launched by the tuner serves GPU trials and exits here.
    tessel::runtime::tune::worker_main_if_requested(&[&matmul::KERNEL]);
    std::process::exit(tessel_harness::tune::gemm_tune_main(
        &matmul::KERNEL,
        "v2_warp_pipe",
        &SPACE,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
