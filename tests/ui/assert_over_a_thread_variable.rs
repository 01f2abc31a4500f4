// expect: E1123 — assertions are checked at launch; one over a thread variable is not
// supported yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(global f32 [M, 64] x, global f32 [M, 64] y) {
      parallel {b} by [M] : block, {t} by [64] : thread {
        assert(t < x.span(1), "t indexes a column");
        y.at(b, t) = x.at(b, t);
      }
    }
}

fn main() {}
