// expect: E0703 — a `.view(…).from(…)` window one row above the block's rows: for the first
// block the offset is -1, before the tensor's first row.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void halo(global f32 [M, 64] x, global f32 [M, 64] y) {
      parallel {p} by [cdiv(M, 16)] : block, {t} by [64] : thread {
        shared f32 [18, 64] s;
        dma.copy x.view(18, 64).from(p * 16 - 1, 0) => s;
        dma.copy s.subspan(16, 64).at(0, 0) => y.subspan(16, 64).at(p, 0);
      }
    }
}

fn main() {}
