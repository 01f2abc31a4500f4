// expect: E1461 — a shared → global copy stores rows as they are.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(
        global f16 [M, 64] lhs,
        global f16 [M, 64] output) {
      parallel {bm} by [cdiv(M, 16)] : block, {t} by [16] : thread {
        shared f16 [16, 64] tile;
        dma.copy tile => output.subspan(64, 16).at(0, bm).transpose();
        output.at(bm # t, 0) = tile.at(t, 0);
      }
    }
}

fn main() {}
