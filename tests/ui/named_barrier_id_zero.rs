// expect: E0916 — a named barrier on id 0, the block's own barrier (`sync.shared`).
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void k(global f32 [N] x) {
      parallel {b} by [cdiv(N, 128)] : block, {t} by [128] : thread {
        shared f32 [128] s;
        s.at(t) = x.at(b # t);
        __bar_sync(0, 128);
        x.at(b # t) = s.at(127 - t);
      }
    }
}

fn main() {}
