// expect: E1697 — interior padding between a dimension's elements has no CUDA lowering.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void halo(f32 [16, 16] img, f32 [18, 33] out) {
      parallel p by 1 : block {
        t = dma.copy img => shared;
        dma.pad<{1, 0}, {1, 1}, {0, 1}, 0.0f> t.data => out;
      }
    }
}

fn main() {}
