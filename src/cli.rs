//! The `tessel` command line (clap): `check`, `ir`, `emit`, `compile`, `run`, `tune`, `explain`,
//! `cache` and `setup-nvrtc` on a Croqtile `.co` file, with the same parser, checks and lowering the macro
//! uses, and diagnostics rendered with line, column and a caret (codespan-reporting).
//!
//! One file per subcommand under `src/cli/`; [`exit`] is the table of exit codes.

use dsl_core::Diagnostics;

use clap::{Parser, Subcommand};

mod answer;
mod cache;
mod check;
mod compile;
mod emit;
pub mod exit;
mod explain;
mod gpu;
mod ir;
pub mod reference;
mod run;
mod setup_nvrtc;
mod source;
mod tune;
mod tune_job;

pub use gpu::kernel_def_from_file;
pub use source::{Failure, KernelArgs};

/// The `tessel` command.
#[derive(Debug, Parser)]
#[command(
    name = "tessel",
    version,
    about = "Check, lower, compile, run and tune Croqtile `.co` kernels",
    long_about = "Check, lower, compile, run and tune Croqtile `.co` kernels: the parser, checks \
                  and lowering of the `gemm_kernel!` macro, from the command line.",
    after_help = exit::HELP,
    subcommand_required = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse and check a kernel for a configuration; print diagnostics.
    Check(KernelArgs),
    /// Print the checked IR and the configuration's facts.
    Ir(KernelArgs),
    /// Print the CUDA C++, instantiated for the configuration.
    Emit(KernelArgs),
    /// Compile with NVRTC to a cubin; report registers, shared memory, spills and SASS.
    Compile(compile::CompileArgs),
    /// Run on GPU 0 with random inputs: verify the output against a reference and time it.
    ///
    /// The reference comes from the signature: the last parameter is the output, a contraction
    /// of the two others over the dimensions it lacks (a GEMM in any layout, a GEMV). Row-major
    /// NT and NN GEMMs are checked against cuBLAS over every output and timed against it; other
    /// contractions against an f64 host computation at sampled outputs. Any other kernel is
    /// verified against your answers: `--expect NAME=FILE.npy` (and `--input NAME=FILE.npy`),
    /// every element compared within `--atol`/`--rtol`. Exit 1 when the output does not verify,
    /// 3 without a GPU.
    Run(run::RunArgs),
    /// Tune the kernel's tunables on GPU 0 for a problem shape (cached per GPU and shape).
    ///
    /// Every configuration the kernel's checks allow is compiled with NVRTC, verified and timed
    /// in a worker process (this command, started again); the winner is cached per GPU, driver,
    /// NVRTC, kernel and shape, and printed with the `tessel run` line that measures it. Any
    /// kernel `tessel run` verifies can be tuned, with the same reference: cuBLAS for NT and NN
    /// GEMMs (every output), else an f64 host computation of the contraction (every output).
    Tune(tune::TuneArgs),
    /// Write one HTML page with the DSL, its CUDA and its SASS linked line by line.
    Explain(explain::ExplainArgs),
    /// The tune cache: list, export, import, merge, clear (results move between machines).
    Cache(cache::CacheArgs),
    /// Install NVRTC and nvdisasm (PyPI wheels, through pip) where tessel finds them.
    SetupNvrtc(setup_nvrtc::SetupArgs),
}

/// Runs the command line `args` (without the program name); returns (output text, exit code).
/// Diagnostics and errors are in the text, rendered; `--help` and `--version` exit 0.
pub fn run(args: &[String]) -> (String, i32) {
    let argv = std::iter::once("tessel".to_string()).chain(args.iter().cloned());
    let cli = match Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            return (e.render().to_string(), code);
        }
    };
    let result = match &cli.command {
        Command::Check(a) => check::run(a),
        Command::Ir(a) => ir::run(a),
        Command::Emit(a) => emit::run(a),
        Command::Compile(a) => compile::run(a),
        Command::Run(a) => run::run(a),
        Command::Tune(a) => tune::run(a, args),
        Command::Explain(a) => explain::run(a),
        Command::Cache(a) => cache::run(a),
        Command::SetupNvrtc(a) => setup_nvrtc::run(a),
    };
    match result {
        Ok(out) => (out, exit::OK),
        Err(f) => (f.text, f.code),
    }
}

/// Diagnostics with file, line, column and a caret under the DSL token (bounded: see
/// `dsl_core::render`).
pub fn render(file: &str, text: &str, diags: &Diagnostics) -> String {
    dsl_core::render::render(file, text, diags)
}
