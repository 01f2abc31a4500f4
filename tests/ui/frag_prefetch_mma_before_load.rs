// expect: E1603 — a `[[frag_prefetch]]` k-step loads its fragments before its `mma`s.
use tessel::gemm_kernel;

gemm_kernel! {
    const BM = 64;
    const BN = 64;
    const BK = 32;
    const STAGES = 3;
    const PAD = 8;

    __co__ void matmul(
        global f16 [M, K] lhs,
        global f16 [N, K] rhs,
        global f32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block,
               {wm, wn} by [2, 2] : group {
        shared f16 [BM, BK + PAD] lhs_s[STAGES];
        shared f16 [BN, BK + PAD] rhs_s[STAGES];
        mc = mma.fill.f32 0.0f;
        foreach {s} in [STAGES - 1] {
          dma.copy.async lhs.subspan(BM, BK).at(bm, s) => lhs_s[s].subspan(BM, BK).at(0, 0);
          dma.copy.async rhs.subspan(BN, BK).at(bn, s) => rhs_s[s].subspan(BN, BK).at(0, 0);
        }
        [[frag_prefetch]]
        foreach {kt} in [cdiv(K, BK)] {
          dma.wait 2 * (STAGES - 2);
          dma.copy.async lhs.subspan(BM, BK).at(bm, kt + STAGES - 1)
            => lhs_s[(kt + STAGES - 1) % STAGES].subspan(BM, BK).at(0, 0);
          foreach {kk} in [BK / 16] {
            ma = mma.load lhs_s[kt % STAGES].subspan(32, 16).at(wm, kk);
            mb = mma.load rhs_s[kt % STAGES].subspan(32, 16).at(wn, kk);
            mma.row.row mc, ma, mb;
            mb2 = mma.load rhs_s[kt % STAGES].subspan(32, 16).at(wn, kk);
            mma.row.row mc, ma, mb2;
          }
        }
        mma.store mc, output.subspan(32, 32).at(bm # wm, bn # wn);
      }
    }
}

fn main() {}
