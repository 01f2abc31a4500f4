// expect: E0018 — two `__co__` functions of one name in one invocation: each function becomes a
// kernel module of its name, so the second cannot.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void scale(global f32 [N] x, global f32 [N] y) {
      parallel {b} by [cdiv(N, 128)] : block, {t} by [128] : thread {
        y.at(b # t) = x.at(b # t) * 2.0f;
      }
    }
    __co__ void scale(global f32 [N] x, global f32 [N] y) {
      parallel {b} by [cdiv(N, 128)] : block, {t} by [128] : thread {
        y.at(b # t) = x.at(b # t) * 3.0f;
      }
    }
}

fn main() {}
