//! The worker's side of a general [`Job`]: the job's tensors on the device (inputs filled
//! once, the output poisoned before every launch), the expected output computed once by the
//! job's reference, and a trial's steps — compile (a module-cache hit), launch once, download,
//! compare element-wise, then time.

use std::sync::Arc;

use dsl_core::check::{Config, Problem};

use crate::cache::ModuleCache;
use crate::cublas_ref::{CublasRef, Layout};
use crate::device::Device;
use crate::dsl::{DslError, Instance, Prepared, TensorArg};
use crate::dtype::DType;
use crate::launch::KernelArg;
use crate::run::AnyTensor;
use crate::timing::{TimingConfig, TimingError, time_gpu};

use super::bench::{Msg, StepError};
use super::job::{GemmLayout, HostTensor, Job, Reference, Role, check_close, fill_values};
use super::record::{ConfigMap, FailureKind, Phase, TimeStats, TrialRecord, VerifyRecord};

/// What a worker holds for one job.
pub struct JobSession {
    dev: Device,
    job: Job,
    prepared: Arc<Prepared>,
    problem: Problem,
    tensors: Vec<AnyTensor>,
    out: usize,
    expected: Vec<f64>,
    cache: ModuleCache,
    gpu: usize,
}

fn cublas_reference(
    dev: &Device,
    layout: GemmLayout,
    t: &[AnyTensor],
    out_dtype: DType,
    out_shape: &[usize],
) -> Result<Vec<f64>, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let blas = CublasRef::new(dev).map_err(|x| e(&x))?;
    let mut r = AnyTensor::poisoned(dev, out_shape, out_dtype).map_err(|x| e(&x))?;
    let layout = match layout {
        GemmLayout::Nn => Layout::NN,
        GemmLayout::Nt => Layout::NT,
    };
    if !crate::run::cublas_gemm(&blas, layout, &t[0], &t[1], &mut r).map_err(|x| e(&x))? {
        return Err("cuBLAS reference: unsupported dtype combination".into());
    }
    dev.synchronize().map_err(|x| e(&x))?;
    r.to_f64().map_err(|x| e(&x))
}

impl JobSession {
    /// Allocates and fills the job's tensors on GPU 0 of this process and computes the
    /// expected output with the job's reference.
    pub fn new(job: Job, module_dir: Option<String>, gpu: usize) -> Result<JobSession, String> {
        job.validate()?;
        let out = job.output_index()?;
        let prepared = Prepared::get(job.kernel, job.variant).map_err(|e| e.to_string())?;
        let problem = prepared.bind(&job.bindings()).map_err(|e| e.to_string())?;
        let dev = Device::open(0).map_err(|e| e.to_string())?;
        let mut tensors = Vec::new();
        let mut inputs = Vec::new();
        for t in &job.tensors {
            match &t.role {
                Role::Input(fill) => {
                    let v = fill_values(fill, &t.shape, t.dtype);
                    tensors.push(
                        AnyTensor::from_f64(&dev, &t.shape, t.dtype, &v)
                            .map_err(|e| e.to_string())?,
                    );
                    inputs.push(HostTensor {
                        shape: t.shape.clone(),
                        data: v,
                    });
                }
                Role::Output => tensors
                    .push(AnyTensor::poisoned(&dev, &t.shape, t.dtype).map_err(|e| e.to_string())?),
            }
        }
        let spec = &job.tensors[out];
        let expected = match job.reference.clone() {
            Some(Reference::Host(_)) => super::job::host_reference(&job, &inputs)?,
            Some(Reference::Device(f)) => {
                let r = AnyTensor::poisoned(&dev, &spec.shape, spec.dtype)
                    .map_err(|e| e.to_string())?;
                let args: Vec<TensorArg> = tensors.iter().map(AnyTensor::tensor_arg).collect();
                f(&dev, &args, &r.tensor_arg())?;
                dev.synchronize().map_err(|e| e.to_string())?;
                r.to_f64().map_err(|e| e.to_string())?
            }
            Some(Reference::Cublas(layout)) => {
                cublas_reference(&dev, layout, &tensors, spec.dtype, &spec.shape)?
            }
            None => return Err(format!("job `{}`: no reference", job.name)),
        };
        Ok(JobSession {
            dev,
            job,
            prepared,
            problem,
            tensors,
            out,
            expected,
            cache: match module_dir {
                Some(d) => ModuleCache::with_dir(d),
                None => ModuleCache::in_memory(),
            },
            gpu,
        })
    }

    /// The device the session's tensors live on and its trials run on.
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// FLOPs of one launch, when the job gives them.
    pub fn flops(&self) -> Option<f64> {
        self.job.flops
    }

    /// Compiles (a disk-cache hit when the parent compiled it) and loads a config.
    fn load(
        &self,
        config: &ConfigMap,
        rec: &mut TrialRecord,
    ) -> Result<(Instance, Vec<KernelArg>), (FailureKind, String)> {
        let cfg = Config {
            values: config.clone(),
        };
        let inst = Instance::new(
            &self.dev,
            &self.cache,
            self.prepared.clone(),
            &cfg,
            &self.problem,
        )
        .map_err(|e| match e {
            DslError::Compile(c) => (FailureKind::CompileError, c.to_string()),
            other => (FailureKind::LaunchError, other.to_string()),
        })?;
        if let Some(r) = &inst.resources {
            rec.registers = Some(r.registers);
            rec.spill_bytes = Some(r.spill_stores + r.spill_loads);
        }
        rec.smem_bytes = Some(u64::from(inst.launch.dynamic_smem_bytes));
        rec.threads = Some(inst.launch.block.0 * inst.launch.block.1 * inst.launch.block.2);
        let args: Vec<TensorArg> = self.tensors.iter().map(AnyTensor::tensor_arg).collect();
        let kargs = inst
            .args(&args)
            .map_err(|e| (FailureKind::LaunchError, e.to_string()))?;
        Ok((inst, kargs))
    }

    /// Poisons the output, launches once, downloads and compares.
    fn run_and_check(
        &mut self,
        launch: &dyn Fn() -> Result<(), Msg>,
    ) -> Result<VerifyRecord, StepError> {
        self.tensors[self.out]
            .fill_poison()
            .map_err(|e| StepError::Fault(e.to_string()))?;
        if let Err(e) = launch() {
            return Err(match self.dev.synchronize() {
                Ok(()) => StepError::Launch(e.0),
                Err(s) => StepError::Fault(format!("{}; then {s}", e.0)),
            });
        }
        self.dev
            .synchronize()
            .map_err(|e| StepError::Fault(e.to_string()))?;
        let (out, poisoned) = self.tensors[self.out]
            .to_f64_and_poison()
            .map_err(|e| StepError::Fault(e.to_string()))?;
        Ok(check_close(
            &out,
            &self.expected,
            poisoned,
            self.job.atol,
            self.job.rtol,
        ))
    }

    fn time(
        &self,
        tc: &TimingConfig,
        launch: &dyn Fn() -> Result<(), Msg>,
    ) -> Result<crate::timing::Timing, StepError> {
        time_gpu(&self.dev, tc, self.job.flops, launch).map_err(|e| match e {
            TimingError::TooFewRuns { .. } | TimingError::BadSample(_) => {
                StepError::Launch(e.to_string())
            }
            other => StepError::Fault(other.to_string()),
        })
    }

    /// One trial: load, (spills), launch once and compare, then time.
    pub fn trial(
        &mut self,
        config: ConfigMap,
        phase: Phase,
        tc: &TimingConfig,
        reject_spills: bool,
    ) -> TrialRecord {
        let mut rec = TrialRecord::new(config.clone(), phase);
        rec.gpu = Some(self.gpu);
        let (inst, kargs) = match self.load(&config, &mut rec) {
            Ok(x) => x,
            Err((k, m)) => return rec.failed(k, m),
        };
        if reject_spills && rec.spill_bytes.unwrap_or(0) > 0 {
            let msg = format!(
                "ptxas: {} B of spills at {} registers",
                rec.spill_bytes.unwrap_or(0),
                rec.registers.unwrap_or(0)
            );
            return rec.failed(FailureKind::Spills, msg);
        }
        let launch = || inst.launch(&kargs).map_err(|e| Msg(e.to_string()));
        let kind = |e: StepError| match e {
            StepError::Launch(m) => (FailureKind::LaunchError, m),
            StepError::Fault(m) => (FailureKind::CudaFault, m),
        };
        match self.run_and_check(&launch) {
            Err(e) => {
                let (k, m) = kind(e);
                return rec.failed(k, m);
            }
            Ok(v) if !v.passed => {
                let msg = v.summary.clone();
                rec.verification = Some(v);
                return rec.failed(FailureKind::WrongResult, msg);
            }
            Ok(v) => rec.verification = Some(v),
        }
        match self.time(tc, &launch) {
            Ok(t) => {
                rec.time = Some(TimeStats::from(&t));
                rec
            }
            Err(e) => {
                let (k, m) = kind(e);
                rec.failed(k, m)
            }
        }
    }

    /// Times `configs` interleaved for `rounds` rounds, then checks each output again.
    /// Returns (config, round medians, verified again) and errors; `Err` for a sticky fault.
    #[allow(clippy::type_complexity)]
    pub fn retime(
        &mut self,
        configs: &[ConfigMap],
        rounds: usize,
        tc: &TimingConfig,
    ) -> Result<(Vec<(ConfigMap, Vec<f64>, bool)>, Vec<String>), String> {
        let mut loaded = Vec::new();
        let mut errors = Vec::new();
        for c in configs {
            let mut rec = TrialRecord::new(c.clone(), Phase::Full);
            match self.load(c, &mut rec) {
                Ok((i, a)) => loaded.push((c.clone(), i, a, Vec::new())),
                Err((_, e)) => errors.push(format!("{}: {e}", super::record::config_text(c))),
            }
        }
        for _ in 0..rounds.max(1) {
            for (c, inst, kargs, medians) in loaded.iter_mut() {
                let launch = || inst.launch(kargs).map_err(|e| Msg(e.to_string()));
                match self.time(tc, &launch) {
                    Ok(t) => medians.push(t.median_ms),
                    Err(StepError::Launch(e)) => {
                        errors.push(format!("{}: {e}", super::record::config_text(c)))
                    }
                    Err(StepError::Fault(e)) => return Err(e),
                }
            }
        }
        let mut out = Vec::new();
        for (c, inst, kargs, medians) in loaded {
            let launch = || inst.launch(&kargs).map_err(|e| Msg(e.to_string()));
            let ok = match self.run_and_check(&launch) {
                Ok(v) => v.passed,
                Err(StepError::Fault(e)) => return Err(e),
                Err(StepError::Launch(e)) => {
                    errors.push(format!("{}: {e}", super::record::config_text(&c)));
                    false
                }
            };
            out.push((c, medians, ok));
        }
        Ok((out, errors))
    }
}
