// expect: E1610 — a tensor write outside every `parallel`: every thread would repeat it.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void scale(global f32 [M, N] x, global f32 [M, N] y, f32 alpha) {
      float a2 = alpha * 2.0f;
      y.at(0, 0) = a2;
      parallel {bm, bn} by [cdiv(M, 16), cdiv(N, 16)] : block, {tm, tn} by [16, 16] : thread {
        y.at(bm # tm, bn # tn) = x.at(bm # tm, bn # tn) * a2;
      }
    }
}

fn main() {}
