// expect: E0601 — 64 x 32 = 2048 threads per block.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable TILE_M in [8, 16, 32, 64] = 64;
    tunable TILE_N in [8, 16, 32] = 32;

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

fn main() {}
