// expect: E1110 — `raster` groups a 2-D grid of tiles.
use tessel::gemm_kernel;

gemm_kernel! {
    raster 8;
    __co__ void fill(global f32 [N] y) {
      parallel {b} by [cdiv(N, 32)] : block, {t} by [32] : thread {
        y.at(b # t) = 1.0f;
      }
    }
}

fn main() {}
