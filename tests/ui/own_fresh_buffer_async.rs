// expect: E1122 — a fresh shared buffer whose tile depends on a `: thread` variable is each
// thread's own, and each thread fills it with a synchronous copy.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(global f32 [M, 64] x, global f32 [M, 64] y) {
      parallel {b} by [cdiv(M, 2)] : block, {t} by [8] : thread {
        f = dma.copy.async x.chunkat(b, t) => shared;
        wait f;
        dma.copy f.data => y.chunkat(b, t);
      }
    }
}

fn main() {}
