// expect: E1345 — a future's copy with modifiers is not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(
        global f16 [M, 64] lhs,
        global f16 [M, 64] output) {
      parallel {bm} by [cdiv(M, 16)] : block, {t} by [16] : thread {
        shared f16 [16, 64] tile;
        f = dma.copy.async.swiz<128> lhs.subspan(16, 64).at(bm, 0) => shared;
        wait f;
        dma.copy lhs.subspan(16, 64).at(bm, 0) => tile;
        output.at(bm # t, 0) = tile.at(t, 0);
      }
    }
}

fn main() {}
