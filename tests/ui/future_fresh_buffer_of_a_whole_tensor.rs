// expect: E1462 — a fresh buffer is sized from a tile of compile-time shape (not `[M, 64]`).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(
        global f16 [M, 64] lhs,
        global f16 [M, 64] output) {
      parallel {bm} by [cdiv(M, 16)] : block, {t} by [16] : thread {
        shared f16 [16, 64] tile;
        f = dma.copy.async lhs => shared;
        wait f;
        dma.copy lhs.subspan(16, 64).at(bm, 0) => tile;
        output.at(bm # t, 0) = tile.at(t, 0);
      }
    }
}

fn main() {}
