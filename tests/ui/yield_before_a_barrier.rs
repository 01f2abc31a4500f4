// expect: E1300 — a thread that leaves with `yield` would never reach the barrier the block's
// other threads wait at.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void leave_early(f32 [M] x, f32 [M] y) {
      parallel {b} by [cdiv(M, 64)] : block, {t} by [64] : thread {
        shared f32 [64] s;
        if (x.at(b # t) < 0.0f)
          yield;
        s.at(t) = x.at(b # t);
        sync.shared;
        y.at(b # t) = s.at(63 - t);
      }
    }
}

fn main() {}
