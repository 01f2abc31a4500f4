// expect: E1462 — a fresh register array is sized from a tile of compile-time shape (not
// `[M, 64]`).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(
        global f16 [M, 64] lhs,
        global f16 [M, 64] output) {
      parallel {bm} by [cdiv(M, 16)] : block, {t} by [16] : thread {
        f = dma.copy lhs => local;
        output.at(bm # t, 0) = f.data.at(0, 0);
      }
    }
}

fn main() {}
