// expect: E0048 — an increment in an `if` condition: the body would run between the read and the step.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void shift(global f32 [N] x, global f32 [N] y) {
      parallel b by cdiv(N, 128) : block, t by 128 : thread {
        mutable int i = b * 128 + t;
        if (i++ < N) y.at(t) = x.at(t);
      }
    }
}

fn main() {}
