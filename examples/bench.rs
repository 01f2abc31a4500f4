//! One process, one table (issue #7): seed 004's v4 kernel tuned for fp16 and bf16 at 8192³ and
//! 4096³ (f32 and f16 accumulation) next to cuBLAS measured in the same process, and the
//! device's copy bandwidth. Tuned configurations come from the tuner's cache (`v4_tuned`
//! fills it), tuning first where absent.
//!
//! Run: `cargo run --release --example bench -- [--strategy random --budget 40]`

tessel::gemm_kernel!(file = "kernels/v4_tuned.co");

fn main() {
    tessel::runtime::tune::worker_main_if_requested(&[&matmul::KERNEL]);
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(tessel::runtime::bench::bench_main(
        &matmul::KERNEL,
        &args,
        &|_, _| Ok(()),
    ));
}
