// expect: E1693 — a cooperative `dma.copy` that only some threads of the block reach.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void half_copy(global f32 [M, 64] x, global f32 [M, 64] y) {
      parallel {bm} by [cdiv(M, 32)] : block, {t} by [64] : thread {
        shared f32 [32, 64] rows;
        inthreads (t < 32) {
          dma.copy x.subspan(32, 64).at(bm, 0) => rows;
        }
        foreach {r} in [32]
          y.at(bm # r, t) = rows.at(r, t);
      }
    }
}

fn main() {}
