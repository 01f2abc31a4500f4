//! The `tessel` executable as a user runs it: `--help`, `--version`, every subcommand's
//! `--help`, `--m=4096`-style long options, where the output goes and the exit codes
//! (`tessel::cli::exit`).

mod common;

use std::process::{Command, Output};

use tessel::cli::exit;

const V4: &str = "kernels/v4_tuned.co";

/// Every subcommand, as `tessel --help` lists it.
const SUBCOMMANDS: &[&str] = &["check", "ir", "emit", "compile"];

fn tessel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessel"))
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("run tessel")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_lists_every_subcommand_and_the_exit_codes() {
    for flag in ["--help", "-h", "help"] {
        let o = tessel(&[flag]);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(exit::OK), "{flag}: {out}");
        assert!(o.stderr.is_empty(), "{flag}: {}", text(&o.stderr));
        assert!(out.contains("Usage: tessel <COMMAND>"), "{out}");
        for sub in SUBCOMMANDS {
            assert!(
                out.lines().any(|l| l.trim_start().starts_with(sub)),
                "`{sub}` not listed:\n{out}"
            );
        }
        assert!(out.contains("Exit codes:"), "{out}");
        for code in ["0  success", "1  ", "2  usage", "3  no GPU", "4  "] {
            assert!(out.contains(code), "`{code}` missing:\n{out}");
        }
    }
}

#[test]
fn version_is_the_package_version() {
    for flag in ["--version", "-V"] {
        let o = tessel(&[flag]);
        assert_eq!(o.status.code(), Some(exit::OK));
        assert_eq!(
            text(&o.stdout).trim(),
            format!("tessel {}", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn every_subcommand_has_help() {
    for sub in SUBCOMMANDS {
        let o = tessel(&[sub, "--help"]);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(exit::OK), "{sub}: {out}");
        assert!(
            out.contains(&format!("Usage: tessel {sub}")),
            "{sub}:\n{out}"
        );
        assert!(out.contains("FILE.co"), "{sub}:\n{out}");
        assert!(out.contains("--set <NAME=V>"), "{sub}:\n{out}");
        // `tessel help SUB` says the same.
        let o2 = tessel(&["help", sub]);
        assert_eq!(text(&o2.stdout), out, "`tessel help {sub}`");
    }
    let o = tessel(&["compile", "--help"]);
    let out = text(&o.stdout);
    assert!(
        out.contains("--arch <ARCH>") && out.contains("sm_90a"),
        "{out}"
    );
    assert!(out.contains("-o, --output <FILE.cubin>"), "{out}");
}

#[test]
fn long_options_take_their_value_after_an_equals_sign() {
    let spaced = tessel(&["emit", V4, "--set", "WARP_N=128"]);
    let joined = tessel(&["emit", V4, "--set=WARP_N=128"]);
    assert_eq!(spaced.status.code(), Some(exit::OK));
    assert_eq!(joined.status.code(), Some(exit::OK));
    assert_eq!(spaced.stdout, joined.stdout);
    let o = tessel(&["compile", V4, "--arch=sm_7x"]);
    assert_eq!(o.status.code(), Some(exit::USAGE));
    let err = text(&o.stderr);
    assert!(
        err.contains("unsupported GPU architecture `sm_7x`"),
        "{err}"
    );
}

#[test]
fn exit_codes_tell_success_failed_check_and_usage_apart() {
    let ok = tessel(&["check", V4]);
    assert_eq!(ok.status.code(), Some(exit::OK));
    assert!(text(&ok.stdout).contains(": ok ("));
    assert!(ok.stderr.is_empty());

    // A DSL error: the diagnostic on stderr, exit 1.
    let bad = tessel(&["check", "tests/data/bad_swizzle.co"]);
    assert_eq!(bad.status.code(), Some(exit::FAILED));
    assert!(bad.stdout.is_empty());
    assert!(text(&bad.stderr).contains("error[E0401]"));

    for args in [
        &["frobnicate"][..],
        &["check"][..],
        &["check", V4, "--bogus"][..],
        &["check", "tests/data/does_not_exist.co"][..],
        &["check", V4, "--set", "NOPE=1"][..],
        &["compile", V4, "--arch"][..],
    ] {
        let o = tessel(args);
        assert_eq!(o.status.code(), Some(exit::USAGE), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(text(&o.stderr).starts_with("error: "), "{args:?}");
    }
}

#[test]
fn an_unwritable_output_is_a_runtime_error() {
    if !common::nvrtc_and_nvdisasm_available("an_unwritable_output_is_a_runtime_error") {
        return;
    }
    // A path under a regular file cannot be created.
    let blocker = std::env::temp_dir().join(format!("tessel-cli-blocker-{}", std::process::id()));
    std::fs::write(&blocker, b"").unwrap();
    let out = blocker.join("k.cubin");
    let o = tessel(&[
        "compile",
        "kernels/v0_naive.co",
        "-o",
        out.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_file(&blocker);
    assert_eq!(o.status.code(), Some(exit::RUNTIME), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("cannot create"),
        "{}",
        text(&o.stderr)
    );
}
