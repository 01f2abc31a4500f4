// expect: E1341 — a synchronous multicast TMA load (no event) is not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {cm} by [2] : cluster {
        parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block {
          shared f16 [64, 64] lhs_s;
          shared f16 [128, 64] rhs_s;
          acc = mma.fill.f16 0.0f;
          foreach {iv_k} in [cdiv(K, 64)] {
            tma.copy.swiz<128> lhs.subspan(64, 64).at(block_m, iv_k) => lhs_s;
            tma.copy.multicast.swiz<128> rhs.subspan(128, 64).at(block_n, iv_k) => rhs_s;
            foreach {iv_wk} in [cdiv(64, 16)] {
              parallel by 1 : group-4 {
                ma = mma.load.swiz<128> lhs_s.chunkat(_, iv_wk);
                mb = mma.load.swiz<128> rhs_s.chunkat(_, iv_wk);
                mma.row.row acc, ma, mb;
              }
            }
          }
          shared f16 [64, 128] output_s;
          mma.store acc, output_s;
          tma.copy output_s => output.subspan(64, 128).at(block_m, block_n);
        }
      }
    }
}

fn main() {}
