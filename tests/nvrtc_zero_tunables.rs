//! Kernels without tunables emit a plain (non-template) `__global__` function that NVRTC
//! compiles: every `kernels/*.co` with each `tunable NAME in … = DEFAULT;` turned into
//! `const NAME = DEFAULT;` (kernels of every shape the repository has, on all three paths:
//! SIMT scalar FMA, warp-level `mma.sync` tensor cores, and Hopper TMA + WGMMA; the test checks
//! each path is among them), and a kernel with neither tunables nor constants.
//!
//! Without NVRTC these tests print `SKIPPED` and pass, except under `CI=true` or
//! `TESSEL_REQUIRE_NVRTC=1`, where they fail (run `tools/setup-nvrtc.sh`).

mod common;

use common::{kernel_files, lower_for, nvrtc_available, read};
use dsl_core::check::Config;
use dsl_core::ir::Module;
use dsl_core::lower::KernelPath;
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};

/// `src` with every `tunable NAME in DOMAIN = DEFAULT;` line made `const NAME = DEFAULT;`.
fn freeze_tunables(src: &str) -> String {
    src.lines()
        .map(|l| {
            let Some(rest) = l.trim_start().strip_prefix("tunable ") else {
                return l.to_string();
            };
            let name = rest.split_whitespace().next().expect("a tunable name");
            let decl = rest.split(';').next().expect("a `;`");
            let (_, default) = decl.rsplit_once('=').expect("a default");
            format!("const {name} = {};", default.trim())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `src` parsed, in its launch form (what `tessel` and the macro lower).
fn parse(src: &str, what: &str) -> Module {
    dsl_core::lower::launch_form(
        dsl_core::parse::parse_str(src, Some(what))
            .unwrap_or_else(|d| panic!("{what} does not parse:\n{d}"))
            .module,
    )
}

/// The three code paths a kernel without tunables is compiled on.
#[derive(Debug, PartialEq)]
enum Shape {
    /// SIMT without tensor cores.
    Scalar,
    /// SIMT with warp-level `mma.sync`.
    WarpMma,
    /// TMA + WGMMA for sm_90a.
    Hopper,
}

/// Lowers, emits and compiles `m` (which has no tunables); returns the kernel's path.
fn compile_zero_tunable(m: &Module, what: &str) -> KernelPath {
    compile_zero_tunable_shape(m, what).0
}

/// As [`compile_zero_tunable`], with the path told apart by what the kernel emits.
fn compile_zero_tunable_shape(m: &Module, what: &str) -> (KernelPath, Shape) {
    assert!(m.tunables.is_empty(), "{what}: still has tunables");
    let k = lower_for(m, &Config::defaults(m), what);
    let expr = k.name_expression(&[]);
    assert_eq!(
        expr, k.name,
        "{what}: a kernel without tunables is no template"
    );
    let cu = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &k,
        source: what,
        instance: Some(vec![]),
    });
    let kernel = cu
        .split_once("// ---- kernel")
        .expect("a kernel section")
        .1
        .split_once("// ---- launch")
        .expect("a launch section")
        .0;
    assert!(
        !kernel.contains("template <") && !cu.contains(&format!("{}<", k.name)),
        "{what}: template syntax for a kernel without tunables:\n{kernel}"
    );
    let arch = match k.path {
        KernelPath::Simt => Arch::Sm80,
        KernelPath::Hopper => Arch::Sm90a,
    };
    let module = compile(&CompileRequest::new(cu.clone(), arch).name_expression(expr.clone()))
        .unwrap_or_else(|e| panic!("{what} for {arch}: NVRTC failed: {e}\n{cu}"));
    assert!(
        module.lowered_name(&expr).is_some(),
        "{what}: NVRTC gave no lowered name for `{expr}`"
    );
    let shape = match k.path {
        KernelPath::Hopper => Shape::Hopper,
        // The header names the path (`// Path: SIMT with warp-level tensor cores (mma.sync, …`).
        KernelPath::Simt if cu.contains("// Path: SIMT with warp-level tensor cores") => {
            Shape::WarpMma
        }
        KernelPath::Simt => Shape::Scalar,
    };
    (k.path, shape)
}

#[test]
fn every_kernel_with_its_tunables_frozen_compiles() {
    if !nvrtc_available("every_kernel_with_its_tunables_frozen_compiles") {
        return;
    }
    let mut shapes = Vec::new();
    for name in kernel_files() {
        let what = format!("kernels/{name}.co (tunables as constants)");
        let m = parse(
            &freeze_tunables(&read(&format!("kernels/{name}.co"))),
            &what,
        );
        shapes.push(compile_zero_tunable_shape(&m, &what).1);
    }
    for want in [Shape::Scalar, Shape::WarpMma, Shape::Hopper] {
        assert!(
            shapes.contains(&want),
            "no {want:?} kernel among {shapes:?}"
        );
    }
}

#[test]
fn a_kernel_without_tunables_or_constants_compiles() {
    if !nvrtc_available("a_kernel_without_tunables_or_constants_compiles") {
        return;
    }
    let src = "__co__ void scale(global f32 [N] x, global f32 [N] y) {
  parallel {b} by [cdiv(N, 128)] : block, {t} by [128] : thread {
    if (b#t < N)
      y.at(b#t) = x.at(b#t) * 2.0f;
  }
}
";
    let m = parse(src, "scale.co");
    assert_eq!(compile_zero_tunable(&m, "scale.co"), KernelPath::Simt);
}

#[test]
fn freezing_keeps_everything_but_the_tunable_lines() {
    let src = "tunable BM in [64, 128] = 128;   // rows\ntunable W in 128..=256 step 8 = 192;\nconst X = BM * 2;";
    assert_eq!(
        freeze_tunables(src),
        "const BM = 128;\nconst W = 192;\nconst X = BM * 2;"
    );
}
