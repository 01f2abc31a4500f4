// expect: E0112 — an f32 element as an operand of `^`: C++ has no bitwise operators on
// floating-point values.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void flip(global f32 [N] x, global s32 [N] y) {
      parallel {p} by [cdiv(N, 128)] : block, {t} by [128] : thread {
        y.at(p # t) = x.at(p # t) ^ 1;
      }
    }
}

fn main() {}
