// expect: E0306 — on the SIMT path 8-bit float values are moved, not computed with.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void add8(global f8_e4m3 [6, 64] lhs, global f8_e4m3 [6, 64] rhs, global f16 [6, 64] out) {
      parallel {p} by [6] : block, {q} by [64] : thread {
        out.at(p, q) = lhs.at(p, q) + rhs.at(p, q);
      }
    }
}

fn main() {}
