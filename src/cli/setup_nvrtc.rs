//! `tessel setup-nvrtc [--dir DIR] [--python PYTHON]`: installs the NVRTC and nvdisasm wheels
//! from PyPI (no CUDA toolkit, no GPU) into the folder the runtime searches by itself
//! (`locate::pip_cache_root`: `$TESSEL_NVRTC_HOME`, else the platform cache folder), then
//! prints where, and the variables that other tools (or another folder) need.
//!
//! pip does the download and unpacking: the wheels are plain zip files, but pip knows the
//! index, proxies and certificates of the machine it runs on.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;
use tessel_runtime::locate::{
    self, NVDISASM_PIP_VERSION, NVRTC_PIP_VERSION, pip_lib_dir, pip_nvdisasm,
};

use super::exit;
use super::source::Failure;

/// Arguments of `setup-nvrtc`.
#[derive(Debug, Clone, Args)]
pub struct SetupArgs {
    /// Install into DIR instead of the cache folder (then set TESSEL_NVRTC_HOME=DIR).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The Python whose pip installs the wheels (default: python3, then python).
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
}

fn installed(root: &Path) -> bool {
    locate::nvrtc_file_in(&pip_lib_dir(root)).is_some()
        && locate::find_executable(&[pip_nvdisasm(root)]).is_some()
}

fn python(args: &SetupArgs) -> Result<PathBuf, Failure> {
    if let Some(p) = &args.python {
        return Ok(p.clone());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let candidates: Vec<PathBuf> = ["python3", "python"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .collect();
    locate::find_executable(&candidates).ok_or_else(|| {
        Failure::new(
            exit::RUNTIME,
            "installing NVRTC needs python3 with pip (the wheels come from PyPI); none is on PATH",
        )
    })
}

/// Runs `setup-nvrtc`.
pub fn run(args: &SetupArgs) -> Result<String, Failure> {
    let default = locate::pip_cache_root();
    let root = match (&args.dir, &default) {
        (Some(d), _) => d.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => {
            return Err(Failure::new(
                exit::USAGE,
                "no cache folder is known on this platform; give one with --dir DIR",
            ));
        }
    };
    let rt = |what: String, e: &dyn std::fmt::Display| {
        Failure::new(exit::RUNTIME, format!("{what}: {e}"))
    };
    let mut out = String::new();
    if installed(&root) {
        let _ = writeln!(out, "setup-nvrtc: already installed in {}", root.display());
    } else {
        let py = python(args)?;
        let parent = root.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent)
            .map_err(|e| rt(format!("cannot create {}", parent.display()), &e))?;
        // Install next to the target, then rename: an interrupted install never leaves a
        // half-filled folder that the check above would accept.
        let tmp = root.with_extension(format!("tmp.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let status = Command::new(&py)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--target",
            ])
            .arg(&tmp)
            .arg(format!("nvidia-cuda-nvrtc=={NVRTC_PIP_VERSION}"))
            .arg(format!("nvidia-cuda-nvdisasm=={NVDISASM_PIP_VERSION}"))
            .env("PIP_ROOT_USER_ACTION", "ignore")
            .status()
            .map_err(|e| rt(format!("cannot run {}", py.display()), &e))?;
        if !status.success() {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(Failure::new(
                exit::RUNTIME,
                format!(
                    "`{} -m pip install nvidia-cuda-nvrtc=={NVRTC_PIP_VERSION} nvidia-cuda-nvdisasm=={NVDISASM_PIP_VERSION}` failed ({status})",
                    py.display()
                ),
            ));
        }
        let _ = std::fs::remove_dir_all(&root);
        std::fs::rename(&tmp, &root).map_err(|e| {
            rt(
                format!("cannot move {} to {}", tmp.display(), root.display()),
                &e,
            )
        })?;
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(
                pip_nvdisasm(&root),
                std::fs::Permissions::from_mode(0o755),
            );
        }
        if !installed(&root) {
            return Err(Failure::new(
                exit::RUNTIME,
                format!(
                    "the wheels were installed, but {} holds no libnvrtc.so.13 or {} is missing",
                    pip_lib_dir(&root).display(),
                    pip_nvdisasm(&root).display()
                ),
            ));
        }
        let _ = writeln!(
            out,
            "setup-nvrtc: installed NVRTC {NVRTC_PIP_VERSION} and nvdisasm {NVDISASM_PIP_VERSION} in {}",
            root.display()
        );
    }
    let lib = pip_lib_dir(&root);
    if default.as_deref() == Some(root.as_path()) {
        let _ = writeln!(
            out,
            "setup-nvrtc: tessel finds them there by itself; other tools need the lines below"
        );
    } else {
        let _ = writeln!(
            out,
            "setup-nvrtc: not the default folder: export TESSEL_NVRTC_HOME (or the lines below)"
        );
        let _ = writeln!(out, "export TESSEL_NVRTC_HOME='{}'", root.display());
    }
    let ld = match std::env::var("LD_LIBRARY_PATH") {
        Ok(v) if !v.is_empty() => format!("{}:{v}", lib.display()),
        _ => lib.display().to_string(),
    };
    let _ = writeln!(out, "export TESSEL_NVRTC_DIR='{}'", lib.display());
    let _ = writeln!(
        out,
        "export TESSEL_NVDISASM='{}'",
        pip_nvdisasm(&root).display()
    );
    let _ = writeln!(out, "export LD_LIBRARY_PATH='{ld}'");
    Ok(out)
}
