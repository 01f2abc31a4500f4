// expect: E1462 — a fresh buffer is sized from a tile whose shape is known at launch (not one
// that changes with a loop variable).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(
        global f16 [M, 64] lhs,
        global f16 [M, 64] output) {
      parallel {bm} by [cdiv(M, 16)] : block, {t} by [16] : thread {
        foreach {h} in [3] {
          f = dma.copy.async lhs.subspan(h + 1, 64).at(bm, 0) => shared;
          wait f;
          output.at(bm # t, 0) = f.data.at(0, t);
        }
      }
    }
}

fn main() {}
