// expect: E1301 — an s8 tensor is checked but not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void clear8(s8 [M, N] a) {
      parallel {i, j} by [16, 16] {
        a.at(i, j) = 0;
      }
    }
}

fn main() {}
