// expect: E1685 — one name for two thread variables of different indexes, in a Hopper kernel with events.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void gemm(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output, global f32 [M] rowsum) {
      parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 128)] : block {
        shared f16 [64, 64] lhs_s;
        shared f16 [128, 64] rhs_s;
        shared f16 [64, 128] out_s;
        shared event full;
        parallel g by 1 : group-4 {
          mc = mma.fill.f16 0.0f;
          foreach {k} in [cdiv(K, 64)] {
            tma.copy.async<full>.swiz<128> lhs.chunkat(bm, k) => lhs_s;
            tma.copy.async<full>.swiz<128> rhs.chunkat(bn, k) => rhs_s;
            wait full;
            foreach {wk} in [4] {
              ma = mma.load.swiz<128> lhs_s.chunkat(_, wk);
              mb = mma.load.swiz<128> rhs_s.chunkat(_, wk);
              mma.row.row mc, ma, mb;
            }
          }
          mma.store mc, out_s;
        }
        parallel {w, t} by [4, 32] : thread {
          rowsum.at(bm * 64 + w * 16 + t % 16) = 0.0f;
        }
        parallel t by 128 : thread {
          output.at(bm * 64, bn * 128 + t) = out_s.at(0, t);
        }
      }
    }
}

fn main() {}
