//! `tessel cache ls|export|import|merge|clear`: the tune cache folder as a whole
//! ([`tessel_runtime::tune::cachedir`]), so that tuning results move between machines and the
//! shards of a sweep come together (docs/TUNING.md).

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use tessel_runtime::tune::{cachedir, store};

use super::exit;
use super::source::Failure;

/// Arguments of `cache`.
#[derive(Debug, Clone, Args)]
pub struct CacheArgs {
    /// The cache folder (default: `$TESSEL_TUNE_CACHE`, else the platform cache folder's
    /// `tessel/tune`).
    #[arg(long, value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub action: CacheAction,
}

/// The cache actions.
#[derive(Debug, Clone, Subcommand)]
pub enum CacheAction {
    /// List the cache files: kernel, GPU, problem, trials, winner.
    Ls,
    /// Write every file (or one kernel's) into one bundle.
    Export {
        /// The bundle to write.
        #[arg(value_name = "BUNDLE.jsonl")]
        out: PathBuf,
        /// Only this kernel's files.
        #[arg(long)]
        kernel: Option<String>,
    },
    /// Merge a bundle written by `export` into the cache (no trial is lost).
    Import {
        /// The bundle to read.
        #[arg(value_name = "BUNDLE.jsonl")]
        bundle: PathBuf,
    },
    /// Merge another cache folder (a shard's, another host's) into the cache.
    Merge {
        /// The folder to read.
        #[arg(value_name = "DIR")]
        from: PathBuf,
    },
    /// Remove every file (or one kernel's).
    Clear {
        /// Only this kernel's files.
        #[arg(long)]
        kernel: Option<String>,
    },
}

/// Runs `cache`.
pub fn run(args: &CacheArgs) -> Result<String, Failure> {
    let dir = args.dir.clone().unwrap_or_else(store::default_dir);
    let io = |what: &str, e: std::io::Error| Failure::new(exit::RUNTIME, format!("{what}: {e}"));
    let mut out = String::new();
    match &args.action {
        CacheAction::Ls => {
            let entries = cachedir::list(&dir).map_err(|e| io(&dir.display().to_string(), e))?;
            let _ = writeln!(out, "{}: {} file(s)", dir.display(), entries.len());
            for e in entries {
                let _ = writeln!(out, "{}", e.summary());
            }
        }
        CacheAction::Export { out: path, kernel } => {
            let n = cachedir::export(&dir, kernel.as_deref(), path)
                .map_err(|e| io(&path.display().to_string(), e))?;
            let _ = writeln!(
                out,
                "exported {n} file(s) from {} to {}",
                dir.display(),
                path.display()
            );
        }
        CacheAction::Import { bundle } => {
            let r =
                cachedir::import(bundle, &dir).map_err(|e| io(&bundle.display().to_string(), e))?;
            let _ = writeln!(out, "{r}");
        }
        CacheAction::Merge { from } => {
            let r = cachedir::merge(from, &dir).map_err(|e| io(&from.display().to_string(), e))?;
            let _ = writeln!(out, "{r}");
        }
        CacheAction::Clear { kernel } => {
            let n = cachedir::clear(&dir, kernel.as_deref())
                .map_err(|e| io(&dir.display().to_string(), e))?;
            let _ = writeln!(out, "removed {n} file(s) from {}", dir.display());
        }
    }
    Ok(out)
}
