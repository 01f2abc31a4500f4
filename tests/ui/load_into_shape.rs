// expect: E0111 — the loaded tile has the `frag` tile's shape.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void regs_a(f16 [64, 32] lhs, f16 [64, 16] rhs, f32 [64, 64] out) {
      parallel {bm, bn} by [1, 1] : block {
        acc = mma.fill.f32 0.0f;
        frag f16 [64, 16] a_regs;
        parallel w by 1 : group-4 {
          shared f16 [64, 32] a_s;
          dma.copy lhs => a_s;
          b_s = tma.copy.swiz<32> rhs => shared;
          mma.load a_s, a_regs;
          mma.row.row acc, a_regs, b_s.data;
        }
        mma.store acc, out;
      }
    }
}

fn main() {}
