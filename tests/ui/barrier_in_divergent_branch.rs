// expect: E1690 — a block barrier under a condition that differs between threads.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void transpose(
        global f32 [H, W] m,
        global f32 [W, H] o) {
      parallel {bi, bj} by [cdiv(H, 32), cdiv(W, 32)] : block,
               {ty, tx} by [32, 32] : thread {
        shared f32 [32, 33] tile;
        tile.at(ty, tx) = m.at(bi # ty, bj # tx);
        if (ty < 16) {
          sync.shared;
        }
        o.at(bj # ty, bi # tx) = tile.at(tx, ty);
      }
    }
}

fn main() {}
