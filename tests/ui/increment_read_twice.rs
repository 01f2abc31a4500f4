// expect: E0048 — `i++` and another read of `i` in one statement: which read sees the step is not defined.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void shift(global f32 [N] x, global f32 [N] y) {
      parallel b by cdiv(N, 128) : block, t by 128 : thread {
        mutable int i = b * 128 + t;
        if (i < N) y.at(i) = x.at(i++);
      }
    }
}

fn main() {}
