// expect: E0605 — no `: block` level at the top.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {thr_m, thr_n} by [16, 16] : thread {
        output.at(thr_m, thr_n) = 0.0f;
      }
    }
}

fn main() {}
