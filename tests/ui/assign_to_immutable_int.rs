// expect: E0106 — `int` (and `bool`) without `mutable` cannot be assigned, as in Croqtile.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void shift(global f32 [N] x, global f32 [N] y) {
      parallel b by cdiv(N, 128) : block, t by 128 : thread {
        int i = b * 128 + t;
        i += 1;
        if (i < N) y.at(i) = x.at(i - 1);
      }
    }
}

fn main() {}
