// expect: E1686 — a shared buffer sized by an `int` parameter, whose value is known only at the
// launch itself (problem sizes may size one).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void rows(global f32 [M, N] x, global f32 [M, N] y, int n) {
      parallel {r} by [M] : block, {t} by [64] : thread {
        shared f32 [1, n] row;
        dma.copy x.subspan(1, n).at(r, 0) => row;
        dma.copy row => y.subspan(1, n).at(r, 0);
      }
    }
}

fn main() {}
