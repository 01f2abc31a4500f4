// expect: E1111 — `persistent` walks a 1-D or 2-D grid of tiles.
use tessel::gemm_kernel;

gemm_kernel! {
    persistent 1;
    __co__ void fill(global f32 [N] y) {
      parallel {p, q, b} by [2, 2, cdiv(N, 128)] : block, {t} by [32] : thread {
        y.at(b # t) = 1.0f;
      }
    }
}

fn main() {}
