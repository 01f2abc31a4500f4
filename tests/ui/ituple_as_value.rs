// expect: E1681 — an i-tuple loop variable used as one value (it stands for two indices).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void copy_tile(f32 [16, 8] src, f32 [16, 8] dst) {
      parallel {b} by [1] : block {
        foreach cell in [src.span]
          dst.at(cell) = src.at(cell) * cell;
      }
    }
}

fn main() {}
