//! NVRTC → cubin → SASS checks that need no GPU: each kernel family tessel emits compiles for
//! its architecture and shows the expected machine instructions.
//!
//! Without NVRTC these tests print `SKIPPED: NVRTC not found` and pass, except under `CI=true`
//! or `TESSEL_REQUIRE_NVRTC=1`, where they fail (run `tessel setup-nvrtc` or `tools/setup-nvrtc.sh`).

mod common;

use common::{nvrtc_and_nvdisasm_available, nvrtc_available, scratch_dir};
use tessel_runtime::cache::{CacheOutcome, ModuleCache};
use tessel_runtime::nvrtc::{
    Arch, CompileError, CompileRequest, CompiledModule, compile, nvrtc_version,
};
use tessel_runtime::sass;

/// Inline-PTX helper every kernel below shares: generic → shared-window address.
const SMEM_ADDR: &str = r#"
static __device__ __forceinline__ unsigned smem_addr(const void* p) {
  unsigned a;
  asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}
"#;

const FFMA_SRC: &str = r#"
template <int N, typename T>
__global__ void scale_add(T* y, const T* x, T a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int j = 0; j < N; ++j) y[i * N + j] = a * x[i * N + j] + y[i * N + j];
}
"#;

fn compile_ok(req: &CompileRequest) -> CompiledModule {
    compile(req).unwrap_or_else(|e| panic!("compile failed: {e}"))
}

fn sass_of(m: &CompiledModule) -> String {
    sass::disassemble(&m.cubin).unwrap_or_else(|e| panic!("nvdisasm failed: {e}"))
}

#[test]
fn nvrtc_version_is_13() {
    if !nvrtc_available("nvrtc_version_is_13") {
        return;
    }
    let (major, _minor) = nvrtc_version().unwrap();
    assert!(major >= 13, "NVRTC {major}.x; tessel needs 13.x");
}

#[test]
fn templated_ffma_kernel_for_sm80() {
    if !nvrtc_and_nvdisasm_available("templated_ffma_kernel_for_sm80") {
        return;
    }
    let req = CompileRequest::new(FFMA_SRC, Arch::Sm80).name_expression("scale_add<4, float>");
    let m = compile_ok(&req);
    // Name-expression lowering of a template instance.
    let lowered = m.lowered_name("scale_add<4, float>").unwrap();
    assert_eq!(lowered, "_Z9scale_addILi4EfEvPT0_PKS0_S0_");
    assert_eq!(m.arch, Arch::Sm80);
    assert!(m.cubin.starts_with(b"\x7fELF"), "a cubin is an ELF file");
    let s = sass_of(&m);
    let body = sass::function_sass(&s, lowered).expect("function in SASS");
    assert_eq!(
        sass::count(body, "FFMA"),
        4,
        "one FFMA per unrolled element:\n{body}"
    );
    assert!(!sass::has_local_memory(&s));
    // ptxas -v report for the lowered name.
    let r = m
        .resources_for("scale_add<4, float>")
        .expect("ptxas report");
    assert_eq!(r.name, lowered);
    assert_eq!(r.arch.as_deref(), Some("sm_80"));
    assert!(r.registers > 0 && r.registers < 64, "{r:?}");
    assert!(!r.uses_local_memory());
}

#[test]
fn two_instances_of_one_template() {
    if !nvrtc_available("two_instances_of_one_template") {
        return;
    }
    let req = CompileRequest::new(FFMA_SRC, Arch::Sm86)
        .name_expression("scale_add<2, float>")
        .name_expression("scale_add<8, double>");
    let m = compile_ok(&req);
    assert_eq!(m.lowered_names.len(), 2);
    let a = m.lowered_name("scale_add<2, float>").unwrap();
    let b = m.lowered_name("scale_add<8, double>").unwrap();
    assert_ne!(a, b);
    assert!(m.resources_for(a).is_some() && m.resources_for(b).is_some());
}

#[test]
fn cp_async_kernel_for_sm80_uses_ldgsts() {
    if !nvrtc_and_nvdisasm_available("cp_async_kernel_for_sm80_uses_ldgsts") {
        return;
    }
    let src = format!(
        "{SMEM_ADDR}{}",
        r#"
struct alignas(16) V4 { float x, y, z, w; };
extern "C" __global__ void cp_async_probe(const V4* in, V4* out) {
  __shared__ V4 buf[128];
  const V4* g = in + blockIdx.x * 128 + threadIdx.x;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_addr(&buf[threadIdx.x])), "l"(g) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();
  out[blockIdx.x * 128 + threadIdx.x] = buf[127 - threadIdx.x];
}
"#
    );
    let m = compile_ok(&CompileRequest::new(src, Arch::Sm80).name_expression("cp_async_probe"));
    assert_eq!(m.lowered_name("cp_async_probe"), Some("cp_async_probe"));
    let s = sass_of(&m);
    assert!(sass::count(&s, "LDGSTS") >= 1, "no LDGSTS in:\n{s}");
    assert!(sass::count(&s, "LDGDEPBAR") >= 1);
    assert_eq!(m.resources_for("cp_async_probe").unwrap().smem_bytes, 2048);
}

/// `wgmma.mma_async m64n64k16 f32.f16.f16`: 32 f32 accumulators per thread, descriptors for
/// A and B, scaleD from a register (HOPPER_NOTES §a).
fn wgmma_source() -> String {
    let regs: Vec<String> = (0..32).map(|i| format!("%{i}")).collect();
    let outs: Vec<String> = (0..32).map(|i| format!("\"+f\"(d[{i}])")).collect();
    format!(
        r#"
extern "C" __global__ void __launch_bounds__(128, 1)
wgmma_probe(float* out, unsigned long long desc_a, unsigned long long desc_b, int scale_d) {{
  float d[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
    "{{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{regs}}}, %32, %33, p, 1, 1, 0, 0;\n}}\n"
    : {outs}
    : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = d[i];
}}
"#,
        regs = regs.join(", "),
        outs = outs.join(", ")
    )
}

#[test]
fn wgmma_kernel_for_sm90a_uses_hgmma() {
    if !nvrtc_and_nvdisasm_available("wgmma_kernel_for_sm90a_uses_hgmma") {
        return;
    }
    let m = compile_ok(&CompileRequest::new(wgmma_source(), Arch::Sm90a));
    let s = sass_of(&m);
    assert_eq!(sass::count(&s, "HGMMA"), 1, "SASS:\n{s}");
    assert_eq!(sass::count(&s, "HGMMA.64x64x16.F32"), 1);
    assert!(sass::count(&s, "WARPGROUP.ARRIVE") >= 1);
    assert!(!sass::has_local_memory(&s));
    assert!(m.perf_warnings().is_empty(), "{:?}", m.perf_warnings());
    let r = m.resources_for("wgmma_probe").unwrap();
    assert!(r.registers >= 32, "32 accumulators need registers: {r:?}");
}

#[test]
fn wgmma_is_rejected_for_sm80() {
    if !nvrtc_available("wgmma_is_rejected_for_sm80") {
        return;
    }
    let dir = scratch_dir("wgmma-sm80");
    let err =
        compile(&CompileRequest::new(wgmma_source(), Arch::Sm80).debug_dir(&*dir)).unwrap_err();
    match err {
        CompileError::Compilation { log, .. } => assert!(log.contains("wgmma"), "{log}"),
        e => panic!("expected a compilation error, got {e}"),
    }
}

#[test]
fn tma_load_kernel_for_sm90a_uses_utmaldg() {
    if !nvrtc_and_nvdisasm_available("tma_load_kernel_for_sm90a_uses_utmaldg") {
        return;
    }
    let src = format!(
        "{SMEM_ADDR}{}",
        r#"
struct alignas(64) TmaDesc { unsigned long long opaque[16]; };
extern "C" __global__ void tma_probe(const __grid_constant__ TmaDesc tmap, unsigned short* out) {
  __shared__ alignas(1024) unsigned short tile[64 * 64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned bar_addr = smem_addr(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_addr));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar_addr), "r"(8192) : "memory");
    asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      :: "r"(smem_addr(tile)), "l"(&tmap), "r"(0), "r"((int)blockIdx.x * 64), "r"(bar_addr) : "memory");
  }
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar_addr), "r"(0) : "memory");
  }
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) out[blockIdx.x * 64 * 64 + i] = tile[i];
}
"#
    );
    let m = compile_ok(&CompileRequest::new(src, Arch::Sm90a).name_expression("tma_probe"));
    let s = sass_of(&m);
    assert_eq!(sass::count(&s, "UTMALDG.2D"), 1, "SASS:\n{s}");
    assert!(
        sass::count(&s, "SYNCS") >= 1,
        "mbarrier ops show as SYNCS.*"
    );
    assert!(!sass::has_local_memory(&s));
    assert!(sass::instruction_set(&s).contains("UTMALDG"));
}

#[test]
fn syntax_error_is_typed_with_log_options_and_source_path() {
    if !nvrtc_available("syntax_error_is_typed_with_log_options_and_source_path") {
        return;
    }
    let dir = scratch_dir("syntax-error");
    let src = "extern \"C\" __global__ void broken(float* x) { x[0] = ; }\n";
    let req = CompileRequest::new(src, Arch::Sm80)
        .option("-DTESSEL_TEST=1")
        .debug_dir(&*dir);
    let err = compile(&req).unwrap_err();
    let text = err.to_string();
    match err {
        CompileError::Compilation {
            arch,
            log,
            options,
            source_path: Some(path),
            write_error: None,
            ..
        } => {
            assert_eq!(arch, Arch::Sm80);
            assert!(log.contains("error"), "log: {log}");
            assert!(log.contains("expected an expression"), "log: {log}");
            assert_eq!(options, req.all_options());
            assert!(options.contains(&"-DTESSEL_TEST=1".to_string()));
            assert!(path.starts_with(&*dir));
            assert_eq!(path.extension().unwrap(), "cu");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), src);
            assert!(
                path.with_extension("log").is_file(),
                "log written beside the source"
            );
            assert!(text.contains(&path.display().to_string()), "{text}");
            assert!(text.contains("--gpu-architecture=sm_80"), "{text}");
        }
        other => panic!("expected Compilation with a source path, got {other:?}"),
    }
}

#[test]
fn bad_name_expression_is_typed() {
    if !nvrtc_available("bad_name_expression_is_typed") {
        return;
    }
    let dir = scratch_dir("bad-name-expr");
    let req = CompileRequest::new(FFMA_SRC, Arch::Sm80)
        .name_expression("no_such_kernel<1>")
        .debug_dir(&*dir);
    // NVRTC reports an unknown name expression as a compilation error naming it.
    match compile(&req).unwrap_err() {
        CompileError::Compilation { log, .. } => assert!(log.contains("no_such_kernel"), "{log}"),
        CompileError::LoweredName { expr, .. } => assert_eq!(expr, "no_such_kernel<1>"),
        e => panic!("unexpected error {e}"),
    }
}

#[test]
fn cache_hits_in_memory_and_on_disk_with_real_nvrtc() {
    if !nvrtc_available("cache_hits_in_memory_and_on_disk_with_real_nvrtc") {
        return;
    }
    let dir = scratch_dir("nvrtc-cache");
    let req = CompileRequest::new(FFMA_SRC, Arch::Sm90a).name_expression("scale_add<3, float>");
    let cache = ModuleCache::with_dir(&*dir);
    let (first, o1) = cache.get_or_compile(&req).unwrap();
    let (second, o2) = cache.get_or_compile(&req).unwrap();
    assert_eq!((o1, o2), (CacheOutcome::Compiled, CacheOutcome::MemoryHit));
    assert!(std::sync::Arc::ptr_eq(&first, &second));
    let fresh = ModuleCache::with_dir(&*dir);
    let (third, o3) = fresh.get_or_compile(&req).unwrap();
    assert_eq!(o3, CacheOutcome::DiskHit);
    assert_eq!(*third, *first);
    assert_eq!(
        third.resources_for("scale_add<3, float>"),
        first.resources_for("scale_add<3, float>")
    );
    // A different option is a different module.
    let (_, o4) = fresh
        .get_or_compile(&req.clone().option("-DVARIANT=2"))
        .unwrap();
    assert_eq!(o4, CacheOutcome::Compiled);
    let entries = std::fs::read_dir(&*dir).unwrap().count();
    assert_eq!(entries, 2, "one file per module, no temporaries left");
}

/// Re-runs this test binary with NVRTC hidden: the child must get a typed error, not a panic.
#[test]
fn missing_nvrtc_is_a_typed_error_not_a_panic() {
    if std::env::var_os("TESSEL_CHILD_MISSING_NVRTC").is_some() {
        let err = compile(&CompileRequest::new("__global__ void k() {}", Arch::Sm80)).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, CompileError::NotFound(_)), "{err:?}");
        assert!(
            text.contains("NVRTC not found; install NVRTC and nvdisasm with `tessel setup-nvrtc`"),
            "{text}"
        );
        assert!(nvrtc_version().is_err());
        return;
    }
    let empty = scratch_dir("no-nvrtc-home");
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "missing_nvrtc_is_a_typed_error_not_a_panic",
            "--nocapture",
        ])
        .env("TESSEL_CHILD_MISSING_NVRTC", "1")
        .env_remove("TESSEL_NVRTC_DIR")
        .env("TESSEL_NVRTC_HOME", &*empty)
        .env("HOME", &*empty)
        .env("LD_LIBRARY_PATH", &*empty)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stdout.contains("1 passed") {
        return;
    }
    // A system-wide NVRTC (ldconfig) cannot be hidden; then the child's compile succeeds.
    assert!(
        stderr.contains("compile") || stdout.contains("compile"),
        "child failed unexpectedly:\n{stdout}\n{stderr}"
    );
    assert!(
        !stderr.contains("Unable to dynamically load"),
        "cudarc panicked on the missing library:\n{stderr}"
    );
    eprintln!("NOTE: NVRTC is installed system-wide; the missing-library path could not be hidden");
}

#[test]
fn the_tuners_full_output_check_compiles_for_every_element_type() {
    if !nvrtc_available("the_tuners_full_output_check_compiles_for_every_element_type") {
        return;
    }
    use tessel_runtime::dtype::DType;
    use tessel_runtime::tune::fullcheck::compile_request;
    for arch in [Arch::Sm80, Arch::Sm90a] {
        for d in [DType::F8E4M3, DType::F8E5M2, DType::S8, DType::S32] {
            assert!(
                compile_request(d, arch).is_none(),
                "{d}: no device comparison"
            );
        }
        for dtype in [DType::F16, DType::BF16, DType::F32] {
            let (req, expr) = compile_request(dtype, arch).expect("a float output type");
            let m = compile_ok(&req);
            let name = m.lowered_name(&expr).expect("lowered name").to_string();
            let r = m.resources_for(&name).expect("ptxas resources");
            assert_eq!(
                (r.spill_stores, r.spill_loads),
                (0, 0),
                "{dtype} on {arch}: the check spills"
            );
        }
    }
}
