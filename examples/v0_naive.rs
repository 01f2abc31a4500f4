//! GEMM ladder, kernel 0: naive. One thread owns one output element.
//!
//! The kernel text is `kernels/v0_naive.co`'s, verbatim except that `a#b` is written `a # b`: since Rust
//! 2021 `ident#ident` is a reserved prefix that rustc rejects before any macro sees it. The
//! same kernel, fully verbatim, is `kernels/v0_naive.co` (`gemm_kernel!(file = "kernels/v0_naive.co")`).
//!
//! Run: `cargo run --release --example v0_naive -- [--m M --n N --k K]`

tessel::gemm_kernel! {
    tunable TILE_M in [8, 16, 32] = 32;
    tunable TILE_N in [8, 16, 32] = 32;
    require TILE_M * TILE_N <= 1024;

    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, TILE_N)] : block,
               {thr_m, thr_n} by [TILE_M, TILE_N] : thread {
        f16 acc = 0.0f;
        foreach {iv_k} in [K]
          acc += lhs.at(block_m # thr_m, iv_k) * rhs.at(block_n # thr_n, iv_k);

        output.at(block_m # thr_m, block_n # thr_n) = acc;
      }
    }
}

fn main() {
    tessel_harness::explain::install(tessel::explain::write_for_def);
    std::process::exit(tessel_harness::gemm::gemm_main(
        &matmul::KERNEL,
        "v0_naive",
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
