// expect: E1687 — one index into an array of two dimensions (a row of buffers).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void rows(f32 [2, 8] a) {
      parallel p by 2 : block, q by 2 : thread {
        local f32 [2, 8] b[2][3];
        dma.copy a => b[1];
      }
    }
}

fn main() {}
