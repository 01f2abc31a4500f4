//! GEMM ladder, kernel 2 on sm_90, warp-specialized: warp-level tensor cores (`mma.sync` fed by
//! `ldmatrix` from TMA-loaded, 128-byte-swizzled shared stages) in computing warpgroups, the TMA
//! loads issued by a producer warpgroup that hands its registers to them (`setmaxnreg`); f16 in,
//! f32 accumulate, f16 out.
//!
//! The kernel is `kernels/v2_warp_ws.co`; the emitted CUDA goes to `target/tessel/v2_warp_ws/`.
//! `out = lhs · rhsᵀ` (lhs [M, K], rhs [N, K], row-major), 8192³ by default, verified against
//! cuBLAS over the full output and timed against it in the same process. `--tune` first sweeps
//! the block tile, warp tile, ring depth, rasterization and blocks per SM through the tuner
//! (fault-isolated workers, cached) and runs the winner.
//!
//! Run: `cargo run --release --example v2_warp_ws -- [--m M --n N --k K] [--tune]`

tessel::gemm_kernel!(file = "kernels/v2_warp_ws.co");

/// The tunables `--tune` sweeps.
const SPACE: [&str; 7] = ["BM", "BN", "WM", "WN", "STAGES", "GROUP_M", "MINB"];

fn main() {
    tessel_harness::explain::install(tessel::explain::write_for_def);
    // First: a copy of this program re-launched by the tuner serves GPU trials and exits here.
    tessel::runtime::tune::worker_main_if_requested(&[&matmul::KERNEL]);
    std::process::exit(tessel_harness::tune::gemm_tune_main(
        &matmul::KERNEL,
        "v2_warp_ws",
        &SPACE,
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
