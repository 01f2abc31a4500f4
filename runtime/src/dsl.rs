//! Running DSL kernels: a [`KernelDef`] (what `gemm_kernel!` expands to) → a compiled, launched
//! instance for one configuration.
//!
//! ```text
//! Prepared::get(def, variant)     parse + check + lower + emit (cached per kernel and variant)
//! Instance::new(dev, …, cfg, pb)  legality check for cfg and the problem, NVRTC (cached),
//!                                 grid / block / shared memory evaluated from the launch plan
//! instance.args(&tensors)         pointers, CUtensorMaps (validated: alignment, strides), dims
//! instance.launch(&args)          the launch
//! ```
//! Every failure is a typed [`DslError`] naming the parameter and dimension; nothing here can
//! launch a kernel on arguments it did not check. Programs launch through the compiled handles
//! of [`crate::kernel`]; `Instance` is what the examples and the tuner use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use dsl_core::Diagnostics;
use dsl_core::check::{self, Config, KernelInfo, Limits, Problem};
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir::{self, Module};
use dsl_core::lower::{CudaKernel, KernelArg as PlanArg, Sym, SymEnv};

use crate::cache::{CacheError, ModuleCache};
use crate::device::{Device, DeviceError, guard};
use crate::dtype::{DType, Element};
use crate::launch::{self, Kernel, KernelArg, LaunchConfig, LoadedModule};
use crate::nvrtc::CompileRequest;
use crate::ptxas::KernelResources;
use crate::tensor::DeviceTensor;
use crate::tma::{self, TmaError};

/// Why a DSL kernel could not be prepared, loaded or launched. Every variant names what is
/// at fault (the kernel, the parameter and dimension, the value and its limit).
#[derive(Debug, thiserror::Error)]
pub enum DslError {
    /// The checker rejected the kernel, its configuration or its problem sizes.
    #[error("kernel `{kernel}` is not legal here:\n{diags}")]
    Illegal {
        /// The kernel.
        kernel: String,
        /// The checker's diagnostics.
        diags: Diagnostics,
    },
    /// A launch passed the wrong number of tensors.
    #[error("kernel `{kernel}` takes {expected} tensors, got {got}")]
    Arity {
        /// The kernel.
        kernel: String,
        /// Tensors in its signature.
        expected: usize,
        /// Tensors passed.
        got: usize,
    },
    /// A tensor has another number of dimensions than its parameter.
    #[error(
        "parameter `{param}` is declared with {expected} dimensions [{dims}], got a tensor of shape {shape:?}"
    )]
    Rank {
        /// The parameter.
        param: String,
        /// Its declared rank.
        expected: usize,
        /// Its dims as written.
        dims: String,
        /// The tensor's shape.
        shape: Vec<usize>,
    },
    /// A tensor has another element type than its parameter.
    #[error("parameter `{param}` is declared {expected}, got a {got} tensor")]
    DType {
        /// The parameter.
        param: String,
        /// The declared dtype.
        expected: String,
        /// The tensor's dtype.
        got: String,
    },
    /// A symbolic dim differs between two tensors.
    #[error(
        "parameter `{param}` dimension {dim} (`{name}`) is {got}, but `{name}` = {bound} from parameter `{from}`"
    )]
    Mismatch {
        /// The parameter that disagrees.
        param: String,
        /// Which of its dimensions.
        dim: usize,
        /// The symbolic dim.
        name: String,
        /// Its size there.
        got: usize,
        /// The value bound first.
        bound: i64,
        /// The parameter that bound it.
        from: String,
    },
    /// A dimension written as a constant or expression has another size.
    #[error("parameter `{param}` dimension {dim} must be {expected}, got {got}")]
    FixedDim {
        /// The parameter.
        param: String,
        /// Which dimension.
        dim: usize,
        /// The size it must have.
        expected: i64,
        /// The size it has.
        got: usize,
    },
    /// A TMA descriptor could not be made for a tensor (alignment, strides, box).
    #[error("parameter `{param}`: {source}")]
    Tma {
        /// The parameter.
        param: String,
        /// What the encoder said.
        source: TmaError,
    },
    /// The launch plan does not evaluate or does not hold for this problem.
    #[error("launch plan: {0}")]
    Plan(String),
    /// A problem size beyond what the kernel's index type (`int`) holds.
    #[error(
        "kernel `{kernel}`: `{name}` = {value} (from `{param}` dimension {dim}) exceeds {max}, the largest value of the kernel's index type (`int`)"
    )]
    IndexRange {
        /// The kernel.
        kernel: String,
        /// The parameter the size comes from (`problem` when given as a problem size).
        param: String,
        /// Which dimension of it.
        dim: usize,
        /// The dim (or the rounded extent's expression).
        name: String,
        /// The value.
        value: u64,
        /// The largest value allowed.
        max: i64,
    },
    /// A problem size whose tile-rounded extent (the last tile's indices) passes what the
    /// kernel's index type (`int`) holds.
    #[error(
        "kernel `{kernel}`: the grid covers {extent} = {value} rows or columns, beyond {max}, the largest value of the kernel's index type (`int`)"
    )]
    TileRange {
        /// The kernel.
        kernel: String,
        /// The rounded extent, with the dim's value (`cdiv(M = 2147483647, 32) * 32`).
        extent: String,
        /// Its value.
        value: u64,
        /// The largest value allowed.
        max: i64,
    },
    /// A grid, block or shared memory size outside what a launch can take (a grid or block of
    /// 0 is an empty problem: a dimension of size 0).
    #[error("kernel `{kernel}`: {what} of {value} is outside {min}..={max} for this problem")]
    LaunchRange {
        /// The kernel.
        kernel: String,
        /// `grid x`, `grid y`, `grid z`, `block` or `dynamic shared memory`.
        what: &'static str,
        /// The value.
        value: i64,
        /// The smallest value allowed (1 for the grid and the block).
        min: i64,
        /// The limit.
        max: i64,
    },
    /// A raw tensor address that is not device memory holding the tensor's shape.
    #[error("parameter `{param}`: {reason}")]
    BadPointer {
        /// The parameter.
        param: String,
        /// What is wrong.
        reason: String,
    },
    /// A parameter the kernel writes was passed a read-only view.
    #[error("parameter `{param}` is written by the kernel; pass a writable view (`TensorMut`)")]
    ReadOnly {
        /// The parameter.
        param: String,
    },
    /// NVRTC or the module cache failed.
    #[error(transparent)]
    Compile(#[from] CacheError),
    /// Loading or launching failed in the driver.
    #[error(transparent)]
    Launch(#[from] launch::LaunchError),
    /// The device could not be opened or queried.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The GPU's compute capability (major, minor) cannot run this kernel.
    #[error(
        "this GPU (compute capability {0}.{1}) is not supported; tessel needs sm_80 or newer (sm_90a for the Hopper path)"
    )]
    Arch(i32, i32),
}

/// A tensor argument: device address, shape and dtype.
#[derive(Clone, Debug)]
pub struct TensorArg {
    /// Device address of element 0.
    pub ptr: u64,
    /// Row-major shape.
    pub shape: Vec<usize>,
    /// Element type.
    pub dtype: DType,
}

impl TensorArg {
    /// The argument of a scalar parameter (`f32 alpha`, `int n`): rank 0, `dtype` the
    /// parameter's type, and `ptr` the value's bits as the kernel receives it — an `f32` for a
    /// floating type (rounded to `dtype` first), an `i32` for an integer one. A scalar is
    /// passed by value, so no device memory is involved.
    pub fn scalar(dtype: DType, value: f64) -> TensorArg {
        let bits = match dtype {
            DType::F16 => u64::from(half::f16::from_f64(value).to_f32().to_bits()),
            DType::BF16 => u64::from(half::bf16::from_f64(value).to_f32().to_bits()),
            DType::S32 | DType::S8 => u64::from(value as i32 as u32),
            _ => u64::from((value as f32).to_bits()),
        };
        TensorArg {
            ptr: bits,
            shape: Vec::new(),
            dtype,
        }
    }
}

impl<T: Element> DeviceTensor<T> {
    /// This tensor as a kernel argument.
    pub fn as_arg(&self) -> TensorArg {
        TensorArg {
            ptr: self.device_ptr(),
            shape: self.shape().to_vec(),
            dtype: T::DTYPE,
        }
    }
}

/// The largest value the kernel's index type (`int`) holds: every dimension and tile-rounded
/// extent a launch binds must fit.
pub const INDEX_MAX: i64 = i32::MAX as i64;

/// A kernel parsed, checked, lowered and emitted (one per kernel and variant).
pub struct Prepared {
    /// The definition it came from.
    pub def: &'static KernelDef,
    /// The dtype variant it was prepared for (input and accumulator dtypes; default: as declared).
    pub variant: Variant,
    /// The parsed (and re-typed) module.
    pub module: Module,
    /// The lowered kernel: signature, tunables, launch plan.
    pub kernel: CudaKernel,
    /// The `.cu` template: the macro's text for the declared dtypes, re-emitted for a variant.
    pub cuda: String,
}

impl Prepared {
    /// Cached per (kernel, variant).
    pub fn get(def: &'static KernelDef, variant: Variant) -> Result<Arc<Prepared>, DslError> {
        static CACHE: OnceLock<Mutex<HashMap<(usize, Variant), Arc<Prepared>>>> = OnceLock::new();
        let key = (def as *const KernelDef as usize, variant);
        let cache = CACHE.get_or_init(Default::default);
        if let Some(p) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(p.clone());
        }
        let illegal = |diags| DslError::Illegal {
            kernel: def.name.to_string(),
            diags,
        };
        let base = def.module().map_err(illegal)?;
        let module = if variant.is_default() {
            base
        } else {
            dsl_core::def::retype(&base, variant)
        };
        let info = check::check(&module).map_err(illegal)?;
        let kernel = dsl_core::lower::lower(&module, &info).map_err(illegal)?;
        let cuda = if variant.is_default() && !def.cuda.is_empty() {
            def.cuda.to_string()
        } else {
            let src = def.file.unwrap_or("a gemm_kernel! invocation");
            codegen_cuda::emit(&codegen_cuda::Emit {
                kernel: &kernel,
                source: src,
                instance: None,
            })
        };
        let p = Arc::new(Prepared {
            def,
            variant,
            module,
            kernel,
            cuda,
        });
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, p.clone());
        Ok(p)
    }

    /// Tunable values in template-parameter order.
    pub fn template_values(&self, cfg: &Config) -> Vec<i64> {
        self.kernel
            .tunables
            .iter()
            .map(|t| cfg.get(&t.name).unwrap_or(t.default))
            .collect()
    }

    /// The `.cu` with an explicit instantiation for `cfg` (what examples write to disk).
    pub fn instantiated_cuda(&self, cfg: &Config) -> String {
        let src = self.def.file.unwrap_or("a gemm_kernel! invocation");
        codegen_cuda::emit(&codegen_cuda::Emit {
            kernel: &self.kernel,
            source: src,
            instance: Some(self.template_values(cfg)),
        })
    }

    /// Binds the symbolic dims from tensor shapes, checking ranks, dtypes and consistency.
    pub fn bind(&self, tensors: &[TensorArg]) -> Result<Problem, DslError> {
        let params = &self.module.kernel.params;
        if tensors.len() != params.len() {
            return Err(DslError::Arity {
                kernel: self.def.name.into(),
                expected: params.len(),
                got: tensors.len(),
            });
        }
        let mut problem = Problem::default();
        let mut from: HashMap<String, String> = HashMap::new();
        for (p, t) in params.iter().zip(tensors) {
            let dims: Vec<String> = p
                .shape
                .iter()
                .map(|&d| self.module.expr_to_string(d))
                .collect();
            if t.shape.len() != dims.len() {
                return Err(DslError::Rank {
                    param: p.name.name.clone(),
                    expected: dims.len(),
                    dims: dims.join(", "),
                    shape: t.shape.clone(),
                });
            }
            if let Some(want) = DType::from_ir(p.dtype)
                && want != t.dtype
            {
                return Err(DslError::DType {
                    param: p.name.name.clone(),
                    expected: want.name().into(),
                    got: t.dtype.name().into(),
                });
            }
            for (i, (&d, &got)) in p.shape.iter().zip(&t.shape).enumerate() {
                match &self.module.exprs[d] {
                    ir::Expr::Name(n)
                        if self.module.tunable(n).is_none()
                            && self.module.constant(n).is_none() =>
                    {
                        match problem.dims.get(n) {
                            Some(&bound) if bound != got as i64 => {
                                return Err(DslError::Mismatch {
                                    param: p.name.name.clone(),
                                    dim: i,
                                    name: n.clone(),
                                    got,
                                    bound,
                                    from: from[n].clone(),
                                });
                            }
                            _ => {
                                problem.dims.insert(n.clone(), got as i64);
                                from.entry(n.clone()).or_insert_with(|| p.name.name.clone());
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(problem)
    }

    /// Checks every parameter dimension written as a constant or an expression (`f32 [R, 256]
    /// x`, `[2 * N]`, `[TM]`) against the tensor's size, with the values `env` gives to the
    /// tunables, constants and problem sizes: [`Prepared::bind`] binds the problem sizes only,
    /// and a tensor narrower than such a dimension would be read and written past its end.
    pub fn check_dims(&self, tensors: &[TensorArg], env: &SymEnv) -> Result<(), DslError> {
        let m = &self.module;
        for (p, t) in m.kernel.params.iter().zip(tensors) {
            for (i, (&d, &got)) in p.shape.iter().zip(&t.shape).enumerate() {
                if matches!(&m.exprs[d], ir::Expr::Name(n)
                    if m.tunable(n).is_none() && m.constant(n).is_none())
                {
                    continue;
                }
                let text = m.expr_to_string(d);
                let sym = Sym::from_expr(m, d).ok_or_else(|| {
                    DslError::Plan(format!(
                        "parameter `{}`: dimension `{text}` is not an integer expression",
                        p.name.name
                    ))
                })?;
                let expected = eval(&sym, env)?;
                if i64::try_from(got).ok() != Some(expected) {
                    return Err(DslError::FixedDim {
                        param: p.name.name.clone(),
                        dim: i,
                        expected,
                        got,
                    });
                }
            }
        }
        Ok(())
    }
}

/// One configuration of a prepared kernel, compiled and ready to launch for one problem shape.
pub struct Instance {
    /// The prepared kernel this instance is a configuration of.
    pub prepared: Arc<Prepared>,
    /// The tunable values it was compiled with.
    pub config: Config,
    /// The problem sizes it was built for.
    pub problem: Problem,
    /// The checker's facts for the configuration and problem.
    pub info: KernelInfo,
    /// Grid, block and shared memory.
    pub launch: LaunchConfig,
    /// Registers, spills and shared memory ptxas reported.
    pub resources: Option<KernelResources>,
    /// The instantiated kernel (`tsl_matmul<32, 32>`).
    pub name_expression: String,
    kernel: Kernel,
    env: SymEnv,
    /// The argument lists [`Instance::args`] produced (the last few): the only ones
    /// [`Instance::launch`] accepts.
    issued: Mutex<Vec<Vec<KernelArg>>>,
    /// A `streamk` kernel's workspace (`KernelArg::Workspace`): allocated zeroed with the
    /// instance — its grid is fixed — and left zeroed by every launch, so each launch passes
    /// the same buffer. Launches of one instance run in order on its stream; two streams
    /// launching one instance at once would share it.
    workspace: Option<cudarc::driver::CudaSlice<u8>>,
}

impl Instance {
    /// Checks `config` for `problem` and the device, compiles (cached) and loads the kernel and
    /// evaluates its launch configuration.
    pub fn new(
        dev: &Device,
        cache: &ModuleCache,
        prepared: Arc<Prepared>,
        config: &Config,
        problem: &Problem,
    ) -> Result<Instance, DslError> {
        let info = dev.info();
        let arch = info.tessel_arch().ok_or(DslError::Arch(
            info.compute_capability.0,
            info.compute_capability.1,
        ))?;
        let limits = Limits {
            max_smem_per_block: info.max_smem_per_block_optin.max(0) as u64,
            ..Limits::default()
        };
        let kinfo = check::check_config(&prepared.module, config, Some(problem), &limits).map_err(
            |diags| DslError::Illegal {
                kernel: prepared.def.name.into(),
                diags,
            },
        )?;
        let k = &prepared.kernel;
        if k.path == dsl_core::lower::KernelPath::Hopper && arch != crate::nvrtc::Arch::Sm90a {
            return Err(DslError::Arch(
                info.compute_capability.0,
                info.compute_capability.1,
            ));
        }
        let mut env: SymEnv = config.values.clone().into_iter().collect();
        env.extend(kinfo.constants.iter().map(|(k, v)| (k.clone(), *v)));
        env.extend(problem.dims.iter().map(|(k, v)| (k.clone(), *v)));
        // `persistent` kernels size their grid by the device's multiprocessors (for a cluster
        // kernel, those its clusters can occupy at once: set once the kernel is loaded).
        env.insert("TSL_SM_COUNT".into(), info.sm_count.max(1) as i64);
        for (cond, text) in &k.plan.launch_requires {
            if eval(cond, &env)? == 0 {
                return Err(DslError::Plan(format!(
                    "`{text}` does not hold for this problem"
                )));
            }
        }
        for (name, &v) in &problem.dims {
            if !(0..=INDEX_MAX).contains(&v) {
                return Err(DslError::IndexRange {
                    kernel: prepared.def.name.into(),
                    param: "problem".into(),
                    dim: 0,
                    name: name.clone(),
                    value: v as u64,
                    max: INDEX_MAX,
                });
            }
        }
        let range = |env: &SymEnv,
                     what: &'static str,
                     s: &Sym,
                     min: i64,
                     max: i64|
         -> Result<u32, DslError> {
            let v = eval(s, env)?;
            if (min..=max).contains(&v) {
                Ok(v as u32)
            } else {
                Err(DslError::LaunchRange {
                    kernel: prepared.def.name.into(),
                    what,
                    value: v,
                    min,
                    max,
                })
            }
        };
        let block = range(&env, "block", &k.plan.block_threads, 1, 1024)?;
        let dynamic_smem_bytes = range(
            &env,
            "dynamic shared memory",
            &k.plan.dynamic_smem_bytes,
            0,
            u32::MAX as i64,
        )?;
        let name_expression = k.name_expression(&prepared.template_values(config));
        let req =
            CompileRequest::new(prepared.cuda.clone(), arch).name_expression(&name_expression);
        let (module, _) = cache.get_or_compile(&req)?;
        let lowered = module
            .lowered_name(&name_expression)
            .ok_or_else(|| {
                DslError::Plan(format!(
                    "NVRTC returned no lowered name for `{name_expression}`"
                ))
            })?
            .to_string();
        let resources = module.resources.iter().find(|r| r.name == lowered).cloned();
        let kernel = LoadedModule::load(dev, &module.cubin)?.kernel(&lowered)?;
        // A persistent grid covers the SMs its clusters can occupy at once.
        let resident =
            kernel.resident_sms(block, dynamic_smem_bytes, info.sm_count.max(1).into())?;
        env.insert("TSL_SM_COUNT".into(), resident);
        let launch = LaunchConfig {
            grid: (
                range(&env, "grid x", &k.plan.grid[0], 1, i32::MAX as i64)?,
                range(&env, "grid y", &k.plan.grid[1], 1, 65535)?,
                range(&env, "grid z", &k.plan.grid[2], 1, 65535)?,
            ),
            block: (block, 1, 1),
            dynamic_smem_bytes,
        };
        let mut workspace = None;
        for a in &k.plan.args {
            if let PlanArg::Workspace { block_bytes } = a {
                let bytes = eval(block_bytes, &env)?.max(0) as usize * launch.grid.0 as usize;
                let buf = kernel
                    .stream()
                    .alloc_zeros::<u8>(bytes.max(1))
                    .map_err(|e| {
                        DslError::Plan(format!("streamk workspace ({bytes} bytes): {e}"))
                    })?;
                workspace = Some(buf);
            }
        }
        Ok(Instance {
            prepared,
            config: config.clone(),
            problem: problem.clone(),
            info: kinfo,
            launch,
            resources,
            name_expression,
            kernel,
            env,
            issued: Mutex::new(Vec::new()),
            workspace,
        })
    }

    /// The kernel's arguments for these tensors (bound to the same problem shape).
    pub fn args(&self, tensors: &[TensorArg]) -> Result<Vec<KernelArg>, DslError> {
        let p = self.prepared.bind(tensors)?;
        if p.dims != self.problem.dims {
            return Err(DslError::Plan(format!(
                "tensors bind {:?}, but this instance was built for {:?}",
                p.dims, self.problem.dims
            )));
        }
        self.prepared.check_dims(tensors, &self.env)?;
        let params = &self.prepared.module.kernel.params;
        // `TensorArg` carries raw addresses: each must be device memory holding its tensor.
        guard("cuCtxSetCurrent", || {
            self.kernel.stream().context().bind_to_thread()
        })?;
        for (p, t) in params
            .iter()
            .zip(tensors)
            .filter(|(p, _)| !p.shape.is_empty())
        {
            let bytes = t.shape.iter().product::<usize>() * t.dtype.size_bytes();
            crate::device::check_device_range(t.ptr, bytes).map_err(|reason| {
                DslError::BadPointer {
                    param: p.name.name.clone(),
                    reason,
                }
            })?;
        }
        let mut out = Vec::new();
        for a in &self.prepared.kernel.plan.args {
            match a {
                PlanArg::Pointer { param } => out.push(KernelArg::Ptr(tensors[*param].ptr)),
                PlanArg::TensorMap {
                    param,
                    box_rows,
                    box_cols,
                    swizzle,
                } => {
                    let t = &tensors[*param];
                    let name = &params[*param].name.name;
                    let d = tma::Tiled2d::new(
                        name,
                        t.ptr,
                        tma::TmaDtype::from(t.dtype),
                        t.shape[0] as u64,
                        t.shape[1] as u64,
                        eval(box_rows, &self.env)? as u32,
                        eval(box_cols, &self.env)? as u32,
                        eval(swizzle, &self.env)? as u32,
                    );
                    let map = tma::encode_tiled_2d(&d).map_err(|source| DslError::Tma {
                        param: name.clone(),
                        source,
                    })?;
                    out.push(KernelArg::TensorMap(map));
                }
                PlanArg::Scalar { param, float } => {
                    let bits = tensors[*param].ptr as u32;
                    out.push(if *float {
                        KernelArg::F32(f32::from_bits(bits))
                    } else {
                        KernelArg::I32(bits as i32)
                    })
                }
                PlanArg::Dim { name } => {
                    let v = self.problem.dims.get(name).copied().unwrap_or(-1);
                    let v = i32::try_from(v).map_err(|_| DslError::IndexRange {
                        kernel: self.prepared.def.name.into(),
                        param: "problem".into(),
                        dim: 0,
                        name: name.clone(),
                        value: v as u64,
                        max: INDEX_MAX,
                    })?;
                    out.push(KernelArg::I32(v))
                }
                PlanArg::Workspace { .. } => {
                    let ws = self.workspace.as_ref().ok_or_else(|| {
                        DslError::Plan("the streamk workspace was not allocated".into())
                    })?;
                    let (ptr, _sync) =
                        cudarc::driver::DevicePtr::device_ptr(ws, self.kernel.stream());
                    out.push(KernelArg::Ptr(ptr))
                }
            }
        }
        let mut issued = self.issued.lock().unwrap_or_else(|e| e.into_inner());
        if !issued.contains(&out) {
            if issued.len() == 8 {
                issued.remove(0);
            }
            issued.push(out.clone());
        }
        Ok(out)
    }

    /// Launches with arguments from [`Instance::args`].
    /// Any other list is an `Err`: the arguments carry raw addresses.
    pub fn launch(&self, args: &[KernelArg]) -> Result<(), DslError> {
        let known = self
            .issued
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|a| a.as_slice() == args);
        if !known {
            return Err(DslError::Plan(format!(
                "`{}`: launch arguments must come from Instance::args (the last 8 it made)",
                self.name_expression
            )));
        }
        for fill in self.fills(args)? {
            // SAFETY: the pointer is an output's, from `Instance::args`, which checked it
            // against its device allocation and its shape, whose element count this is.
            unsafe { self.kernel.fill(&fill)? };
        }
        // SAFETY: `args` come from `Instance::args`, which checked every tensor's rank, dtype and
        // shape against the signature and its address against its device allocation, and
        // encoded tensor maps only over those tensors.
        unsafe { self.kernel.launch(&self.launch, args)? };
        Ok(())
    }

    /// The outputs to fill before a launch with `args` (`LaunchPlan::fills`).
    fn fills(&self, args: &[KernelArg]) -> Result<Vec<crate::launch::Fill>, DslError> {
        let plan = &self.prepared.kernel.plan;
        let params = &self.prepared.module.kernel.params;
        plan.fills
            .iter()
            .map(|f| {
                let ptr = plan
                    .args
                    .iter()
                    .position(|a| matches!(a, PlanArg::Pointer { param } if *param == f.param))
                    .and_then(|i| match args.get(i) {
                        Some(KernelArg::Ptr(p)) => Some(*p),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        DslError::Plan(format!(
                            "no pointer argument for the output `{}` to fill",
                            params[f.param].name.name
                        ))
                    })?;
                let dtype = DType::from_ir(params[f.param].dtype).ok_or_else(|| {
                    DslError::Plan(format!(
                        "no runtime element type for `{}`",
                        params[f.param].name.name
                    ))
                })?;
                let n = eval(&f.elems, &self.env)?.max(0) as usize;
                Ok(crate::launch::Fill::of(ptr, dtype, f.value, n))
            })
            .collect()
    }

    /// The loaded kernel that [`Instance::launch`] launches.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }
}

fn eval(s: &Sym, env: &SymEnv) -> Result<i64, DslError> {
    s.eval(env)
        .map_err(|e| DslError::Plan(format!("cannot evaluate `{s}`: {e}")))
}

/// The module cache every DSL launch shares (disk cache from the environment).
pub fn module_cache() -> &'static ModuleCache {
    static C: OnceLock<ModuleCache> = OnceLock::new();
    C.get_or_init(ModuleCache::from_env)
}

#[cfg(test)]
mod tests {
    use super::*;

    static FIXED: KernelDef = KernelDef {
        name: "dsl_fixed_dims",
        dsl: r#"
tunable TB in [64, 128] = 64;
const W = 2 * TB;
__co__ void scale_rows(f32 [R, 256] x, f32 [W] w, f32 alpha, f32 [R, 256] y) {
  parallel {r} by [R] : block, {t} by [256] : thread {
    y.at(r, t) = alpha * x.at(r, t) * w.at(t % W);
  }
}
"#,
        file: None,
        cuda: "",
        ir: "",
        params: &[],
        tunables: &[],
    };

    fn tensor(shape: &[usize]) -> TensorArg {
        TensorArg {
            ptr: 0x1000,
            shape: shape.to_vec(),
            dtype: DType::F32,
        }
    }

    fn env(tb: i64, r: i64) -> SymEnv {
        [("TB", tb), ("W", 2 * tb), ("R", r)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    #[test]
    fn fixed_dimensions_are_checked_against_the_tensors() {
        let p = Prepared::get(&FIXED, Variant::default()).unwrap();
        let good = [
            tensor(&[10, 256]),
            tensor(&[128]),
            TensorArg::scalar(DType::F32, 0.5),
            tensor(&[10, 256]),
        ];
        let problem = p.bind(&good).unwrap();
        assert_eq!(problem.dims.get("R"), Some(&10));
        p.check_dims(&good, &env(64, 10)).unwrap();
        // A tensor narrower than the literal dimension would be read past its end.
        let narrow = [
            tensor(&[10, 100]),
            tensor(&[128]),
            TensorArg::scalar(DType::F32, 0.5),
            tensor(&[10, 256]),
        ];
        p.bind(&narrow).unwrap();
        let e = p.check_dims(&narrow, &env(64, 10)).unwrap_err();
        assert!(
            matches!(&e, DslError::FixedDim { param, dim: 1, expected: 256, got: 100 } if param == "x"),
            "{e}"
        );
        // A dimension of a constant over a tunable follows the configuration.
        let e = p.check_dims(&good, &env(128, 10)).unwrap_err();
        assert!(
            matches!(&e, DslError::FixedDim { param, dim: 0, expected: 256, got: 128 } if param == "w"),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("parameter `w` dimension 0 must be 256, got 128")
        );
    }

    #[test]
    fn scalars_and_tensors_are_not_interchangeable() {
        let p = Prepared::get(&FIXED, Variant::default()).unwrap();
        // A tensor where the scalar `alpha` goes, and a scalar where the tensor `w` goes.
        let e = p
            .bind(&[
                tensor(&[10, 256]),
                tensor(&[128]),
                tensor(&[1]),
                tensor(&[10, 256]),
            ])
            .unwrap_err();
        assert!(
            matches!(&e, DslError::Rank { param, expected: 0, .. } if param == "alpha"),
            "{e}"
        );
        let e = p
            .bind(&[
                tensor(&[10, 256]),
                TensorArg::scalar(DType::F32, 1.0),
                TensorArg::scalar(DType::F32, 0.5),
                tensor(&[10, 256]),
            ])
            .unwrap_err();
        assert!(
            matches!(&e, DslError::Rank { param, expected: 1, .. } if param == "w"),
            "{e}"
        );
        // A missing scalar: one argument short.
        let e = p
            .bind(&[tensor(&[10, 256]), tensor(&[128]), tensor(&[10, 256])])
            .unwrap_err();
        assert!(
            matches!(
                e,
                DslError::Arity {
                    expected: 4,
                    got: 3,
                    ..
                }
            ),
            "{e}"
        );
        // A scalar of another type than declared.
        let e = p
            .bind(&[
                tensor(&[10, 256]),
                tensor(&[128]),
                TensorArg::scalar(DType::S32, 2.0),
                tensor(&[10, 256]),
            ])
            .unwrap_err();
        assert!(
            matches!(&e, DslError::DType { param, .. } if param == "alpha"),
            "{e}"
        );
    }
}
