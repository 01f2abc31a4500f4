//! Compiled kernel handles: check, compile and load once; launch many times, cheaply.
//!
//! ```no_run
//! use tessel_runtime::kernel::{self, LaunchArg};
//! use tessel_runtime::tensor::{TensorMut, TensorRef};
//! # fn f(def: &'static dsl_core::def::KernelDef) -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = cudarc::driver::CudaContext::new(0)?;
//! let stream = ctx.default_stream();
//! let (m, n, k) = (256, 128, 64);
//! let lhs = stream.clone_htod(&vec![1.0f32; m * k])?;
//! let rhs = stream.clone_htod(&vec![1.0f32; n * k])?;
//! let mut out = stream.alloc_zeros::<f32>(m * n)?;
//! let handle = kernel::load(def, &stream, &def.default_config())?; // once
//! handle.launch(&[                                                 // many times
//!     TensorRef::<f32>::new(&lhs, &[m, k])?.into(),
//!     TensorRef::<f32>::new(&rhs, &[n, k])?.into(),
//!     LaunchArg::from(TensorMut::<f32>::new(&mut out, &[m, n])?),
//! ])?;
//! let host: Vec<f32> = stream.clone_dtoh(&out)?;
//! # Ok(()) }
//! ```
//!
//! [`load`] parses, checks (for the device's limits), lowers, compiles (through the module
//! cache) and loads the module of one configuration, and resolves its launch plan
//! ([`crate::bind`]). [`CompiledKernel::launch`] then binds the tensor shapes, runs the legality
//! checks that need problem sizes once per new shape, and launches: no allocation and no
//! compilation on the way (tensor maps of Hopper kernels are re-encoded only when a tensor's
//! address or shape changes). The handle owns the loaded module, so the module lives as long
//! as the handle and any launch made through it.
//!
//! `gemm_kernel!` wraps this in a typed `load` / `launch` per kernel; [`kernel_def_from_source`]
//! gives a `.co` file read at run time the same API. [`Autotuned`] picks the tuner's cached
//! winner for each problem shape.

use std::collections::HashMap;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::CudaStream;
use dsl_core::Diagnostics;
use dsl_core::check::{self, Config, KernelInfo, Limits, Problem};
use dsl_core::def::{KernelDef, ParamDef, TunableDef, Variant};
use dsl_core::lower::KernelPath;

use crate::bind::{ArgSpec, LaunchTemplate, MAX_ARGS, MAX_DIMS};
use crate::device::DeviceInfo;
use crate::dsl::{DslError, Prepared, module_cache};
use crate::dtype::{DType, Element};
use crate::launch::{Kernel, LaunchLimits, LoadedModule, Slot, validate_launch};
use crate::nvrtc::{Arch, CompileRequest};
use crate::ptxas::KernelResources;
use crate::tensor::{Dims, TensorMut, TensorRef};
use crate::tma::{self, TensorMap};

/// Shapes that passed the full legality check, kept per handle (oldest dropped first).
const CHECKED_SHAPES: usize = 64;

/// One tensor argument of [`CompiledKernel::launch`]: a device address, shape, dtype and
/// whether the kernel may write it. Made from a [`TensorRef`] (input) or [`TensorMut`]
/// (output) with `.into()`; it borrows what the view borrows.
#[derive(Clone, Copy, Debug)]
pub struct LaunchArg<'a> {
    ptr: u64,
    dims: Dims,
    ctx: Option<usize>,
    dtype: DType,
    writable: bool,
    _borrow: PhantomData<&'a ()>,
}

impl<'a, T: Element> From<TensorRef<'a, T>> for LaunchArg<'a> {
    fn from(t: TensorRef<'a, T>) -> Self {
        LaunchArg {
            ptr: t.device_ptr(),
            dims: t.dims(),
            ctx: t.context_id(),
            dtype: T::DTYPE,
            writable: false,
            _borrow: PhantomData,
        }
    }
}

impl<'a, T: Element> From<TensorMut<'a, T>> for LaunchArg<'a> {
    fn from(t: TensorMut<'a, T>) -> Self {
        LaunchArg {
            ptr: t.device_ptr(),
            dims: t.dims(),
            ctx: t.context_id(),
            dtype: T::DTYPE,
            writable: true,
            _borrow: PhantomData,
        }
    }
}

impl LaunchArg<'_> {
    /// The row-major shape of the tensor this argument passes.
    pub fn shape(&self) -> &[usize] {
        self.dims.as_slice()
    }
}

/// The last tensor map encoded for one tensor-map argument.
#[derive(Clone, Copy)]
struct MapMemo {
    ptr: u64,
    rows: u64,
    cols: u64,
    map: Option<TensorMap>,
}

/// One configuration of a kernel, compiled and loaded on a stream (see the module doc).
pub struct CompiledKernel {
    prepared: Arc<Prepared>,
    config: Config,
    info: KernelInfo,
    template: LaunchTemplate,
    limits: Limits,
    launch_limits: LaunchLimits,
    name_expression: String,
    resources: Option<KernelResources>,
    checked: Mutex<Vec<[i64; MAX_DIMS]>>,
    maps: Mutex<Vec<MapMemo>>,
    /// Holds the loaded module (the function keeps a reference to it) and the stream.
    kernel: Kernel,
    stream: Arc<CudaStream>,
    context: usize,
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledKernel")
            .field("kernel", &self.prepared.def.name)
            .field("instance", &self.name_expression)
            .finish_non_exhaustive()
    }
}

/// Checks, compiles (cached) and loads `def` for `config` on `stream`'s device; its launches go
/// to `stream`.
pub fn load(
    def: &'static KernelDef,
    stream: &Arc<CudaStream>,
    config: &Config,
) -> Result<CompiledKernel, DslError> {
    load_variant(def, Variant::default(), stream, config)
}

/// [`load`] for a dtype variant of the kernel.
pub fn load_variant(
    def: &'static KernelDef,
    variant: Variant,
    stream: &Arc<CudaStream>,
    config: &Config,
) -> Result<CompiledKernel, DslError> {
    let info = DeviceInfo::query(stream.context())?;
    CompiledKernel::new(def, variant, stream, &info, config)
}

impl CompiledKernel {
    fn new(
        def: &'static KernelDef,
        variant: Variant,
        stream: &Arc<CudaStream>,
        dev: &DeviceInfo,
        config: &Config,
    ) -> Result<CompiledKernel, DslError> {
        let unsupported = || DslError::Arch(dev.compute_capability.0, dev.compute_capability.1);
        let arch = dev.tessel_arch().ok_or_else(unsupported)?;
        let prepared = Prepared::get(def, variant)?;
        let illegal = |diags| DslError::Illegal {
            kernel: def.name.into(),
            diags,
        };
        let limits = Limits {
            max_smem_per_block: dev.max_smem_per_block_optin.max(0) as u64,
            ..Limits::default()
        };
        let info = check::check_config(&prepared.module, config, None, &limits).map_err(illegal)?;
        if prepared.kernel.path == KernelPath::Hopper && arch != Arch::Sm90a {
            return Err(unsupported());
        }
        let mut template =
            LaunchTemplate::new(&prepared, config, &info.constants, i64::from(dev.sm_count))?;
        if template.arity() > MAX_ARGS {
            return Err(DslError::Plan(format!(
                "kernel `{}` has {} parameters; at most {MAX_ARGS} are supported",
                def.name,
                template.arity()
            )));
        }
        let name_expression = prepared
            .kernel
            .name_expression(&prepared.template_values(config));
        let req =
            CompileRequest::new(prepared.cuda.clone(), arch).name_expression(&name_expression);
        let (module, _) = module_cache().get_or_compile(&req)?;
        let lowered = module
            .lowered_name(&name_expression)
            .ok_or_else(|| {
                DslError::Plan(format!(
                    "NVRTC returned no lowered name for `{name_expression}`"
                ))
            })?
            .to_string();
        let resources = module.resources.iter().find(|r| r.name == lowered).cloned();
        let launch_limits = LaunchLimits {
            max_threads_per_block: 1024,
            max_dynamic_smem_bytes: dev.max_smem_per_block_optin.max(0) as u32,
        };
        let kernel =
            LoadedModule::load_on(stream, launch_limits, &module.cubin)?.kernel(&lowered)?;
        // A persistent grid covers the SMs the kernel's clusters can occupy at once.
        if let Some((block, smem)) = template.fixed_block_and_smem() {
            let resident = kernel.resident_sms(block, smem, i64::from(dev.sm_count))?;
            if resident != i64::from(dev.sm_count) {
                template = LaunchTemplate::new(&prepared, config, &info.constants, resident)?;
            }
        }
        let maps = template
            .args
            .iter()
            .filter(|a| matches!(a, ArgSpec::TensorMap { .. }))
            .map(|_| MapMemo {
                ptr: 0,
                rows: 0,
                cols: 0,
                map: None,
            })
            .collect();
        Ok(CompiledKernel {
            prepared,
            config: config.clone(),
            info,
            template,
            limits,
            launch_limits,
            name_expression,
            resources,
            checked: Mutex::new(Vec::new()),
            maps: Mutex::new(maps),
            kernel,
            stream: stream.clone(),
            context: crate::tensor::context_id(stream),
        })
    }

    /// The kernel as parsed, checked and lowered.
    pub fn prepared(&self) -> &Arc<Prepared> {
        &self.prepared
    }

    /// The configuration this handle was compiled for.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The checker's facts for the configuration (threads, shared memory, constants …).
    pub fn info(&self) -> &KernelInfo {
        &self.info
    }

    /// The instantiated kernel (`tsl_matmul<32, 32>`).
    pub fn name_expression(&self) -> &str {
        &self.name_expression
    }

    /// Registers, spills and shared memory ptxas reported, when it did.
    pub fn resources(&self) -> Option<&KernelResources> {
        self.resources.as_ref()
    }

    /// The resolved launch plan (for binding shapes without launching).
    pub fn template(&self) -> &LaunchTemplate {
        &self.template
    }

    /// The stream launches go to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The loaded kernel (function attributes, raw launches).
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// Checks `args` against the signature and launches (asynchronously, on [`Self::stream`]).
    /// A wrong count, rank, dtype or shape, a read-only view for a written parameter, a size the
    /// kernel's index type cannot hold or a problem the configuration does not support is an
    /// `Err`, and nothing is launched.
    pub fn launch(&self, args: &[LaunchArg<'_>]) -> Result<(), DslError> {
        if args.len() != self.template.arity() {
            return Err(DslError::Arity {
                kernel: self.prepared.def.name.into(),
                expected: self.template.arity(),
                got: args.len(),
            });
        }
        // `load` checked arity <= MAX_ARGS.
        let n = args.len();
        let mut shapes: [&[usize]; MAX_ARGS] = [&[]; MAX_ARGS];
        let mut dtypes = [DType::F32; MAX_ARGS];
        for (i, a) in args.iter().enumerate() {
            shapes[i] = a.dims.as_slice();
            dtypes[i] = a.dtype;
        }
        let bound = self.template.bind(&shapes[..n], Some(&dtypes[..n]))?;
        for (i, a) in args.iter().enumerate() {
            let param = || self.prepared.module.kernel.params[i].name.name.clone();
            if self.template.writes(i) && !a.writable {
                return Err(DslError::ReadOnly { param: param() });
            }
            if a.ctx.is_some_and(|c| c != self.context) {
                return Err(DslError::BadPointer {
                    param: param(),
                    reason: "the tensor's memory belongs to another CUDA context than the \
                             handle's stream"
                        .into(),
                });
            }
        }
        self.check_problem(bound.dims())?;
        validate_launch(&self.name_expression, &bound.launch, &self.launch_limits)?;
        let mut slots = [Slot::U64(0); MAX_ARGS];
        let mut map_index = 0;
        for (s, spec) in slots.iter_mut().zip(&self.template.args) {
            *s = match *spec {
                ArgSpec::Pointer { param } => Slot::U64(args[param].ptr),
                // In range: `bind` checked every dim against the index type.
                ArgSpec::Dim { slot } => Slot::I32(bound.dims()[slot] as i32),
                ArgSpec::TensorMap {
                    param,
                    box_rows,
                    box_cols,
                    swizzle,
                } => {
                    let m = self.tensor_map(
                        map_index,
                        param,
                        &args[param],
                        [box_rows, box_cols, swizzle],
                    )?;
                    map_index += 1;
                    Slot::Map(m)
                }
            };
        }
        let count = self.template.args.len();
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_ARGS];
        for (p, s) in params.iter_mut().zip(slots.iter_mut()).take(count) {
            *p = s.as_param();
        }
        for &(param, value) in &self.template.fills {
            let a = &args[param];
            let fill =
                crate::launch::Fill::of(a.ptr, a.dtype, value, a.dims.as_slice().iter().product());
            // SAFETY: an output's writable view (checked above), whose buffer holds its shape.
            unsafe { self.kernel.fill(&fill)? };
        }
        // SAFETY: the argument list is the kernel's own plan (pointers, tensor maps and `int`
        // dims in signature order); every tensor's rank, dtype and shape were checked against
        // the signature above, writes go only to writable views, and the views' constructors
        // guarantee each buffer holds its shape.
        unsafe {
            self.kernel
                .launch_packed(&bound.launch, &mut params[..count])?
        };
        Ok(())
    }

    /// Runs the legality checks that need problem sizes, once per new shape.
    fn check_problem(&self, dims: &[i64]) -> Result<(), DslError> {
        let mut key = [0i64; MAX_DIMS];
        key[..dims.len()].copy_from_slice(dims);
        let mut checked = self.checked.lock().unwrap_or_else(|e| e.into_inner());
        if checked.contains(&key) {
            return Ok(());
        }
        let problem = Problem {
            dims: self
                .template
                .dim_names()
                .iter()
                .cloned()
                .zip(dims.iter().copied())
                .collect(),
        };
        check::check_config(
            &self.prepared.module,
            &self.config,
            Some(&problem),
            &self.limits,
        )
        .map_err(|diags| DslError::Illegal {
            kernel: self.prepared.def.name.into(),
            diags,
        })?;
        if checked.len() == CHECKED_SHAPES {
            checked.remove(0);
        }
        checked.push(key);
        Ok(())
    }

    /// The tensor map of one argument, re-encoded only when the tensor changed.
    fn tensor_map(
        &self,
        index: usize,
        param: usize,
        arg: &LaunchArg<'_>,
        [box_rows, box_cols, swizzle]: [u32; 3],
    ) -> Result<TensorMap, DslError> {
        let name = &self.prepared.module.kernel.params[param].name.name;
        let s = arg.dims.as_slice();
        let (rows, cols) = match s {
            [r, c] => (*r as u64, *c as u64),
            _ => {
                return Err(DslError::Plan(format!(
                    "parameter `{name}` is read by TMA and must be 2-D, got shape {s:?}"
                )));
            }
        };
        let mut maps = self.maps.lock().unwrap_or_else(|e| e.into_inner());
        let memo = &mut maps[index];
        if let Some(m) = memo.map
            && (memo.ptr, memo.rows, memo.cols) == (arg.ptr, rows, cols)
        {
            return Ok(m);
        }
        let d = tma::Tiled2d::new(
            name,
            arg.ptr,
            tma::TmaDtype::from(arg.dtype),
            rows,
            cols,
            box_rows,
            box_cols,
            swizzle,
        );
        let map = tma::encode_tiled_2d(&d).map_err(|source| DslError::Tma {
            param: name.clone(),
            source,
        })?;
        *memo = MapMemo {
            ptr: arg.ptr,
            rows,
            cols,
            map: Some(map),
        };
        Ok(map)
    }
}

/// A kernel that launches each problem shape with the tuner's cached winner for it (the
/// default configuration where none is cached). Handles are loaded on first use of a shape
/// and kept; later launches of that shape cost a lookup more than [`CompiledKernel::launch`].
pub struct Autotuned {
    def: &'static KernelDef,
    variant: Variant,
    device: DeviceInfo,
    stream: Arc<CudaStream>,
    default: Arc<CompiledKernel>,
    cache_dir: PathBuf,
    by_shape: Mutex<Vec<([i64; MAX_DIMS], Arc<CompiledKernel>)>>,
    by_config: Mutex<Vec<Arc<CompiledKernel>>>,
    tune_on_miss: Option<crate::tune::TuneOptions>,
}

impl std::fmt::Debug for Autotuned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Autotuned")
            .field("kernel", &self.def.name)
            .finish_non_exhaustive()
    }
}

/// An [`Autotuned`] handle for `def` on `stream` (loads the default configuration now).
pub fn autotuned(def: &'static KernelDef, stream: &Arc<CudaStream>) -> Result<Autotuned, DslError> {
    let device = DeviceInfo::query(stream.context())?;
    let variant = Variant::default();
    let default = Arc::new(CompiledKernel::new(
        def,
        variant,
        stream,
        &device,
        &def.default_config(),
    )?);
    Ok(Autotuned {
        def,
        variant,
        device,
        stream: stream.clone(),
        by_config: Mutex::new(vec![default.clone()]),
        default,
        cache_dir: crate::tune::store::default_dir(),
        by_shape: Mutex::new(Vec::new()),
        tune_on_miss: None,
    })
}

impl Autotuned {
    /// Reads winners from the tune cache in `dir` instead of the default folder
    /// (`$TESSEL_TUNE_CACHE`, else `~/.cache/tessel/tune`).
    pub fn with_tune_cache(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cache_dir = dir.into();
        self.by_shape
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self
    }

    /// Tunes a shape on its first launch when the cache has no winner for it (Triton's
    /// `autotune` on first use): the tuner sweeps with `opts` into this handle's cache folder
    /// and the winner serves this and every later launch of the shape (and later processes,
    /// from the cache). The tuner's workers are this program started again, so `main` must
    /// begin with `tessel::runtime::tune::worker_main_if_requested(&[&kernel::KERNEL])`.
    /// Kernels the GEMM tuner does not take, and a sweep that fails or finds no GPU, fall back
    /// to the default configuration.
    pub fn tune_on_first_use(mut self, opts: crate::tune::TuneOptions) -> Self {
        self.tune_on_miss = Some(opts);
        self
    }

    /// The default-configuration handle (what shapes without a cached winner use).
    pub fn default_handle(&self) -> &Arc<CompiledKernel> {
        &self.default
    }

    /// The handle a launch with these tensors uses (loading it on first use of the shape).
    pub fn handle_for(&self, args: &[LaunchArg<'_>]) -> Result<Arc<CompiledKernel>, DslError> {
        if args.len() != self.default.template.arity() {
            return Err(DslError::Arity {
                kernel: self.def.name.into(),
                expected: self.default.template.arity(),
                got: args.len(),
            });
        }
        let n = args.len();
        let mut shapes: [&[usize]; MAX_ARGS] = [&[]; MAX_ARGS];
        for (s, a) in shapes.iter_mut().zip(args.iter()) {
            *s = a.dims.as_slice();
        }
        let bound = self.default.template.bind(&shapes[..n], None)?;
        let mut key = [0i64; MAX_DIMS];
        key[..bound.dims().len()].copy_from_slice(bound.dims());
        if let Some((_, h)) = self
            .by_shape
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(k, _)| *k == key)
        {
            return Ok(h.clone());
        }
        let cached =
            crate::autotune::cached_winner(self.def, &self.device, &shapes[..n], &self.cache_dir);
        let tuned = match (&cached, &self.tune_on_miss) {
            (None, Some(opts)) => crate::autotune::tune_now(
                self.def,
                self.variant,
                &shapes[..n],
                &self.cache_dir,
                opts.clone(),
            ),
            _ => None,
        };
        let handle = match cached.or(tuned) {
            Some(cfg) => self.handle_of(&cfg)?,
            None => self.default.clone(),
        };
        self.by_shape
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((key, handle.clone()));
        Ok(handle)
    }

    fn handle_of(&self, cfg: &Config) -> Result<Arc<CompiledKernel>, DslError> {
        let mut loaded = self.by_config.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = loaded.iter().find(|h| &h.config == cfg) {
            return Ok(h.clone());
        }
        let h = Arc::new(CompiledKernel::new(
            self.def,
            self.variant,
            &self.stream,
            &self.device,
            cfg,
        )?);
        loaded.push(h.clone());
        Ok(h)
    }

    /// Launches with the configuration chosen for these tensors' shape.
    pub fn launch(&self, args: &[LaunchArg<'_>]) -> Result<(), DslError> {
        self.handle_for(args)?.launch(args)
    }
}

/// A [`KernelDef`] for DSL text read at run time (a `.co` file): parsed, checked and emitted
/// once. Definitions live for the program (like those `gemm_kernel!` makes); the same text and
/// file name give the same definition again.
pub fn kernel_def_from_source(
    text: &str,
    file: Option<&str>,
) -> Result<&'static KernelDef, Diagnostics> {
    type Key = (String, Option<String>);
    static DEFS: OnceLock<Mutex<HashMap<Key, &'static KernelDef>>> = OnceLock::new();
    let defs = DEFS.get_or_init(Default::default);
    let key = (text.to_string(), file.map(str::to_string));
    if let Some(d) = defs.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(d);
    }
    let def = new_def(text, file)?;
    defs.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, def);
    Ok(def)
}

fn new_def(text: &str, file: Option<&str>) -> Result<&'static KernelDef, Diagnostics> {
    let parsed = dsl_core::parse::parse_str(text, file)?;
    let m = dsl_core::lower::launch_form(parsed.module);
    let info = check::check(&m)?;
    let kernel = dsl_core::lower::lower(&m, &info)?;
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let file: Option<&'static str> = file.map(|f| leak(f.to_string()));
    let cuda = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &kernel,
        source: file.unwrap_or("a kernel loaded at run time"),
        instance: None,
    });
    let params: Vec<ParamDef> = m
        .kernel
        .params
        .iter()
        .map(|p| ParamDef {
            name: leak(p.name.name.clone()),
            dtype: p.dtype,
            space: p.space,
            shape: Box::leak(
                p.shape
                    .iter()
                    .map(|&d| leak(m.expr_to_string(d)))
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            ),
        })
        .collect();
    let tunables: Vec<TunableDef> = m
        .tunables
        .iter()
        .map(|t| TunableDef {
            name: leak(t.name.name.clone()),
            domain: Box::leak(t.domain.clone().into_boxed_slice()),
            default: t.default,
        })
        .collect();
    let def = KernelDef {
        name: leak(m.kernel.name.name.clone()),
        dsl: leak(text.to_string()),
        file,
        cuda: leak(cuda),
        ir: leak(m.to_string()),
        params: Box::leak(params.into_boxed_slice()),
        tunables: Box::leak(tunables.into_boxed_slice()),
    };
    Ok(Box::leak(Box::new(def)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CO: &str = "tunable TILE in [16, 32] = 32;
__co__ void scale(global f32 [N] x, global f32 [N] y) {
  parallel {b} by [cdiv(N, TILE)] : block, {t} by [TILE] : thread {
    y.at(b # t) = x.at(b # t) * 2.0f;
  }
}
";

    #[test]
    fn a_kernel_read_at_run_time_gets_a_definition() {
        let def = kernel_def_from_source(CO, Some("scale.co")).unwrap();
        assert_eq!(def.name, "scale");
        assert_eq!(def.file, Some("scale.co"));
        assert_eq!(def.params.len(), 2);
        assert_eq!(def.params[1].shape, &["N"]);
        assert_eq!(def.tunables[0].domain, &[16, 32]);
        assert_eq!(def.default_config().get("TILE"), Some(32));
        let again = kernel_def_from_source(CO, Some("scale.co")).unwrap();
        assert!(
            std::ptr::eq(def, again),
            "the same text gives the same definition"
        );
        assert!(def.cuda.contains("tsl_scale"), "{}", def.cuda);
        // The same launch plan as a macro kernel: it binds and checks shapes on the CPU.
        let p = Prepared::get(def, Variant::default()).unwrap();
        let info = def.check(&def.default_config(), None).unwrap();
        let t = LaunchTemplate::new(&p, &def.default_config(), &info.constants, 1).unwrap();
        let b = t.bind(&[&[100], &[100]], None).unwrap();
        assert_eq!(b.launch.grid, (4, 1, 1));
        assert!(t.writes(1) && !t.writes(0));
    }

    #[test]
    fn handles_can_be_shared_across_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<CompiledKernel>();
        shared::<Autotuned>();
    }

    #[test]
    fn bad_source_is_a_diagnostic() {
        let e = kernel_def_from_source("__co__ void k(", None).unwrap_err();
        assert!(!e.0.is_empty());
    }
}
