//! Helpers shared by the root crate's integration tests: the seed kernels, the front-end
//! pipeline (parse → check → lower → emit) on a `.co` file, a line diff for golden files, and
//! the NVRTC/nvdisasm gate (copied from `runtime/tests/common/mod.rs`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use dsl_core::check::{self, Config, Limits};
use dsl_core::ir::Module;
use dsl_core::lower::CudaKernel;
use tessel_runtime::locate;

/// The v0–v4 ladder's kernels, `kernels/<name>.co`.
pub const KERNELS: [&str; 5] = [
    "v0_naive",
    "v1_shared",
    "v2_tma_wgmma",
    "v3_warpspec",
    "v4_tuned",
];

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Reads a file under the repository root.
pub fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every `kernels/*.co`, by stem, sorted; asserts the seed kernels are all there.
pub fn kernel_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("kernels"))
        .expect("kernels/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for k in KERNELS {
        assert!(names.iter().any(|n| n == k), "kernels/{k}.co is missing");
    }
    names
}

/// `kernels/<name>.co` parsed (file mode) in its launch form, as `tessel` and
/// `gemm_kernel!(file = …)` take it.
pub fn parse_kernel(name: &str) -> Module {
    let rel = format!("kernels/{name}.co");
    let text = read(&rel);
    let m = dsl_core::parse::parse_str(&text, Some(&rel))
        .unwrap_or_else(|d| panic!("{rel} does not parse:\n{d}"))
        .module;
    // The launch form: a body-declared output is a parameter (what `tessel` lowers).
    dsl_core::lower::launch_form(m)
}

/// Checks `m` for `cfg` (sm_90 limits) and lowers it.
pub fn lower_for(m: &Module, cfg: &Config, what: &str) -> CudaKernel {
    let info = check::check_config(m, cfg, None, &Limits::default())
        .unwrap_or_else(|d| panic!("{what} does not check:\n{d}"));
    dsl_core::lower::lower(m, &info).unwrap_or_else(|d| panic!("{what} does not lower:\n{d}"))
}

/// The tunable values of `cfg` in template-parameter order.
pub fn instance(k: &CudaKernel, cfg: &Config) -> Vec<i64> {
    k.tunables
        .iter()
        .map(|t| {
            cfg.get(&t.name)
                .unwrap_or_else(|| panic!("no value for `{}`", t.name))
        })
        .collect()
}

/// The `.cu` text of `kernels/<name>.co` instantiated for `cfg`, and its name expression.
pub fn emit_kernel(name: &str, cfg: &Config) -> (CudaKernel, String, String) {
    emit_module(name, &parse_kernel(name), cfg)
}

/// As [`emit_kernel`], for `m`: `kernels/<name>.co` parsed, possibly changed (a dtype variant).
pub fn emit_module(name: &str, m: &Module, cfg: &Config) -> (CudaKernel, String, String) {
    emit_source(m, &format!("kernels/{name}.co"), cfg)
}

/// The lowered kernel of `m` (read from `source`) at `cfg`, its `.cu` and its name expression.
pub fn emit_source(m: &Module, source: &str, cfg: &Config) -> (CudaKernel, String, String) {
    let k = lower_for(m, cfg, source);
    let inst = instance(&k, cfg);
    let expr = k.name_expression(&inst);
    let cu = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &k,
        source,
        instance: Some(inst),
    });
    (k, cu, expr)
}

/// The module of the `.co` file at `rel` (relative to the repository root).
pub fn parse_file(rel: &str) -> Module {
    dsl_core::parse::parse_str(&read(rel), Some(rel))
        .unwrap_or_else(|d| panic!("{rel} does not parse:\n{d}"))
        .module
}

/// A kernel compiled by [`clean_sass`].
pub struct Compiled {
    /// The SASS of the kernel's function.
    pub sass: String,
    /// ptxas's performance warnings.
    pub warnings: Vec<String>,
    /// Registers per thread.
    pub registers: u32,
}

/// Compiles `cu` for `arch` and returns the SASS of `expr`, ptxas's performance warnings and
/// its registers, after checking that it uses no local memory and does not spill.
pub fn clean_sass(what: &str, cu: &str, expr: &str, arch: tessel_runtime::nvrtc::Arch) -> Compiled {
    use tessel_runtime::nvrtc::{CompileRequest, compile};
    use tessel_runtime::sass;
    let what = format!("{what} `{expr}` for {arch}");
    let req = CompileRequest::new(cu.to_string(), arch).name_expression(expr.to_string());
    let module = compile(&req).unwrap_or_else(|e| panic!("{what}: NVRTC failed: {e}"));
    let lowered = module
        .lowered_name(expr)
        .unwrap_or_else(|| panic!("{what}: no lowered name"))
        .to_string();
    let all = sass::disassemble(&module.cubin).unwrap_or_else(|e| panic!("{what}: {e}"));
    let sass = sass::function_sass(&all, &lowered)
        .unwrap_or_else(|| panic!("{what}: `{lowered}` is not in the SASS"))
        .to_string();
    let r = module
        .resources_for(expr)
        .unwrap_or_else(|| panic!("{what}: no ptxas report:\n{}", module.log));
    assert!(
        r.spill_stores == 0 && r.spill_loads == 0,
        "{what}: spills {} / {} bytes\n{}",
        r.spill_stores,
        r.spill_loads,
        module.log
    );
    assert!(
        !sass::has_local_memory(&sass),
        "{what}: local memory (LDL/STL) in the SASS"
    );
    let warnings = module
        .perf_warnings()
        .into_iter()
        .map(|w| w.to_string())
        .collect();
    Compiled {
        sass,
        warnings,
        registers: r.registers,
    }
}

/// Fails unless every instruction of `ops` occurs in `sass`.
pub fn assert_ops(what: &str, sass: &str, ops: &[&str]) {
    use tessel_runtime::sass;
    for op in ops {
        assert!(
            sass::count(sass, op) > 0,
            "{what}: no {op} in the SASS; instructions used: {:?}",
            sass::instruction_set(sass)
        );
    }
}

/// A line diff that shows the first differing lines (at most `max` of them).
pub fn first_differences(expected: &str, actual: &str, max: usize) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut out = String::new();
    let mut shown = 0;
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i).copied(), a.get(i).copied());
        if x != y {
            out.push_str(&format!(
                "line {}:\n  expected: {}\n  actual:   {}\n",
                i + 1,
                x.unwrap_or("<end of file>"),
                y.unwrap_or("<end of file>")
            ));
            shown += 1;
            if shown == max {
                out.push_str("  …\n");
                break;
            }
        }
    }
    out
}

/// True when golden files should be rewritten (`TESSEL_BLESS=1`).
pub fn bless() -> bool {
    std::env::var("TESSEL_BLESS").is_ok_and(|v| v == "1")
}

/// Compares `actual` with the golden file `rel` (rewriting it under `TESSEL_BLESS=1`); returns
/// a failure description instead of panicking so that a test can report every file.
pub fn golden(rel: &str, actual: &str) -> Result<(), String> {
    let path: PathBuf = root().join(rel);
    if bless() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, actual).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("blessed {rel}");
        return Ok(());
    }
    let expected = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{rel}: {e}; create it with TESSEL_BLESS=1 cargo test --test {}",
            test_name()
        )
    })?;
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "{rel} differs from the output (rerun with TESSEL_BLESS=1 to accept):\n{}",
        first_differences(&expected, actual, 12)
    ))
}

fn test_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .and_then(|s| s.rsplit_once('-').map(|(n, _)| n.to_string()))
        .unwrap_or_else(|| "<test>".into())
}

/// Prints `SKIPPED: …` straight to the process's stderr: libtest captures `eprintln!` of
/// passing tests, and a skip must be seen.
fn skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}

/// True when NVRTC is usable. Otherwise fails the test under `CI=true` /
/// `TESSEL_REQUIRE_NVRTC=1`, else prints a loud SKIPPED line and returns false.
pub fn nvrtc_available(test: &str) -> bool {
    match locate::ensure_nvrtc() {
        Ok(_) => true,
        Err(e) if locate::nvrtc_required() => {
            panic!("{test}: {e} (required: CI=true or TESSEL_REQUIRE_NVRTC=1)")
        }
        Err(e) => {
            skipped(&format!("NVRTC not found ({test}): {e}"));
            false
        }
    }
}

/// Same gate for NVRTC plus nvdisasm.
pub fn nvrtc_and_nvdisasm_available(test: &str) -> bool {
    if !nvrtc_available(test) {
        return false;
    }
    match locate::find_nvdisasm() {
        Ok(_) => true,
        Err(e) if locate::nvrtc_required() => {
            panic!("{test}: {e} (required: CI=true or TESSEL_REQUIRE_NVRTC=1)")
        }
        Err(e) => {
            skipped(&format!("nvdisasm not found ({test}): {e}"));
            false
        }
    }
}

/// Runs the `tessel` binary of this build in the repository root.
pub fn tessel(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tessel"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run tessel")
}

/// Captured output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Compiles the host C++ program `source` (C++17, `-D{define}="header"`: the header it includes)
/// into `dir` and runs it: `Some((exit status ok, stdout))`, or `None` without a host C++
/// compiler (`c++` or `$CXX`), printed as `SKIPPED` — a failure under `CI=true`. Panics when the
/// program does not compile.
pub fn host_cpp_run(
    define: &str,
    header: &Path,
    source: &Path,
    dir: &Path,
) -> Option<(bool, String)> {
    let exe = dir.join("host_model");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let out = std::process::Command::new(&cxx)
        .args(["-std=c++17", "-O1", "-w"])
        .arg(format!("-D{define}=\"{}\"", header.display()))
        .arg(source)
        .arg("-o")
        .arg(&exe)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("no host C++ compiler `{cxx}` (required under CI=true): {e}")
        }
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: no host C++ compiler `{cxx}`: {e}"
            );
            return None;
        }
    };
    assert!(
        out.status.success(),
        "{cxx} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = std::process::Command::new(&exe)
        .output()
        .expect("run the host model");
    Some((
        run.status.success(),
        String::from_utf8_lossy(&run.stdout).into_owned(),
    ))
}

/// Fails on a file of `dir` (relative to the repository root) that is not the `.cu` golden of
/// one of `stems`: a golden whose kernel is gone is deleted, not kept. `what` names the kernels
/// in the message.
pub fn assert_no_stray_goldens(dir: &str, stems: &[String], what: &str) {
    let dir = root().join(dir);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            p.extension().is_some_and(|x| x == "cu") && stems.contains(&stem),
            "{} is no {what}'s golden: delete it",
            p.display()
        );
    }
}

/// The stems of the `.co` files of a folder of the repository, sorted.
pub fn co_stems(dir: &str) -> Vec<String> {
    let dir = root().join(dir);
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    stems.sort();
    stems
}
