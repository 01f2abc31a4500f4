// expect: E1695 — `dma.pad` takes the low, high and middle paddings and the pad value.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void ring(f16 [64] row, f16 [66] out) {
      parallel p by 1 : block {
        r = dma.copy row => shared;
        dma.pad<{1}, {1}, 0.0f> r.data => out;
      }
    }
}

fn main() {}
