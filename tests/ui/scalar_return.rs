// expect: E1302 — a `__co__` function that returns a scalar: one diagnostic, at the return type.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ int count(f32 [64] a, int n) {
      int twice = n * 2;
      parallel p by 1 : block {
        a.at(0) = 1.0f;
      }
      return twice;
    }
}

fn main() {}
