// expect: E0048 — `++` inside an expression of something other than a variable's name.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void shift(global f32 [N] x, global f32 [N] y) {
      parallel b by cdiv(N, 128) : block, t by 128 : thread {
        int i = b * 128 + t;
        f32 v = x.at(i)++;
        if (i < N) y.at(i) = v;
      }
    }
}

fn main() {}
