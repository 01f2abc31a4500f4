// expect: E1303 — a math built-in is checked but not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void expo(f32 [M, N] a, f32 [M, N] b) {
      parallel {i, j} by [16, 16] {
        b.at(i, j) = sign(a.at(i, j));
      }
    }
}

fn main() {}
