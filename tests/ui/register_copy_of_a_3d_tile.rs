// expect: E1105 — beyond two dimensions a register tile copy walks rows; a tile cut across
// its rows does not walk as rows.
use tessel::gemm_kernel;

gemm_kernel! {
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
        local f16 [2, 2, 2] r3;
        local f16 [2, 2] q2;
        dma.copy r3.subspan(2, 1, 2).at(0, 1, 0) => q2;

        foreach {iv_k} in [cdiv(K, TILE_K)] {
          dma.copy lhs.subspan(TILE_M, TILE_K).at(block_m, iv_k) => lhs_s;
          dma.copy rhs.subspan(TILE_N, TILE_K).at(block_n, iv_k) => rhs_s;

          foreach {ik} in [TILE_K]
            acc += lhs_s.at(thr_m, ik) * rhs_s.at(thr_n, ik);
        }
        output.at(block_m # thr_m, block_n # thr_n) = acc;
      }
    }
}

fn main() {}
