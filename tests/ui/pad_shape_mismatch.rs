// expect: E0202 — a padded [8, 8] tile is [12, 9], but the destination is [12, 8].
use tessel::gemm_kernel;

gemm_kernel! {
    __co__ void pad_rows(f32 [8, 8] a, f32 [12, 8] c) {
      parallel p by 1 : block, t by 32 : thread {
        dma.pad<{1, 0}, {3, 1}, {0, 0}, 2.0f> a => c;
      }
    }
}

fn main() {}
