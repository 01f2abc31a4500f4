// expect: E1698 — a thread count known only at launch is legal, but the lowering sizes blocks at compile time.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void rows(f32 [R, C] x, f32 [R, C] y) {
      parallel r by R : block
        parallel c by C : thread {
          y.at(r, c) = x.at(r, c) * 2.0f;
        }
    }
}

fn main() {}
