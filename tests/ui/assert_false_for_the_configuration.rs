// expect: E1010 — an assertion the checker can decide is false for the default configuration.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable ROWS in [2, 4] = 4;
    __co__ void k(global f32 [M, 64] x, global f32 [M, 64] y) {
      parallel {b} by [cdiv(M, ROWS)] : block, {t} by [64] : thread {
        shared f32 [ROWS, 64] s;
        assert(s.span(0) * s.span(1) <= 128, "the tile holds at most 128 values");
        foreach r in [ROWS] {
          y.at(b # r, t) = x.at(b # r, t);
        }
      }
    }
}

fn main() {}
