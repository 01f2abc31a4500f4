// expect: E1208 — a generation ring (`e.at(order++)`) whose `empty` slots start taken: deadlock.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void ring(f16 [M, K] lhs, f16 [N, K] rhs, f16 [M, N] out) {
      parallel {bm, bn} by [cdiv(M, 128), cdiv(N, 128)] : block {
        shared event full[2], empty[2];
        shared f16 [128, 64] a_s[2];
        shared f16 [128, 64] b_s[2];
        shared f16 [64, 128] c_s[2];
        parallel p by 3 : group-4, lane by 128 : thread {
          inthreads.async (p == 0) {
            mutable int order = 0;
            foreach {kt} in [cdiv(K, 64)] {
              wait empty.at(order);
              a = tma.load.async.swiz<128> lhs.subspan(128, 64).at(bm, kt) => a_s[order % 2];
              b = tma.load.async.swiz<128> rhs.subspan(128, 64).at(bn, kt) => b_s[order % 2];
              trigger full.at(order++) after a, b;
            }
          }
          inthreads.async (p >= 1) {
            mutable int order = 0;
            acc = mma.fill.f32 0.0f;
            foreach {kt} in [cdiv(K, 64)] {
              wait full.at(order);
              mma.row.row acc, a_s[order % 2].subspan(64, 64).at(p - 1, 0), b_s[order % 2];
              trigger empty.at(order++);
            }
            mma.store acc, c_s[p - 1];
            tma.copy c_s[p - 1] => out.subspan(64, 128).at(bm * 2 + p - 1, bn);
          }
        }
      }
    }
}

fn main() {}
