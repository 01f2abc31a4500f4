// expect: E1684 — the element count `|f.span|` of a placeholder future, whose shape is unknown.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void count(f32 [64] a, s32 [1] out) {
      parallel p by 1 : block {
        f = dma.any;
        out.at(0) = |f.span|;
      }
    }
}

fn main() {}
