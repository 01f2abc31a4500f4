// expect: E1109 — a `: block` level maps to at most 3 grid dimensions.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void fill(global f32 [N] y) {
      parallel {p, q, u, v} by [2, 2, 2, cdiv(N, 256)] : block, {t} by [32] : thread {
        y.at(v # t) = 1.0f;
      }
    }
}

fn main() {}
