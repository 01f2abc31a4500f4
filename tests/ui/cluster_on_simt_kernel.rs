// expect: E1008 — `cluster` multicasts through TMA; a SIMT kernel has nothing to share that way.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable TILE_M in [16, 32] = 32;
    tunable TILE_N in [16, 32] = 32;
    require TILE_M * TILE_N <= 1024;
    raster 8;
    cluster 2;

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
