// expect: E0106 — a reduction updates its scalar, and an `int` declared without `mutable` is
// immutable.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void count_positive(global f32 [N, 128] x, global s32 [N] y) {
      parallel {b} by [N] : block, {t} by [128] : thread {
        int n = x.at(b, t) > 0.0f ? 1 : 0;
        reduce.sum n : block;
        if (t == 0)
          y.at(b) = n;
      }
    }
}

fn main() {}
