// expect: E1652 — `streamk` walks clusters given by the header `cluster C;`, not a `: cluster` level.
use tessel::gemm_kernel;

gemm_kernel! {
    persistent;
    streamk;
    // Event generations, futures published by events, `trigger.cluster`, `.step` and named
    // views: a two-block cluster shares its B tiles (each block loads half of the rows and
    // multicasts them), so a stage is free once the consumers of both blocks released it.
    __co__ void ws_cluster(f16 [M, K] a, f16 [N, K] b, f16 [M, N] c) {
      parallel {cm} by [2] : cluster {
        parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 128)] : block {
          shared event full[3], empty[3];
          shared f16 [64, 64] a_s[3];
          shared f16 [128, 64] b_s[3];
          shared f16 [64, 128] c_s;
          a_tiles = a.subspan(64, 64).step(64, 64);
          parallel w by 2 : group-4 {
            inthreads.async (w == 0) {
              foreach {k} in [cdiv(K, 64)] {
                wait empty.at(k);
                fa = tma.copy.async.swiz<128> a_tiles.at(bm, k) => a_s[k % 3];
                fb = tma.copy.async.multicast.swiz<128> b.subspan(128, 64).at(bn, k) => b_s[k % 3];
                trigger full.at(k) after fa, fb;
              }
            }
            inthreads.async (w == 1) {
              acc = mma.fill.f32 0.0f;
              foreach {s} in [3]
                trigger.cluster empty.at(s);
              foreach {k} in [cdiv(K, 64)] {
                wait full.at(k);
                foreach {kk} in [4] {
                  lhs = a_s[k % 3].chunkat(_, kk);
                  rhs = b_s[k % 3].chunkat(_, kk);
                  mma.row.row acc, lhs, rhs;
                }
                trigger.cluster empty.at(k);
              }
              mma.store acc, c_s;
              tma.copy c_s => c.subspan(64, 128).at(bm, bn);
            }
          }
        }
      }
    }
}

fn main() {}
