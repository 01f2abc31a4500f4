//! End-to-end runtime checks on a real GPU: device info, tensors, NVRTC → launch, poison
//! detection, cuBLAS references, TMA tensor maps (plain, 128B-swizzled, out of bounds),
//! dynamic shared memory above 48 KiB, scalar kernel arguments and event timing.
//!
//! Without a GPU (CI, this project's dev machines) every test prints `SKIPPED: no GPU` and
//! passes; `TESSEL_REQUIRE_GPU=1` makes a missing GPU (or NVRTC) a failure. Run on a GPU
//! machine with NVRTC, cuBLAS and nvdisasm reachable (e.g. `LD_LIBRARY_PATH=/usr/local/cuda/lib64`).

mod common;

use half::{bf16, f16};
use tessel_runtime::cublas_ref::{CublasRef, GemmCompute};
use tessel_runtime::device::Device;
use tessel_runtime::dtype::{DType, Element, host_random};
use tessel_runtime::launch::{Kernel, KernelArg, LaunchConfig, LoadedModule};
use tessel_runtime::nvrtc::{Arch, CompileRequest, compile};
use tessel_runtime::tensor::DeviceTensor;
use tessel_runtime::timing::{TimingConfig, gemm_flops, time_gpu};
use tessel_runtime::tma::{Tiled2d, TmaDtype, encode_tiled_2d};
use tessel_runtime::verify::{gemm_tolerance, host_gemm_nn, host_gemm_nt, verify, verify_f64};

fn gpu() -> Option<(Device, Arch)> {
    let required = std::env::var("TESSEL_REQUIRE_GPU").is_ok_and(|v| v == "1");
    match Device::open(0) {
        Ok(dev) => {
            let arch = dev.info().tessel_arch().expect("a GPU tessel builds for");
            Some((dev, arch))
        }
        Err(e) if required => panic!("TESSEL_REQUIRE_GPU=1 but no GPU: {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no GPU ({e})");
            None
        }
    }
}

const HALF: &str = r#"
__device__ __forceinline__ float h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
template <int TILE, bool ALL>
__global__ void gemm_nt(const unsigned short* lhs, const unsigned short* rhs, unsigned short* out, int M, int N, int K) {
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  if (row >= M || col >= N || (!ALL && col % 2 == 1)) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += h2f(lhs[row * K + k]) * h2f(rhs[col * K + k]);
  out[row * N + col] = f2h(acc);
}
"#;

fn gemm_kernel(dev: &Device, arch: Arch, expr: &str) -> Kernel {
    let m = compile(&CompileRequest::new(HALF, arch).name_expression(expr)).unwrap();
    LoadedModule::load(dev, &m.cubin)
        .unwrap()
        .kernel(m.lowered_name(expr).unwrap())
        .unwrap()
}

#[test]
fn device_info_is_sane() {
    let Some((dev, arch)) = gpu() else { return };
    let i = dev.info();
    eprintln!("{i:?}");
    assert!(!i.name.is_empty() && i.sm_count > 0 && i.driver_version >= 12000);
    assert!(i.max_smem_per_block_optin >= 48 * 1024);
    assert_eq!(i.arch, arch.as_str());
}

#[test]
fn tensors_round_trip_and_poison() {
    let Some((dev, _)) = gpu() else { return };
    let host = host_random::<bf16>(1000, 9);
    let t = DeviceTensor::from_host(&dev, &[10, 100], &host).unwrap();
    assert_eq!(t.to_host().unwrap(), host);
    let mut p = DeviceTensor::<f32>::poisoned(&dev, &[33]).unwrap();
    assert!(p.to_host().unwrap().iter().all(|v| v.is_poison()));
    p.fill_random(3).unwrap();
    assert_eq!(p.to_host().unwrap(), host_random::<f32>(33, 3));
    assert!(DeviceTensor::<f16>::from_host(&dev, &[2, 2], &host_random(3, 1)).is_err());
}

#[test]
fn naive_gemm_matches_cublas_and_host_and_poison_finds_unwritten() {
    let Some((dev, arch)) = gpu() else { return };
    let (m, n, k) = (200usize, 136usize, 256usize);
    let lhs = DeviceTensor::<f16>::random(&dev, &[m, k], 1).unwrap();
    let rhs = DeviceTensor::<f16>::random(&dev, &[n, k], 2).unwrap();
    let mut out = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).unwrap();
    let cfg = LaunchConfig {
        grid: (n.div_ceil(16) as u32, m.div_ceil(16) as u32, 1),
        block: (16, 16, 1),
        dynamic_smem_bytes: 0,
    };
    let args = [
        KernelArg::Ptr(lhs.device_ptr()),
        KernelArg::Ptr(rhs.device_ptr()),
        KernelArg::Ptr(out.device_ptr()),
        KernelArg::I32(m as i32),
        KernelArg::I32(n as i32),
        KernelArg::I32(k as i32),
    ];
    let kernel = gemm_kernel(&dev, arch, "gemm_nt<16, true>");
    let attrs = kernel.attributes().unwrap();
    assert!(
        attrs.num_regs > 0 && attrs.local_size_bytes == 0,
        "{attrs:?}"
    );
    // SAFETY: six arguments matching gemm_nt's parameters; buffers sized M*K, N*K, M*N.
    unsafe { kernel.launch(&cfg, &args).unwrap() };
    let got = out.to_host().unwrap();

    let mut reference = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).unwrap();
    let blas = CublasRef::new(&dev).unwrap();
    blas.gemm_nt(&lhs, &rhs, &mut reference, GemmCompute::F32)
        .unwrap();
    let tol = gemm_tolerance(DType::F16, DType::F32, DType::F16, k);
    let v = verify(&got, &reference.to_host().unwrap(), tol).unwrap();
    eprintln!("kernel vs cuBLAS: {v}");
    assert!(v.passed(), "{v}");
    let exact = host_gemm_nt(&lhs.to_host().unwrap(), &rhs.to_host().unwrap(), m, n, k);
    let v = verify_f64(&reference.to_host().unwrap(), &exact, tol).unwrap();
    eprintln!("cuBLAS vs host f64: {v}");
    assert!(v.passed(), "{v}");

    // Half the columns never written: the poison count says exactly how many.
    out.fill_poison().unwrap();
    let half_kernel = gemm_kernel(&dev, arch, "gemm_nt<16, false>");
    // SAFETY: same signature as above.
    unsafe { half_kernel.launch(&cfg, &args).unwrap() };
    let v = verify_f64(&out.to_host().unwrap(), &exact, tol).unwrap();
    assert_eq!(v.poisoned, m * (n / 2));
    assert!(!v.passed());

    // Timing over the event loop.
    let t = time_gpu(
        &dev,
        &TimingConfig::default(),
        Some(gemm_flops(m, n, k)),
        || {
            // SAFETY: as above.
            unsafe { kernel.launch(&cfg, &args) }
        },
    )
    .unwrap();
    eprintln!("naive gemm: {t}");
    assert!(t.runs == 20 && t.median_ms > 0.0 && t.min_ms <= t.median_ms && t.tflops.is_some());
}

#[test]
fn cublas_references_match_host() {
    let Some((dev, _)) = gpu() else { return };
    let blas = CublasRef::new(&dev).unwrap();
    let (m, n, k) = (64usize, 48usize, 96usize);
    // f32 pedantic, NT and NN.
    let a = DeviceTensor::<f32>::random(&dev, &[m, k], 1).unwrap();
    let bt = DeviceTensor::<f32>::random(&dev, &[n, k], 2).unwrap();
    let b = DeviceTensor::<f32>::random(&dev, &[k, n], 3).unwrap();
    let mut c = DeviceTensor::<f32>::poisoned(&dev, &[m, n]).unwrap();
    let tol32 = gemm_tolerance(DType::F32, DType::F32, DType::F32, k);
    blas.sgemm_nt(&a, &bt, &mut c).unwrap();
    let want = host_gemm_nt(&a.to_host().unwrap(), &bt.to_host().unwrap(), m, n, k);
    let v = verify_f64(&c.to_host().unwrap(), &want, tol32).unwrap();
    assert!(v.passed() && v.rel_error < 1e-6, "sgemm_nt {v}");
    blas.sgemm_nn(&a, &b, &mut c).unwrap();
    let want = host_gemm_nn(&a.to_host().unwrap(), &b.to_host().unwrap(), m, n, k);
    let v = verify_f64(&c.to_host().unwrap(), &want, tol32).unwrap();
    assert!(v.passed() && v.rel_error < 1e-6, "sgemm_nn {v}");
    // f16 with f16 accumulation, bf16 with f32 accumulation, f16 -> f32 output.
    let l16 = DeviceTensor::<f16>::random(&dev, &[m, k], 4).unwrap();
    let r16 = DeviceTensor::<f16>::random(&dev, &[n, k], 5).unwrap();
    let want16 = host_gemm_nt(&l16.to_host().unwrap(), &r16.to_host().unwrap(), m, n, k);
    let mut o16 = DeviceTensor::<f16>::poisoned(&dev, &[m, n]).unwrap();
    blas.gemm_nt(&l16, &r16, &mut o16, GemmCompute::F16)
        .unwrap();
    let v = verify_f64(
        &o16.to_host().unwrap(),
        &want16,
        gemm_tolerance(DType::F16, DType::F16, DType::F16, k),
    )
    .unwrap();
    assert!(v.passed(), "f16 acc {v}");
    let mut o32 = DeviceTensor::<f32>::poisoned(&dev, &[m, n]).unwrap();
    blas.gemm_nt(&l16, &r16, &mut o32, GemmCompute::F32)
        .unwrap();
    let v = verify_f64(&o32.to_host().unwrap(), &want16, 1e-5).unwrap();
    assert!(v.passed(), "f16 -> f32 {v}");
    let lb = DeviceTensor::<bf16>::random(&dev, &[m, k], 6).unwrap();
    let rb = DeviceTensor::<bf16>::random(&dev, &[n, k], 7).unwrap();
    let mut ob = DeviceTensor::<bf16>::poisoned(&dev, &[m, n]).unwrap();
    blas.gemm_nt(&lb, &rb, &mut ob, GemmCompute::F32).unwrap();
    let wantb = host_gemm_nt(&lb.to_host().unwrap(), &rb.to_host().unwrap(), m, n, k);
    let v = verify_f64(
        &ob.to_host().unwrap(),
        &wantb,
        gemm_tolerance(DType::BF16, DType::F32, DType::BF16, k),
    )
    .unwrap();
    assert!(v.passed(), "bf16 {v}");
    assert!(blas.gemm_nt(&lb, &rb, &mut ob, GemmCompute::F16).is_err());
}

const TMA_SRC: &str = r#"
static __device__ __forceinline__ unsigned smem_addr(const void* p) {
  unsigned a; asm volatile("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p)); return a;
}
struct alignas(64) TmaDesc { unsigned long long opaque[16]; };
extern "C" __global__ void tma_tile(const __grid_constant__ TmaDesc tmap, unsigned short* out) {
  __shared__ alignas(1024) unsigned short tile[64 * 64];
  __shared__ alignas(8) unsigned long long bar;
  unsigned b = smem_addr(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(64 * 64 * 2) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      :: "r"(smem_addr(tile)), "l"(&tmap), "r"((int)blockIdx.x * 64), "r"((int)blockIdx.y * 64), "r"(b) : "memory");
  }
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(b), "r"(0) : "memory");
  }
  unsigned short* o = out + (blockIdx.y * gridDim.x + blockIdx.x) * 64 * 64;
  for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) o[i] = tile[i];
}
"#;

#[test]
fn tma_tiles_plain_swizzled_and_out_of_bounds() {
    let Some((dev, arch)) = gpu() else { return };
    if arch != Arch::Sm90a {
        eprintln!("SKIPPED: TMA needs sm_90a");
        return;
    }
    let m = compile(&CompileRequest::new(TMA_SRC, arch)).unwrap();
    let kernel = LoadedModule::load(&dev, &m.cubin)
        .unwrap()
        .kernel("tma_tile")
        .unwrap();
    let (rows, cols) = (100usize, 256usize); // the second row of boxes is partly out of bounds
    let host = host_random::<f16>(rows * cols, 11);
    let src = DeviceTensor::from_host(&dev, &[rows, cols], &host).unwrap();
    let (gx, gy) = (cols / 64, rows.div_ceil(64));
    for swizzle in [0u32, 128] {
        let map = encode_tiled_2d(&Tiled2d::new(
            "src",
            src.device_ptr(),
            TmaDtype::F16,
            rows as u64,
            cols as u64,
            64,
            64,
            swizzle,
        ))
        .unwrap();
        let out = DeviceTensor::<f16>::poisoned(&dev, &[gx * gy, 64 * 64]).unwrap();
        let cfg = LaunchConfig {
            grid: (gx as u32, gy as u32, 1),
            block: (128, 1, 1),
            dynamic_smem_bytes: 0,
        };
        // SAFETY: (tensor map, out pointer) matches tma_tile; out holds gx*gy tiles.
        unsafe {
            kernel
                .launch(
                    &cfg,
                    &[KernelArg::TensorMap(map), KernelArg::Ptr(out.device_ptr())],
                )
                .unwrap()
        };
        let got = out.to_host().unwrap();
        for (tile, chunk) in got.chunks_exact(64 * 64).enumerate() {
            let (bx, by) = (tile % gx, tile / gx);
            for r in 0..64 {
                for c in 0..64 {
                    let byte = r * 128 + 2 * c;
                    let at = if swizzle == 128 {
                        byte ^ (((byte >> 7) & 7) << 4)
                    } else {
                        byte
                    } / 2;
                    let (gr, gc) = (by * 64 + r, bx * 64 + c);
                    let want = if gr < rows {
                        host[gr * cols + gc]
                    } else {
                        f16::ZERO
                    };
                    assert_eq!(
                        chunk[at], want,
                        "swizzle {swizzle}, tile ({bx},{by}), element ({r},{c})"
                    );
                }
            }
        }
    }
    // Encoder argument errors name the tensor.
    let e = encode_tiled_2d(&Tiled2d::new(
        "src",
        src.device_ptr(),
        TmaDtype::F16,
        100,
        256,
        64,
        128,
        128,
    ))
    .unwrap_err();
    assert!(e.to_string().contains("`src`"), "{e}");
}

#[test]
fn big_dynamic_smem_and_scalar_args() {
    let Some((dev, arch)) = gpu() else { return };
    let src = r#"
extern "C" __global__ void big_smem(float* out, int n) {
  extern __shared__ float buf[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = (float)i;
  __syncthreads();
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += buf[n - 1 - i];
  out[threadIdx.x] = s;
}
extern "C" __global__ void args_probe(int a, unsigned b, long long c, unsigned long long d, float e, double* out) {
  out[0] = a; out[1] = b; out[2] = (double)c; out[3] = (double)d; out[4] = e;
}
"#;
    let m = compile(&CompileRequest::new(src, arch)).unwrap();
    let module = LoadedModule::load(&dev, &m.cubin).unwrap();
    let n = 100 * 1024 / 4;
    let out = DeviceTensor::<f32>::poisoned(&dev, &[128]).unwrap();
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (128, 1, 1),
        dynamic_smem_bytes: (n * 4) as u32,
    };
    let k = module.kernel("big_smem").unwrap();
    // SAFETY: (float*, int) with n floats of dynamic shared memory.
    unsafe {
        k.launch(
            &cfg,
            &[KernelArg::Ptr(out.device_ptr()), KernelArg::I32(n as i32)],
        )
        .unwrap()
    };
    let got = out.to_host().unwrap();
    for (t, g) in got.iter().enumerate() {
        let want: f64 = (t..n).step_by(128).map(|i| (n - 1 - i) as f64).sum();
        assert_eq!(f64::from(*g), want, "thread {t}");
    }
    let probe = module.kernel("args_probe").unwrap();
    let res = DeviceTensor::<f32>::poisoned(&dev, &[10]).unwrap(); // 5 doubles
    let args = [
        KernelArg::I32(-7),
        KernelArg::U32(4_000_000_000),
        KernelArg::I64(-(1 << 40)),
        KernelArg::U64(1 << 50),
        KernelArg::F32(2.5),
        KernelArg::Ptr(res.device_ptr()),
    ];
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        dynamic_smem_bytes: 0,
    };
    // SAFETY: matches args_probe; res holds 40 bytes.
    unsafe { probe.launch(&one, &args).unwrap() };
    let raw: Vec<u32> = res.to_host().unwrap().iter().map(|v| v.to_bits()).collect();
    let doubles: Vec<f64> = raw
        .chunks_exact(2)
        .map(|p| f64::from_bits(u64::from(p[0]) | (u64::from(p[1]) << 32)))
        .collect();
    assert_eq!(
        doubles,
        vec![-7.0, 4e9, -(2f64.powi(40)), 2f64.powi(50), 2.5]
    );
    assert!(module.kernel("no_such_kernel").is_err());
}
