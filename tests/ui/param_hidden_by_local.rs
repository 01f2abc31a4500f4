// expect: E0109 — a local hiding a scalar parameter is legal Croqtile, but the lowering keeps one C++ scope for both.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void offset(f32 [N] x, f32 [N] y, int shift) {
      parallel b by cdiv(N, 32) : block
        parallel t by 32 : thread {
          int shift = shift * 2;
          y.at(b # t) = x.at(b # t) + shift;
        }
    }
}

fn main() {}
