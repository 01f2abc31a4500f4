// expect: E0913 — each lane of a warp-level `mma` picks its own A tile: `mma.sync` is one
// instruction of the whole warp, so the tile must be one per warp.
use tessel::gemm_kernel;

gemm_kernel! {
    const BM = 64;
    const BN = 64;
    const BK = 32;
    __co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block {
        shared f16 [BM, BK] lhs_s;
        shared f16 [BN, BK] rhs_s;
        parallel {w} by [4] : group, {lane} by [32] : thread {
          mc = mma.fill.f32 0.0f;
          foreach {kt} in [cdiv(K, BK)] {
            dma.copy lhs.subspan(BM, BK).at(bm, kt) => lhs_s;
            dma.copy rhs.subspan(BN, BK).at(bn, kt) => rhs_s;
            row = (w + lane / 16) % 4;
            ma = mma.load lhs_s.subspan(16, BK).at(row, 0);
            mb = mma.load rhs_s;
            mma.row.row mc, ma, mb;
          }
          mma.store mc, output.subspan(16, BN).at(bm * 4 + w, bn);
        }
      }
    }
}

fn main() {}
