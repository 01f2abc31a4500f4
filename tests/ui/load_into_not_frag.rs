// expect: E0110 — `mma.load src, t;` writes the registers of a declared `frag` tile.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void regs_a(f16 [64, 16] lhs, f16 [64, 16] rhs, f32 [64, 64] out) {
      parallel {bm, bn} by [1, 1] : block {
        acc = mma.fill.f32 0.0f;
        shared f16 [64, 16] staged;
        parallel w by 1 : group-4 {
          a_s = tma.copy.swiz<32> lhs => shared;
          b_s = tma.copy.swiz<32> rhs => shared;
          mma.load a_s.data, staged;
          mma.row.row acc, a_s.data, b_s.data;
        }
        mma.store acc, out;
      }
    }
}

fn main() {}
