//! NVRTC: compile a `.cu` source string to a **cubin** for one GPU architecture.
//!
//! ```no_run
//! use tessel_runtime::nvrtc::{compile, Arch, CompileRequest};
//! let src = "template <int N> __global__ void k(float* x) { x[threadIdx.x] *= N; }";
//! let req = CompileRequest::new(src, Arch::Sm80).name_expression("k<4>");
//! let module = compile(&req)?;
//! let lowered = module.lowered_name("k<4>").unwrap(); // "_Z1kILi4EEvPf"
//! # Ok::<(), tessel_runtime::nvrtc::CompileError>(())
//! ```
//!
//! * Options always start with `--gpu-architecture=<arch>` and `-std=c++17`; `--ptxas-options=-v`
//!   is added unless [`CompileRequest::ptxas_verbose`] is false, and its report is parsed into
//!   [`CompiledModule::resources`].
//! * Template kernels are instantiated through *name expressions* (`nvrtcAddNameExpression`
//!   before compiling, `nvrtcGetLoweredName` after): the mangled names to load are in
//!   [`CompiledModule::lowered_names`].
//! * On failure the source is written to `<debug dir>/<hash>.cu` (and the log beside it as
//!   `<hash>.log`) and [`CompileError::Compilation`] carries the log, the options and that path.
//!   Debug dir: [`CompileRequest::debug_dir`], else `$TESSEL_FAILED_DIR`, else
//!   `$CARGO_TARGET_DIR/tessel/failed`, else `target/tessel/failed`.
//! * NVRTC is located with [`crate::locate::ensure_nvrtc`] before any call, so a missing library
//!   is a typed error ([`CompileError::NotFound`]), never a panic.

use std::ffi::{CStr, CString, c_char};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use cudarc::nvrtc::sys::{self, nvrtcProgram, nvrtcResult};

use crate::hash::StableHasher;
use crate::locate::{self, LocateError};
use crate::ptxas::{self, KernelResources};

/// GPU architectures tessel compiles for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Ampere A100 (cp.async, mma.sync).
    Sm80,
    /// Ampere GA10x.
    Sm86,
    /// Ada.
    Sm89,
    /// Hopper with the arch-specific features (wgmma, setmaxnreg). Plain `sm_90` rejects them.
    Sm90a,
}

impl Arch {
    /// All supported architectures.
    pub const ALL: [Arch; 4] = [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90a];

    /// The NVRTC spelling, e.g. `sm_90a`.
    pub fn as_str(self) -> &'static str {
        match self {
            Arch::Sm80 => "sm_80",
            Arch::Sm86 => "sm_86",
            Arch::Sm89 => "sm_89",
            Arch::Sm90a => "sm_90a",
        }
    }

    /// Compute capability `(major, minor)`.
    pub fn compute_capability(self) -> (i32, i32) {
        match self {
            Arch::Sm80 => (8, 0),
            Arch::Sm86 => (8, 6),
            Arch::Sm89 => (8, 9),
            Arch::Sm90a => (9, 0),
        }
    }

    /// The architecture to build for a device of this compute capability (9.0 → `sm_90a`).
    pub fn from_compute_capability(major: i32, minor: i32) -> Option<Arch> {
        Arch::ALL
            .into_iter()
            .find(|a| a.compute_capability() == (major, minor))
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Arch {
    type Err = CompileError;
    fn from_str(s: &str) -> Result<Arch, CompileError> {
        Arch::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| CompileError::UnsupportedArch {
                arch: s.to_string(),
            })
    }
}

/// What to compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileRequest {
    /// CUDA C++ source (no CUDA headers are available; declare what you need).
    pub source: String,
    /// Name expressions to instantiate and lower, e.g. `"gemm<128, 256, 64>"`.
    pub name_expressions: Vec<String>,
    /// Target architecture.
    pub arch: Arch,
    /// Extra NVRTC options (`-DNAME=1`, `-lineinfo`, `--maxrregcount=168`…).
    pub options: Vec<String>,
    /// Add `--ptxas-options=-v` (default true) so that resources can be parsed.
    pub ptxas_verbose: bool,
    /// Where to write the `.cu` of a failed compilation (see the module doc for the default).
    pub debug_dir: Option<PathBuf>,
}

impl CompileRequest {
    /// A request with no name expressions, no extra options, ptxas verbose on.
    pub fn new(source: impl Into<String>, arch: Arch) -> Self {
        Self {
            source: source.into(),
            name_expressions: Vec::new(),
            arch,
            options: Vec::new(),
            ptxas_verbose: true,
            debug_dir: None,
        }
    }

    /// Adds a name expression.
    pub fn name_expression(mut self, expr: impl Into<String>) -> Self {
        self.name_expressions.push(expr.into());
        self
    }

    /// Adds an NVRTC option.
    pub fn option(mut self, opt: impl Into<String>) -> Self {
        self.options.push(opt.into());
        self
    }

    /// Sets the folder for failed sources.
    pub fn debug_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.debug_dir = Some(dir.into());
        self
    }

    /// The exact option list passed to NVRTC.
    pub fn all_options(&self) -> Vec<String> {
        let mut opts = vec![
            format!("--gpu-architecture={}", self.arch),
            "-std=c++17".to_string(),
        ];
        if self.ptxas_verbose {
            opts.push("--ptxas-options=-v".to_string());
        }
        opts.extend(self.options.iter().cloned());
        opts
    }

    /// Short hash of source + options: the name of the `.cu` written on failure.
    pub fn source_tag(&self) -> String {
        let mut h = StableHasher::new();
        h.str(&self.source);
        for o in self.all_options() {
            h.str(&o);
        }
        h.finish().short()
    }

    fn failed_dir(&self) -> PathBuf {
        if let Some(d) = &self.debug_dir {
            return d.clone();
        }
        if let Some(d) = std::env::var_os("TESSEL_FAILED_DIR") {
            return PathBuf::from(d);
        }
        if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
            return PathBuf::from(d).join("tessel/failed");
        }
        PathBuf::from("target/tessel/failed")
    }
}

/// A compiled module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledModule {
    /// The cubin (ELF) for [`CompiledModule::arch`].
    pub cubin: Vec<u8>,
    /// `(name expression, lowered name)` in request order.
    pub lowered_names: Vec<(String, String)>,
    /// NVRTC's program log (warnings and the ptxas report).
    pub log: String,
    /// `nvrtcVersion()` of the library that compiled it.
    pub nvrtc_version: (i32, i32),
    /// Target architecture.
    pub arch: Arch,
    /// The exact options used.
    pub options: Vec<String>,
    /// ptxas report per function (empty without `--ptxas-options=-v`).
    pub resources: Vec<KernelResources>,
}

impl CompiledModule {
    /// The lowered name of a name expression.
    pub fn lowered_name(&self, expr: &str) -> Option<&str> {
        self.lowered_names
            .iter()
            .find(|(e, _)| e == expr)
            .map(|(_, l)| l.as_str())
    }

    /// Resources of a function, by name expression or lowered name.
    pub fn resources_for(&self, name: &str) -> Option<&KernelResources> {
        let lowered = self.lowered_name(name).unwrap_or(name);
        self.resources.iter().find(|r| r.name == lowered)
    }

    /// ptxas performance diagnostics (`C7xxx`) in the log.
    pub fn perf_warnings(&self) -> Vec<&str> {
        ptxas::perf_warnings(&self.log)
    }
}

/// Compilation errors.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// NVRTC could not be located or loaded.
    #[error(transparent)]
    NotFound(#[from] LocateError),
    /// An architecture string tessel does not build for.
    #[error(
        "unsupported GPU architecture `{arch}`; tessel builds for sm_80, sm_86, sm_89 and sm_90a"
    )]
    UnsupportedArch {
        /// The string given.
        arch: String,
    },
    /// A string handed to NVRTC contains a NUL byte.
    #[error("{what} contains a NUL byte at offset {offset}")]
    InteriorNul {
        /// Which input (`source`, `option`, `name expression`).
        what: &'static str,
        /// Byte offset of the NUL.
        offset: usize,
    },
    /// The source did not compile.
    #[error(
        "NVRTC failed to compile for {arch} ({code:?}) with options [{}]; source written to {}\n{log}",
        options.join(" "),
        source_path.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| format!("<not written: {}>", write_error.as_deref().unwrap_or("?")))
    )]
    Compilation {
        /// Target architecture.
        arch: Arch,
        /// NVRTC result code.
        code: nvrtcResult,
        /// The exact options.
        options: Vec<String>,
        /// NVRTC's log.
        log: String,
        /// Where the source was written, when writing worked.
        source_path: Option<PathBuf>,
        /// Why the source could not be written.
        write_error: Option<String>,
    },
    /// Another NVRTC call failed.
    #[error("{call} failed: {code:?} ({message})")]
    Nvrtc {
        /// The NVRTC function.
        call: &'static str,
        /// Its result code.
        code: nvrtcResult,
        /// `nvrtcGetErrorString`.
        message: String,
    },
    /// A name expression had no lowered name (not instantiated by the source?).
    #[error(
        "name expression `{expr}` has no lowered name ({code:?}); is it a __global__ template instance the source can instantiate?"
    )]
    LoweredName {
        /// The expression.
        expr: String,
        /// NVRTC's code.
        code: nvrtcResult,
    },
    /// cudarc panicked inside an NVRTC call (e.g. a symbol missing from an old library).
    #[error("NVRTC call panicked: {0}")]
    Panicked(String),
}

/// RAII owner of an `nvrtcProgram`.
struct Program(nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the handle came from nvrtcCreateProgram and is destroyed exactly once.
        unsafe {
            let _ = sys::nvrtcDestroyProgram(&mut self.0);
        }
    }
}

fn check(call: &'static str, code: nvrtcResult) -> Result<(), CompileError> {
    if code == nvrtcResult::NVRTC_SUCCESS {
        return Ok(());
    }
    // SAFETY: nvrtcGetErrorString returns a static C string for any code.
    let message = unsafe {
        let p = sys::nvrtcGetErrorString(code);
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    Err(CompileError::Nvrtc {
        call,
        code,
        message,
    })
}

fn cstring(what: &'static str, s: &str) -> Result<CString, CompileError> {
    CString::new(s).map_err(|e| CompileError::InteriorNul {
        what,
        offset: e.nul_position(),
    })
}

/// Runs `f`, turning a panic (cudarc's reaction to a missing symbol) into an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, CompileError>) -> Result<T, CompileError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let msg = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(CompileError::Panicked(msg))
    })
}

/// `nvrtcVersion()` of the NVRTC in use.
pub fn nvrtc_version() -> Result<(i32, i32), CompileError> {
    locate::ensure_nvrtc()?;
    guarded(|| {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        check("nvrtcVersion", unsafe {
            sys::nvrtcVersion(&mut major, &mut minor)
        })?;
        Ok((major, minor))
    })
}

/// Compiles `req` to a cubin; see the module doc.
pub fn compile(req: &CompileRequest) -> Result<CompiledModule, CompileError> {
    locate::ensure_nvrtc()?;
    let version = nvrtc_version()?;
    guarded(|| compile_inner(req, version))
}

fn compile_inner(
    req: &CompileRequest,
    version: (i32, i32),
) -> Result<CompiledModule, CompileError> {
    let tag = req.source_tag();
    let src = cstring("source", &req.source)?;
    let prog_name = cstring("program name", &format!("{tag}.cu"))?;
    let options = req.all_options();
    let c_opts = options
        .iter()
        .map(|o| cstring("option", o))
        .collect::<Result<Vec<_>, _>>()?;
    let c_exprs = req
        .name_expressions
        .iter()
        .map(|e| cstring("name expression", e))
        .collect::<Result<Vec<_>, _>>()?;

    let mut raw: nvrtcProgram = std::ptr::null_mut();
    // SAFETY: valid C strings; no headers.
    check("nvrtcCreateProgram", unsafe {
        sys::nvrtcCreateProgram(
            &mut raw,
            src.as_ptr(),
            prog_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    })?;
    let prog = Program(raw);

    for e in &c_exprs {
        // SAFETY: live program, valid C string.
        check("nvrtcAddNameExpression", unsafe {
            sys::nvrtcAddNameExpression(prog.0, e.as_ptr())
        })?;
    }

    let opt_ptrs: Vec<*const c_char> = c_opts.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: live program; `opt_ptrs` outlives the call.
    let code =
        unsafe { sys::nvrtcCompileProgram(prog.0, opt_ptrs.len() as i32, opt_ptrs.as_ptr()) };
    let log = program_log(&prog)?;
    if code != nvrtcResult::NVRTC_SUCCESS {
        let dir = req.failed_dir();
        let path = dir.join(format!("{tag}.cu"));
        let written = std::fs::create_dir_all(&dir)
            .and_then(|_| std::fs::write(&path, &req.source))
            .and_then(|_| {
                let header = format!("// options: {}\n", options.join(" "));
                std::fs::write(dir.join(format!("{tag}.log")), header + &log)
            });
        let (source_path, write_error) = match written {
            Ok(()) => (Some(path), None),
            Err(e) => (None, Some(format!("{}: {e}", path.display()))),
        };
        return Err(CompileError::Compilation {
            arch: req.arch,
            code,
            options,
            log,
            source_path,
            write_error,
        });
    }

    let mut size = 0usize;
    // SAFETY: live, compiled program.
    check("nvrtcGetCUBINSize", unsafe {
        sys::nvrtcGetCUBINSize(prog.0, &mut size)
    })?;
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` has `size` bytes.
    check("nvrtcGetCUBIN", unsafe {
        sys::nvrtcGetCUBIN(prog.0, cubin.as_mut_ptr().cast())
    })?;

    let mut lowered_names = Vec::with_capacity(c_exprs.len());
    for (expr, c_expr) in req.name_expressions.iter().zip(&c_exprs) {
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: live program, expression added before compiling.
        let code = unsafe { sys::nvrtcGetLoweredName(prog.0, c_expr.as_ptr(), &mut p) };
        if code != nvrtcResult::NVRTC_SUCCESS || p.is_null() {
            return Err(CompileError::LoweredName {
                expr: expr.clone(),
                code,
            });
        }
        // SAFETY: NVRTC returns a NUL-terminated string owned by the program (copied here).
        let lowered = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        lowered_names.push((expr.clone(), lowered));
    }

    let resources = ptxas::parse_ptxas_log(&log);
    Ok(CompiledModule {
        cubin,
        lowered_names,
        log,
        nvrtc_version: version,
        arch: req.arch,
        options,
        resources,
    })
}

fn program_log(prog: &Program) -> Result<String, CompileError> {
    let mut size = 0usize;
    // SAFETY: live program.
    check("nvrtcGetProgramLogSize", unsafe {
        sys::nvrtcGetProgramLogSize(prog.0, &mut size)
    })?;
    let mut buf = vec![0u8; size.max(1)];
    // SAFETY: `buf` holds `size` bytes (the size includes the NUL).
    check("nvrtcGetProgramLog", unsafe {
        sys::nvrtcGetProgramLog(prog.0, buf.as_mut_ptr().cast())
    })?;
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_strings_and_capabilities_round_trip() {
        for a in Arch::ALL {
            assert_eq!(a.as_str().parse::<Arch>().unwrap(), a);
            let (ma, mi) = a.compute_capability();
            assert_eq!(Arch::from_compute_capability(ma, mi), Some(a));
        }
        assert_eq!(Arch::from_compute_capability(9, 0), Some(Arch::Sm90a));
        assert_eq!(Arch::from_compute_capability(7, 5), None);
        assert!(matches!(
            "sm_90".parse::<Arch>(),
            Err(CompileError::UnsupportedArch { .. })
        ));
    }

    #[test]
    fn options_start_with_arch_and_std() {
        let req = CompileRequest::new("x", Arch::Sm90a).option("-DFOO=1");
        assert_eq!(
            req.all_options(),
            vec![
                "--gpu-architecture=sm_90a",
                "-std=c++17",
                "--ptxas-options=-v",
                "-DFOO=1"
            ]
        );
        let quiet = CompileRequest {
            ptxas_verbose: false,
            ..req.clone()
        };
        assert!(!quiet.all_options().iter().any(|o| o.contains("ptxas")));
        assert_ne!(req.source_tag(), quiet.source_tag());
    }

    #[test]
    fn nul_in_source_is_a_typed_error() {
        assert!(matches!(
            cstring("source", "ab\0c"),
            Err(CompileError::InteriorNul {
                what: "source",
                offset: 2
            })
        ));
    }

    #[test]
    fn debug_dir_override_wins() {
        let req = CompileRequest::new("x", Arch::Sm80).debug_dir("/tmp/somewhere");
        assert_eq!(req.failed_dir(), PathBuf::from("/tmp/somewhere"));
    }
}
