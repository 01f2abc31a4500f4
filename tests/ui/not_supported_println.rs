// expect: E1300 — `println` of a whole tensor is checked but not lowered (values print).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void show(global f32 [M, N] a) {
      parallel {i, j} by [4, 4] : thread {
        println("a = ", a);
      }
    }
}

fn main() {}
