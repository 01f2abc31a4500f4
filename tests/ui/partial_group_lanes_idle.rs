// expect: E1350 — a `: group` level whose inner threads leave lanes of its warp idle.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void fill(global f32 [M, N] out) {
      parallel {bm} by [cdiv(M, 3)] : block, w by 3 : group, t by 7 : thread {
        inthreads (bm * 3 + w < M && t < N) {
          out.at(bm * 3 + w, t) = 1.0f;
        }
      }
    }
}

fn main() {}
