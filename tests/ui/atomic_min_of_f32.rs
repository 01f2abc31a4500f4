// expect: E0915 — CUDA's atomicMin takes integers: a running minimum of f32 values has no
// atomic to lower to.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void row_min(global f32 [N, 256] x, global f32 [N] lo) {
      parallel {b} by [N] : block, {t} by [256] : thread {
        __atomic_min(lo.at(b), x.at(b, t));
      }
    }
}

fn main() {}
