//! The default cache folders follow the platform convention: `$XDG_CACHE_HOME` on Linux (with
//! the overrides `TESSEL_TUNE_CACHE` and `TESSEL_CACHE_DIR` unset). One test in its own binary,
//! because it changes the process environment.

#[cfg(target_os = "linux")]
#[test]
fn cache_folders_honour_xdg_cache_home_and_the_overrides() {
    use std::path::PathBuf;
    use tessel_runtime::cache::ModuleCache;
    use tessel_runtime::tune::store::default_dir;
    let xdg = std::env::temp_dir().join("tessel-xdg-test");
    // SAFETY: the only test of this binary; nothing else reads the environment meanwhile.
    unsafe {
        std::env::remove_var("TESSEL_TUNE_CACHE");
        std::env::remove_var("TESSEL_CACHE_DIR");
        std::env::set_var("XDG_CACHE_HOME", &xdg);
    }
    assert_eq!(default_dir(), xdg.join("tessel").join("tune"));
    assert_eq!(
        ModuleCache::from_env().dir().map(PathBuf::from),
        Some(xdg.join("tessel").join("modules"))
    );
    // SAFETY: as above.
    unsafe {
        std::env::set_var("TESSEL_TUNE_CACHE", "/somewhere/tune");
        std::env::set_var("TESSEL_CACHE_DIR", "off");
    }
    assert_eq!(default_dir(), PathBuf::from("/somewhere/tune"));
    assert_eq!(ModuleCache::from_env().dir(), None);
}
