// expect: E1122 — an asynchronous copy whose tiles depend on a `: thread` variable: each thread's
// own copy, which tessel lowers synchronous only (a future's buffer of the thread's own may be
// `.async`).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(global f32 [M, 64] x, global f32 [M, 64] y) {
      parallel {b} by [cdiv(M, 2)] : block, {t} by [8] : thread {
        shared f32 [2, 64] s;
        dma.copy.async x.chunkat(b, t) => s.chunkat(_, t);
        dma.wait 0;
        dma.copy s.chunkat(_, t) => y.chunkat(b, t);
      }
    }
}

fn main() {}
