// expect: the `file = …` argument is Rust syntax (parsed with syn): a non-string is a spanned error.
use tessel::gemm_kernel;

gemm_kernel!(file = kernels_v0_naive);

fn main() {}
