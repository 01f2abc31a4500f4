//! One verified launch of a loaded kernel: random inputs sized from the problem's dims, a
//! poisoned output, the launch, and the reference [`crate::reference`] reads from the signature
//! (cuBLAS for a GEMM in its own layout and dtypes, the host in f64 for a GEMV or where cuBLAS
//! has no such type combination), compared in f64 ([`crate::verify`]).

use std::collections::BTreeMap;

use dsl_core::ir::Stmt;
use half::{bf16, f16};

use crate::cublas_ref::{CublasRef, GemmCompute, RefError, check_types};
use crate::device::Device;
use crate::dsl::{DslError, Prepared};
use crate::dtype::{DType, Element, F8E4M3, F8E5M2};
use crate::kernel::{CompiledKernel, LaunchArg};
use crate::reference::{self, Pattern};
use crate::tensor::{DeviceTensor, TensorError};
use crate::timing::{Timing, TimingConfig, TimingError, time_gpu};
use crate::verify::{self, Verification, VerifyError};

/// Errors of a verified run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A dim of a parameter's shape has no value.
    #[error("parameter `{param}`: dimension `{dim}` has no value (give it in the problem)")]
    Unsized {
        /// The parameter.
        param: String,
        /// The dim as written.
        dim: String,
    },
    /// The signature is none that has a built-in reference.
    #[error(
        "no built-in reference for kernel `{0}`'s signature (a GEMM or a GEMV); verify it with your own"
    )]
    NoReference(String),
    /// A parameter's dtype has no runtime element type.
    #[error("parameter `{0}` has a dtype the runtime cannot allocate")]
    DType(String),
    /// Launch or plan error.
    #[error(transparent)]
    Dsl(#[from] DslError),
    /// Allocation or copy.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// cuBLAS.
    #[error(transparent)]
    Reference(#[from] RefError),
    /// Comparison.
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// Timing.
    #[error(transparent)]
    Timing(#[from] TimingError),
}

/// A device tensor of a dtype chosen at run time: the tensors of `tessel run`, of a verified
/// [`run_and_verify`] and of the tuner's job workers.
#[derive(Debug)]
pub enum AnyTensor {
    /// f16.
    F16(DeviceTensor<f16>),
    /// bf16.
    BF16(DeviceTensor<bf16>),
    /// f32.
    F32(DeviceTensor<f32>),
    /// fp8 e4m3.
    F8E4M3(DeviceTensor<F8E4M3>),
    /// fp8 e5m2.
    F8E5M2(DeviceTensor<F8E5M2>),
    /// s8 (random inputs uniform in [-127, 127]).
    S8(DeviceTensor<i8>),
    /// u8 (random inputs uniform in [1, 255]).
    U8(DeviceTensor<u8>),
    /// s16 (random inputs uniform over its range but -32768, none zero).
    S16(DeviceTensor<i16>),
    /// u16 (random inputs uniform in [1, 65535]).
    U16(DeviceTensor<u16>),
    /// u32 (random inputs uniform in [1, 2^32 - 1]).
    U32(DeviceTensor<u32>),
    /// s32 (an integer GEMM's output).
    S32(DeviceTensor<i32>),
}

/// `$body` with `$t` bound to the typed tensor of whichever variant `$x` is (one arm per
/// element type; a macro because each arm's `$t` has another type).
macro_rules! each {
    ($x:expr, $t:ident => $body:expr) => {
        match $x {
            AnyTensor::F16($t) => $body,
            AnyTensor::BF16($t) => $body,
            AnyTensor::F32($t) => $body,
            AnyTensor::F8E4M3($t) => $body,
            AnyTensor::F8E5M2($t) => $body,
            AnyTensor::S8($t) => $body,
            AnyTensor::U8($t) => $body,
            AnyTensor::S16($t) => $body,
            AnyTensor::U16($t) => $body,
            AnyTensor::U32($t) => $body,
            AnyTensor::S32($t) => $body,
        }
    };
}

/// `$make::<T>(…)` of the element type `T` of `$dtype`, in its variant.
macro_rules! of_dtype {
    ($dtype:expr, $make:ident ( $($arg:expr),* )) => {
        match $dtype {
            DType::F16 => AnyTensor::F16($make($($arg),*)?),
            DType::BF16 => AnyTensor::BF16($make($($arg),*)?),
            DType::F32 => AnyTensor::F32($make($($arg),*)?),
            DType::F8E4M3 => AnyTensor::F8E4M3($make($($arg),*)?),
            DType::F8E5M2 => AnyTensor::F8E5M2($make($($arg),*)?),
            DType::S8 => AnyTensor::S8($make($($arg),*)?),
            DType::U8 => AnyTensor::U8($make($($arg),*)?),
            DType::S16 => AnyTensor::S16($make($($arg),*)?),
            DType::U16 => AnyTensor::U16($make($($arg),*)?),
            DType::U32 => AnyTensor::U32($make($($arg),*)?),
            DType::S32 => AnyTensor::S32($make($($arg),*)?),
        }
    };
}

impl AnyTensor {
    /// Random (`seed`) or poisoned (`seed = None`) contents. Floats are uniform in [-1, 1];
    /// 8- and 16-bit integers and u32 over their whole range (the unit interval would give ±1
    /// only).
    pub fn new(
        dev: &Device,
        dtype: DType,
        shape: &[usize],
        seed: Option<u64>,
    ) -> Result<AnyTensor, TensorError> {
        fn make<T: Element>(
            dev: &Device,
            shape: &[usize],
            seed: Option<u64>,
        ) -> Result<DeviceTensor<T>, TensorError> {
            match seed {
                Some(s) => DeviceTensor::random(dev, shape, s),
                None => DeviceTensor::poisoned(dev, shape),
            }
        }
        fn bytes<T: Element>(
            dev: &Device,
            shape: &[usize],
            seed: Option<u64>,
            random: fn(usize, u64) -> Vec<T>,
        ) -> Result<DeviceTensor<T>, TensorError> {
            match seed {
                Some(s) => DeviceTensor::from_host(dev, shape, &random(shape.iter().product(), s)),
                None => DeviceTensor::poisoned(dev, shape),
            }
        }
        Ok(match dtype {
            DType::S8 => AnyTensor::S8(bytes(dev, shape, seed, crate::dtype::host_random_s8)?),
            DType::U8 => AnyTensor::U8(bytes(dev, shape, seed, crate::dtype::host_random_u8)?),
            DType::S16 => AnyTensor::S16(bytes(dev, shape, seed, crate::dtype::host_random_int)?),
            DType::U16 => AnyTensor::U16(bytes(dev, shape, seed, crate::dtype::host_random_int)?),
            DType::U32 => AnyTensor::U32(bytes(dev, shape, seed, crate::dtype::host_random_int)?),
            d => of_dtype!(d, make(dev, shape, seed)),
        })
    }

    /// A poisoned tensor.
    pub fn poisoned(dev: &Device, shape: &[usize], dtype: DType) -> Result<Self, TensorError> {
        Self::new(dev, dtype, shape, None)
    }

    /// A tensor holding `values` (each rounded to `dtype`). Given values are values: an s8
    /// `-128` stays `-128` ([`s8_values`]), though [`Element::from_f64`] keeps it for the poison.
    pub fn from_f64(
        dev: &Device,
        shape: &[usize],
        dtype: DType,
        values: &[f64],
    ) -> Result<Self, TensorError> {
        fn upload<T: Element>(
            dev: &Device,
            shape: &[usize],
            v: &[f64],
        ) -> Result<DeviceTensor<T>, TensorError> {
            let host: Vec<T> = v.iter().map(|x| T::from_f64(*x)).collect();
            DeviceTensor::from_host(dev, shape, &host)
        }
        Ok(match dtype {
            DType::S8 => AnyTensor::S8(DeviceTensor::from_host(dev, shape, &s8_values(values))?),
            d => of_dtype!(d, upload(dev, shape, values)),
        })
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        fn of<T: Element>(_: &DeviceTensor<T>) -> DType {
            T::DTYPE
        }
        each!(self, t => of(t))
    }

    /// A read-only launch argument.
    pub fn arg(&self) -> LaunchArg<'_> {
        each!(self, t => t.view().into())
    }

    /// The tensor's binding for a DSL instance (`dsl::Instance::launch`).
    pub fn tensor_arg(&self) -> crate::dsl::TensorArg {
        each!(self, t => t.as_arg())
    }

    /// A writable launch argument.
    pub fn arg_mut(&mut self) -> LaunchArg<'_> {
        each!(self, t => t.view_mut().into())
    }

    /// Overwrites every element with the poison value.
    pub fn fill_poison(&mut self) -> Result<(), TensorError> {
        each!(self, t => t.fill_poison())
    }

    /// The contents widened to f64 (waits for the stream).
    pub fn to_f64(&self) -> Result<Vec<f64>, TensorError> {
        Ok(self.to_f64_and_poison()?.0)
    }

    /// The contents widened to f64 and how many elements still hold the poison value.
    pub fn to_f64_and_poison(&self) -> Result<(Vec<f64>, usize), TensorError> {
        fn wide<T: Element>(t: &DeviceTensor<T>) -> Result<(Vec<f64>, usize), TensorError> {
            let h = t.to_host()?;
            let poisoned = h.iter().filter(|x| x.is_poison()).count();
            Ok((h.into_iter().map(Element::to_f64).collect(), poisoned))
        }
        each!(self, t => wide(t))
    }

    /// Compares with an f64 reference (poison counted as unwritten).
    pub fn verify(&self, reference: &[f64], tol: f64) -> Result<Verification, RunError> {
        Ok(each!(self, t => verify::verify_f64(&t.to_host()?, reference, tol)?))
    }

    /// Compares the elements at `idx` with `reference` (one value per index); every element is
    /// checked for poison (never written).
    pub fn verify_at(
        &self,
        idx: &[usize],
        reference: &[f64],
        tol: f64,
    ) -> Result<Verification, RunError> {
        fn typed<T: Element>(
            t: &DeviceTensor<T>,
            idx: &[usize],
            reference: &[f64],
            tol: f64,
        ) -> Result<Verification, RunError> {
            let host = t.to_host()?;
            let picked: Vec<T> = idx.iter().map(|&i| host[i]).collect();
            let mut v = verify::verify_f64(&picked, reference, tol)?;
            let mut poisoned = host.iter().enumerate().filter(|(_, x)| x.is_poison());
            v.first_poisoned = poisoned.next().map(|(i, _)| i);
            v.poisoned = v.first_poisoned.map_or(0, |_| 1 + poisoned.count());
            Ok(v)
        }
        each!(self, t => typed(t, idx, reference, tol))
    }
}

/// What a verified run found.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The computation the signature describes.
    pub pattern: Pattern,
    /// `cuBLAS NT` or `host f64 GEMV` ….
    pub reference: String,
    /// How the kernel's output compared with the reference's.
    pub verification: Verification,
    /// Every tensor's shape, in signature order.
    pub shapes: Vec<Vec<usize>>,
    /// The kernel's time, when timed ([`run_verify_and_time`]).
    pub kernel_time: Option<Timing>,
    /// cuBLAS's time for the same problem, when timed and cuBLAS is the reference.
    pub reference_time: Option<Timing>,
}

/// `C = op(A) · op(B)` by cuBLAS over tensors of run-time dtypes; `Ok(false)` for a dtype
/// combination it does not offer.
pub(crate) fn cublas_gemm(
    blas: &CublasRef,
    layout: crate::reference::Layout,
    a: &AnyTensor,
    b: &AnyTensor,
    c: &mut AnyTensor,
) -> Result<bool, RefError> {
    let f = GemmCompute::F32;
    match (a, b, c) {
        (AnyTensor::F16(x), AnyTensor::F16(y), AnyTensor::F16(z)) => {
            blas.gemm(layout, x, y, z, f)?
        }
        (AnyTensor::F16(x), AnyTensor::F16(y), AnyTensor::F32(z)) => {
            blas.gemm(layout, x, y, z, f)?
        }
        (AnyTensor::BF16(x), AnyTensor::BF16(y), AnyTensor::BF16(z)) => {
            blas.gemm(layout, x, y, z, f)?
        }
        (AnyTensor::BF16(x), AnyTensor::BF16(y), AnyTensor::F32(z)) => {
            blas.gemm(layout, x, y, z, f)?
        }
        (AnyTensor::F32(x), AnyTensor::F32(y), AnyTensor::F32(z)) => {
            blas.gemm(layout, x, y, z, f)?
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The verification tolerance of a GEMM-shaped kernel: [`verify::gemm_tolerance`], or, when its
/// f32 operands feed an `mma` (which multiplies them as tf32, the only f32 tensor-core input),
/// [`verify::tf32_gemm_tolerance`]. A kernel that accumulates in its output (`mc = mma.load
/// output…; … mma.store mc, output…;` in the k-loop) rounds its partial sums to the output's
/// type at every store, up to K times: its sums are bounded as if accumulated in that type.
pub fn kernel_tolerance(
    module: &dsl_core::ir::Module,
    input: DType,
    acc: DType,
    output: DType,
    k: usize,
) -> f64 {
    let tf32 = input == DType::F32
        && module
            .stmts
            .iter()
            .any(|(_, s)| matches!(s, Stmt::Mma { .. }));
    let acc = if accumulates_in_output(module) && output.unit_roundoff() > acc.unit_roundoff() {
        output
    } else {
        acc
    };
    match tf32 {
        true => verify::tf32_gemm_tolerance(acc, output, k),
        false => verify::gemm_tolerance(input, acc, output, k),
    }
}

/// Whether an `mma` accumulator is loaded from a tensor it is also stored to.
fn accumulates_in_output(module: &dsl_core::ir::Module) -> bool {
    use dsl_core::ir::{Expr, ExprId};
    fn root(m: &dsl_core::ir::Module, mut e: ExprId) -> Option<&str> {
        loop {
            match &m.exprs[e] {
                Expr::View { base, .. } | Expr::Index { base, .. } => e = *base,
                Expr::Name(n) => return Some(n),
                _ => return None,
            }
        }
    }
    let stored: Vec<&str> = module
        .stmts
        .iter()
        .filter_map(|(_, s)| match s {
            Stmt::MmaStore { dst, .. } => root(module, *dst),
            _ => None,
        })
        .collect();
    module.stmts.iter().any(|(_, s)| match s {
        Stmt::MmaLoad { src, .. } => root(module, *src).is_some_and(|n| stored.contains(&n)),
        _ => false,
    })
}

/// The lowest-precision accumulator the kernel declares (scalar accumulators and MMA
/// fragments), which bounds its rounding error; the output dtype when it declares none.
pub fn accumulator_dtype(p: &Prepared, output: DType) -> DType {
    let mut acc: Option<DType> = None;
    for (_, s) in p.module.stmts.iter() {
        let d = match s {
            Stmt::MmaFill { dtype, .. } => *dtype,
            Stmt::ScalarDecl { dtype, .. } if dtype.is_float() => *dtype,
            _ => continue,
        };
        let Some(d) = crate::dtype::DType::from_ir(d) else {
            continue;
        };
        if acc.is_none_or(|a| d.unit_roundoff() > a.unit_roundoff()) {
            acc = Some(d);
        }
    }
    acc.unwrap_or(output)
}

/// Launches `handle` once on random inputs for the problem `dims` (`M`, `N`, `K` … by name)
/// and verifies the output against the reference its signature calls for.
pub fn run_and_verify(
    handle: &CompiledKernel,
    dev: &Device,
    dims: &BTreeMap<String, usize>,
    seed: u64,
) -> Result<RunReport, RunError> {
    run(handle, dev, dims, seed, None)
}

/// [`run_and_verify`], then times the kernel (and cuBLAS, when it is the reference) on the same
/// tensors with `timing` (CUDA events, median of the runs).
pub fn run_verify_and_time(
    handle: &CompiledKernel,
    dev: &Device,
    dims: &BTreeMap<String, usize>,
    seed: u64,
    timing: &TimingConfig,
) -> Result<RunReport, RunError> {
    run(handle, dev, dims, seed, Some(timing))
}

fn run(
    handle: &CompiledKernel,
    dev: &Device,
    dims: &BTreeMap<String, usize>,
    seed: u64,
    timing: Option<&TimingConfig>,
) -> Result<RunReport, RunError> {
    let p = handle.prepared();
    let sig = reference::signature(p);
    let pattern = reference::infer(&sig);
    let kernel = p.def.name.to_string();
    if matches!(pattern, Pattern::Unknown | Pattern::Elementwise { .. }) {
        return Err(RunError::NoReference(kernel));
    }
    let mut shapes = Vec::new();
    for s in &sig {
        let mut shape = Vec::new();
        for d in &s.dims {
            let v = dims
                .get(d)
                .copied()
                .or_else(|| d.parse().ok())
                .ok_or_else(|| RunError::Unsized {
                    param: s.name.clone(),
                    dim: d.clone(),
                })?;
            shape.push(v);
        }
        shapes.push(shape);
    }
    let mut tensors = Vec::new();
    for (i, (s, shape)) in sig.iter().zip(&shapes).enumerate() {
        let dtype = s.dtype.ok_or_else(|| RunError::DType(s.name.clone()))?;
        let seed = (!s.written).then_some(seed.wrapping_add(i as u64));
        tensors.push(AnyTensor::new(dev, dtype, shape, seed)?);
    }
    {
        let mut args = Vec::new();
        for (t, s) in tensors.iter_mut().zip(&sig) {
            args.push(if s.written { t.arg_mut() } else { t.arg() });
        }
        handle.launch(&args)?;
    }
    let shape_refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let k = pattern.reduction_len(&shape_refs).unwrap_or(1);
    let (out_index, input_index) = match pattern {
        Pattern::Gemm { a, c, .. } => (c, a),
        Pattern::Gemv { a, y, .. } => (y, a),
        _ => return Err(RunError::NoReference(kernel)),
    };
    let (input, output) = (tensors[input_index].dtype(), tensors[out_index].dtype());
    let acc = accumulator_dtype(p, output);
    let tol = kernel_tolerance(&p.module, input, acc, output, k);
    let cublas = match pattern {
        Pattern::Gemm { a, b, layout, .. }
            if check_types(input, output, GemmCompute::F32).is_ok()
                && tensors[b].dtype() == input =>
        {
            Some((a, b, layout))
        }
        _ => None,
    };
    let mut blas_ref = None;
    let (reference, name) = match cublas {
        Some((a, b, layout)) => {
            let blas = CublasRef::new(dev)?;
            let mut r = AnyTensor::new(dev, output, &shapes[out_index], None)?;
            if !cublas_gemm(&blas, layout, &tensors[a], &tensors[b], &mut r)? {
                return Err(RunError::NoReference(kernel));
            }
            let v = r.to_f64()?;
            blas_ref = Some((blas, a, b, layout, r));
            (v, format!("cuBLAS {}", layout.name()))
        }
        None => {
            let data = tensors
                .iter()
                .map(AnyTensor::to_f64)
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&[f64]> = data.iter().map(Vec::as_slice).collect();
            let r = pattern
                .host_reference(&refs, &shape_refs)
                .ok_or_else(|| RunError::NoReference(kernel.clone()))?;
            let what = match pattern {
                Pattern::Gemm { layout, .. } => format!("host f64 {} GEMM", layout.name()),
                _ => "host f64 GEMV".to_string(),
            };
            (r, what)
        }
    };
    let verification = tensors[out_index].verify(&reference, tol)?;
    let (mut kernel_time, mut reference_time) = (None, None);
    if let Some(cfg) = timing {
        let flops = {
            let out_len: usize = shapes[out_index].iter().product();
            Some(2.0 * out_len as f64 * k as f64)
        };
        let mut args = Vec::new();
        for (t, s) in tensors.iter_mut().zip(&sig) {
            args.push(if s.written { t.arg_mut() } else { t.arg() });
        }
        kernel_time = Some(time_gpu(dev, cfg, flops, || handle.launch(&args))?);
        drop(args);
        if let Some((blas, a, b, layout, mut r)) = blas_ref {
            let t = time_gpu(dev, cfg, flops, || {
                cublas_gemm(&blas, layout, &tensors[a], &tensors[b], &mut r).map(|_| ())
            })?;
            reference_time = Some(t);
        }
    }
    Ok(RunReport {
        pattern,
        reference: name,
        verification,
        shapes,
        kernel_time,
        reference_time,
    })
}

/// `values` rounded and saturated to the whole s8 range, `-128` included (a user's input;
/// [`Element::from_f64`] stops at `-127` so that random and reference data never hold the
/// poison byte).
pub fn s8_values(values: &[f64]) -> Vec<i8> {
    values
        .iter()
        .map(|v| v.round().clamp(-128.0, 127.0) as i8)
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn given_s8_values_keep_the_whole_range() {
        assert_eq!(
            super::s8_values(&[-128.0, -127.4, 127.0, 300.0, -1e9]),
            vec![-128, -127, 127, 127, -128]
        );
    }

    use super::*;
    use dsl_core::def::{KernelDef, Variant};

    static V0: KernelDef = KernelDef {
        name: "v0_naive",
        dsl: include_str!("../../kernels/v0_naive.co"),
        file: Some("kernels/v0_naive.co"),
        cuda: "",
        ir: "",
        params: &[],
        tunables: &[],
    };

    #[test]
    fn the_accumulator_bounds_the_tolerance() {
        // v0 accumulates in f16.
        let p = Prepared::get(&V0, Variant::default()).unwrap();
        assert_eq!(accumulator_dtype(&p, DType::F16), DType::F16);
        // Re-typed to an f32 accumulator.
        let v = Variant {
            input: None,
            acc: Some(dsl_core::ir::DType::F32),
        };
        let p = Prepared::get(&V0, v).unwrap();
        assert_eq!(accumulator_dtype(&p, DType::F16), DType::F32);
    }

    #[test]
    fn f32_operands_of_an_mma_get_the_tf32_tolerance() {
        let text = include_str!("../../tests/data/warp/tf32_k4.co");
        let m = dsl_core::parse::parse_str(text, Some("tf32_k4.co"))
            .unwrap()
            .module;
        let (f, k) = (DType::F32, 1024);
        let tol = kernel_tolerance(&m, f, f, f, k);
        assert_eq!(tol, verify::tf32_gemm_tolerance(f, f, k));
        assert!(tol > 10.0 * verify::gemm_tolerance(f, f, f, k), "{tol}");
        // Without an `mma` (v0's scalar FMA) f32 keeps its own tolerance.
        let v0 = dsl_core::parse::parse_str(V0.dsl, Some("v0.co"))
            .unwrap()
            .module;
        assert_eq!(
            kernel_tolerance(&v0, f, f, f, k),
            verify::gemm_tolerance(f, f, f, k)
        );
    }

    #[test]
    fn an_accumulator_kept_in_the_output_is_bounded_by_the_output_type() {
        // gemm_loadc: `mc = mma.load output…` then `mma.store mc, output…` every k-tile, so the
        // f32 sums of a k-tile are rounded to f16 at each store.
        let text = include_str!("../../kernels/gemm_loadc.co");
        let m = dsl_core::parse::parse_str(text, Some("gemm_loadc.co"))
            .unwrap()
            .module;
        let (h, f, k) = (DType::F16, DType::F32, 1003);
        assert_eq!(
            kernel_tolerance(&m, h, f, h, k),
            verify::gemm_tolerance(h, h, h, k)
        );
        // A kernel that only stores its accumulator keeps the f32 bound.
        let v =
            dsl_core::parse::parse_str(include_str!("../../kernels/v2_warp_mma.co"), Some("v2.co"))
                .unwrap()
                .module;
        assert_eq!(
            kernel_tolerance(&v, h, f, h, k),
            verify::gemm_tolerance(h, f, h, k)
        );
    }
}
