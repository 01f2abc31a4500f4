// expect: E0605 — two top-level `parallel` statements (two launches) in one kernel.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, N] a,
        global f16 [M, N] output) {
      parallel {i, j} by [16, 16] : thread {
        output.at(i, j) = 0.0f;
      }
      parallel {i, j} by [16, 16] : thread {
        output.at(i, j) = a.at(i, j);
      }
    }
}

fn main() {}
