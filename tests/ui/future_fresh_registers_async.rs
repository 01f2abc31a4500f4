// expect: E1102 — a copy into a fresh register array is per thread and synchronous.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(
        global f16 [M, 64] lhs,
        global f16 [M, 64] output) {
      parallel {bm} by [cdiv(M, 16)] : block, {t} by [16] : thread {
        f = dma.copy.async lhs.subspan(1, 64).at(bm # t, 0) => local;
        wait f;
        dma.copy f.data => output.subspan(1, 64).at(bm # t, 0);
      }
    }
}

fn main() {}
