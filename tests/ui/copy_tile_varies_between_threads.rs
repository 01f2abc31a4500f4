// expect: E1122 — a copy through shared memory is made by the whole block together, so its tile
// cannot depend on a `: thread` variable.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(global f32 [6, 32] x, global f32 [6, 32] y) {
      parallel {b} by [1] : block, {p} by [6] : thread {
        shared f32 [1, 32] s;
        dma.copy x.chunkat(p, _) => s;
        foreach i in [32] {
          y.at(p, i) = s.at(0, i);
        }
      }
    }
}

fn main() {}
