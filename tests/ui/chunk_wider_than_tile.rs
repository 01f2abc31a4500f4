// expect: E0205 — a chunk wider than the shared tile it splits.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable TILE_M in [16, 32] = 32;
    tunable TILE_K in [32, 64] = 32;
    const WIDE = 2 * TILE_K;

    __co__ void copy_rows(global f16 [M, K] src, global f16 [M, K] dst) {
      parallel {block_m} by [cdiv(M, TILE_M)] : block, {thr} by [TILE_M] : thread {
        shared f16 [TILE_M, TILE_K] tile_s;
        foreach {iv_k} in [cdiv(K, TILE_K)] {
          dma.copy src.subspan(TILE_M, TILE_K).at(block_m, iv_k) => tile_s;
          foreach {h} in [cdiv(TILE_K, WIDE)] {
            dma.copy tile_s.chunkat(_, h) => dst.subspan(TILE_M, WIDE).at(block_m, iv_k);
          }
        }
      }
    }
}

fn main() {}
