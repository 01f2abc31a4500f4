// expect: E1011 — `[[maxnreg]]` beside `[[launch_bounds]]`: CUDA takes one of `__maxnreg__` and
// `__launch_bounds__` on a kernel.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void both(f32 [N] x) {
      [[launch_bounds(_, 2)]]
      [[maxnreg(64)]]
      parallel {b} by [cdiv(N, 128)] : block {
        parallel {t} by [128] : thread {
          x.at(b # t) = 2.0f * x.at(b # t);
        }
      }
    }
}

fn main() {}
