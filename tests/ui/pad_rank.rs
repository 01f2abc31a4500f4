// expect: E1696 — a padding i-tuple needs one amount per dimension of the source.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void border(s32 [8, 4] vol, s32 [10, 4] out) {
      parallel p by 1 : block {
        v = dma.copy vol => shared;
        dma.pad<{1, 0}, {1, 0, 0}, {0, 0}, 0> v.data => out;
      }
    }
}

fn main() {}
