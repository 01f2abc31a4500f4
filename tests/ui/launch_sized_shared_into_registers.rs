// expect: E1686 — a register tile copied out of a shared buffer sized at launch (its row pitch
// is N, which the register copy needs at compile time).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void rows(global f32 [M, N] x, global f32 [M, N] y) {
      parallel {r} by [M] : block, {t} by [32] : thread {
        shared f32 [1, N] row;
        local f32 [1, 4] v;
        dma.copy x.subspan(1, N).at(r, 0) => row;
        dma.copy row.subspan(1, 4).at(0, t) => v;
        dma.copy v => y.subspan(1, 4).at(r, t);
      }
    }
}

fn main() {}
