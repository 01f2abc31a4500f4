// expect: E1305 — `trigger … after` a future that was already waited on.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void tile_in(global f16 [64, 64] input) {
      parallel b by 1 : block {
        shared f16 [64, 64] tile;
        shared event full;
        f = tma.load.async input.subspan(64, 64).at(b, 0) => tile;
        wait f;
        trigger full after f;
        wait full;
      }
    }
}

fn main() {}
