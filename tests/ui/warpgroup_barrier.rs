// expect: E1300 — a warpgroup's barrier (`sync.barrier : group-4`) is not lowered yet.
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void halves(global f32 [N] x, global f32 [N] y) {
      parallel {b} by [cdiv(N, 256)] : block, {g} by [2] : group-4, {t} by [128] : thread {
        shared f32 [2, 128] r;
        r.at(g, t) = x.at(b # g # t);
        sync.barrier : group-4;
        y.at(b # g # t) = r.at(g, 127 - t);
      }
    }
}

fn main() {}
