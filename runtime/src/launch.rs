//! Loading cubins and launching kernels with a heterogeneous argument list.
//!
//! ```no_run
//! use tessel_runtime::{device::Device, launch::{KernelArg, LaunchConfig, LoadedModule}};
//! # fn f(dev: &Device, cubin: &[u8], out: u64, m: i32) -> Result<(), Box<dyn std::error::Error>> {
//! let module = LoadedModule::load(dev, cubin)?;
//! let kernel = module.kernel("_Z4gemmILi128EEvP6__halfi")?;
//! let cfg = LaunchConfig { grid: (64, 32, 1), block: (384, 1, 1), dynamic_smem_bytes: 200 * 1024 };
//! // SAFETY: the argument list matches the kernel's parameters.
//! unsafe { kernel.launch(&cfg, &[KernelArg::Ptr(out), KernelArg::I32(m)])? };
//! # Ok(()) }
//! ```
//!
//! * Dynamic shared memory above 48 KiB needs `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`
//!   raised first (HOPPER_NOTES pitfall 23): [`Kernel::launch`] does it when needed.
//! * Tensor maps ([`KernelArg::TensorMap`]) are copied by value into the parameter buffer, which
//!   is how a `const __grid_constant__ CUtensorMap` parameter receives them.
//! * [`validate_launch`] checks a configuration against the device limits without a GPU.
//! * Thread-block clusters: a kernel compiled with `__cluster_dims__` launches as clusters of
//!   that shape through the ordinary launch. [`LoadedModule::kernel`] reads the shape
//!   (`REQUIRED_CLUSTER_*`), opts a kernel whose clusters exceed the portable 8 blocks in to
//!   non-portable sizes, and every launch checks that the grid is made of whole clusters
//!   ([`validate_cluster`]).

use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};

use crate::device::{Device, DeviceError, guard};
use crate::dtype::DType;
use crate::tma::TensorMap;

/// Dynamic shared memory a kernel gets without opting in.
pub const DEFAULT_DYNAMIC_SMEM_LIMIT: u32 = 48 * 1024;

/// One kernel argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelArg {
    /// A device pointer (`T*`).
    Ptr(u64),
    /// `int`.
    I32(i32),
    /// `unsigned`.
    U32(u32),
    /// `long long`.
    I64(i64),
    /// `unsigned long long`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `const __grid_constant__ CUtensorMap` (128 bytes by value).
    TensorMap(TensorMap),
}

/// Grid, block and dynamic shared memory of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, bytes.
    pub dynamic_smem_bytes: u32,
}

/// Device limits a launch must respect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchLimits {
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Opt-in dynamic shared memory per block (minus the kernel's static shared memory).
    pub max_dynamic_smem_bytes: u32,
}

impl LaunchLimits {
    /// Limits of a device (1024 threads, its opt-in shared memory).
    pub fn of(dev: &Device) -> Self {
        Self {
            max_threads_per_block: 1024,
            max_dynamic_smem_bytes: dev.info().max_smem_per_block_optin.max(0) as u32,
        }
    }
}

/// Launch and load errors.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A zero-sized or too-large grid/block.
    #[error("kernel `{kernel}`: invalid launch: {reason}")]
    InvalidConfig {
        /// Kernel name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// The cubin has no function of this name.
    #[error(
        "no kernel `{name}` in the module ({source}); pass the lowered name from CompiledModule::lowered_names"
    )]
    NoSuchKernel {
        /// The name asked for.
        name: String,
        /// The driver error.
        source: DeviceError,
    },
    /// A driver call failed.
    #[error("kernel `{kernel}`: {source}")]
    Driver {
        /// Kernel name (or `<module>`).
        kernel: String,
        /// The error.
        source: DeviceError,
    },
}

/// Checks a configuration against device limits.
pub fn validate_launch(
    kernel: &str,
    cfg: &LaunchConfig,
    limits: &LaunchLimits,
) -> Result<(), LaunchError> {
    let invalid = |reason: String| LaunchError::InvalidConfig {
        kernel: kernel.to_string(),
        reason,
    };
    let (gx, gy, gz) = cfg.grid;
    let (bx, by, bz) = cfg.block;
    if gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 {
        return Err(invalid(format!(
            "grid {:?} and block {:?} must have no zero dimension",
            cfg.grid, cfg.block
        )));
    }
    if gy > 65535 || gz > 65535 || gx > i32::MAX as u32 {
        return Err(invalid(format!(
            "grid {:?} exceeds (2^31-1, 65535, 65535)",
            cfg.grid
        )));
    }
    let threads = u64::from(bx) * u64::from(by) * u64::from(bz);
    if threads > u64::from(limits.max_threads_per_block) || bz > 64 {
        return Err(invalid(format!(
            "block {:?} has {threads} threads; the limit is {} (and z <= 64)",
            cfg.block, limits.max_threads_per_block
        )));
    }
    if cfg.dynamic_smem_bytes > limits.max_dynamic_smem_bytes {
        return Err(invalid(format!(
            "{} bytes of dynamic shared memory exceed the device's opt-in limit of {}",
            cfg.dynamic_smem_bytes, limits.max_dynamic_smem_bytes
        )));
    }
    Ok(())
}

/// The multiprocessors a persistent grid may count on: `sm_count` for a kernel without
/// clusters (`cluster_blocks` ≤ 1); otherwise the blocks of `max_clusters` clusters (what the
/// driver can place at once: a GPC holds whole clusters only, so clusters of 4 on a GPC of 18
/// SMs leave 2 idle) over the `blocks_per_sm` one SM holds. A grid sized by the device's SM
/// count instead would leave its last clusters waiting for a whole earlier cluster's walk.
/// When the driver places no cluster (0), the launch itself reports it: `sm_count` stands.
pub fn resident_sm_count(
    sm_count: i64,
    cluster_blocks: u32,
    max_clusters: u32,
    blocks_per_sm: u32,
) -> i64 {
    if cluster_blocks <= 1 || max_clusters == 0 {
        return sm_count;
    }
    let blocks = i64::from(max_clusters) * i64::from(cluster_blocks);
    (blocks / i64::from(blocks_per_sm.max(1))).clamp(1, sm_count.max(1))
}

/// Blocks per cluster a kernel may use without opting in to non-portable cluster sizes.
pub const PORTABLE_CLUSTER_BLOCKS: u32 = 8;

/// Checks that a grid is made of whole clusters of shape `cluster` (blocks in x, y, z; `(1, 1,
/// 1)` or zeros for a kernel without clusters): the driver rejects any other launch.
pub fn validate_cluster(
    kernel: &str,
    cfg: &LaunchConfig,
    cluster: (u32, u32, u32),
) -> Result<(), LaunchError> {
    let (gx, gy, gz) = cfg.grid;
    let (cx, cy, cz) = cluster;
    let whole = |g: u32, c: u32| c <= 1 || g.is_multiple_of(c);
    if whole(gx, cx) && whole(gy, cy) && whole(gz, cz) {
        return Ok(());
    }
    Err(LaunchError::InvalidConfig {
        kernel: kernel.to_string(),
        reason: format!(
            "grid {:?} is not made of whole clusters of {:?} blocks",
            cfg.grid, cluster
        ),
    })
}

/// A cubin loaded into the device's context.
#[derive(Debug, Clone)]
pub struct LoadedModule {
    module: Arc<CudaModule>,
    stream: Arc<CudaStream>,
    limits: LaunchLimits,
}

impl LoadedModule {
    /// Loads a cubin (from [`crate::nvrtc::CompiledModule::cubin`]).
    pub fn load(dev: &Device, cubin: &[u8]) -> Result<Self, LaunchError> {
        Self::load_on(dev.stream(), LaunchLimits::of(dev), cubin)
    }

    /// Loads a cubin into the context of `stream`; its kernels launch on `stream`.
    pub fn load_on(
        stream: &Arc<CudaStream>,
        limits: LaunchLimits,
        cubin: &[u8],
    ) -> Result<Self, LaunchError> {
        let ctx: &Arc<CudaContext> = stream.context();
        let module = guard("cuModuleLoadData", || {
            ctx.load_module(cudarc::nvrtc::Ptx::from_binary(cubin.to_vec()))
        })
        .map_err(|source| LaunchError::Driver {
            kernel: "<module>".into(),
            source,
        })?;
        Ok(Self {
            module,
            stream: stream.clone(),
            limits,
        })
    }

    /// A kernel by lowered name.
    pub fn kernel(&self, lowered_name: &str) -> Result<Kernel, LaunchError> {
        let function = guard("cuModuleGetFunction", || {
            self.module.load_function(lowered_name)
        })
        .map_err(|source| LaunchError::NoSuchKernel {
            name: lowered_name.to_string(),
            source,
        })?;
        let name = lowered_name.to_string();
        // The compile-time cluster shape (`__cluster_dims__`); 0 when the kernel has none. A
        // driver that cannot report it (no cluster support) launches no cluster kernel either,
        // so a failed query reads as "no clusters" and the launch itself reports the error.
        let dim = |a: CUfunction_attribute| {
            guard("cuFuncGetAttribute(REQUIRED_CLUSTER_*)", || {
                function.get_attribute(a)
            })
            .map_or(0, |v| v.max(0) as u32)
        };
        let cluster = (
            dim(CUfunction_attribute::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH),
            dim(CUfunction_attribute::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT),
            dim(CUfunction_attribute::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH),
        );
        let blocks = cluster.0.max(1) * cluster.1.max(1) * cluster.2.max(1);
        if blocks > PORTABLE_CLUSTER_BLOCKS {
            guard(
                "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
                || {
                    function.set_attribute(
                        CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                        1,
                    )
                },
            )
            .map_err(|source| LaunchError::Driver {
                kernel: name.clone(),
                source,
            })?;
        }
        Ok(Kernel {
            function,
            name,
            stream: self.stream.clone(),
            limits: self.limits,
            smem_opt_in: AtomicU32::new(DEFAULT_DYNAMIC_SMEM_LIMIT),
            cluster,
        })
    }
}

/// Function attributes the tuner reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuncAttributes {
    /// Registers per thread (`NUM_REGS`).
    pub num_regs: i32,
    /// Local memory per thread in bytes (`LOCAL_SIZE_BYTES`; > 0 means spills or stack arrays).
    pub local_size_bytes: i32,
    /// Static shared memory in bytes.
    pub static_smem_bytes: i32,
    /// Largest block this kernel can be launched with.
    pub max_threads_per_block: i32,
    /// SASS version (e.g. 90).
    pub binary_version: i32,
}

/// A launchable kernel.
#[derive(Debug)]
pub struct Kernel {
    function: CudaFunction,
    name: String,
    stream: Arc<CudaStream>,
    limits: LaunchLimits,
    smem_opt_in: AtomicU32,
    /// Blocks per cluster in x, y, z from `__cluster_dims__` (zeros: no clusters).
    cluster: (u32, u32, u32),
}

/// A device buffer set to one element value before a launch ([`Kernel::fill`]): `n` elements
/// of `width` bytes (1, 2 or 4) at `ptr`, each `bits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fill {
    /// The buffer's device address.
    pub ptr: u64,
    /// Bytes per element: 1, 2 or 4.
    pub width: u8,
    /// One element's bits (its low `width` bytes).
    pub bits: u32,
    /// Elements to set.
    pub n: usize,
}

impl Fill {
    /// The fill of `n` elements of `dtype` at `ptr` with `value` (converted as C++ converts a
    /// literal: floats rounded to nearest, integers truncated to the type's bits).
    pub fn of(ptr: u64, dtype: DType, value: f64, n: usize) -> Fill {
        use crate::dtype::{Element, F8E4M3, F8E5M2};
        let (width, bits) = match dtype {
            DType::F16 => (2, u32::from(half::f16::from_f64(value).to_bits())),
            DType::BF16 => (2, u32::from(half::bf16::from_f64(value).to_bits())),
            DType::F32 => (4, (value as f32).to_bits()),
            DType::F8E4M3 => (1, u32::from(F8E4M3::from_f64(value).0)),
            DType::F8E5M2 => (1, u32::from(F8E5M2::from_f64(value).0)),
            DType::S8 | DType::U8 => (1, u32::from(value as i64 as u8)),
            DType::S16 | DType::U16 => (2, u32::from(value as i64 as u16)),
            DType::S32 | DType::U32 => (4, value as i64 as u32),
        };
        Fill {
            ptr,
            width,
            bits,
            n,
        }
    }
}

/// Storage for one argument; the driver receives a pointer to each.
#[derive(Clone, Copy)]
pub(crate) enum Slot {
    U64(u64),
    I32(i32),
    U32(u32),
    I64(i64),
    F32(f32),
    Map(TensorMap),
}

impl Slot {
    pub(crate) fn of(a: KernelArg) -> Slot {
        match a {
            KernelArg::Ptr(p) | KernelArg::U64(p) => Slot::U64(p),
            KernelArg::I32(v) => Slot::I32(v),
            KernelArg::U32(v) => Slot::U32(v),
            KernelArg::I64(v) => Slot::I64(v),
            KernelArg::F32(v) => Slot::F32(v),
            KernelArg::TensorMap(m) => Slot::Map(m),
        }
    }

    /// The address the driver reads this argument from.
    pub(crate) fn as_param(&mut self) -> *mut c_void {
        match self {
            Slot::U64(v) => v as *mut u64 as *mut c_void,
            Slot::I32(v) => v as *mut i32 as *mut c_void,
            Slot::U32(v) => v as *mut u32 as *mut c_void,
            Slot::I64(v) => v as *mut i64 as *mut c_void,
            Slot::F32(v) => v as *mut f32 as *mut c_void,
            Slot::Map(m) => m as *mut TensorMap as *mut c_void,
        }
    }
}

impl Kernel {
    /// The lowered name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn driver_err(&self, source: DeviceError) -> LaunchError {
        LaunchError::Driver {
            kernel: self.name.clone(),
            source,
        }
    }

    /// Reads the function attributes.
    pub fn attributes(&self) -> Result<FuncAttributes, LaunchError> {
        let get = |a: CUfunction_attribute| {
            guard("cuFuncGetAttribute", || self.function.get_attribute(a))
                .map_err(|e| self.driver_err(e))
        };
        Ok(FuncAttributes {
            num_regs: get(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            local_size_bytes: get(CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            static_smem_bytes: get(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            max_threads_per_block: get(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )?,
            binary_version: get(CUfunction_attribute::CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
        })
    }

    /// Launches on the device's stream (asynchronous).
    ///
    /// # Safety
    /// `args` must match the kernel's parameter list in number, order and type, and every
    /// pointer must be valid for the accesses the kernel makes.
    pub unsafe fn launch(&self, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<(), LaunchError> {
        validate_launch(&self.name, cfg, &self.limits)?;
        let mut slots: Vec<Slot> = args.iter().map(|a| Slot::of(*a)).collect();
        let mut params: Vec<*mut c_void> = slots.iter_mut().map(Slot::as_param).collect();
        // SAFETY: the caller guarantees the argument list; `slots` outlives the call.
        unsafe { self.launch_packed(cfg, &mut params) }
    }

    /// Launches with the driver's parameter array (no allocation, no limit check: the caller
    /// ran [`validate_launch`]).
    ///
    /// # Safety
    /// As [`Kernel::launch`]: `params` point at values matching the kernel's parameters, alive
    /// for the call.
    pub(crate) unsafe fn launch_packed(
        &self,
        cfg: &LaunchConfig,
        params: &mut [*mut c_void],
    ) -> Result<(), LaunchError> {
        validate_cluster(&self.name, cfg, self.cluster)?;
        self.opt_in_smem(cfg.dynamic_smem_bytes)?;
        let stream = &self.stream;
        guard("cuLaunchKernel", || {
            // SAFETY: the caller guarantees the parameter array; the driver copies the values
            // before returning.
            unsafe {
                cudarc::driver::result::launch_kernel(
                    self.function.cu_function(),
                    cfg.grid,
                    cfg.block,
                    cfg.dynamic_smem_bytes,
                    stream.cu_stream(),
                    params,
                )
            }
        })
        .map_err(|e| self.driver_err(e))
    }

    /// Sets `fill.n` elements at `fill.ptr` to `fill.bits` on the kernel's stream, so the next
    /// launch there sees them (an output's initializer: `LaunchPlan::fills`).
    ///
    /// # Safety
    /// `fill.ptr` is device memory of this context holding at least `n` elements of
    /// `fill.width` bytes.
    pub unsafe fn fill(&self, fill: &Fill) -> Result<(), LaunchError> {
        use cudarc::driver::sys;
        let stream = self.stream.cu_stream();
        guard("cuMemsetD8/16/32Async", || {
            // SAFETY: the caller guarantees the memory; the driver orders the set on `stream`.
            unsafe {
                match fill.width {
                    1 => sys::cuMemsetD8Async(fill.ptr, fill.bits as u8, fill.n, stream),
                    2 => sys::cuMemsetD16Async(fill.ptr, fill.bits as u16, fill.n, stream),
                    _ => sys::cuMemsetD32Async(fill.ptr, fill.bits, fill.n, stream),
                }
                .result()
            }
        })
        .map_err(|e| self.driver_err(e))
    }

    /// Raises the kernel's dynamic shared-memory limit to `bytes` if it is below.
    fn opt_in_smem(&self, bytes: u32) -> Result<(), LaunchError> {
        if bytes > self.smem_opt_in.load(Ordering::Relaxed) {
            guard("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", || {
                self.function.set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes as i32,
                )
            })
            .map_err(|e| self.driver_err(e))?;
            self.smem_opt_in.store(bytes, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The multiprocessors a grid of this kernel (`block_threads` threads, `smem_bytes` of
    /// dynamic shared memory) keeps busy at once: `sm_count`, or for a cluster kernel the
    /// blocks of the clusters the driver can place at once over the blocks one SM holds
    /// ([`resident_sm_count`]). A `persistent` grid is sized by it.
    pub fn resident_sms(
        &self,
        block_threads: u32,
        smem_bytes: u32,
        sm_count: i64,
    ) -> Result<i64, LaunchError> {
        let (cx, cy, cz) = self.cluster;
        let cluster_blocks = cx.max(1) * cy.max(1) * cz.max(1);
        if cluster_blocks <= 1 {
            return Ok(sm_count);
        }
        self.opt_in_smem(smem_bytes)?;
        let per_sm = guard("cuOccupancyMaxActiveBlocksPerMultiprocessor", || {
            self.function
                .occupancy_max_active_blocks_per_multiprocessor(
                    block_threads,
                    smem_bytes as usize,
                    None,
                )
        })
        .map_err(|e| self.driver_err(e))?;
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (cx.max(1), cy.max(1), cz.max(1)),
            block_dim: (block_threads, 1, 1),
            shared_mem_bytes: smem_bytes,
        };
        let clusters = guard("cuOccupancyMaxActiveClusters", || {
            self.function
                .occupancy_max_active_clusters(cfg, &self.stream)
        })
        .map_err(|e| self.driver_err(e))?;
        Ok(resident_sm_count(
            sm_count,
            cluster_blocks,
            clusters,
            per_sm,
        ))
    }

    /// The stream launches go to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The limits launches are checked against.
    pub fn limits(&self) -> &LaunchLimits {
        &self.limits
    }

    /// Blocks per cluster in x, y, z (`__cluster_dims__`; zeros for a kernel without clusters).
    pub fn cluster_dims(&self) -> (u32, u32, u32) {
        self.cluster
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H100: LaunchLimits = LaunchLimits {
        max_threads_per_block: 1024,
        max_dynamic_smem_bytes: 232_448,
    };

    fn cfg(grid: (u32, u32, u32), block: (u32, u32, u32), smem: u32) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            dynamic_smem_bytes: smem,
        }
    }

    /// A fill writes each element's bits as C++ converts the initializer's literal.
    #[test]
    fn a_fill_sets_the_bits_of_the_element_type() {
        let bits = |d, v| {
            let f = Fill::of(0x1000, d, v, 7);
            assert_eq!((f.ptr, f.n), (0x1000, 7));
            (f.width, f.bits)
        };
        assert_eq!(bits(DType::F32, 0.0), (4, 0));
        assert_eq!(bits(DType::F32, -1.5), (4, (-1.5f32).to_bits()));
        assert_eq!(bits(DType::F16, 1.5), (2, 0x3E00));
        assert_eq!(bits(DType::BF16, 1.0), (2, 0x3F80));
        assert_eq!(bits(DType::S32, -1.0), (4, 0xFFFF_FFFF));
        assert_eq!(bits(DType::S8, -2.0), (1, 0xFE));
        assert_eq!(bits(DType::U8, 255.0), (1, 0xFF));
        // e4m3: 1.0 is exponent 7 (bias 7), mantissa 0.
        assert_eq!(bits(DType::F8E4M3, 1.0), (1, 0x38));
        assert_eq!(bits(DType::F8E5M2, 1.0), (1, 0x3C));
    }

    #[test]
    fn accepts_typical_gemm_launches() {
        assert!(validate_launch("k", &cfg((64, 32, 1), (384, 1, 1), 200 * 1024), &H100).is_ok());
        assert!(validate_launch("k", &cfg((256, 256, 1), (32, 32, 1), 0), &H100).is_ok());
    }

    #[test]
    fn rejects_bad_launches_naming_the_kernel() {
        let bad = [
            cfg((0, 1, 1), (128, 1, 1), 0),
            cfg((1, 1, 1), (0, 1, 1), 0),
            cfg((1, 70000, 1), (128, 1, 1), 0),
            cfg((1, 1, 1), (1024, 2, 1), 0),
            cfg((1, 1, 1), (128, 1, 1), 300 * 1024),
        ];
        for c in bad {
            let e = validate_launch("gemm_v4", &c, &H100).unwrap_err();
            assert!(matches!(e, LaunchError::InvalidConfig { .. }));
            assert!(e.to_string().contains("gemm_v4"), "{e}");
        }
    }

    #[test]
    fn persistent_grids_count_only_placeable_clusters() {
        // No clusters: the device's count.
        assert_eq!(resident_sm_count(132, 1, 0, 1), 132);
        // Pairs of blocks fit every GPC of an H100 (even SM counts): all 132.
        assert_eq!(resident_sm_count(132, 2, 66, 1), 132);
        // Clusters of 4: 32 placeable at once → 128 SMs, not 132 (33 clusters would leave one
        // cluster's tiles to a second pass).
        assert_eq!(resident_sm_count(132, 4, 32, 1), 128);
        // Two blocks per SM: the count is of SMs, the grid multiplies back.
        assert_eq!(resident_sm_count(132, 4, 64, 2), 128);
        // The driver places nothing: left to the launch to report.
        assert_eq!(resident_sm_count(132, 4, 0, 1), 132);
        // Never more than the device has.
        assert_eq!(resident_sm_count(132, 2, 80, 1), 132);
    }

    #[test]
    fn cluster_launches_need_whole_clusters() {
        let c = cfg((132, 1, 1), (384, 1, 1), 0);
        assert!(validate_cluster("k", &c, (0, 0, 0)).is_ok());
        assert!(validate_cluster("k", &c, (1, 1, 1)).is_ok());
        assert!(validate_cluster("k", &c, (4, 1, 1)).is_ok());
        let e = validate_cluster("gemm_v4", &c, (8, 1, 1)).unwrap_err();
        assert!(matches!(e, LaunchError::InvalidConfig { .. }));
        assert!(e.to_string().contains("whole clusters"), "{e}");
        assert!(validate_cluster("k", &cfg((4, 6, 1), (128, 1, 1), 0), (2, 3, 1)).is_ok());
        assert!(validate_cluster("k", &cfg((4, 5, 1), (128, 1, 1), 0), (2, 3, 1)).is_err());
    }

    #[test]
    fn tensor_map_arg_is_128_bytes_and_aligned() {
        assert_eq!(std::mem::size_of::<TensorMap>(), 128);
        assert!(std::mem::align_of::<TensorMap>() >= 64);
        assert!(std::mem::align_of::<Slot>() >= 64);
    }
}
