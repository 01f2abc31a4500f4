// expect: E1500 — `trigger.cluster` in a kernel that does not run in clusters.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void ring(global f16 [M, K] a, global f16 [M, 64] c) {
      parallel bm by cdiv(M, 64) : block {
        shared event full[2];
        shared f16 [64, 64] a_s[2];
        foreach {k} in [cdiv(K, 64)] {
          f = tma.copy.async.swiz<128> a.subspan(64, 64).at(bm, k) => a_s[k % 2];
          trigger.cluster full.at(k) after f;
          wait full.at(k);
        }
      }
    }
}

fn main() {}
