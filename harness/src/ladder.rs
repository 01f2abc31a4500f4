//! The `ladder` example's command line: a whole ladder in one run, one table at the end.
//! `ladder [sgemm]` runs the SGEMM ladder, `ladder kt` the Kernel Tuner trio, `ladder gemv` the
//! GEMV kernels; the flags are the rung examples'.

use dsl_core::def::KernelDef;

use crate::exit;
use crate::gemv::GemvArgs;
use crate::sgemm::{Rung, SgemmArgs, run_ladder};

/// Which ladder.
#[derive(clap::Subcommand, Debug)]
pub enum Which {
    /// The SGEMM ladder (the default)
    Sgemm(SgemmArgs),
    /// The Kernel Tuner tutorial's three kernels
    Kt(SgemmArgs),
    /// The GEMV kernels on the standard shapes (TB/s, % of the copy bandwidth)
    Gemv(GemvArgs),
}

/// The ladder's command line.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Runs a whole ladder of kernels on one problem and prints one table",
    args_conflicts_with_subcommands = true,
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct LadderCli {
    #[command(subcommand)]
    pub which: Option<Which>,
    /// The SGEMM ladder's flags when no ladder is named
    #[command(flatten)]
    pub sgemm: SgemmArgs,
}

/// `main` of the ladder example over the caller's kernels; returns the exit code.
pub fn ladder_main(
    sgemm: &[Rung],
    kt: &[Rung],
    gemv: &[&'static KernelDef],
    args: &[String],
) -> i32 {
    // First: a copy of this program re-launched by the tuner serves trials and exits here.
    let rungs: Vec<&'static KernelDef> = sgemm.iter().chain(kt).map(|r| r.def).collect();
    crate::jobs::serve(&[], &rungs, gemv);
    let cli = match exit::parse::<LadderCli>("ladder", args) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let r = match &cli.which {
        None => run_ladder("SGEMM", sgemm, &cli.sgemm),
        Some(Which::Sgemm(a)) => run_ladder("SGEMM", sgemm, a),
        Some(Which::Kt(a)) => run_ladder("Kernel Tuner tutorial", kt, a),
        Some(Which::Gemv(a)) => crate::gemv::run_example(gemv, "ladder_gemv", &a.opts()),
    };
    exit::finish("ladder", r)
}
