// expect: E0107 — a parameter named `int`, a C++ keyword the DSL grammar takes as a name.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void scale(global f32 [N] int, global f32 [N] y) {
      parallel {b} by [cdiv(N, 64)] : block, {t} by [64] : thread {
        if (b # t < N)
          y.at(b # t) = int.at(b # t) * 2.0f;
      }
    }
}

fn main() {}
