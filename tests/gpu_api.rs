//! The API `gemm_kernel!` generates: `load` once, `launch` many times, `autotuned` dispatch.
//!
//! The signature tests run everywhere (they compile against the generated module). The GPU
//! tests need a CUDA device: without one they print `SKIPPED` and pass, unless
//! `TESSEL_REQUIRE_GPU=1`, where a missing GPU fails them. On a GPU machine:
//!
//! ```text
//! TESSEL_REQUIRE_GPU=1 cargo test --release --test gpu_api
//! ```

use std::sync::Arc;

use tessel::prelude::*;
use tessel::runtime::cudarc::driver::CudaStream as Stream;
mod common;

use std::collections::BTreeMap;

use tessel::dsl_core::def::Variant;
use tessel::dsl_core::ir::DType as IrDType;
use tessel::runtime::reference::{self, Layout, Pattern};
use tessel::runtime::{kernel, run, verify};

gemm_kernel! {
    tunable TILE_M in [8, 16, 32] = 32;
    tunable TILE_N in [8, 16, 32] = 32;
    __co__ void sgemm_nt(global f32 [M, K] lhs, global f32 [N, K] rhs, global f32 [M, N] out) {
      parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, TILE_N)] : block,
               {thr_m, thr_n} by [TILE_M, TILE_N] : thread {
        f32 acc = 0.0f;
        foreach {iv_k} in [K]
          acc += lhs.at(block_m # thr_m, iv_k) * rhs.at(block_n # thr_n, iv_k);
        out.at(block_m # thr_m, block_n # thr_n) = acc;
      }
    }
}

gemm_kernel!(file = "kernels/v2_tma_wgmma.co");
gemm_kernel!(file = "kernels/gemv_direct.co");

gemm_kernel! {
    tunable TILE in [8, 16] = 16;
    __co__ void gemm_nn(global f32 [M, K] a, global f32 [K, N] b, global f32 [M, N] c) {
      parallel {bm, bn} by [cdiv(M, TILE), cdiv(N, TILE)] : block,
               {tm, tn} by [TILE, TILE] : thread {
        f32 acc = 0.0f;
        foreach {k} in [K]
          acc += a.at(bm # tm, k) * b.at(k, bn # tn);
        c.at(bm # tm, bn # tn) = acc;
      }
    }
}

gemm_kernel! {
    tunable TILE in [8, 16] = 16;
    __co__ void gemm_nt(global f32 [M, K] a, global f32 [N, K] b, global f32 [M, N] c) {
      parallel {bm, bn} by [cdiv(M, TILE), cdiv(N, TILE)] : block,
               {tm, tn} by [TILE, TILE] : thread {
        f32 acc = 0.0f;
        foreach {k} in [K]
          acc += a.at(bm # tm, k) * b.at(bn # tn, k);
        c.at(bm # tm, bn # tn) = acc;
      }
    }
}

gemm_kernel! {
    tunable TILE in [8, 16] = 16;
    __co__ void gemm_tn(global f32 [K, M] a, global f32 [K, N] b, global f32 [M, N] c) {
      parallel {bm, bn} by [cdiv(M, TILE), cdiv(N, TILE)] : block,
               {tm, tn} by [TILE, TILE] : thread {
        f32 acc = 0.0f;
        foreach {k} in [K]
          acc += a.at(k, bm # tm) * b.at(k, bn # tn);
        c.at(bm # tm, bn # tn) = acc;
      }
    }
}

gemm_kernel! {
    tunable TILE in [8, 16] = 16;
    __co__ void gemm_tt(global f32 [K, M] a, global f32 [N, K] b, global f32 [M, N] c) {
      parallel {bm, bn} by [cdiv(M, TILE), cdiv(N, TILE)] : block,
               {tm, tn} by [TILE, TILE] : thread {
        f32 acc = 0.0f;
        foreach {k} in [K]
          acc += a.at(k, bm # tm) * b.at(bn # tn, k);
        c.at(bm # tm, bn # tn) = acc;
      }
    }
}

// The layout kernels with the layout their signature says.
gemm_kernel! {
    __co__ auto hist64(s32 [N] x) {
      s32 [64] counts {0};
      parallel {b} by [cdiv(N, 256)] : block, {t} by [256] : thread {
        if (b # t < N) {
          __atomic_add(counts.at(((x.at(b # t) % 64) + 64) % 64), 1);
        }
      }
      return counts;
    }
}

fn layout_kernels() -> [(&'static KernelDef, Layout); 4] {
    [
        (&gemm_nn::KERNEL, Layout::NN),
        (&gemm_nt::KERNEL, Layout::NT),
        (&gemm_tn::KERNEL, Layout::TN),
        (&gemm_tt::KERNEL, Layout::TT),
    ]
}

#[test]
fn references_are_chosen_from_the_signature() {
    for (def, layout) in layout_kernels() {
        assert_eq!(
            reference::infer_def(def).unwrap(),
            Pattern::Gemm {
                a: 0,
                b: 1,
                c: 2,
                layout
            },
            "{}",
            def.name
        );
    }
    assert!(matches!(
        reference::infer_def(&gemv_direct::KERNEL).unwrap(),
        Pattern::Gemv { .. }
    ));
}

#[test]
fn the_layout_kernels_compile_with_nvrtc() {
    if !common::nvrtc_available("the_layout_kernels_compile_with_nvrtc") {
        return;
    }
    use tessel::runtime::dsl::Prepared;
    use tessel::runtime::nvrtc::{Arch, CompileRequest, compile};
    let defs = layout_kernels().map(|(d, _)| d);
    for def in defs.into_iter().chain([&sgemm_nt::KERNEL]) {
        for input in [None, Some(IrDType::F16), Some(IrDType::BF16)] {
            let p = Prepared::get(def, Variant { input, acc: None }).unwrap();
            let expr = p
                .kernel
                .name_expression(&p.template_values(&def.default_config()));
            let req = CompileRequest::new(p.cuda.clone(), Arch::Sm80).name_expression(&expr);
            let m = compile(&req).unwrap_or_else(|e| panic!("{} {input:?}: {e}", def.name));
            assert!(m.lowered_name(&expr).is_some());
        }
    }
}

#[test]
fn every_layout_and_dtype_verifies_on_the_gpu() {
    let Some(stream) = gpu("every_layout_and_dtype_verifies_on_the_gpu") else {
        return;
    };
    let dev = Device::from_stream(&stream).unwrap();
    let dims: BTreeMap<String, usize> = [("M", 100), ("N", 70), ("K", 64)]
        .map(|(k, v)| (k.to_string(), v))
        .into();
    for (def, layout) in layout_kernels() {
        for input in [None, Some(IrDType::F16), Some(IrDType::BF16)] {
            let variant = Variant { input, acc: None };
            let h = kernel::load_variant(def, variant, &stream, &def.default_config()).unwrap();
            let r = run::run_and_verify(&h, &dev, &dims, 7).unwrap();
            assert_eq!(r.reference, format!("cuBLAS {}", layout.name()));
            assert!(
                r.verification.passed(),
                "{} {input:?}: {}",
                def.name,
                r.verification
            );
        }
    }
    // A GEMV: the host f64 reference.
    let h = gemv_direct::load(&stream, &gemv_direct::config()).unwrap();
    let dims: BTreeMap<String, usize> = [("N", 1000), ("K", 512)]
        .map(|(k, v)| (k.to_string(), v))
        .into();
    let timing = tessel::runtime::timing::TimingConfig::default();
    let r = run::run_verify_and_time(h.compiled(), &dev, &dims, 3, &timing).unwrap();
    assert_eq!(r.reference, "host f64 GEMV");
    assert!(r.verification.passed(), "{}", r.verification);
    assert!(r.kernel_time.is_some() && r.reference_time.is_none());
    // A GEMM timed against cuBLAS in its layout.
    let h = gemm_tn::load(&stream, &gemm_tn::config()).unwrap();
    let dims: BTreeMap<String, usize> = [("M", 256), ("N", 256), ("K", 256)]
        .map(|(k, v)| (k.to_string(), v))
        .into();
    let r = run::run_verify_and_time(h.compiled(), &dev, &dims, 4, &timing).unwrap();
    assert!(r.verification.passed(), "{}", r.verification);
    let (mine, cublas) = (r.kernel_time.unwrap(), r.reference_time.unwrap());
    eprintln!("gemm_tn 256^3: {mine}; cuBLAS TN: {cublas}");
}

#[test]
fn the_generated_module_has_the_handle_api() {
    // The exact signatures: a cudarc stream and a config in, a handle out; typed views in
    // `launch`, writable for the output.
    let _load: fn(&Arc<Stream>, &Config) -> Result<sgemm_nt::Handle, DslError> = sgemm_nt::load;
    let _launch: fn(
        &sgemm_nt::Handle,
        TensorRef<'_, f32>,
        TensorRef<'_, f32>,
        TensorMut<'_, f32>,
    ) -> Result<(), DslError> = sgemm_nt::Handle::launch;
    let _autotuned: fn(&Arc<Stream>) -> Result<sgemm_nt::Autotuned, DslError> = sgemm_nt::autotuned;
    let _launch_tuned: fn(
        &sgemm_nt::Autotuned,
        TensorRef<'_, f32>,
        TensorRef<'_, f32>,
        TensorMut<'_, f32>,
    ) -> Result<(), DslError> = sgemm_nt::Autotuned::launch;
    let _hopper: fn(
        &matmul::Handle,
        TensorRef<'_, f16>,
        TensorRef<'_, f16>,
        TensorMut<'_, f16>,
    ) -> Result<(), DslError> = matmul::Handle::launch;
    assert_eq!(sgemm_nt::config().get("TILE_M"), Some(32));
}

/// The device's stream, or `None` (test skipped) without a GPU.
fn gpu(test: &str) -> Option<Arc<Stream>> {
    match Device::open(0) {
        Ok(dev) => Some(dev.stream().clone()),
        Err(e) => {
            if std::env::var("TESSEL_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{test}: TESSEL_REQUIRE_GPU=1 but no GPU: {e}");
            }
            eprintln!("SKIPPED {test}: no GPU ({e})");
            None
        }
    }
}

fn host_f32(len: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Runs `handle` on cudarc buffers of `m × n × k` and checks the result in f64.
fn run_and_verify(stream: &Arc<Stream>, handle: &sgemm_nt::Handle, m: usize, n: usize, k: usize) {
    let (a, b) = (host_f32(m * k, 1), host_f32(n * k, 2));
    let lhs = stream.clone_htod(&a).unwrap();
    let rhs = stream.clone_htod(&b).unwrap();
    let mut out = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
    handle
        .launch(
            TensorRef::new(&lhs, &[m, k]).unwrap(),
            TensorRef::new(&rhs, &[n, k]).unwrap(),
            TensorMut::new(&mut out, &[m, n]).unwrap(),
        )
        .unwrap();
    let got: Vec<f32> = stream.clone_dtoh(&out).unwrap();
    let want = verify::host_gemm_nt(&a, &b, m, n, k);
    let v = verify::verify_f64(&got, &want, 1e-5).unwrap();
    assert!(v.passed(), "{m}x{n}x{k}: {v}");
}

#[test]
fn load_once_launch_many_shapes_on_cudarc_buffers() {
    let Some(stream) = gpu("load_once_launch_many_shapes_on_cudarc_buffers") else {
        return;
    };
    let handle = sgemm_nt::load(&stream, &sgemm_nt::config().with("TILE_M", 16)).unwrap();
    assert_eq!(handle.compiled().config().get("TILE_M"), Some(16));
    // Sizes that are not multiples of the tiles, then others on the same handle.
    for (m, n, k) in [(100, 70, 64), (33, 129, 17), (256, 256, 256)] {
        run_and_verify(&stream, &handle, m, n, k);
    }
}

#[test]
fn bad_launches_are_errors_and_launch_nothing() {
    let Some(stream) = gpu("bad_launches_are_errors_and_launch_nothing") else {
        return;
    };
    let handle = sgemm_nt::load(&stream, &sgemm_nt::config()).unwrap();
    let (m, n, k) = (64, 32, 16);
    let lhs = stream.clone_htod(&vec![1.0f32; m * k]).unwrap();
    let rhs = stream.clone_htod(&vec![1.0f32; n * k]).unwrap();
    let mut out = stream.clone_htod(&vec![-7.0f32; m * n]).unwrap();
    // K disagrees between lhs and rhs.
    let e = handle
        .launch(
            TensorRef::new(&lhs, &[m, k]).unwrap(),
            TensorRef::new(&rhs, &[2 * n, k / 2]).unwrap(),
            TensorMut::new(&mut out, &[m, n]).unwrap(),
        )
        .unwrap_err();
    assert!(matches!(e, DslError::Mismatch { .. }), "{e}");
    // A view larger than its buffer is refused when it is made.
    assert!(TensorRef::<f32>::new(&lhs, &[m + 1, k]).is_err());
    // The output passed read-only through the untyped API.
    let args = [
        LaunchArg::from(TensorRef::<f32>::new(&lhs, &[m, k]).unwrap()),
        TensorRef::<f32>::new(&rhs, &[n, k]).unwrap().into(),
        TensorRef::<f32>::new(&out, &[m, n]).unwrap().into(),
    ];
    let e = handle.launch_args(&args).unwrap_err();
    assert!(matches!(e, DslError::ReadOnly { .. }), "{e}");
    // Nothing ran: the output still holds what was uploaded.
    let got: Vec<f32> = stream.clone_dtoh(&out).unwrap();
    assert!(got.iter().all(|&x| x == -7.0));
    // An illegal configuration is refused at load.
    let e = sgemm_nt::load(&stream, &sgemm_nt::config().with("TILE_M", 7)).unwrap_err();
    assert!(matches!(e, DslError::Illegal { .. }), "{e}");
}

#[test]
fn the_handle_keeps_its_module_alive() {
    let Some(stream) = gpu("the_handle_keeps_its_module_alive") else {
        return;
    };
    // Loaded in a helper that returns only the handle; many launches in flight before any
    // synchronization, then the handle is dropped after the last launch and before the read.
    let load = || sgemm_nt::load(&stream, &sgemm_nt::config()).unwrap();
    let handle = load();
    let (m, n, k) = (128, 128, 128);
    let (a, b) = (host_f32(m * k, 3), host_f32(n * k, 4));
    let lhs = stream.clone_htod(&a).unwrap();
    let rhs = stream.clone_htod(&b).unwrap();
    let mut out = stream.alloc_zeros::<f32>(m * n).unwrap();
    for _ in 0..100 {
        handle
            .launch(
                TensorRef::new(&lhs, &[m, k]).unwrap(),
                TensorRef::new(&rhs, &[n, k]).unwrap(),
                TensorMut::new(&mut out, &[m, n]).unwrap(),
            )
            .unwrap();
    }
    drop(handle);
    let got: Vec<f32> = stream.clone_dtoh(&out).unwrap();
    let v = verify::verify_f64(&got, &verify::host_gemm_nt(&a, &b, m, n, k), 1e-5).unwrap();
    assert!(v.passed(), "{v}");
}

#[test]
fn hopper_kernel_through_the_handle_matches_cublas() {
    let Some(stream) = gpu("hopper_kernel_through_the_handle_matches_cublas") else {
        return;
    };
    let dev = Device::from_stream(&stream).unwrap();
    if dev.info().compute_capability != (9, 0) {
        eprintln!("SKIPPED: {} is not sm_90", dev.info().name);
        return;
    }
    use tessel::runtime::cublas_ref::{CublasRef, GemmCompute};
    let (m, n, k) = (512, 256, 512);
    let lhs = DeviceTensor::<f16>::random(&dev, &[m, k], 1).unwrap();
    let rhs = DeviceTensor::<f16>::random(&dev, &[n, k], 2).unwrap();
    let mut out = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).unwrap();
    let handle = matmul::load(&stream, &matmul::config()).unwrap();
    handle
        .launch(lhs.view(), rhs.view(), out.view_mut())
        .unwrap();
    let mut reference = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).unwrap();
    CublasRef::new(&dev)
        .unwrap()
        .gemm_nt(&lhs, &rhs, &mut reference, GemmCompute::F32)
        .unwrap();
    let tol = verify::gemm_tolerance(
        tessel::runtime::dtype::DType::F16,
        tessel::runtime::dtype::DType::F32,
        tessel::runtime::dtype::DType::F16,
        k,
    );
    let v = verify::verify(&out.to_host().unwrap(), &reference.to_host().unwrap(), tol).unwrap();
    assert!(v.passed(), "{v}");
}

gemm_kernel! {
    tunable TILE_M in [8, 16, 32] = 32;
    tunable TILE_N in [8, 16, 32] = 32;
    __co__ void hgemm_nt(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] out) {
      parallel {block_m, block_n} by [cdiv(M, TILE_M), cdiv(N, TILE_N)] : block,
               {thr_m, thr_n} by [TILE_M, TILE_N] : thread {
        f32 acc = 0.0f;
        foreach {iv_k} in [K]
          acc += lhs.at(block_m # thr_m, iv_k) * rhs.at(block_n # thr_n, iv_k);
        out.at(block_m # thr_m, block_n # thr_n) = acc;
      }
    }
}

#[test]
fn autotuned_dispatches_each_shape_to_its_cached_winner() {
    let Some(stream) = gpu("autotuned_dispatches_each_shape_to_its_cached_winner") else {
        return;
    };
    use tessel::runtime::dtype::DType as Rt;
    use tessel::runtime::tune::record::{
        Phase, TimeStats, TrialRecord, VerifyRecord, WinnerRecord,
    };
    use tessel::runtime::tune::store::{self, CacheKey, TuneStore};
    use tessel::runtime::tune::{Shape, Target};
    let dir = std::env::temp_dir().join(format!("tessel-gpu-api-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dev = Device::from_stream(&stream).unwrap();
    let info = dev.info();
    let target = Target::dsl(&hgemm_nt::KERNEL, Default::default()).unwrap();
    // Two shapes, two different cached winners (as a finished sweep records them).
    let winners = [(Shape::new(96, 64, 32), 16), (Shape::new(64, 96, 32), 8)];
    for (shape, tile_m) in winners {
        let key = CacheKey {
            format: store::FORMAT,
            gpu_name: info.name.clone(),
            compute_capability: info.compute_capability,
            driver_version: info.driver_version,
            nvrtc_version: tessel::runtime::nvrtc::nvrtc_version().unwrap(),
            kernel: target.name().to_string(),
            source_hash: target.source_hash(),
            problem: format!("K={} M={} N={}", shape.k, shape.m, shape.n),
            dtypes: target.dtypes(),
            settings: "test".into(),
        };
        let config: tessel::runtime::tune::record::ConfigMap =
            [("TILE_M".to_string(), tile_m), ("TILE_N".to_string(), 32)].into();
        let mut st = TuneStore::open(&dir, key, true);
        // A winner is trusted only with a recorded passing trial of its config.
        let mut trial = TrialRecord::new(config.clone(), Phase::Full);
        trial.time = Some(TimeStats {
            median_ms: 1.0,
            min_ms: 1.0,
            max_ms: 1.0,
            mean_ms: 1.0,
            runs: 20,
            tflops: None,
        });
        trial.verification = Some(VerifyRecord {
            passed: true,
            rel_error: 0.0,
            tolerance: 1e-3,
            max_abs_error: 0.0,
            poisoned: 0,
            nans: 0,
            infs: 0,
            summary: "PASS".into(),
        });
        st.record(trial).unwrap();
        st.set_winner(WinnerRecord {
            config,
            median_ms: 1.0,
            tflops: None,
            finalists: Vec::new(),
            noise_band: 0.02,
            selection: "test".into(),
            cublas: None,
            space: None,
        })
        .unwrap();
    }
    let tuned = hgemm_nt::autotuned(&stream).unwrap().with_tune_cache(&dir);
    let mut seen = Vec::new();
    for (m, n, k) in [(96, 64, 32), (64, 96, 32), (80, 80, 32)] {
        let lhs = DeviceTensor::<f16>::random(&dev, &[m, k], 5).unwrap();
        let rhs = DeviceTensor::<f16>::random(&dev, &[n, k], 6).unwrap();
        let mut out = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).unwrap();
        let args = [
            LaunchArg::from(lhs.view()),
            rhs.view().into(),
            out.view().into(),
        ];
        let h = tuned.runtime().handle_for(&args).unwrap();
        seen.push(h.config().get("TILE_M"));
        tuned
            .launch(lhs.view(), rhs.view(), out.view_mut())
            .unwrap();
        let want = verify::host_gemm_nt(&lhs.to_host().unwrap(), &rhs.to_host().unwrap(), m, n, k);
        let tol = verify::gemm_tolerance(Rt::F16, Rt::F32, Rt::F16, k);
        let v = verify::verify_f64(&out.to_host().unwrap(), &want, tol).unwrap();
        assert!(v.passed(), "{m}x{n}x{k}: {v}");
    }
    // Cached winners for the first two shapes, the default (32) for the third.
    assert_eq!(seen, [Some(16), Some(8), Some(32)]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_readme_program_is_the_user_crate() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let program = std::fs::read_to_string("examples/user-crate/src/main.rs").unwrap();
    let section = readme
        .split("## Use tessel in your crate")
        .nth(1)
        .expect("README has a section \"Use tessel in your crate\"");
    assert!(
        section.contains(&format!("```rust\n{program}```")),
        "the README's program differs from examples/user-crate/src/main.rs"
    );
}

#[test]
fn a_co_file_read_at_run_time_loads_and_verifies() {
    let Some(stream) = gpu("a_co_file_read_at_run_time_loads_and_verifies") else {
        return;
    };
    let dev = Device::from_stream(&stream).unwrap();
    let text = std::fs::read_to_string("kernels/sgemm_k5_2d_tiling.co").unwrap();
    let def = kernel::kernel_def_from_source(&text, Some("kernels/sgemm_k5_2d_tiling.co")).unwrap();
    let handle = kernel::load(def, &stream, &def.default_config()).unwrap();
    let dims: BTreeMap<String, usize> = [("M", 512), ("N", 256), ("K", 128)]
        .map(|(k, v)| (k.to_string(), v))
        .into();
    let r = run::run_and_verify(&handle, &dev, &dims, 11).unwrap();
    assert_eq!(r.reference, "cuBLAS NN");
    assert!(r.verification.passed(), "{}", r.verification);
}

#[test]
fn instance_arguments_are_checked_against_their_allocations() {
    let Some(stream) = gpu("instance_arguments_are_checked_against_their_allocations") else {
        return;
    };
    use tessel::runtime::dsl::{DslError, Instance, Prepared, TensorArg, module_cache};
    use tessel::runtime::dtype::DType as Rt;
    let dev = Device::from_stream(&stream).unwrap();
    let (m, n, k) = (64, 32, 16);
    let lhs = DeviceTensor::<f32>::random(&dev, &[m, k], 1).unwrap();
    let rhs = DeviceTensor::<f32>::random(&dev, &[n, k], 2).unwrap();
    let out = DeviceTensor::<f32>::poisoned(&dev, &[m, n]).unwrap();
    let p = Prepared::get(&sgemm_nt::KERNEL, Default::default()).unwrap();
    let tensors = [lhs.as_arg(), rhs.as_arg(), out.as_arg()];
    let problem = p.bind(&tensors).unwrap();
    let inst = Instance::new(&dev, module_cache(), p, &sgemm_nt::config(), &problem).unwrap();
    // Tensors from the stream-ordered allocator pass, and launch.
    let args = inst.args(&tensors).unwrap();
    inst.launch(&args).unwrap();
    // An allocation one element too small for its claimed shape (a plain cuMemAlloc, whose
    // range is exactly its size), and an address that is no allocation at all, are refused.
    stream.context().bind_to_thread().unwrap();
    let bytes = (m * k - 1) * 4;
    // SAFETY: a plain device allocation, freed below after the stream is idle.
    let small_ptr = unsafe { tessel::runtime::cudarc::driver::result::malloc_sync(bytes) }.unwrap();
    let short = TensorArg {
        ptr: small_ptr,
        shape: vec![m, k],
        dtype: Rt::F32,
    };
    let e = inst.args(&[short, rhs.as_arg(), out.as_arg()]).unwrap_err();
    assert!(matches!(e, DslError::BadPointer { .. }), "{e}");
    stream.synchronize().unwrap();
    // SAFETY: allocated above, never launched on.
    unsafe { tessel::runtime::cudarc::driver::result::free_sync(small_ptr) }.unwrap();
    let wild = TensorArg {
        ptr: 0x10,
        shape: vec![m, k],
        dtype: Rt::F32,
    };
    let e = inst.args(&[wild, rhs.as_arg(), out.as_arg()]).unwrap_err();
    assert!(matches!(e, DslError::BadPointer { .. }), "{e}");
    // An argument list made by hand is not launched.
    let mut forged = args.clone();
    forged[0] = tessel::runtime::launch::KernelArg::Ptr(0x10);
    assert!(inst.launch(&forged).is_err());
    stream.synchronize().unwrap();
}

/// An output with an initializer the kernel does not apply itself (a histogram counted with
/// atomics): the handle fills it before every launch, so a second launch counts from zero again.
#[test]
fn an_output_initializer_is_applied_before_every_launch() {
    let Some(stream) = gpu("an_output_initializer_is_applied_before_every_launch") else {
        return;
    };
    let handle = hist64::load(&stream, &hist64::config()).unwrap();
    let n = 100_003;
    let x: Vec<i32> = host_f32(n, 7)
        .iter()
        .map(|v| (v * 1_000_000.0) as i32)
        .collect();
    let mut want = vec![0i32; 64];
    for v in &x {
        want[v.rem_euclid(64) as usize] += 1;
    }
    // s32 tensors live in `u32` buffers (the same bits).
    let bits: Vec<u32> = x.iter().map(|&v| v as u32).collect();
    let xs = stream.clone_htod(&bits).unwrap();
    let mut counts = stream.clone_htod(&vec![7u32; 64]).unwrap();
    for _ in 0..3 {
        let args = [
            LaunchArg::from(TensorRef::<i32>::new(&xs, &[n]).unwrap()),
            LaunchArg::from(TensorMut::<i32>::new(&mut counts, &[64]).unwrap()),
        ];
        handle.launch_args(&args).unwrap();
        let got: Vec<i32> = stream
            .clone_dtoh(&counts)
            .unwrap()
            .into_iter()
            .map(|v| v as i32)
            .collect();
        assert_eq!(got, want);
    }
}
