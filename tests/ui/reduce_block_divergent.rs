// expect: E0907 — a block-wide reduction under a condition on the thread: the threads that skip
// it never reach its barriers.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void row_max(global f32 [N, C] x, global f32 [N] y) {
      parallel {b} by [N] : block, {t} by [128] : thread {
        f32 hi = -inf;
        if (t < C) {
          hi = x.at(b, t);
          reduce.max hi : block;
        }
        if (t == 0)
          y.at(b) = hi;
      }
    }
}

fn main() {}
