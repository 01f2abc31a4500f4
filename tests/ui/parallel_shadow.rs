// expect: E1475 — `buf` declared again inside a nested `parallel`, whose body the lowering
// emits in the enclosing level's C++ scope.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void shadow(global f32 [M, 32] x, global f32 [M, 32] y) {
      parallel {b} by [cdiv(M, 4)] : block {
        local f32 [8] buf;
        parallel {t} by [32] : thread {
          local f32 [8] buf;
          buf.at(0) = x.at(b * 4, t);
          y.at(b * 4, t) = buf.at(0);
        }
      }
    }
}

fn main() {}
