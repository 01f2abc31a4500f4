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

use std::marker::PhantomData;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError};
use half::{bf16, f16};

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
    /// A device buffer holds fewer elements than the shape viewed over it.
    #[error("a buffer of {len} elements cannot hold shape {shape:?} ({needs} elements)")]
    TooSmall {
        /// The shape.
        shape: Vec<usize>,
        /// Elements the shape needs.
        needs: usize,
        /// Elements in the buffer.
        len: usize,
    },
    /// A generic (type-erased) tensor of an element type it does not hold: the 8-bit and s32
    /// tensors of the 8-bit GEMMs are typed (`DeviceTensor<F8E4M3>`, `<i8>`, `<i32>`) only.
    #[error(
        "{0} tensors are not supported here; the 8-bit GEMMs use typed tensors (examples/v4_fp8)"
    )]
    Unsupported(crate::dtype::DType),
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

/// Most dimensions a tensor view carries (kernel parameters are 1-D or 2-D; a few more fit).
pub const MAX_RANK: usize = 6;

/// A shape held inline (no allocation): up to [`MAX_RANK`] dimensions.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dims {
    d: [usize; MAX_RANK],
    rank: u8,
}

impl Dims {
    /// The shape `dims`; an empty shape, a zero dimension, more than [`MAX_RANK`] dimensions or
    /// an element count over `usize` are errors.
    pub fn new(dims: &[usize]) -> Result<Dims, TensorError> {
        if dims.len() > MAX_RANK {
            return Err(TensorError::BadShape {
                shape: dims.to_vec(),
                reason: "more dimensions than a tensor view holds (6)",
            });
        }
        shape_len(dims)?;
        let mut d = [0; MAX_RANK];
        d[..dims.len()].copy_from_slice(dims);
        Ok(Dims {
            d,
            rank: dims.len() as u8,
        })
    }

    /// The dimensions as a slice, outermost first.
    pub fn as_slice(&self) -> &[usize] {
        &self.d[..usize::from(self.rank)]
    }

    /// Element count (checked at construction).
    pub fn len(&self) -> usize {
        self.as_slice().iter().product()
    }

    /// Always false: a shape has no zero dimension.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl std::fmt::Debug for Dims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_slice())
    }
}

/// Device element storage a tensor of `T` may be viewed over: `T` itself where cudarc can
/// allocate it, or its bit pattern (`u16` for `f16`/`bf16`, `u32` for `f32`).
///
/// # Safety
/// `Self` must have the size and alignment of `T`.
pub unsafe trait Storage<T: Element>: 'static {}

// SAFETY (all impls): same size and alignment as the element type.
unsafe impl Storage<f32> for f32 {}
unsafe impl Storage<f32> for u32 {}
unsafe impl Storage<f16> for u16 {}
unsafe impl Storage<f16> for f16 {}
unsafe impl Storage<bf16> for u16 {}
unsafe impl Storage<bf16> for bf16 {}
unsafe impl Storage<crate::dtype::F8E4M3> for u8 {}
unsafe impl Storage<crate::dtype::F8E5M2> for u8 {}
unsafe impl Storage<i8> for u8 {}
unsafe impl Storage<i32> for u32 {}

/// An identity for the CUDA context of a stream (its `CUcontext` handle as a number).
pub fn context_id(stream: &CudaStream) -> usize {
    stream.context().cu_ctx() as usize
}

/// Checks that a buffer of `len` elements holds `shape`.
fn fits(len: usize, shape: &[usize]) -> Result<Dims, TensorError> {
    let dims = Dims::new(shape)?;
    if dims.len() > len {
        return Err(TensorError::TooSmall {
            shape: shape.to_vec(),
            needs: dims.len(),
            len,
        });
    }
    Ok(dims)
}

/// A read-only, row-major view of device memory as a tensor of `T`: what a kernel's input
/// parameter takes. It borrows the buffer, so the buffer outlives the call that launches on it;
/// launches are stream-ordered, so freeing the buffer afterwards on the same stream is safe.
#[derive(Clone, Copy, Debug)]
pub struct TensorRef<'a, T: Element> {
    ptr: u64,
    dims: Dims,
    ctx: Option<usize>,
    _borrow: PhantomData<&'a T>,
}

/// A writable, row-major view of device memory as a tensor of `T`: what a kernel's output
/// parameter takes (exclusive borrow of the buffer).
#[derive(Debug)]
pub struct TensorMut<'a, T: Element> {
    ptr: u64,
    dims: Dims,
    ctx: Option<usize>,
    _borrow: PhantomData<&'a mut T>,
}

impl<'a, T: Element> TensorRef<'a, T> {
    /// Views a cudarc buffer (`CudaSlice`, `CudaView`) as a tensor of `shape`; the buffer must
    /// hold at least the shape's element count.
    pub fn new<B: Storage<T>, S: DevicePtr<B>>(
        buf: &'a S,
        shape: &[usize],
    ) -> Result<Self, TensorError> {
        let dims = fits(buf.len(), shape)?;
        let (ptr, _sync) = buf.device_ptr(buf.stream());
        Ok(Self {
            ptr,
            dims,
            ctx: Some(context_id(buf.stream())),
            _borrow: PhantomData,
        })
    }

    /// A view of raw device memory.
    ///
    /// # Safety
    /// `ptr` must address at least `shape`'s element count of `T` in device memory of the
    /// context the kernel runs in, valid until the work launched on it completes.
    pub unsafe fn from_raw(ptr: u64, shape: &[usize]) -> Result<Self, TensorError> {
        Ok(Self {
            ptr,
            dims: Dims::new(shape)?,
            ctx: None,
            _borrow: PhantomData,
        })
    }

    /// The device address.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The row-major shape, outermost dimension first.
    pub fn shape(&self) -> &[usize] {
        self.dims.as_slice()
    }

    /// The shape as a [`Dims`] (a copy; no allocation).
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// The CUDA context the memory belongs to (`None` for raw memory).
    pub fn context_id(&self) -> Option<usize> {
        self.ctx
    }
}

impl<'a, T: Element> TensorMut<'a, T> {
    /// Views a cudarc buffer (`CudaSlice`, `CudaViewMut`) as a writable tensor of `shape`; the
    /// buffer must hold at least the shape's element count.
    pub fn new<B: Storage<T>, S: DevicePtrMut<B>>(
        buf: &'a mut S,
        shape: &[usize],
    ) -> Result<Self, TensorError> {
        let dims = fits(buf.len(), shape)?;
        let stream = buf.stream().clone();
        let (ptr, _sync) = buf.device_ptr_mut(&stream);
        Ok(Self {
            ptr,
            dims,
            ctx: Some(context_id(&stream)),
            _borrow: PhantomData,
        })
    }

    /// A writable view of raw device memory.
    ///
    /// # Safety
    /// As [`TensorRef::from_raw`], and nothing else may access the memory while the kernel
    /// writes it.
    pub unsafe fn from_raw(ptr: u64, shape: &[usize]) -> Result<Self, TensorError> {
        Ok(Self {
            ptr,
            dims: Dims::new(shape)?,
            ctx: None,
            _borrow: PhantomData,
        })
    }

    /// The device address.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// The row-major shape, outermost dimension first.
    pub fn shape(&self) -> &[usize] {
        self.dims.as_slice()
    }

    /// The shape as a [`Dims`] (a copy; no allocation).
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// The CUDA context the memory belongs to (`None` for raw memory).
    pub fn context_id(&self) -> Option<usize> {
        self.ctx
    }
}

/// A row-major tensor of `T` on the device.
#[derive(Debug)]
pub struct DeviceTensor<T: Element> {
    buf: CudaSlice<T::Bits>,
    dims: Dims,
    stream: Arc<CudaStream>,
}

impl<T: Element> DeviceTensor<T> {
    /// Uploads `data` (row-major, `shape_len(shape)` elements; at most [`MAX_RANK`] dimensions).
    pub fn from_host(dev: &Device, shape: &[usize], data: &[T]) -> Result<Self, TensorError> {
        let dims = Dims::new(shape)?;
        let expected = dims.len();
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
        Ok(Self { buf, dims, stream })
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
                shape: self.shape().to_vec(),
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
        self.dims.as_slice()
    }

    /// Element count.
    pub fn len(&self) -> usize {
        self.dims.len()
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

    /// A read-only view (a kernel input).
    pub fn view(&self) -> TensorRef<'_, T> {
        TensorRef {
            ptr: self.device_ptr(),
            dims: self.dims,
            ctx: Some(context_id(&self.stream)),
            _borrow: PhantomData,
        }
    }

    /// A writable view (a kernel output).
    pub fn view_mut(&mut self) -> TensorMut<'_, T> {
        let (ptr, _sync) = self.buf.device_ptr_mut(&self.stream);
        TensorMut {
            ptr,
            dims: self.dims,
            ctx: Some(context_id(&self.stream)),
            _borrow: PhantomData,
        }
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

    #[test]
    fn inline_dims() {
        let d = Dims::new(&[3, 4]).unwrap();
        assert_eq!(d.as_slice(), &[3, 4]);
        assert_eq!(d.len(), 12);
        assert!(Dims::new(&[1; 7]).is_err());
        assert!(Dims::new(&[2, 0]).is_err());
        assert!(matches!(
            fits(11, &[3, 4]),
            Err(TensorError::TooSmall {
                needs: 12,
                len: 11,
                ..
            })
        ));
        assert_eq!(fits(12, &[3, 4]).unwrap(), d);
    }
}
