// expect: E1680 — a parallel variable given two bounds (Croqtile names the tuple's elements).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void fill(f32 [4, 32] dst) {
      parallel p by [4, 32] : block {
        dst.at(0, 0) = 1.0f;
      }
    }
}

fn main() {}
