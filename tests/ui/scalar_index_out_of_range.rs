// expect: E0702 — `next` is the thread's neighbour, one past the last thread for the last one:
// a scalar never assigned again is checked with the range of its initial value.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void forward_diff(global f32 [N] x, global f32 [N] d) {
      parallel {b} by [cdiv(N, 64)] : block, {t} by [64] : thread {
        shared f32 [64] s;
        s.at(t) = x.at(b # t);
        sync.shared;
        int next = t + 1;
        d.at(b # t) = s.at(next) - s.at(t);
      }
    }
}

fn main() {}
