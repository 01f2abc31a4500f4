// expect: E0107 — a scalar named like a CUDA math function the emitted kernel calls.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void sumsq(global f32 [R, C] x, global f32 [R] y) {
      parallel {b} by [cdiv(R, 64)] : block, {t} by [64] : thread {
        f32 fmaf = 0.0f;
        foreach {c} in [C]
          fmaf += x.at(b # t, c) * x.at(b # t, c);
        y.at(b # t) = sqrt(fmaf);
      }
    }
}

fn main() {}
