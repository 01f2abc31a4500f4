// expect: E1302 — a `__co__` function that returns a value is checked but not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ f32 [M, N] scale(f32 [M, N] a) {
      parallel {i, j} by [16, 16] {
        a.at(i, j) = a.at(i, j) * 2.0f;
      }
    }
}

fn main() {}
