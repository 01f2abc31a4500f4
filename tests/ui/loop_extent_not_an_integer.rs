// expect: E1116 — sizes are integer arithmetic.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void fill(global f32 [N] y) {
      parallel {b} by [cdiv(N, 32)] : block, {t} by [32] : thread {
        foreach {i} in [2.5f]
          y.at(b # t) = 1.0f;
      }
    }
}

fn main() {}
