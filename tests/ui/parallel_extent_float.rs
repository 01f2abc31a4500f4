// expect: E0108 — a parallel extent counts blocks or threads, so it is an integer.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void scale(f32 [N] x, f32 [N] y, float factor) {
      parallel b by factor * 8.0f : block
        parallel t by 64 : thread {
          y.at(b # t) = x.at(b # t) * factor;
        }
    }
}

fn main() {}
