//! The general tuner's input: any DSL kernel, any number of tensors and dtypes, checked against
//! the user's own reference — what Kernel Tuner's `tune_kernel(…, answer=…, atol=…)` takes.
//!
//! A [`Job`] names the kernel, one [`TensorSpec`] per kernel parameter (shape, dtype, and how
//! an input is filled, or which parameter is the output), the [`Reference`] (a CPU function,
//! a closure over device tensors, or cuBLAS in a GEMM layout), the tolerances and the
//! problem-size key the result is cached under (and looked up by at launch, see
//! [`super::lookup::winner_for`]).
//!
//! The trials run in worker processes (this executable re-launched), and a closure cannot
//! cross a process boundary: a job is made by a [`JobBuilder`] — a plain function of the
//! problem-size key — registered under a name. The program registers its builders first thing
//! in `main` ([`super::worker_main_jobs`]); the tuner sends the worker the name and the key,
//! and the worker builds the same job.
//!
//! ```no_run
//! use std::sync::Arc;
//! use tessel_runtime::dtype::DType;
//! use tessel_runtime::tune::{self, job::*};
//! # static KERNEL: dsl_core::def::KernelDef = dsl_core::def::KernelDef::INVALID;
//!
//! /// y[N] = W[N, K] · x[K] in f32, key `N=…,K=…`.
//! fn gemv(key: &str) -> Result<Job, String> {
//!     let dims = parse_key(key)?;
//!     let (n, k) = (dims["N"], dims["K"]);
//!     Ok(Job::new("gemv_f32", &KERNEL, key)
//!         .input(&[n, k], DType::F32, Fill::Random { seed: 1 })
//!         .input(&[k], DType::F32, Fill::Random { seed: 2 })
//!         .output(&[n], DType::F32)
//!         .reference(Reference::Host(Arc::new(move |t: &[HostTensor]| {
//!             (0..n).map(|i| (0..k).map(|j| t[0].data[i * k + j] * t[1].data[j]).sum()).collect()
//!         })))
//!         .tolerance(1e-4, 1e-4)
//!         .flops(2.0 * n as f64 * k as f64))
//! }
//!
//! fn main() -> Result<(), tune::TuneError> {
//!     tune::worker_main_jobs(&[("gemv_f32", &gemv)]); // first: a worker serves trials and exits
//!     let out = tune::Tuner::job(gemv("N=4096,K=4096").map_err(tune::TuneError::Target)?,
//!         tune::TuneOptions::default())?.run()?;
//!     println!("{}", out.winner_line());
//!     Ok(())
//! }
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use dsl_core::def::{KernelDef, Variant};

use crate::device::Device;
use crate::dsl::TensorArg;
use crate::dtype::DType;

use super::record::VerifyRecord;

/// A user's input generator: element values (row-major, as f64) for a shape.
pub type HostFill = dyn Fn(&[usize]) -> Vec<f64> + Send + Sync;

/// A CPU reference: the inputs in parameter order → the expected output, row-major.
pub type HostReference = dyn Fn(&[HostTensor]) -> Vec<f64> + Send + Sync;

/// A device reference: (device, every parameter's tensor, the reference output buffer).
pub type DeviceReference =
    dyn Fn(&Device, &[TensorArg], &TensorArg) -> Result<(), String> + Send + Sync;

/// How an input tensor is filled (once per worker; every trial sees the same inputs).
#[derive(Clone)]
pub enum Fill {
    /// Uniform random values in [-1, 1) from a seed (the runtime's `DeviceTensor::random`).
    Random {
        /// The seed.
        seed: u64,
    },
    /// Every element this value.
    Value(f64),
    /// The user's generator: element values (row-major, as f64) for a shape.
    Host(Arc<HostFill>),
}

impl fmt::Debug for Fill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fill::Random { seed } => write!(f, "Random {{ seed: {seed} }}"),
            Fill::Value(v) => write!(f, "Value({v})"),
            Fill::Host(_) => f.write_str("Host(..)"),
        }
    }
}

/// Whether a parameter is read or written.
#[derive(Clone, Debug)]
pub enum Role {
    /// An input and its fill.
    Input(Fill),
    /// The output the reference is compared with (poisoned before every launch).
    Output,
}

impl Role {
    /// The fill of an input.
    pub fn fill(&self) -> Option<Fill> {
        match self {
            Role::Input(f) => Some(f.clone()),
            Role::Output => None,
        }
    }
}

/// One kernel parameter.
#[derive(Clone, Debug)]
pub struct TensorSpec {
    /// Row-major shape.
    pub shape: Vec<usize>,
    /// Element type.
    pub dtype: DType,
    /// Input or output.
    pub role: Role,
}

/// A tensor on the host, as f64, for a CPU reference.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    /// Row-major shape.
    pub shape: Vec<usize>,
    /// Elements, row-major.
    pub data: Vec<f64>,
}

/// Row-major GEMM layouts cuBLAS can serve as a reference for a kernel whose parameters are
/// `(a, b, c)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmLayout {
    /// `c[M,N] = a[M,K] · b[K,N]`.
    Nn,
    /// `c[M,N] = a[M,K] · b[N,K]ᵀ`.
    Nt,
}

/// The expected output.
#[derive(Clone)]
pub enum Reference {
    /// A CPU function of the inputs (every `Input` parameter in order) returning the expected
    /// output, row-major.
    Host(Arc<HostReference>),
    /// A closure over device tensors: every parameter's tensor (the output's slot holds the
    /// kernel's output buffer; do not rely on its contents) and a separate reference buffer of
    /// the output's shape and dtype to write the expected output into.
    Device(Arc<DeviceReference>),
    /// cuBLAS in this layout (f32 accumulation): parameters `(a, b, c)`, inputs of one dtype.
    Cublas(GemmLayout),
}

impl fmt::Debug for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reference::Host(_) => f.write_str("Host(..)"),
            Reference::Device(_) => f.write_str("Device(..)"),
            Reference::Cublas(l) => write!(f, "Cublas({l:?})"),
        }
    }
}

/// A kernel, its problem and how to check it.
#[derive(Clone, Debug)]
pub struct Job {
    /// The name the job's builder is registered under ([`super::worker_main_jobs`]).
    pub name: String,
    /// The DSL kernel to tune.
    pub kernel: &'static KernelDef,
    /// Dtype variant of the kernel (default: as declared).
    pub variant: Variant,
    /// The problem-size key: the cache and the launch-time lookup use it.
    pub key: String,
    /// One spec per kernel parameter, in order.
    pub tensors: Vec<TensorSpec>,
    /// How the expected output is computed (required: a job without one is rejected).
    pub reference: Option<Reference>,
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance: an element passes when `|out − ref| ≤ atol + rtol·|ref|`.
    pub rtol: f64,
    /// Floating-point operations of one launch (for TFLOP/s), if meaningful.
    pub flops: Option<f64>,
}

/// Builds the job for a problem-size key (the same in the tuner and in its workers): a plain
/// function, or a closure over the kernel it builds jobs for.
pub type JobBuilder = dyn Fn(&str) -> Result<Job, String>;

impl Job {
    /// A job of `kernel` registered as `name`, for problem-size key `key`.
    pub fn new(name: &str, kernel: &'static KernelDef, key: &str) -> Job {
        Job {
            name: name.to_string(),
            kernel,
            variant: Variant::default(),
            key: key.to_string(),
            tensors: Vec::new(),
            reference: None,
            atol: 1e-6,
            rtol: 1e-3,
            flops: None,
        }
    }

    /// Adds an input parameter.
    pub fn input(mut self, shape: &[usize], dtype: DType, fill: Fill) -> Job {
        self.tensors.push(TensorSpec {
            shape: shape.to_vec(),
            dtype,
            role: Role::Input(fill),
        });
        self
    }

    /// Adds the output parameter.
    pub fn output(mut self, shape: &[usize], dtype: DType) -> Job {
        self.tensors.push(TensorSpec {
            shape: shape.to_vec(),
            dtype,
            role: Role::Output,
        });
        self
    }

    /// Sets the reference.
    pub fn reference(mut self, r: Reference) -> Job {
        self.reference = Some(r);
        self
    }

    /// Sets the tolerances.
    pub fn tolerance(mut self, atol: f64, rtol: f64) -> Job {
        self.atol = atol;
        self.rtol = rtol;
        self
    }

    /// Sets the FLOPs of one launch.
    pub fn flops(mut self, flops: f64) -> Job {
        self.flops = Some(flops);
        self
    }

    /// Sets the dtype variant.
    pub fn variant(mut self, v: Variant) -> Job {
        self.variant = v;
        self
    }

    /// The index of the output parameter; a job has exactly one.
    pub fn output_index(&self) -> Result<usize, String> {
        let outs: Vec<usize> = self
            .tensors
            .iter()
            .enumerate()
            .filter(|(_, t)| matches!(t.role, Role::Output))
            .map(|(i, _)| i)
            .collect();
        match outs.as_slice() {
            [i] => Ok(*i),
            _ => Err(format!(
                "job `{}`: exactly one output parameter is needed, found {}",
                self.name,
                outs.len()
            )),
        }
    }

    /// Checks the job's own consistency (one output, a reference, tolerances, the cuBLAS
    /// layout's shapes).
    pub fn validate(&self) -> Result<(), String> {
        let out = self.output_index()?;
        let bad = |m: String| Err(format!("job `{}`: {m}", self.name));
        if !(self.atol >= 0.0 && self.rtol >= 0.0) {
            return bad(format!(
                "tolerances must be ≥ 0 (atol {}, rtol {})",
                self.atol, self.rtol
            ));
        }
        match &self.reference {
            None => return bad("no reference".into()),
            Some(Reference::Cublas(layout)) => {
                let t = &self.tensors;
                if t.len() != 3 || out != 2 || t.iter().any(|x| x.shape.len() != 2) {
                    return bad("a cuBLAS reference needs parameters (a, b, c), all 2-D".into());
                }
                let (a, b, c) = (&t[0].shape, &t[1].shape, &t[2].shape);
                let ok = match layout {
                    GemmLayout::Nn => a[1] == b[0] && c[0] == a[0] && c[1] == b[1],
                    GemmLayout::Nt => a[1] == b[1] && c[0] == a[0] && c[1] == b[0],
                };
                if !ok || t[0].dtype != t[1].dtype {
                    return bad(format!(
                        "shapes {a:?} · {b:?} → {c:?} do not form a {layout:?} GEMM of one input dtype"
                    ));
                }
            }
            Some(_) => {}
        }
        Ok(())
    }

    /// The key a loaded kernel derives from these tensors at launch
    /// ([`super::lookup::problem_key`]): use it as the job's key to let `autotuned` launches
    /// find the job's winner.
    pub fn dims_key(&self) -> Result<String, String> {
        let p = crate::dsl::Prepared::get(self.kernel, self.variant).map_err(|e| e.to_string())?;
        let problem = p.bind(&self.bindings()).map_err(|e| e.to_string())?;
        Ok(super::lookup::problem_key(&problem))
    }

    /// The parameters as tensor bindings without memory (for the legality filter).
    pub fn bindings(&self) -> Vec<TensorArg> {
        self.tensors
            .iter()
            .map(|t| TensorArg {
                ptr: 0,
                shape: t.shape.clone(),
                dtype: t.dtype,
            })
            .collect()
    }

    /// `f32[4096, 4096], f32[4096] → f32[4096]`.
    pub fn dtypes(&self) -> String {
        let one = |t: &TensorSpec| format!("{}{:?}", t.dtype, t.shape);
        let ins: Vec<String> = self
            .tensors
            .iter()
            .filter(|t| matches!(t.role, Role::Input(_)))
            .map(one)
            .collect();
        let outs: Vec<String> = self
            .tensors
            .iter()
            .filter(|t| matches!(t.role, Role::Output))
            .map(one)
            .collect();
        format!("{} → {}", ins.join(", "), outs.join(", "))
    }
}

/// `N=4096,K=1024` (or space-separated) → `{N: 4096, K: 1024}`.
pub fn parse_key(key: &str) -> Result<BTreeMap<String, usize>, String> {
    key.split([',', ' '])
        .filter(|s| !s.trim().is_empty())
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("key `{key}`: `{kv}` is not NAME=VALUE"))?;
            let v = v
                .trim()
                .parse::<usize>()
                .map_err(|_| format!("key `{key}`: `{v}` is not a count"))?;
            Ok((k.trim().to_string(), v))
        })
        .collect()
}

/// The values of a fill for a shape, rounded to `dtype` and widened back to f64: exactly what
/// the device tensor holds (`Random` is the runtime's `host_random`, uniform in [-1, 1], never
/// zero), so a CPU reference sees the device's inputs.
pub fn fill_values(fill: &Fill, shape: &[usize], dtype: DType) -> Vec<f64> {
    use crate::dtype::{Element, host_random};
    use half::{bf16, f16};
    fn round<T: Element>(v: Vec<f64>) -> Vec<f64> {
        v.into_iter().map(|x| T::from_f64(x).to_f64()).collect()
    }
    fn ints<T: Element>(n: usize, seed: u64) -> Vec<f64> {
        crate::dtype::host_random_int::<T>(n, seed)
            .into_iter()
            .map(|x| x.to_f64())
            .collect()
    }
    fn random<T: Element>(n: usize, seed: u64) -> Vec<f64> {
        host_random::<T>(n, seed)
            .into_iter()
            .map(|x| x.to_f64())
            .collect()
    }
    let n: usize = shape.iter().product();
    match fill {
        Fill::Random { seed } => match dtype {
            DType::F16 => random::<f16>(n, *seed),
            DType::BF16 => random::<bf16>(n, *seed),
            DType::F32 => random::<f32>(n, *seed),
            DType::F8E4M3 => random::<crate::dtype::F8E4M3>(n, *seed),
            DType::F8E5M2 => random::<crate::dtype::F8E5M2>(n, *seed),
            DType::S8 => crate::dtype::host_random_s8(n, *seed)
                .into_iter()
                .map(f64::from)
                .collect(),
            DType::U8 => crate::dtype::host_random_u8(n, *seed)
                .into_iter()
                .map(f64::from)
                .collect(),
            DType::S16 => ints::<i16>(n, *seed),
            DType::U16 => ints::<u16>(n, *seed),
            DType::U32 => ints::<u32>(n, *seed),
            DType::S32 => random::<i32>(n, *seed),
        },
        other => {
            let raw = match other {
                Fill::Value(v) => vec![*v; n],
                Fill::Host(f) => f(shape),
                Fill::Random { .. } => Vec::new(),
            };
            match dtype {
                DType::F16 => round::<f16>(raw),
                DType::BF16 => round::<bf16>(raw),
                DType::F32 => round::<f32>(raw),
                DType::F8E4M3 => round::<crate::dtype::F8E4M3>(raw),
                DType::F8E5M2 => round::<crate::dtype::F8E5M2>(raw),
                DType::S8 => round::<i8>(raw),
                DType::U8 => round::<u8>(raw),
                DType::S16 => round::<i16>(raw),
                DType::U16 => round::<u16>(raw),
                DType::U32 => round::<u32>(raw),
                DType::S32 => round::<i32>(raw),
            }
        }
    }
}

/// Element-wise comparison: every element must satisfy `|out − ref| ≤ atol + rtol·|ref|`;
/// NaN where the reference is finite, and `poisoned` elements (never written), fail.
pub fn check_close(
    out: &[f64],
    expected: &[f64],
    poisoned: usize,
    atol: f64,
    rtol: f64,
) -> VerifyRecord {
    let mut worst_abs: f64 = 0.0;
    let mut worst_rel: f64 = 0.0;
    let (mut bad, mut nans, mut infs) = (0usize, 0usize, 0usize);
    let length_ok = out.len() == expected.len();
    for (o, r) in out.iter().zip(expected) {
        if o.is_nan() {
            nans += 1;
        } else if o.is_infinite() {
            infs += 1;
        }
        let err = (o - r).abs();
        let same_special = (o.is_nan() && r.is_nan()) || (o.is_infinite() && o == r);
        if !same_special {
            // False for a NaN error: it counts as outside the tolerance.
            let within = err <= atol + rtol * r.abs();
            if !within {
                bad += 1;
            }
            if err.is_finite() {
                worst_abs = worst_abs.max(err);
                worst_rel = worst_rel.max(err / r.abs().max(f64::MIN_POSITIVE));
            } else {
                worst_abs = f64::INFINITY;
                worst_rel = f64::INFINITY;
            }
        }
    }
    let passed = length_ok && bad == 0 && poisoned == 0;
    let summary = if !length_ok {
        format!(
            "FAIL: {} output elements against {} expected",
            out.len(),
            expected.len()
        )
    } else if passed {
        format!(
            "PASS: {} elements within atol {atol:e} + rtol {rtol:e}·|ref| (max abs error {worst_abs:.3e})",
            out.len()
        )
    } else {
        format!(
            "FAIL: {bad} of {} elements outside atol {atol:e} + rtol {rtol:e}·|ref|, {poisoned} never written, {nans} NaN, {infs} inf (max abs error {worst_abs:.3e})",
            out.len()
        )
    };
    VerifyRecord {
        passed,
        rel_error: worst_rel,
        tolerance: rtol,
        max_abs_error: worst_abs,
        poisoned,
        nans,
        infs,
        summary,
    }
}

/// Runs a host reference on the inputs of `job` (what the worker does for
/// [`Reference::Host`], without a GPU).
pub fn host_reference(job: &Job, inputs: &[HostTensor]) -> Result<Vec<f64>, String> {
    let out = &job.tensors[job.output_index()?];
    let Some(Reference::Host(f)) = &job.reference else {
        return Err(format!("job `{}`: not a host reference", job.name));
    };
    let v = f(inputs);
    let want: usize = out.shape.iter().product();
    if v.len() != want {
        return Err(format!(
            "job `{}`: the reference returned {} elements for an output of {want}",
            job.name,
            v.len()
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    static K: KernelDef = KernelDef::INVALID;

    fn gemm(layout: GemmLayout, b: &[usize]) -> Job {
        Job::new("j", &K, "M=4,N=3,K=2")
            .input(&[4, 2], DType::F16, Fill::Random { seed: 1 })
            .input(b, DType::F16, Fill::Random { seed: 2 })
            .output(&[4, 3], DType::F32)
            .reference(Reference::Cublas(layout))
    }

    #[test]
    fn close_means_atol_plus_rtol_and_nan_poison_fail() {
        let r = [1.0, -2.0, 100.0];
        assert!(check_close(&[1.0, -2.0, 100.0], &r, 0, 0.0, 0.0).passed);
        assert!(check_close(&[1.05, -2.0, 101.0], &r, 0, 0.06, 0.01).passed);
        let v = check_close(&[1.05, -2.0, 102.0], &r, 0, 0.06, 0.01);
        assert!(!v.passed && v.summary.contains("1 of 3"), "{}", v.summary);
        let v = check_close(&[f64::NAN, -2.0, 100.0], &r, 0, 1.0, 1.0);
        assert!(!v.passed && v.nans == 1);
        assert!(
            !check_close(&[1.0, -2.0, 100.0], &r, 1, 1.0, 1.0).passed,
            "poisoned"
        );
        assert!(!check_close(&[1.0, -2.0], &r, 0, 1.0, 1.0).passed, "length");
        // The same special values on both sides agree.
        assert!(check_close(&[f64::INFINITY], &[f64::INFINITY], 0, 0.0, 0.0).passed);
    }

    #[test]
    fn keys_parse_with_commas_or_spaces() {
        let k = parse_key("N=4096,K=1024").unwrap();
        assert_eq!((k["N"], k["K"]), (4096, 1024));
        assert_eq!(parse_key("M=1 N=2").unwrap().len(), 2);
        assert!(parse_key("N=x").is_err());
        assert!(parse_key("N").is_err());
    }

    #[test]
    fn a_job_needs_one_output_a_reference_and_matching_cublas_shapes() {
        assert!(gemm(GemmLayout::Nn, &[2, 3]).validate().is_ok());
        assert!(gemm(GemmLayout::Nt, &[3, 2]).validate().is_ok());
        assert!(gemm(GemmLayout::Nn, &[3, 2]).validate().is_err());
        assert!(gemm(GemmLayout::Nt, &[2, 3]).validate().is_err());
        let mut no_ref = gemm(GemmLayout::Nn, &[2, 3]);
        no_ref.reference = None;
        assert!(no_ref.validate().is_err());
        let two_outs = gemm(GemmLayout::Nn, &[2, 3]).output(&[1], DType::F32);
        assert!(two_outs.validate().is_err());
        let neg = gemm(GemmLayout::Nn, &[2, 3]).tolerance(-1.0, 0.0);
        assert!(neg.validate().is_err());
        assert_eq!(
            gemm(GemmLayout::Nn, &[2, 3]).dtypes(),
            "f16[4, 2], f16[2, 3] → f32[4, 3]"
        );
    }

    #[test]
    fn fills_are_what_the_device_holds_and_a_host_reference_sees_them() {
        use crate::dtype::host_random;
        let v = fill_values(&Fill::Random { seed: 7 }, &[3, 5], DType::BF16);
        let want: Vec<f64> = host_random::<half::bf16>(15, 7)
            .into_iter()
            .map(f64::from)
            .collect();
        assert_eq!(v, want);
        // A value is rounded to the dtype.
        assert_eq!(
            fill_values(&Fill::Value(0.1), &[2], DType::F16)[0],
            f64::from(half::f16::from_f64(0.1))
        );
        let counting = Fill::Host(Arc::new(|s: &[usize]| {
            (0..s[0]).map(|i| i as f64).collect()
        }));
        assert_eq!(
            fill_values(&counting, &[3], DType::F32),
            vec![0.0, 1.0, 2.0]
        );
        let job = Job::new("sum", &K, "N=3")
            .input(&[3], DType::F32, counting)
            .output(&[1], DType::F32)
            .reference(Reference::Host(Arc::new(|t: &[HostTensor]| {
                vec![t[0].data.iter().sum()]
            })));
        let inputs = [HostTensor {
            shape: vec![3],
            data: fill_values(&job.tensors[0].role.fill().unwrap(), &[3], DType::F32),
        }];
        assert_eq!(host_reference(&job, &inputs).unwrap(), vec![3.0]);
        let wrong = Job {
            tensors: vec![
                job.tensors[0].clone(),
                TensorSpec {
                    shape: vec![2],
                    dtype: DType::F32,
                    role: Role::Output,
                },
            ],
            ..job.clone()
        };
        assert!(host_reference(&wrong, &inputs).is_err(), "length checked");
    }
}
