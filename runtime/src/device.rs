//! The GPU: open a device through the CUDA driver (cudarc `CudaContext`) and read what the
//! compiler and the tuner need to know about it.
//!
//! [`Device::open`] first checks that `libcuda` can be loaded ([`crate::locate::probe_libcuda`]):
//! cudarc would panic on the first driver call otherwise. Every driver call after that returns
//! a [`DeviceError`]; a panic from cudarc (e.g. a symbol missing from an old driver) is caught
//! and returned as [`DeviceError::Panicked`].
//!
//! The device works on one stream (its default stream) and turns off cudarc's per-buffer event
//! tracking, which only matters with several streams and costs two events per buffer use.

use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaStream, DriverError};

use crate::locate::{self, LocateError};
use crate::nvrtc::Arch;

/// Errors opening or querying a device.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// No driver library (no GPU on this machine).
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// The driver loaded, but there is no device with this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// Requested ordinal.
        ordinal: usize,
        /// Devices present.
        count: i32,
    },
    /// A driver call failed.
    #[error("CUDA driver call {op} failed: {source}")]
    Driver {
        /// What was being done.
        op: &'static str,
        /// The driver's code.
        source: DriverError,
    },
    /// cudarc panicked inside a driver call.
    #[error("CUDA driver call {op} panicked: {message}")]
    Panicked {
        /// What was being done.
        op: &'static str,
        /// The panic message.
        message: String,
    },
}

/// Runs `f`, turning a cudarc panic into [`DeviceError::Panicked`].
pub(crate) fn guard<T>(
    op: &'static str,
    f: impl FnOnce() -> Result<T, DriverError>,
) -> Result<T, DeviceError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(|source| DeviceError::Driver { op, source }),
        Err(payload) => Err(DeviceError::Panicked {
            op,
            message: panic_message(payload),
        }),
    }
}

pub(crate) fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// What tessel needs to know about a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: usize,
    /// Marketing name (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// Architecture string: `sm_90a` for 9.0, else `sm_XY`.
    pub arch: String,
    /// `cuDriverGetVersion` (e.g. 13000 for CUDA 13.0).
    pub driver_version: i32,
    /// Streaming multiprocessors.
    pub sm_count: i32,
    /// Largest dynamic shared memory a block may opt in to, in bytes.
    pub max_smem_per_block_optin: i32,
}

impl DeviceInfo {
    /// Reads what tessel needs from the device of a cudarc context (the one a
    /// `CudaStream` belongs to: `stream.context()`).
    pub fn query(ctx: &Arc<CudaContext>) -> Result<DeviceInfo, DeviceError> {
        let attr = |a: CUdevice_attribute| guard("cuDeviceGetAttribute", || ctx.attribute(a));
        let compute_capability = (
            attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        Ok(DeviceInfo {
            ordinal: ctx.ordinal(),
            name: guard("cuDeviceGetName", || ctx.name())?,
            compute_capability,
            arch: arch_string(compute_capability.0, compute_capability.1),
            driver_version: guard("cuDriverGetVersion", driver_version)?,
            sm_count: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_smem_per_block_optin: attr(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
        })
    }

    /// The [`Arch`] tessel compiles for on this device, if supported.
    pub fn tessel_arch(&self) -> Option<Arch> {
        Arch::from_compute_capability(self.compute_capability.0, self.compute_capability.1)
    }
}

/// Architecture string for a compute capability: `sm_90a` for 9.0 (tessel uses the
/// arch-specific Hopper features), otherwise `sm_<major><minor>`.
pub fn arch_string(major: i32, minor: i32) -> String {
    if (major, minor) == (9, 0) {
        "sm_90a".to_string()
    } else {
        format!("sm_{major}{minor}")
    }
}

/// An open device with its stream.
#[derive(Debug, Clone)]
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
}

impl Device {
    /// Opens device `ordinal`; see the module doc for the error behaviour.
    pub fn open(ordinal: usize) -> Result<Device, DeviceError> {
        locate::probe_libcuda()?;
        guard("cuInit", cudarc::driver::result::init)?;
        let count = guard("cuDeviceGetCount", CudaContext::device_count)?;
        if count <= 0 || ordinal >= count as usize {
            return Err(DeviceError::NoDevice { ordinal, count });
        }
        let ctx = guard("cuDevicePrimaryCtxRetain", || CudaContext::new(ordinal))?;
        // SAFETY: called right after creation, before any buffer or stream exists.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let info = DeviceInfo::query(&ctx)?;
        Ok(Device { ctx, stream, info })
    }

    /// The device of a cudarc stream, working on that stream (for tessel tensors and
    /// references next to cudarc code).
    pub fn from_stream(stream: &Arc<CudaStream>) -> Result<Device, DeviceError> {
        let ctx = stream.context().clone();
        let info = DeviceInfo::query(&ctx)?;
        Ok(Device {
            ctx,
            stream: stream.clone(),
            info,
        })
    }

    /// What the device is.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The cudarc context of this device (its primary context).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream all tessel work goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Waits for all work on the stream.
    pub fn synchronize(&self) -> Result<(), DeviceError> {
        guard("cuStreamSynchronize", || self.stream.synchronize())
    }
}

/// Checks that `[ptr, ptr + bytes)` lies inside one device allocation of the context current
/// on this thread (`cuPointerGetAttribute` with the allocation's start and size): what makes a
/// launch on raw device addresses checked instead of trusted.
pub fn check_device_range(ptr: u64, bytes: usize) -> Result<(), String> {
    use cudarc::driver::sys::CUpointer_attribute as A;
    let attr = |a: A| -> Result<u64, String> {
        let mut v: u64 = 0;
        guard("cuPointerGetAttribute", || {
            // SAFETY: both attributes write one 64-bit value (a CUdeviceptr or a size_t) to `v`.
            unsafe {
                cudarc::driver::sys::cuPointerGetAttribute((&mut v as *mut u64).cast(), a, ptr)
                    .result()
            }
        })
        .map_err(|e| format!("0x{ptr:x} is not device memory of this context ({e})"))?;
        Ok(v)
    };
    let start = attr(A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)?;
    let size = attr(A::CU_POINTER_ATTRIBUTE_RANGE_SIZE)?;
    let end = start.saturating_add(size);
    let need = ptr.checked_add(bytes as u64);
    if ptr < start || need.is_none_or(|n| n > end) {
        return Err(format!(
            "{bytes} bytes at 0x{ptr:x} run past its allocation (0x{start:x}, {size} bytes)"
        ));
    }
    Ok(())
}

fn driver_version() -> Result<i32, DriverError> {
    let mut v = 0;
    // SAFETY: one valid out-pointer.
    unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v).result()? };
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_strings() {
        assert_eq!(arch_string(9, 0), "sm_90a");
        assert_eq!(arch_string(8, 0), "sm_80");
        assert_eq!(arch_string(8, 9), "sm_89");
        assert_eq!(arch_string(10, 0), "sm_100");
    }

    #[test]
    fn tessel_arch_of_info() {
        let mut info = DeviceInfo {
            ordinal: 0,
            name: "x".into(),
            compute_capability: (9, 0),
            arch: arch_string(9, 0),
            driver_version: 13000,
            sm_count: 132,
            max_smem_per_block_optin: 232_448,
        };
        assert_eq!(info.tessel_arch(), Some(Arch::Sm90a));
        info.compute_capability = (7, 5);
        assert_eq!(info.tessel_arch(), None);
    }

    #[test]
    fn open_never_panics() {
        // Without libcuda (this CI machine) the error must be LibcudaNotFound; with a driver it
        // either opens or returns a typed error.
        match (locate::probe_libcuda(), Device::open(0)) {
            (Err(_), Err(DeviceError::Locate(LocateError::LibcudaNotFound))) => {}
            (Err(_), other) => panic!("expected LibcudaNotFound, got {other:?}"),
            (Ok(()), Ok(dev)) => assert!(!dev.info().name.is_empty()),
            (Ok(()), Err(e)) => assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn panics_become_errors() {
        let r: Result<(), DeviceError> = guard("test", || panic!("Missing symbol cuFoo"));
        match r {
            Err(DeviceError::Panicked { op, message }) => {
                assert_eq!(op, "test");
                assert!(message.contains("cuFoo"));
            }
            other => panic!("{other:?}"),
        }
    }
}
