// expect: E1350 — a `: group` level whose inner threads leave lanes of its warp idle, around a
// barrier: the first lanes would wait at it for lanes that never come.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void fill(global f32 [M, N] out) {
      parallel {bm} by [cdiv(M, 3)] : block {
        shared f32 [3, 7] s;
        parallel w by 3 : group, t by 7 : thread {
          s.at(w, t) = 1.0f;
          sync.shared;
          if (bm * 3 + w < M && t < N)
            out.at(bm * 3 + w, t) = s.at(w, 6 - t);
        }
      }
    }
}

fn main() {}
