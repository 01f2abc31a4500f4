// expect: E1422 — a WGMMA operand tile copied in by a plain `dma.copy` into a declared tile, which
// leaves it unswizzled (descriptors need a swizzle; tessel picks one only for tiles it fills by
// TMA or by a fresh-buffer future).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f16 [M, N] output) {
      parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 128)] : block,
          by 1 : group-4 {
        shared f16 [64, 64] lhs_s;
        shared f16 [128, 64] rhs_s;
        shared f16 [64, 128] output_s;

        mc = mma.fill.f32 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          tma.copy.swiz<128> lhs.chunkat(block_m, iv_k) => lhs_s;
          dma.copy rhs.chunkat(block_n, iv_k) => rhs_s;
          mma.row.row mc, lhs_s, rhs_s;
        }
        mma.store mc, output_s;
        tma.copy output_s => output.subspan(64, 128).at(block_m, block_n);
      }
    }
}

fn main() {}
