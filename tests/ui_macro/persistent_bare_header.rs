// expect: E0101 — a bare `persistent;` header item followed by binary expressions parses (the
// error reported is the typo in the body, found by the checker after a complete parse).
use tessel::gemm_kernel;

gemm_kernel! {
    persistent;
    tunable TILE in [16, 32] = 16;
    const AREA = TILE * TILE + 1 - 1;
    require AREA <= 1024;

    __co__ void matmul(
        global f32 [M, K] lhs,
        global f32 [N, K] rhs,
        global f32 [M, N] output) {
      parallel {bm, bn} by [cdiv(M, TILE), cdiv(N, TILE)] : block,
               {tm, tn} by [TILE, TILE] : thread {
        f32 acc = 0.0f;
        foreach {k} in [K]
          acc += lhs.at(bm # tm, k) * rhs.at(bn # tn, k);
        output.at(bm # tm, bn # tn) = accc;
      }
    }
}

fn main() {}
