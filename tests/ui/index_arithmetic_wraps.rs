// expect: E0704 — a multiplicative hash of the thread index as a shared index: the kernel
// computes it in 32-bit `int`, where `t * 1000000007` wraps and `% 64` can be negative.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void scatter(global f32 [M, 64] x, global f32 [M, 64] y) {
      parallel {p} by [M] : block, {t} by [64] : thread {
        shared f32 [64] s;
        s.at(t) = x.at(p, t);
        sync.shared;
        y.at(p, t) = s.at((t * 1000000007) % 64);
      }
    }
}

fn main() {}
