// expect: E1635 — a 6-bit float tensor is checked but no lowering stores or converts it yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void widen6(f6_e3m2 [N] packed, f32 [N] out) {
      parallel {b} by [cdiv(N, 64)] : block, {t} by [64] : thread {
        out.at(b # t) = packed.at(b # t);
      }
    }
}

fn main() {}
