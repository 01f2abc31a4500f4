// expect: E1301 — a u64 tensor is checked but not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void clear8(u64 [M, N] a) {
      parallel {i, j} by [16, 16] {
        a.at(i, j) = 0;
      }
    }
}

fn main() {}
