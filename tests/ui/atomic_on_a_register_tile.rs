// expect: E0915 — an atomic on a register tile: no other thread can reach a thread's
// registers, so there is nothing to make atomic.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void count(global s32 [N] x, global s32 [N] y) {
      parallel {b} by [cdiv(N, 128)] : block, {t} by [128] : thread {
        local s32 [1] c;
        c.at(0) = 0;
        __atomic_add(c.at(0), 1);
        y.at(b # t) = c.at(0);
      }
    }
}

fn main() {}
