// expect: E0202 — a smaller global tile copied into a larger shared one without `.zfill`; the
// help names `dma.copy.zfill`, which fills the rest with zeros.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void head(f32 [R, 48] x, f32 [24, 64] y) {
      parallel p by 1 : block, t by 128 : thread {
        shared f32 [24, 64] s;
        dma.copy x.subspan(20, 48).at(0, 0) => s;
        dma.copy s => y;
      }
    }
}

fn main() {}
