// expect: E1201 — 100 rows per block in thread tiles of 8 rows: 12 threads cover 96.
use tessel::gemm_kernel;

gemm_kernel! {
    tunable BM in [64, 100] = 100;
    tunable BN in [64, 128] = 128;
    tunable BK in [8, 16] = 8;
    tunable TM in [4, 8] = 8;
    tunable TN in [4, 8] = 8;
    require (BM / TM) * (BN / TN) >= 64 && (BM / TM) * (BN / TN) <= 1024;

    __co__ void sgemm_k5(
        global f32 [M, K] a,
        global f32 [K, N] b,
        global f32 [M, N] c) {
      parallel {bm, bn} by [cdiv(M, BM), cdiv(N, BN)] : block,
               {tr, tc} by [BM / TM, BN / TN] : thread {
        shared f32 [BM, BK] a_s;
        shared f32 [BK, BN] b_s;
        local f32 [TM, TN] acc;
        local f32 [TM] ra;
        local f32 [TN] rb;
        foreach {i, j} in [TM, TN] : unroll
          acc.at(i, j) = 0.0f;
        foreach {kt} in [cdiv(K, BK)] {
          dma.copy a.subspan(BM, BK).at(bm, kt) => a_s;
          dma.copy b.subspan(BK, BN).at(kt, bn) => b_s;
          foreach {k} in [BK] {
            foreach {i} in [TM] : unroll
              ra.at(i) = a_s.at(tr # i, k);
            foreach {j} in [TN] : unroll
              rb.at(j) = b_s.at(k, tc # j);
            foreach {i, j} in [TM, TN] : unroll
              acc.at(i, j) += ra.at(i) * rb.at(j);
          }
        }
        foreach {i, j} in [TM, TN] : unroll
          c.at(bm # tr # i, bn # tc # j) = acc.at(i, j);
      }
    }
}

fn main() {}
