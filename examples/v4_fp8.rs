//! fp8 GEMM: `kernels/v4_fp8.co` (e4m3 operands, f32 accumulation, f16 output; `--dtype f8_e5m2`
//! for e5m2), verified over the full output against cuBLASLt's fp8 GEMM and timed beside it in
//! the same process.
//!
//! Run: `cargo run --release --example v4_fp8 -- [--m M --n N --k K] [--set NAME=V …]`

tessel::gemm_kernel!(file = "kernels/v4_fp8.co");

fn main() {
    std::process::exit(tessel_harness::gemm8::gemm8_main(
        &matmul::KERNEL,
        "v4_fp8",
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
