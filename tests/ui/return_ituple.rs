// expect: E1683 — a `return` of an i-tuple (a function returns a tensor or a scalar).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ auto extents(f32 [64, 8] a) {
      parallel p by 1 : block {
        a.at(0, 0) = 1.0f;
      }
      return {64, 8};
    }
}

fn main() {}
