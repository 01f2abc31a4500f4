//! What the tuner tunes: a [`Target`] built from a [`TuneSource`] — a DSL kernel
//! (`gemm_kernel!`'s [`KernelDef`] plus a dtype [`Variant`]) or a hand-written templated CUDA
//! kernel ([`CudaTemplate`]). Both go through exactly the same filter, compile, worker and
//! watchdog machinery; the target only answers four questions: its tunables, whether a config
//! is legal (and its shared memory and threads), the NVRTC request of a config, and (in the
//! worker, see `worker.rs`) how to launch it.
//!
//! Every target computes a GEMM `out[M,N] = lhs[M,K] · rhs[N,K]^T` (row-major, "NT"), which is
//! what the worker verifies against cuBLAS.

use std::sync::Arc;

use dsl_core::check::{self, Config, Limits, Problem};
use dsl_core::def::{KernelDef, TunableDef, Variant};
use dsl_core::ir;
use dsl_core::lower::{KernelArg as PlanArg, KernelPath, SymEnv};
use serde::{Deserialize, Serialize};

use crate::dsl::{Prepared, TensorArg};
use crate::dtype::DType;
use crate::hash::StableHasher;
use crate::launch::LaunchConfig;
use crate::nvrtc::{Arch, CompileRequest};
use crate::tma::{Tiled2d, TiledMapArgs, TmaDtype};

use super::TuneError;
use super::record::ConfigMap;

/// A GEMM problem shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shape {
    /// Rows of the output.
    pub m: usize,
    /// Columns of the output.
    pub n: usize,
    /// The reduction dimension.
    pub k: usize,
}

impl Shape {
    /// `m × n × k`.
    pub fn new(m: usize, n: usize, k: usize) -> Shape {
        Shape { m, n, k }
    }
    /// `n × n × n`.
    pub fn cube(n: usize) -> Shape {
        Shape { m: n, n, k: n }
    }
    /// `2·M·N·K`.
    pub fn flops(&self) -> f64 {
        crate::timing::gemm_flops(self.m, self.n, self.k)
    }
    /// `8192x8192x8192`.
    pub fn text(&self) -> String {
        format!("{}x{}x{}", self.m, self.n, self.k)
    }
}

/// A hand-written templated CUDA GEMM kernel `template <int A, int B, …> __global__ void
/// function(const __half* lhs, const __half* rhs, __half* out, int M, int N, int K)`, f16 in and
/// out with f32 accumulation (bit-level `unsigned short` works as well).
#[derive(Debug)]
pub struct CudaTemplate {
    /// Name in reports and the cache.
    pub name: &'static str,
    /// The whole `.cu` text.
    pub source: &'static str,
    /// The C++ template's name.
    pub function: &'static str,
    /// Template parameters, in order.
    pub tunables: &'static [TunableDef],
    /// Grid, block and dynamic shared memory of a config.
    pub launch: fn(&ConfigMap, &Shape) -> LaunchConfig,
    /// Restrictions over the config and shape (`Err(reason)` removes the config).
    pub restrictions: fn(&ConfigMap, &Shape) -> Result<(), String>,
}

/// Where a target comes from.
#[derive(Clone, Copy, Debug)]
pub enum TuneSource {
    /// A DSL kernel.
    Dsl(&'static KernelDef),
    /// A hand-written CUDA template.
    Cuda(&'static CudaTemplate),
}

impl From<&'static KernelDef> for TuneSource {
    fn from(d: &'static KernelDef) -> Self {
        TuneSource::Dsl(d)
    }
}

impl From<&'static CudaTemplate> for TuneSource {
    fn from(t: &'static CudaTemplate) -> Self {
        TuneSource::Cuda(t)
    }
}

impl TuneSource {
    /// The kernel's name (`matmul`, …).
    pub fn name(&self) -> &'static str {
        match self {
            TuneSource::Dsl(d) => d.name,
            TuneSource::Cuda(t) => t.name,
        }
    }
}

/// One tunable of a target: the type every stage after the parser shares.
pub use dsl_core::tunable::Tunable;

/// Why the legality filter removed a config: the checker's diagnostic code (`E0501` …, or the
/// tuner's own `T01xx` for TMA boxes and launch-time restrictions) and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The diagnostic code (`E0501`, `T0101`, …).
    pub code: String,
    /// The diagnostic's message: what the config breaks.
    pub message: String,
}

/// What the filter established about a legal config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// Dynamic shared memory per block, bytes.
    pub smem_bytes: u64,
    /// Threads per block.
    pub threads: u32,
}

/// A target ready to be filtered and compiled.
pub struct Target {
    /// Where it comes from.
    pub source: TuneSource,
    /// The dtype variant tuned (input and accumulator dtypes; default: as declared).
    pub variant: Variant,
    /// The tunables, in template-parameter order.
    pub tunables: Vec<Tunable>,
    /// The CUDA source every config instantiates.
    pub cuda: String,
    /// Element type of the inputs.
    pub input: DType,
    /// The accumulator dtype name, if not the declared one.
    pub acc: DType,
    /// Element type of the output.
    pub output: DType,
    prepared: Option<Arc<Prepared>>,
    pinned: ConfigMap,
    /// A job's parameter bindings (shapes and dtypes, no memory), instead of the GEMM's.
    bindings: Option<Vec<TensorArg>>,
    /// A job's dtype summary.
    job_dtypes: Option<String>,
}

impl Target {
    /// A DSL kernel and dtype variant (parsed, checked, lowered and emitted once).
    pub fn dsl(def: &'static KernelDef, variant: Variant) -> Result<Target, TuneError> {
        let prepared = Prepared::get(def, variant).map_err(|e| TuneError::Target(e.to_string()))?;
        let params = &prepared.module.kernel.params;
        let bad = |why: String| TuneError::Target(format!("kernel `{}`: {why}", def.name));
        if params.len() != 3 || params.iter().any(|p| p.shape.len() != 2) {
            return Err(bad(
                "the tuner runs GEMMs `(lhs [M, K], rhs [N, K], out [M, N])`".into(),
            ));
        }
        let dt = |i: usize| {
            DType::from_ir(params[i].dtype).ok_or_else(|| bad(format!("dtype {}", params[i].dtype)))
        };
        let (input, output) = (dt(0)?, dt(2)?);
        if !matches!(input, DType::F16 | DType::BF16) || dt(1)? != input || output != input {
            return Err(bad(format!(
                "the tuner runs f16 or bf16 GEMMs whose output has the input dtype, not {input} → {output}"
            )));
        }
        let acc = DType::from_ir(acc_dtype(&prepared.module)).unwrap_or(DType::F32);
        Ok(Target {
            source: TuneSource::Dsl(def),
            variant,
            tunables: prepared.kernel.tunables.to_vec(),
            cuda: prepared.cuda.clone(),
            input,
            acc,
            output,
            prepared: Some(prepared),
            pinned: ConfigMap::new(),
            bindings: None,
            job_dtypes: None,
        })
    }

    /// The target of a general job: any DSL kernel, the parameters' shapes and dtypes from
    /// the job.
    pub fn for_job(job: &super::job::Job) -> Result<Target, TuneError> {
        let prepared =
            Prepared::get(job.kernel, job.variant).map_err(|e| TuneError::Target(e.to_string()))?;
        let params = &prepared.module.kernel.params;
        if params.len() != job.tensors.len() {
            return Err(TuneError::Target(format!(
                "job `{}`: kernel `{}` has {} parameters, the job gives {}",
                job.name,
                job.kernel.name,
                params.len(),
                job.tensors.len()
            )));
        }
        let first = job.tensors.first().map_or(DType::F32, |t| t.dtype);
        let out = job
            .output_index()
            .map(|i| job.tensors[i].dtype)
            .map_err(TuneError::Target)?;
        Ok(Target {
            source: TuneSource::Dsl(job.kernel),
            variant: job.variant,
            tunables: prepared.kernel.tunables.to_vec(),
            cuda: prepared.cuda.clone(),
            input: first,
            acc: DType::from_ir(acc_dtype(&prepared.module)).unwrap_or(DType::F32),
            output: out,
            prepared: Some(prepared),
            pinned: ConfigMap::new(),
            bindings: Some(job.bindings()),
            job_dtypes: Some(job.dtypes()),
        })
    }

    /// A hand-written CUDA template (f16 in and out, f32 accumulation).
    pub fn cuda(t: &'static CudaTemplate) -> Target {
        Target {
            source: TuneSource::Cuda(t),
            variant: Variant::default(),
            tunables: t.tunables.iter().map(Tunable::from).collect(),
            cuda: t.source.to_string(),
            input: DType::F16,
            acc: DType::F32,
            output: DType::F16,
            prepared: None,
            pinned: ConfigMap::new(),
            bindings: None,
            job_dtypes: None,
        }
    }

    /// From a source and variant (a CUDA template has no variants).
    pub fn new(source: TuneSource, variant: Variant) -> Result<Target, TuneError> {
        match source {
            TuneSource::Dsl(d) => Target::dsl(d, variant),
            TuneSource::Cuda(t) if variant.is_default() => Ok(Target::cuda(t)),
            TuneSource::Cuda(t) => Err(TuneError::Target(format!(
                "`{}` is a CUDA template; it has no dtype variants",
                t.name
            ))),
        }
    }

    /// The rule's name in reports.
    pub fn name(&self) -> &'static str {
        self.source.name()
    }

    /// Restricts tunable `name` to `value` (which must be in its domain): the sweep then
    /// leaves it fixed.
    pub fn pin(&mut self, name: &str, value: i64) -> Result<(), TuneError> {
        let t = self
            .tunables
            .iter_mut()
            .find(|t| t.name == name)
            .ok_or_else(|| {
                TuneError::Target(format!(
                    "`{name}` is not a tunable of `{}`",
                    self.source.name()
                ))
            })?;
        if !t.domain.contains(&value) {
            return Err(TuneError::Target(format!(
                "{name} = {value} is outside its domain {:?}",
                t.domain
            )));
        }
        t.domain = vec![value];
        t.default = value;
        self.pinned.insert(name.to_string(), value);
        Ok(())
    }

    /// The tunables fixed by [`Target::pin`], name → value.
    pub fn pinned(&self) -> &ConfigMap {
        &self.pinned
    }

    /// The DSL kernel prepared for this variant (DSL targets only).
    pub fn prepared(&self) -> Option<&Arc<Prepared>> {
        self.prepared.as_ref()
    }

    /// `f16 in, f16 acc, f16 out`.
    pub fn dtypes(&self) -> String {
        if let Some(d) = &self.job_dtypes {
            return d.clone();
        }
        format!("{} in, {} acc, {} out", self.input, self.acc, self.output)
    }

    /// Stable hash of everything that defines the kernel's code (hex, 32 digits): its name,
    /// dtypes and CUDA text without comments. The emitted CUDA is a function of the checked
    /// IR, so the DSL text's comments and layout, the header that names the source and the
    /// `// dsl:LINE` notes stay out: `v4_tuned` (the kernel inline in `gemm_kernel!`) and
    /// `bench` (the same kernel from `kernels/v4_tuned.co`) share a tune cache.
    pub fn source_hash(&self) -> String {
        let mut h = StableHasher::new();
        h.str(self.name())
            .str(&code_only(&self.cuda))
            .str(&self.dtypes());
        h.finish().to_string()
    }

    /// The architecture a device of this compute capability compiles for, if it can run this.
    pub fn arch_for(&self, cc: (i32, i32)) -> Option<Arch> {
        let arch = Arch::from_compute_capability(cc.0, cc.1)?;
        let hopper = self
            .prepared
            .as_ref()
            .is_some_and(|p| p.kernel.path == KernelPath::Hopper);
        (!hopper || arch == Arch::Sm90a).then_some(arch)
    }

    /// The default config.
    pub fn default_config(&self) -> ConfigMap {
        self.tunables
            .iter()
            .map(|t| (t.name.clone(), t.default))
            .collect()
    }

    /// Template arguments of a config, in template-parameter order.
    pub fn template_values(&self, cfg: &ConfigMap) -> Vec<i64> {
        self.tunables
            .iter()
            .map(|t| cfg.get(&t.name).copied().unwrap_or(t.default))
            .collect()
    }

    /// `tsl_matmul<192, 2, 2, 64>`.
    pub fn name_expression(&self, cfg: &ConfigMap) -> String {
        let values = self.template_values(cfg);
        match (&self.prepared, self.source) {
            (Some(p), _) => p.kernel.name_expression(&values),
            (None, TuneSource::Cuda(t)) => {
                let v: Vec<String> = values.iter().map(|x| x.to_string()).collect();
                format!("{}<{}>", t.function, v.join(", "))
            }
            (None, TuneSource::Dsl(d)) => d.name.to_string(),
        }
    }

    /// The NVRTC request of a config (the worker's `Instance::new` builds the same one, so the
    /// disk module cache hands it the parent's cubin).
    pub fn compile_request(&self, cfg: &ConfigMap, arch: Arch) -> CompileRequest {
        CompileRequest::new(self.cuda.clone(), arch).name_expression(self.name_expression(cfg))
    }

    /// The DSL problem binding for a shape (symbolic dims from the parameter shapes).
    pub fn problem(&self, shape: &Shape) -> Result<Problem, TuneError> {
        if let (Some(p), Some(b)) = (&self.prepared, &self.bindings) {
            return p.bind(b).map_err(|e| TuneError::Target(e.to_string()));
        }
        let Some(p) = &self.prepared else {
            return Ok(Problem::default()
                .with("M", shape.m as i64)
                .with("N", shape.n as i64)
                .with("K", shape.k as i64));
        };
        let arg = |dims: [usize; 2]| TensorArg {
            ptr: 0,
            shape: dims.to_vec(),
            dtype: self.input,
        };
        let mut out = arg([shape.m, shape.n]);
        out.dtype = self.output;
        p.bind(&[arg([shape.m, shape.k]), arg([shape.n, shape.k]), out])
            .map_err(|e| TuneError::Target(e.to_string()))
    }

    /// The legality filter of one config: every check of [`check::check_config`] (restrictions,
    /// shared memory against `limits`, threads, WGMMA shapes, swizzle), the launch-time
    /// restrictions over problem dims, and the TMA tensor-map rules for every box.
    pub fn check(
        &self,
        cfg: &ConfigMap,
        shape: &Shape,
        problem: &Problem,
        limits: &Limits,
    ) -> Result<Facts, Vec<Rejection>> {
        match (&self.prepared, self.source) {
            (Some(p), _) => {
                let dims: Vec<Vec<usize>> = match &self.bindings {
                    Some(b) => b.iter().map(|t| t.shape.clone()).collect(),
                    None => vec![
                        vec![shape.m, shape.k],
                        vec![shape.n, shape.k],
                        vec![shape.m, shape.n],
                    ],
                };
                check_dsl(p, cfg, &dims, problem, limits)
            }
            (None, TuneSource::Cuda(t)) => check_cuda(t, cfg, shape, limits),
            (None, TuneSource::Dsl(_)) => Err(vec![Rejection {
                code: "T0000".into(),
                message: "DSL kernel not prepared".into(),
            }]),
        }
    }
}

fn check_dsl(
    p: &Prepared,
    cfg: &ConfigMap,
    dims: &[Vec<usize>],
    problem: &Problem,
    limits: &Limits,
) -> Result<Facts, Vec<Rejection>> {
    let config = Config {
        values: cfg.clone(),
    };
    let info = check::check_config(&p.module, &config, Some(problem), limits).map_err(|d| {
        d.iter()
            .map(|d| Rejection {
                code: d.code.to_string(),
                message: d.rendered_message(),
            })
            .collect::<Vec<_>>()
    })?;
    let mut env: SymEnv = cfg.clone();
    env.extend(info.constants.iter().map(|(k, v)| (k.clone(), *v)));
    env.extend(problem.dims.iter().map(|(k, v)| (k.clone(), *v)));
    let plan = &p.kernel.plan;
    let mut out = Vec::new();
    let reject = |code: &str, message: String| Rejection {
        code: code.into(),
        message,
    };
    for (cond, text) in &plan.launch_requires {
        if cond.eval(&env).ok() == Some(0) {
            out.push(reject(
                "T0102",
                format!("`{text}` does not hold for {dims:?}"),
            ));
        }
    }
    let params = &p.module.kernel.params;
    for a in &plan.args {
        let PlanArg::TensorMap {
            param,
            box_rows,
            box_cols,
            swizzle,
        } = a
        else {
            continue;
        };
        let (Ok(r), Ok(c), Ok(s)) = (box_rows.eval(&env), box_cols.eval(&env), swizzle.eval(&env))
        else {
            out.push(reject("T0101", "a TMA box does not evaluate".into()));
            continue;
        };
        let dtype = DType::from_ir(params[*param].dtype).unwrap_or(DType::F16);
        let (rows, cols) = match dims.get(*param).map(Vec::as_slice) {
            Some([r, c]) => (*r, *c),
            _ => (1, 1),
        };
        let clamp = |v: i64| v.clamp(0, u32::MAX as i64) as u32;
        let d = Tiled2d::new(
            &params[*param].name.name,
            0x1000,
            TmaDtype::from(dtype),
            rows as u64,
            cols as u64,
            clamp(r),
            clamp(c),
            clamp(s),
        );
        if let Err(e) = TiledMapArgs::build(&d) {
            out.push(reject("T0101", e.to_string()));
        }
    }
    if !out.is_empty() {
        return Err(out);
    }
    Ok(Facts {
        smem_bytes: plan
            .dynamic_smem_bytes
            .eval(&env)
            .map(|v| v.max(0) as u64)
            .unwrap_or(info.smem_bytes),
        threads: info.threads_per_block,
    })
}

fn check_cuda(
    t: &CudaTemplate,
    cfg: &ConfigMap,
    shape: &Shape,
    limits: &Limits,
) -> Result<Facts, Vec<Rejection>> {
    let mut out = Vec::new();
    for tun in t.tunables {
        match cfg.get(tun.name) {
            Some(v) if tun.domain.contains(v) => {}
            other => out.push(Rejection {
                code: "E1004".into(),
                message: format!("`{}` = {other:?} is outside its domain", tun.name),
            }),
        }
    }
    if let Err(why) = (t.restrictions)(cfg, shape) {
        out.push(Rejection {
            code: "E1001".into(),
            message: why,
        });
    }
    let l = (t.launch)(cfg, shape);
    let threads = l.block.0 * l.block.1 * l.block.2;
    if threads == 0 || threads > limits.max_threads {
        out.push(Rejection {
            code: "E0601".into(),
            message: format!("{threads} threads per block (limit {})", limits.max_threads),
        });
    }
    if u64::from(l.dynamic_smem_bytes) > limits.max_smem_per_block {
        out.push(Rejection {
            code: "E0501".into(),
            message: format!(
                "{} B of shared memory (limit {})",
                l.dynamic_smem_bytes, limits.max_smem_per_block
            ),
        });
    }
    if !out.is_empty() {
        return Err(out);
    }
    Ok(Facts {
        smem_bytes: u64::from(l.dynamic_smem_bytes),
        threads,
    })
}

/// The accumulator dtype of a DSL kernel: its first `mma.fill` or float scalar declaration
/// (f32 when it has neither).
pub fn acc_dtype(m: &ir::Module) -> ir::DType {
    for (_, s) in m.stmts.iter() {
        match s {
            ir::Stmt::MmaFill { dtype, .. } => return *dtype,
            ir::Stmt::ScalarDecl { dtype, .. } if dtype.is_float() => return *dtype,
            _ => {}
        }
    }
    ir::DType::F32
}

/// Every config of the cross product of the tunables' domains, first tunable slowest.
pub fn cross_product(tunables: &[Tunable]) -> Vec<ConfigMap> {
    dsl_core::tunable::cross_product(tunables, None)
}

/// CUDA text without `//` comments, trailing blanks and empty lines (tessel's generated CUDA
/// has no `//` inside string literals).
pub fn code_only(cu: &str) -> String {
    let mut out = String::with_capacity(cu.len());
    for line in cu.lines() {
        let code = line.find("//").map_or(line, |i| &line[..i]).trim_end();
        if !code.is_empty() {
            out.push_str(code);
            out.push('\n');
        }
    }
    out
}
