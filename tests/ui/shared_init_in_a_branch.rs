// expect: E1306 — a shared buffer with an initializer declared in a branch: the block's threads
// fill it together, so every thread must declare it.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(global s32 [N] x, global s32 [N] y) {
      parallel {b} by [cdiv(N, 64)] : block, {t} by [64] : thread {
        if (t < 32) {
          shared s32 [16] s {0};
          y.at(b # t) = s.at(t % 16) + x.at(b # t);
        }
      }
    }
}

fn main() {}
