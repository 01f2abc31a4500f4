//! The worker's GPU state for one problem, built once and reused by every trial: the inputs,
//! a poison-filled output, the cuBLAS reference (kept on the device, compared on the device
//! by `fullcheck.rs`), the cuBLAS handle, the cuBLAS timing and the device copy bandwidth.
//! And the trial's steps: poison, launch once, compare the full output; time.

use crate::cache::ModuleCache;
use crate::cublas_ref::{CublasRef, GemmCompute};
use crate::device::{Device, guard};
use crate::dtype::{DType, Element};
use crate::tensor::DeviceTensor;
use crate::timing::{Timing, TimingConfig, TimingError, probe_gpu, time_gpu};
use crate::verify::{Verification, gemm_tolerance};

use super::fullcheck::DeviceCheck;

use super::record::{ReferenceRecord, TimeStats};
use super::target::Shape;

/// An error message as a `std::error::Error` (what [`time_gpu`] needs from the timed work).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Msg(pub String);

/// Inputs, output and reference of one GEMM problem, element type `T` (input = output).
pub struct Bench<T: Element> {
    /// The left operand `[M, K]`.
    pub lhs: DeviceTensor<T>,
    /// The right operand `[N, K]`.
    pub rhs: DeviceTensor<T>,
    /// The output `[M, N]`, poisoned before each launch.
    pub out: DeviceTensor<T>,
    /// cuBLAS's output for the same inputs.
    pub reference: DeviceTensor<T>,
    check: DeviceCheck,
    /// The tolerance the comparison uses.
    pub tolerance: f64,
    cublas: CublasRef,
    compute: GemmCompute,
}

/// Where a step failed: before the GPU ran anything, or with the context possibly poisoned.
#[derive(Debug)]
pub enum StepError {
    /// Refused up front (the context is fine).
    Launch(String),
    /// A sticky error (or one we cannot tell from it): the worker must exit.
    Fault(String),
}

impl<T: Element> Bench<T> {
    /// Allocates random inputs (seeds 1 and 2), runs cuBLAS once for the reference and
    /// measures it and the copy bandwidth.
    pub fn new(
        dev: &Device,
        cache: &ModuleCache,
        shape: &Shape,
        acc: DType,
        timing: &TimingConfig,
    ) -> Result<(Self, ReferenceRecord), String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        let (m, n, k) = (shape.m, shape.n, shape.k);
        let lhs = DeviceTensor::<T>::random(dev, &[m, k], 1).map_err(|x| e(&x))?;
        let rhs = DeviceTensor::<T>::random(dev, &[n, k], 2).map_err(|x| e(&x))?;
        let mut out = DeviceTensor::<T>::poisoned(dev, &[m, n]).map_err(|x| e(&x))?;
        let cublas = CublasRef::new(dev).map_err(|x| e(&x))?;
        let compute = if acc == DType::F16 {
            GemmCompute::F16
        } else {
            GemmCompute::F32
        };
        let mut reference = DeviceTensor::<T>::poisoned(dev, &[m, n]).map_err(|x| e(&x))?;
        cublas
            .gemm_nt(&lhs, &rhs, &mut reference, compute)
            .map_err(|x| e(&x))?;
        dev.synchronize().map_err(|x| e(&x))?;
        let check = DeviceCheck::new(dev, cache, T::DTYPE)?;
        let flops = Some(shape.flops());
        let t = time_gpu(dev, timing, flops, || {
            cublas.gemm_nt(&lhs, &rhs, &mut out, compute)
        })
        .map_err(|x| e(&x))?;
        // Copy bandwidth: lhs → out, as many bytes as the smaller holds (read + written).
        let bytes = lhs.num_bytes().min(out.num_bytes());
        let (src, dst) = (lhs.device_ptr(), out.device_ptr());
        let stream = dev.stream().clone();
        let copy = time_gpu(dev, timing, None, || {
            guard("cuMemcpyDtoDAsync", || {
                // SAFETY: both buffers are live and hold at least `bytes` bytes.
                unsafe {
                    cudarc::driver::result::memcpy_dtod_async(dst, src, bytes, stream.cu_stream())
                }
            })
        });
        let bandwidth_gbs = copy
            .ok()
            .filter(|c| c.median_ms > 0.0)
            .map(|c| 2.0 * bytes as f64 / (c.median_ms * 1e-3) / 1e9);
        let bench = Bench {
            lhs,
            rhs,
            out,
            reference,
            check,
            tolerance: gemm_tolerance(T::DTYPE, acc, T::DTYPE, k),
            cublas,
            compute,
        };
        Ok((
            bench,
            ReferenceRecord {
                cublas: TimeStats::from(&t),
                bandwidth_gbs,
            },
        ))
    }

    /// Fills the output with the poison value on the device.
    pub fn poison(&mut self, dev: &Device) -> Result<(), StepError> {
        let bits = T::poison().to_bits();
        let ptr = self.out.device_ptr();
        let len = self.out.len();
        let stream = dev.stream().cu_stream();
        let r = match T::DTYPE.size_bytes() {
            2 => {
                // SAFETY: 16-bit elements; the bits of a 2-byte `Bits` fit in a u16.
                let v = unsafe { std::mem::transmute_copy::<T::Bits, u16>(&bits) };
                guard("cuMemsetD16Async", || unsafe {
                    cudarc::driver::sys::cuMemsetD16Async(ptr, v, len, stream).result()
                })
            }
            _ => {
                // SAFETY: 32-bit elements.
                let v = unsafe { std::mem::transmute_copy::<T::Bits, u32>(&bits) };
                guard("cuMemsetD32Async", || unsafe {
                    cudarc::driver::sys::cuMemsetD32Async(ptr, v, len, stream).result()
                })
            }
        };
        r.map_err(|e| StepError::Fault(e.to_string()))
    }

    /// Runs `launch` once on a poisoned output and waits: the first step of a trial.
    pub fn run_once(
        &mut self,
        dev: &Device,
        launch: &dyn Fn() -> Result<(), Msg>,
    ) -> Result<(), StepError> {
        self.poison(dev)?;
        if let Err(e) = launch() {
            // Refused at launch: the context is fine unless a sync says otherwise.
            return Err(match dev.synchronize() {
                Ok(()) => StepError::Launch(e.0),
                Err(s) => StepError::Fault(format!("{}; then {s}", e.0)),
            });
        }
        dev.synchronize()
            .map_err(|e| StepError::Fault(e.to_string()))
    }

    /// Compares the full output of the last launch with the reference, on the device.
    pub fn verify(&mut self, dev: &Device) -> Result<Verification, StepError> {
        let (out, reference, tolerance) = (&self.out, &self.reference, self.tolerance);
        self.check
            .verify(dev, out, reference, tolerance)
            .map_err(StepError::Fault)
    }

    /// Times cuBLAS on the same problem (into the output buffer).
    pub fn time_cublas(
        &mut self,
        dev: &Device,
        timing: &TimingConfig,
        flops: f64,
    ) -> Result<Timing, String> {
        let (lhs, rhs, out, compute) = (&self.lhs, &self.rhs, &mut self.out, self.compute);
        let cublas = &self.cublas;
        time_gpu(dev, timing, Some(flops), || {
            cublas.gemm_nt(lhs, rhs, out, compute)
        })
        .map_err(|e| e.to_string())
    }

    /// The early stop's probe: one warm-up call, then a few event-timed calls.
    pub fn probe(
        &self,
        dev: &Device,
        flops: f64,
        launch: &dyn Fn() -> Result<(), Msg>,
    ) -> Result<Timing, StepError> {
        let cfg = TimingConfig {
            warmup: 1,
            runs: super::EARLY_STOP_PROBE_RUNS,
        };
        probe_gpu(dev, &cfg, Some(flops), launch).map_err(|e| match e {
            TimingError::TooFewRuns { .. } | TimingError::BadSample(_) => {
                StepError::Launch(e.to_string())
            }
            other => StepError::Fault(other.to_string()),
        })
    }

    /// Times `launch` (warm-up, then `runs` event-timed calls).
    pub fn time(
        &self,
        dev: &Device,
        timing: &TimingConfig,
        flops: f64,
        launch: &dyn Fn() -> Result<(), Msg>,
    ) -> Result<Timing, StepError> {
        time_gpu(dev, timing, Some(flops), launch).map_err(|e| match e {
            TimingError::TooFewRuns { .. } | TimingError::BadSample(_) => {
                StepError::Launch(e.to_string())
            }
            other => StepError::Fault(other.to_string()),
        })
    }
}
