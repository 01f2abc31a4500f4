//! tessel runtime: turns CUDA C++ source into running, verified, timed kernels.
//!
//! The pipeline, one module per step (none needs the DSL's IR; they work on `.cu` strings):
//!
//! ```no_run
//! use half::f16;
//! use tessel_runtime::*;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let source = String::new();
//! let dev = device::Device::open(0)?;                                  // device.rs
//! let arch = dev.info().tessel_arch().ok_or("unsupported GPU")?;
//! let req = nvrtc::CompileRequest::new(source, arch).name_expression("gemm<128, 256>");
//! let (module, _) = cache::ModuleCache::from_env().get_or_compile(&req)?; // nvrtc.rs, cache.rs
//! let kernel = launch::LoadedModule::load(&dev, &module.cubin)?
//!     .kernel(module.lowered_name("gemm<128, 256>").unwrap())?;          // launch.rs
//! let (m, n, k) = (4096, 4096, 4096);
//! let lhs = tensor::DeviceTensor::<f16>::random(&dev, &[m, k], 1)?;   // tensor.rs
//! let rhs = tensor::DeviceTensor::<f16>::random(&dev, &[n, k], 2)?;
//! let mut out = tensor::DeviceTensor::<f16>::poisoned(&dev, &[m, n])?;
//! let map = tma::encode_tiled_2d(&tma::Tiled2d::new("lhs", lhs.device_ptr(),
//!     tma::TmaDtype::F16, m as u64, k as u64, 128, 64, 128))?;          // tma.rs
//! let cfg = launch::LaunchConfig { grid: (32, 16, 1), block: (384, 1, 1), dynamic_smem_bytes: 160 << 10 };
//! // (the argument list must match the kernel's parameters)
//! unsafe { kernel.launch(&cfg, &[launch::KernelArg::TensorMap(map), launch::KernelArg::Ptr(out.device_ptr())])? };
//! let mut reference = tensor::DeviceTensor::<f16>::poisoned(&dev, &[m, n])?;
//! cublas_ref::CublasRef::new(&dev)?.gemm_nt(&lhs, &rhs, &mut reference, cublas_ref::GemmCompute::F32)?;
//! let tol = verify::gemm_tolerance(dtype::DType::F16, dtype::DType::F32, dtype::DType::F16, k);
//! println!("{}", verify::verify(&out.to_host()?, &reference.to_host()?, tol)?); // verify.rs
//! let t = timing::time_gpu(&dev, &timing::TimingConfig::default(),
//!     Some(timing::gemm_flops(m, n, k)), || unsafe { kernel.launch(&cfg, &[]) })?; // timing.rs
//! # Ok(()) }
//! ```
//!
//! `kernel.rs` is what programs launch through: a compiled handle per kernel and configuration
//! (`kernel::load` once, `launch` many times, no allocation; `autotuned` per-shape winners),
//! with `bind.rs` resolving the launch plan and checking each launch's shapes and sizes.
//! `reference.rs` reads which reference verifies a kernel from its signature (GEMM layouts,
//! GEMV, element-wise) and `run.rs` makes one verified launch of a handle.
//! `dsl.rs` runs DSL kernels (`KernelDef` → checked, compiled, launched instance); `tune/` is
//! the autotuner and its cache. The example programs' support lives in the `tessel-harness`
//! crate: this library returns values and errors and prints nothing.
//!
//! `sass.rs` disassembles cubins (nvdisasm) for instruction checks; `locate.rs` finds NVRTC,
//! nvdisasm, libcuda and cuBLAS and turns "missing" into typed errors instead of panics.

#![warn(missing_docs)]

pub use cudarc;

pub mod autotune;
pub mod bind;
pub mod cache;
pub mod clocks;
pub mod cublas_ref;
pub mod cublaslt_ref;
pub mod device;
pub mod dsl;
pub mod dtype;
pub mod hash;
pub mod kernel;
pub mod launch;
pub mod locate;
pub mod nvrtc;
pub mod ptxas;
pub mod reference;
pub mod regime;
pub mod run;
pub mod sass;
pub mod tensor;
pub mod timing;
pub mod tma;
pub mod tune;
pub mod verify;
