//! GEMM ladder, kernel 1: shared-memory cache blocking.
//!
//! The kernel text is `kernels/v1_shared.co`'s, verbatim except that `a#b` is written `a # b`: since Rust
//! 2021 `ident#ident` is a reserved prefix that rustc rejects before any macro sees it. The
//! same kernel, fully verbatim, is `kernels/v1_shared.co` (`gemm_kernel!(file = "kernels/v1_shared.co")`).
//!
//! Run: `cargo run --release --example v1_shared -- [--m M --n N --k K]`

tessel::gemm_kernel! {
    tunable TILE_M in [16, 32] = 32;
    tunable TILE_N in [16, 32] = 32;
    tunable TILE_K in [32, 64, 128] = 128;
    require TILE_M * TILE_N <= 1024;

    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, TILE_N)] : block,
               {thr_m, thr_n} by [TILE_M, TILE_N] : thread {
        shared f16 [TILE_M, TILE_K] lhs_s;
        shared f16 [TILE_N, TILE_K] rhs_s;
        f16 acc = 0.0f;

        foreach {iv_k} in [cdiv(K, TILE_K)] {
          dma.copy lhs.subspan(TILE_M, TILE_K)
            .at(block_m, iv_k) => lhs_s;
          dma.copy rhs.subspan(TILE_N, TILE_K)
            .at(block_n, iv_k) => rhs_s;

          foreach {ik} in [TILE_K]
            acc += lhs_s.at(thr_m, ik) * rhs_s.at(thr_n, ik);
        }
        output.at(block_m # thr_m, block_n # thr_n) = acc;
      }
    }
}

fn main() {
    tessel_harness::explain::install(tessel::explain::write_for_def);
    std::process::exit(tessel_harness::gemm::gemm_main(
        &matmul::KERNEL,
        "v1_shared",
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
