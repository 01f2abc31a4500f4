//! The `tune_user` example's command line: the general tuner on user kernels.

/// The general tuner on user kernels with user references.
#[derive(clap::Parser, Debug)]
#[command(
    version,
    about = "Tunes user kernels through the general tuner (user references, process isolation, the tune cache) and shows the launch-time lookup",
    after_help = "Exit codes: 0 ok, 1 verification failed, 2 usage error, 3 no GPU / CUDA driver, 4 other error."
)]
pub struct UserCli {
    /// Most configs per job (random strategy); all when absent
    #[arg(long, value_parser = crate::flags::positive)]
    pub budget: Option<usize>,
    /// Ignore the cache and sweep again
    #[arg(long)]
    pub retune: bool,
}
