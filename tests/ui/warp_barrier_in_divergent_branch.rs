// expect: E1690 — a warp's barrier under a condition that differs between the lanes of a warp.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void rotate(global f32 [N] x, global f32 [N] y) {
      parallel {b} by [cdiv(N, 256)] : block, {w} by [8] : group, {l} by [32] : thread {
        shared f32 [8, 32] r;
        r.at(w, l) = x.at(b # w # l);
        if (l < 16) {
          sync.barrier : group;
        }
        y.at(b # w # l) = r.at(w, (l + 1) % 32);
      }
    }
}

fn main() {}
