//! Device tensors: a typed, shaped (row-major) buffer on the device.
//!
//! ```no_run
//! use half::f16;
//! use tessel_runtime::{device::Device, tensor::DeviceTensor};
//! let dev = Device::open(0)?;
//! let lhs = DeviceTensor::<f16>::random(&dev, &[256, 512], 1)?; // uniform [-1,1], never 0
//! let out = DeviceTensor::<f16>::poisoned(&dev, &[256, 128])?;  // NaN payload 0x7E5A
//! let host: Vec<f16> = out.to_host()?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Memory is never handed out uninitialised: [`DeviceTensor::alloc`] poison-fills. Uploads and
//! downloads are synchronous with respect to the device's stream.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DriverError};

use crate::device::{Device, DeviceError, guard};
use crate::dtype::{Element, host_poison, host_random};

/// Tensor errors.
#[derive(Debug, thiserror::Error)]
pub enum TensorError {
    /// The shape is empty, has a zero dimension, or overflows.
    #[error("invalid tensor shape {shape:?}: {reason}")]
    BadShape {
        /// The shape.
        shape: Vec<usize>,
        /// What is wrong.
        reason: &'static str,
    },
    /// Host data length differs from the shape's element count.
    #[error("host data has {got} elements but shape {shape:?} needs {expected}")]
    LengthMismatch {
        /// The shape.
        shape: Vec<usize>,
        /// Elements the shape needs.
        expected: usize,
        /// Elements given.
        got: usize,
    },
    /// A driver call failed.
    #[error(transparent)]
    Device(#[from] DeviceError),
}

/// Number of elements of a row-major shape; rejects empty shapes, zero dims and overflow.
pub fn shape_len(shape: &[usize]) -> Result<usize, TensorError> {
    let bad = |reason| TensorError::BadShape {
        shape: shape.to_vec(),
        reason,
    };
    if shape.is_empty() {
        return Err(bad("no dimensions"));
    }
    if shape.contains(&0) {
        return Err(bad("a dimension is zero"));
    }
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| bad("element count overflows usize"))
}

/// A row-major tensor of `T` on the device.
#[derive(Debug)]
pub struct DeviceTensor<T: Element> {
    buf: CudaSlice<T::Bits>,
    shape: Vec<usize>,
    stream: Arc<CudaStream>,
}

impl<T: Element> DeviceTensor<T> {
    /// Uploads `data` (row-major, `shape_len(shape)` elements).
    pub fn from_host(dev: &Device, shape: &[usize], data: &[T]) -> Result<Self, TensorError> {
        let expected = shape_len(shape)?;
        if data.len() != expected {
            return Err(TensorError::LengthMismatch {
                shape: shape.to_vec(),
                expected,
                got: data.len(),
            });
        }
        let bits: Vec<T::Bits> = data.iter().map(|v| v.to_bits()).collect();
        let stream = dev.stream().clone();
        let buf = guard("cuMemcpyHtoD", || stream.clone_htod(&bits))?;
        Ok(Self {
            buf,
            shape: shape.to_vec(),
            stream,
        })
    }

    /// A poison-filled tensor (same as [`DeviceTensor::poisoned`]).
    pub fn alloc(dev: &Device, shape: &[usize]) -> Result<Self, TensorError> {
        Self::poisoned(dev, shape)
    }

    /// Uniform `[-1, 1]`, never zero, deterministic in `seed`.
    pub fn random(dev: &Device, shape: &[usize], seed: u64) -> Result<Self, TensorError> {
        Self::from_host(dev, shape, &host_random::<T>(shape_len(shape)?, seed))
    }

    /// Every element set to the poison NaN of `T`.
    pub fn poisoned(dev: &Device, shape: &[usize]) -> Result<Self, TensorError> {
        Self::from_host(dev, shape, &host_poison::<T>(shape_len(shape)?))
    }

    /// Overwrites the contents with host data of the same length.
    pub fn upload(&mut self, data: &[T]) -> Result<(), TensorError> {
        if data.len() != self.len() {
            return Err(TensorError::LengthMismatch {
                shape: self.shape.clone(),
                expected: self.len(),
                got: data.len(),
            });
        }
        let bits: Vec<T::Bits> = data.iter().map(|v| v.to_bits()).collect();
        let stream = self.stream.clone();
        guard("cuMemcpyHtoD", || stream.memcpy_htod(&bits, &mut self.buf))?;
        Ok(())
    }

    /// Refills with random values.
    pub fn fill_random(&mut self, seed: u64) -> Result<(), TensorError> {
        self.upload(&host_random::<T>(self.len(), seed))
    }

    /// Refills with poison.
    pub fn fill_poison(&mut self) -> Result<(), TensorError> {
        self.upload(&host_poison::<T>(self.len()))
    }

    /// Downloads the contents (waits for the stream).
    pub fn to_host(&self) -> Result<Vec<T>, TensorError> {
        let bits = guard("cuMemcpyDtoH", || -> Result<Vec<T::Bits>, DriverError> {
            self.stream.clone_dtoh(&self.buf)
        })?;
        Ok(bits.into_iter().map(T::from_bits).collect())
    }

    /// Row-major shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Element count.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Always false (shapes have no zero dimension).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len() * T::DTYPE.size_bytes()
    }

    /// The raw device address (for kernel arguments and tensor maps).
    pub fn device_ptr(&self) -> u64 {
        let (ptr, _sync) = self.buf.device_ptr(&self.stream);
        ptr
    }

    /// The underlying cudarc buffer (raw bits).
    pub fn raw(&self) -> &CudaSlice<T::Bits> {
        &self.buf
    }

    /// The underlying cudarc buffer, mutably.
    pub fn raw_mut(&mut self) -> &mut CudaSlice<T::Bits> {
        &mut self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_rules() {
        assert_eq!(shape_len(&[2, 3, 4]).unwrap(), 24);
        assert_eq!(shape_len(&[7]).unwrap(), 7);
        assert!(matches!(
            shape_len(&[]),
            Err(TensorError::BadShape {
                reason: "no dimensions",
                ..
            })
        ));
        assert!(matches!(
            shape_len(&[4, 0]),
            Err(TensorError::BadShape { .. })
        ));
        let e = shape_len(&[usize::MAX, 2]).unwrap_err();
        assert!(e.to_string().contains("overflows"), "{e}");
    }
}
