// expect: E1403 — a u8 operand pairs with s8 or u8 only, never with a 16-bit float.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global u8 [M, K] lhs,
        global f16 [N, K] rhs,
        global s32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, 8), cdiv(N, 8)] : block,
               {w} by [1] : group {
        mc = mma.fill.s32 0;
        foreach {k} in [cdiv(K, 16)] {
          ma = mma.load lhs.subspan(8, 16).at(bm, k);
          mb = mma.load rhs.subspan(8, 16).at(bn, k);
          mma.row.row mc, ma, mb;
        }
        mma.store mc, output.subspan(8, 8).at(bm, bn);
      }
    }
}

fn main() {}
