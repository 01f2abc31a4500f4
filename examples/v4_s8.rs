//! int8 GEMM, tuned structure: `kernels/v4_s8.co` (s8 operands, s32 accumulation and output),
//! verified exactly over the full output against cuBLASLt's int8 GEMM and timed beside it in the
//! same process (`--regimes` for the burst and sustained regimes).
//!
//! Run: `cargo run --release --example v4_s8 -- [--m M --n N --k K] [--set NAME=V …]`

tessel::gemm_kernel!(file = "kernels/v4_s8.co");

fn main() {
    std::process::exit(tessel_harness::gemm8::gemm8_main(
        &matmul::KERNEL,
        "v4_s8",
        &std::env::args().skip(1).collect::<Vec<_>>(),
    ));
}
