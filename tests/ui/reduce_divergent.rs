// expect: E0907 — a warp reduction under a condition on the lane: the lanes that skip it never
// take part in the shuffles.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void half_row_sums(global f32 [N, 32] x, global f32 [N] y) {
      parallel {b} by [N] : block, {w} by [1] : group, {lane} by [32] : thread {
        f32 acc = x.at(b, lane);
        if (lane < 16) {
          reduce.sum acc : group;
          y.at(b) = acc;
        }
      }
    }
}

fn main() {}
