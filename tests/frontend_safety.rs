//! The `tessel` binary on inputs that once crashed or misled it: each run must end with an
//! exit code and text (a result or rendered diagnostics), never a panic or an abort.

use std::path::PathBuf;
use std::process::Command;

/// Writes `text` to a fresh file named `name` and runs `tessel CMD FILE`: (stdout+stderr, code).
fn tessel(cmd: &str, name: &str, text: &str) -> (String, i32) {
    let dir = std::env::temp_dir().join(format!("tessel-safety-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file: PathBuf = dir.join(name);
    std::fs::write(&file, text).expect("write input");
    let out = Command::new(env!("CARGO_BIN_EXE_tessel"))
        .arg(cmd)
        .arg(&file)
        .output()
        .expect("run tessel");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        !text.contains("panicked"),
        "tessel {cmd} {name} panicked:\n{text}"
    );
    (
        text,
        out.status.code().expect("exited, not killed by a signal"),
    )
}

/// v4 with its `persistent PERSISTENT;` switch written as the bare `persistent;`.
fn v4_bare_persistent() -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/kernels/v4_tuned.co")).expect("v4");
    assert!(text.contains("persistent PERSISTENT;"));
    text.replace("persistent PERSISTENT;", "persistent;")
}

#[test]
fn bare_persistent_checks_and_emits() {
    let text = v4_bare_persistent();
    let (out, code) = tessel("check", "bare_persistent.co", &text);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": ok ("), "{out}");
    let (out, code) = tessel("emit", "bare_persistent.co", &text);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("persistent: this block's tiles"),
        "the persistent tile loop is emitted:\n{out}"
    );
}

#[test]
fn bare_persistent_with_an_error_after_it_reports_the_error() {
    let text = v4_bare_persistent().replace("trigger full[stage];", "trigger fulll[stage];");
    let (out, code) = tessel("check", "bare_persistent_typo.co", &text);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[E0101]"), "{out}");
    assert!(out.contains("did you mean `full`"), "{out}");
}

/// A kernel of `kernels/` with one edit.
fn kernel_with(name: &str, from: &str, to: &str) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/kernels/{name}.co")).expect("kernel");
    assert!(text.contains(from), "`{from}` not in {name}");
    text.replacen(from, to, 1)
}

#[test]
fn hazards_are_reported_by_check_with_code_and_caret() {
    let cases = [
        (
            kernel_with(
                "v3_warpspec",
                "        foreach {s} in [STAGES]\n          trigger empty[s];\n",
                "",
            ),
            "E1208",
            "wait empty[stage];",
        ),
        (
            kernel_with("v1_shared", "[cdiv(K, TILE_K)]", "[cdiv(K, 0)]"),
            "E1205",
            "foreach {iv_k} in [cdiv(K, 0)] {",
        ),
        (
            kernel_with("v1_shared", "[TILE_K]", "[TILE_K - 128]"),
            "E1204",
            "foreach {ik} in [TILE_K - 128]",
        ),
    ];
    for (i, (text, code, line)) in cases.iter().enumerate() {
        let (out, status) = tessel("check", &format!("hazard{i}.co"), text);
        assert_eq!(status, 1, "{out}");
        assert!(out.contains(&format!("error[{code}]")), "{out}");
        assert!(out.contains(line) && out.contains('^'), "{out}");
        let (out, status) = tessel("emit", &format!("hazard{i}.co"), text);
        assert_eq!(status, 1, "emit refuses it too:\n{out}");
    }
}
