//! Example outputs go under the Cargo target directory: `$CARGO_TARGET_DIR` when set, else
//! the one the running binary was built in — never `target/` relative to the working folder.
//! One test in its own binary, because it changes the process environment.

#[test]
fn outputs_follow_cargo_target_dir() {
    use std::path::PathBuf;
    use tessel_harness::out::{example_dir, target_dir};
    // SAFETY: the only test of this binary; nothing else reads the environment meanwhile.
    unsafe { std::env::set_var("CARGO_TARGET_DIR", "/elsewhere/build") };
    assert_eq!(
        example_dir("v4_tuned"),
        PathBuf::from("/elsewhere/build/tessel/v4_tuned")
    );
    // SAFETY: as above.
    unsafe { std::env::remove_var("CARGO_TARGET_DIR") };
    // This test binary is not an example: the fallback is `target`; an example binary at
    // `<target>/<profile>/examples/<name>` resolves to its `<target>`.
    let t = target_dir();
    assert!(
        t == PathBuf::from("target") || t.is_absolute(),
        "{}",
        t.display()
    );
}
