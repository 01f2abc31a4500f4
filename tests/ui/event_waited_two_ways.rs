// expect: E1121 — an event waited both by generation (`e.at(k)`) and by barrier (`e[i]`).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void ring(global f16 [M, K] a, global f16 [M, 64] c) {
      parallel bm by cdiv(M, 64) : block {
        shared event full[2];
        shared f16 [64, 64] a_s[2];
        foreach {k} in [cdiv(K, 64)] {
          f = tma.copy.async.swiz<128> a.subspan(64, 64).at(bm, k) => a_s[k % 2];
          trigger full.at(k) after f;
          wait full.at(k);
          wait full[k % 2];
        }
      }
    }
}

fn main() {}
