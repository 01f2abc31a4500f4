//! `tessel explain FILE.co [--set NAME=V] [--arch ARCH] [--tune-cache DIR] [-o page.html]`: one
//! self-contained HTML page with the DSL, its CUDA and its SASS linked line by line
//! ([`crate::explain`]). Needs NVRTC and nvdisasm (`tessel setup-nvrtc`), no GPU.

use std::path::PathBuf;

use clap::Args;
use tessel_runtime::nvrtc::Arch;

use super::exit;
use super::source::{Failure, KernelArgs, output_dir};
use crate::explain::{ExplainError, ExplainRequest, explain};

/// Arguments of `explain`.
#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub kernel: KernelArgs,
    /// Target architecture (default: the kernel's own, sm_80 SIMT or sm_90a Hopper).
    #[arg(long, value_name = "ARCH", value_parser = parse_arch)]
    pub arch: Option<Arch>,
    /// Where to look for tuning results (default: the tuner's cache folder).
    #[arg(long, value_name = "DIR")]
    pub tune_cache: Option<PathBuf>,
    /// Where to write the page (default: `<file stem>.explain.html` in the output folder).
    #[arg(short, long, value_name = "page.html")]
    pub output: Option<PathBuf>,
}

fn parse_arch(s: &str) -> Result<Arch, String> {
    s.parse::<Arch>().map_err(|e| e.to_string())
}

/// Runs `explain`: writes the page and says where.
pub fn run(args: &ExplainArgs) -> Result<String, Failure> {
    let file = &args.kernel.file;
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::new(exit::USAGE, format!("cannot read {file}: {e}")))?;
    let mut req = ExplainRequest::new(&text, file);
    req.sets = args.kernel.sets.clone();
    req.arch = args.arch;
    req.tune_cache = args.tune_cache.clone();
    let page = explain(&req).map_err(|e| match e {
        ExplainError::Dsl { path, diags } => Failure {
            text: super::render(&path, &text, &diags),
            code: exit::FAILED,
        },
        ExplainError::UnknownTunable(_) | ExplainError::Arch { .. } => Failure::new(exit::USAGE, e),
        other => Failure::new(exit::RUNTIME, other),
    })?;
    let out = args.output.clone().unwrap_or_else(|| {
        let stem = std::path::Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "kernel".into());
        output_dir().join(format!("{stem}.explain.html"))
    });
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            Failure::new(
                exit::RUNTIME,
                format!("cannot create {}: {e}", parent.display()),
            )
        })?;
    }
    std::fs::write(&out, &page.html).map_err(|e| {
        Failure::new(
            exit::RUNTIME,
            format!("cannot write {}: {e}", out.display()),
        )
    })?;
    Ok(format!(
        "wrote {} ({} KB): {} DSL lines, {} CUDA lines, {} SASS instructions\n",
        out.display(),
        page.html.len() / 1024,
        text.lines().count(),
        page.cuda.lines().count(),
        page.sass.len()
    ))
}
