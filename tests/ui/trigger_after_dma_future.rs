// expect: E1308 — only a TMA copy's future can fire an event.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void tile_in(global f16 [64, 64] input) {
      parallel b by 1 : block {
        shared f16 [64, 64] tile;
        shared event full;
        f = dma.copy.async input.subspan(64, 64).at(b, 0) => tile;
        trigger full after f;
        wait full;
      }
    }
}

fn main() {}
