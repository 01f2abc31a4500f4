// expect: E0032 — an `__asm__` output's constraint says it is written (`=`) or updated (`+`).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(global s32 [N] x, global s32 [N] y) {
      parallel {b} by [cdiv(N, 128)] : block, {t} by [128] : thread {
        mutable int r = 0;
        __asm__("mov.u32 %0, %1;" : "r"(r) : "r"(x.at(b # t)));
        y.at(b # t) = r;
      }
    }
}

fn main() {}
