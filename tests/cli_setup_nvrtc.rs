//! `tessel setup-nvrtc`: where it installs, what it prints, and how it fails — with a stand-in
//! `python` that plays pip (no network): it records its arguments and lays out the wheels'
//! files in the `--target` folder it is given.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tessel-setup-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tessel(args: &[&str], nvrtc_home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessel"))
        .args(args)
        .env("TESSEL_NVRTC_HOME", nvrtc_home)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("run tessel")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A stand-in for `python3 -m pip install … --target DIR …`: writes its arguments to `log`;
/// with `lays_out`, creates the files the two wheels install (nvdisasm without its exec bit,
/// as a zip unpacks it).
fn fake_python(dir: &Path, log: &Path, lays_out: bool) -> PathBuf {
    let script = dir.join("python");
    let body = if lays_out {
        r#"t=""; prev=""; for a in "$@"; do [ "$prev" = "--target" ] && t="$a"; prev="$a"; done
mkdir -p "$t/nvidia/cu13/lib" "$t/nvidia/cu13/bin"
echo lib > "$t/nvidia/cu13/lib/libnvrtc.so.13"; echo exe > "$t/nvidia/cu13/bin/nvdisasm""#
    } else {
        "echo 'ERROR: no network' >&2; exit 1"
    };
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" > '{}'\n{body}\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[test]
fn installs_into_the_cache_folder_through_pip_and_prints_the_exports() {
    let work = scratch("install");
    let home = work.join("cache/tessel/nvrtc-13.0.88");
    let log = work.join("pip-args");
    let py = fake_python(&work, &log, true);
    let o = tessel(&["setup-nvrtc", "--python", py.to_str().unwrap()], &home);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let args = std::fs::read_to_string(&log).unwrap();
    for a in [
        "-m pip install",
        "--no-deps",
        "--target",
        "nvidia-cuda-nvrtc==13.0.88",
        "nvidia-cuda-nvdisasm==13.2.86",
    ] {
        assert!(args.contains(a), "pip called without `{a}`: {args}");
    }
    assert!(
        out.contains(&format!(
            "installed NVRTC 13.0.88 and nvdisasm 13.2.86 in {}",
            home.display()
        )),
        "{out}"
    );
    assert!(out.contains("tessel finds them there by itself"), "{out}");
    let lib = home.join("nvidia/cu13/lib");
    assert!(out.contains(&format!("export TESSEL_NVRTC_DIR='{}'", lib.display())));
    let nvdisasm = home.join("nvidia/cu13/bin/nvdisasm");
    assert!(out.contains(&format!("export TESSEL_NVDISASM='{}'", nvdisasm.display())));
    assert!(out.contains(&format!("export LD_LIBRARY_PATH='{}'", lib.display())));
    let mode = std::fs::metadata(&nvdisasm).unwrap().permissions().mode();
    assert_ne!(mode & 0o111, 0, "nvdisasm is executable");
    // No temporary folder is left beside it.
    let left: Vec<_> = std::fs::read_dir(home.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");

    // Again: nothing to do, pip is not called.
    std::fs::remove_file(&log).unwrap();
    let o = tessel(&["setup-nvrtc", "--python", py.to_str().unwrap()], &home);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).contains("already installed in"));
    assert!(!log.exists(), "pip ran for an installed folder");
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn another_folder_is_named_in_the_exports() {
    let work = scratch("dir");
    let dir = work.join("nvrtc");
    let log = work.join("pip-args");
    let py = fake_python(&work, &log, true);
    let o = tessel(
        &[
            "setup-nvrtc",
            "--dir",
            dir.to_str().unwrap(),
            "--python",
            py.to_str().unwrap(),
        ],
        &work.join("default-home"),
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(
        out.contains(&format!("export TESSEL_NVRTC_HOME='{}'", dir.display())),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn a_failed_pip_is_a_runtime_error_that_leaves_nothing_behind() {
    let work = scratch("fail");
    let home = work.join("cache/nvrtc");
    let log = work.join("pip-args");
    let py = fake_python(&work, &log, false);
    let o = tessel(&["setup-nvrtc", "--python", py.to_str().unwrap()], &home);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(
        err.contains(
            "pip install nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-nvdisasm==13.2.86` failed"
        ),
        "{err}"
    );
    assert!(!home.exists());
    let left = std::fs::read_dir(home.parent().unwrap()).unwrap().count();
    assert_eq!(left, 0, "a temporary folder was left behind");
    let _ = std::fs::remove_dir_all(&work);
}
