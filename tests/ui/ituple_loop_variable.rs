// expect: E1636 — one loop variable over a 2-D shape (an i-tuple index) is not supported yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void copy_tile(f32 [16, 8] src, f32 [16, 8] dst) {
      parallel {b} by [1] : block {
        foreach cell in [src.span]
          dst.at(cell) = src.at(cell);
      }
    }
}

fn main() {}
