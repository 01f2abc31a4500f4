// expect: E1300 — `println` is checked but not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void show(global f32 [M, N] a) {
      parallel {i, j} by [4, 4] : thread {
        println("a = ", a.at(i, j));
      }
    }
}

fn main() {}
