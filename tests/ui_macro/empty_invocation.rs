// expect: E0018 — an empty `gemm_kernel! {}`: one error at the call site.
use tessel::gemm_kernel;

gemm_kernel! {}

fn main() {}
