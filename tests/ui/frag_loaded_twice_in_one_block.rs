// expect: E1474 — a WGMMA operand fragment loaded twice under one name in one block (each load
// is a C++ constant of that name in the emitted kernel).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f32 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block,
          by 1 : group-4 {
        shared f16 [64, 64] lhs_s;
        shared f16 [128, 64] rhs_s;
        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, iv_k) => lhs_s;
          tma.copy.swiz<128> rhs.chunkat(block_n, iv_k) => rhs_s;
          foreach {kk} in [4] {
            ma = mma.load.swiz<128> lhs_s.chunkat(_, kk);
            mb = mma.load.swiz<128> rhs_s.chunkat(_, kk);
            mma.row.row mc, ma, mb;
            mb = mma.load.swiz<128> rhs_s.chunkat(_, kk);
            mma.row.row mc, ma, mb;
          }
        }
        mma.store mc, output.chunkat(block_m, block_n);
      }
    }
}

fn main() {}
