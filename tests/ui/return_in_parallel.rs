// expect: E1682 — a `return` inside a `parallel`: a function returns from its own code.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ auto first(f32 [64] a) {
      f32 [64] out;
      parallel p by 1 : block {
        out.at(0) = a.at(0);
        return out;
      }
    }
}

fn main() {}
