// expect: E0907 — a block-wide reduction in a block of 48 threads: its second warp is half
// empty, and the warps' shuffles need whole warps.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void row_sums(global f32 [N, 48] x, global f32 [N] y) {
      parallel {b} by [N] : block, {t} by [48] : thread {
        f32 acc = x.at(b, t);
        reduce.sum acc : block;
        if (t == 0)
          y.at(b) = acc;
      }
    }
}

fn main() {}
