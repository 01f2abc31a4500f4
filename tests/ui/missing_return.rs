// expect: E0041 — a `__co__` function with a return type must return a value.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ f32 [M, N] scale(f32 [M, N] a) {
      parallel {i, j} by [16, 16] {
        a.at(i, j) = a.at(i, j) * 2.0f;
      }
    }
}

fn main() {}
