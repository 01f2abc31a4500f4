//! Which GPUs the tuner may use, read from the driver without creating a CUDA context (so the
//! parent process stays cheap and a cached answer costs milliseconds): name, compute
//! capability, driver version, SM count and the opt-in shared-memory limit per block.
//!
//! With several GPUs the tuner keeps those of the first selected GPU's model (name and compute
//! capability); each gets one worker, started with `CUDA_VISIBLE_DEVICES` naming only it.

use cudarc::driver::sys::CUdevice_attribute;
use serde::{Deserialize, Serialize};

use crate::device::{DeviceError, guard};
use crate::locate;

/// One visible GPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuInfo {
    /// Ordinal among the GPUs visible to this process.
    pub index: usize,
    /// The device name (`cuDeviceGetName`).
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// The CUDA driver version.
    pub driver_version: i32,
    /// Streaming multiprocessors.
    pub sm_count: i32,
    /// Largest dynamic shared memory a block may opt in to (bytes).
    pub max_smem_per_block_optin: i32,
}

/// Every visible GPU (an error when there is no driver or no device).
pub fn probe() -> Result<Vec<GpuInfo>, DeviceError> {
    locate::probe_libcuda()?;
    guard("cuInit", cudarc::driver::result::init)?;
    let count = guard(
        "cuDeviceGetCount",
        cudarc::driver::result::device::get_count,
    )?;
    if count <= 0 {
        return Err(DeviceError::NoDevice { ordinal: 0, count });
    }
    let driver_version = guard("cuDriverGetVersion", || {
        let mut v = 0;
        // SAFETY: one valid out-pointer.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v).result()? };
        Ok(v)
    })?;
    let mut out = Vec::new();
    for index in 0..count as usize {
        let dev = guard("cuDeviceGet", || {
            cudarc::driver::result::device::get(index as i32)
        })?;
        // SAFETY: `dev` came from cuDeviceGet.
        let attr = |a: CUdevice_attribute| {
            guard("cuDeviceGetAttribute", || unsafe {
                cudarc::driver::result::device::get_attribute(dev, a)
            })
        };
        out.push(GpuInfo {
            index,
            name: guard("cuDeviceGetName", || {
                cudarc::driver::result::device::get_name(dev)
            })?,
            compute_capability: (
                attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            driver_version,
            sm_count: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_smem_per_block_optin: attr(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
        });
    }
    Ok(out)
}

/// The GPUs to use: those listed in `wanted` (all when `None`), then only those of the first
/// one's model. Returns the selection and a note about GPUs left out.
pub fn select(
    all: &[GpuInfo],
    wanted: Option<&[usize]>,
) -> Result<(Vec<GpuInfo>, Option<String>), String> {
    let picked: Vec<GpuInfo> = match wanted {
        None => all.to_vec(),
        Some(w) => {
            let mut v = Vec::new();
            for &i in w {
                let g = all.iter().find(|g| g.index == i).ok_or_else(|| {
                    format!(
                        "GPU {i} is not visible ({} GPU(s): 0..{})",
                        all.len(),
                        all.len()
                    )
                })?;
                if !v.contains(g) {
                    v.push(g.clone());
                }
            }
            v
        }
    };
    let Some(first) = picked.first().cloned() else {
        return Err("no GPU selected".into());
    };
    let (same, other): (Vec<_>, Vec<_>) = picked
        .into_iter()
        .partition(|g| g.name == first.name && g.compute_capability == first.compute_capability);
    let note = (!other.is_empty()).then(|| {
        let idx: Vec<String> = other.iter().map(|g| g.index.to_string()).collect();
        format!(
            "GPU(s) {} left out: not the same model as GPU {} ({})",
            idx.join(","),
            first.index,
            first.name
        )
    });
    Ok((same, note))
}

/// The `CUDA_VISIBLE_DEVICES` value that makes a worker see exactly the parent's GPU `index`:
/// the `index`-th entry of the parent's own `CUDA_VISIBLE_DEVICES` when set, else `index`.
pub fn visible_devices_for(index: usize, parent: Option<&str>) -> String {
    parent
        .map(|p| {
            p.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        })
        .and_then(|list| list.get(index).map(|s| s.to_string()))
        .unwrap_or_else(|| index.to_string())
}

/// `0,2` → `[0, 2]`.
pub fn parse_gpu_list(s: &str) -> Result<Vec<usize>, String> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| format!("`{x}` in --gpus `{s}` is not a GPU index"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(index: usize, name: &str) -> GpuInfo {
        GpuInfo {
            index,
            name: name.into(),
            compute_capability: (9, 0),
            driver_version: 13000,
            sm_count: 132,
            max_smem_per_block_optin: 232_448,
        }
    }

    #[test]
    fn selection_keeps_one_model_and_honours_the_flag() {
        let all = vec![
            gpu(0, "H100"),
            gpu(1, "H100"),
            gpu(2, "A100"),
            gpu(3, "H100"),
        ];
        let (s, note) = select(&all, None).unwrap();
        assert_eq!(s.iter().map(|g| g.index).collect::<Vec<_>>(), vec![0, 1, 3]);
        assert!(note.unwrap().contains("GPU(s) 2 left out"));
        let (s, note) = select(&all, Some(&[3, 1, 3])).unwrap();
        assert_eq!(s.iter().map(|g| g.index).collect::<Vec<_>>(), vec![3, 1]);
        assert!(note.is_none());
        let (s, _) = select(&all, Some(&[2, 0])).unwrap();
        assert_eq!(s.iter().map(|g| g.index).collect::<Vec<_>>(), vec![2]);
        assert!(select(&all, Some(&[7])).is_err());
        assert!(select(&[], None).is_err());
    }

    #[test]
    fn visible_devices_map_through_the_parent_list() {
        assert_eq!(visible_devices_for(1, None), "1");
        assert_eq!(visible_devices_for(1, Some("4, 6")), "6");
        assert_eq!(visible_devices_for(0, Some("GPU-abc")), "GPU-abc");
        assert_eq!(visible_devices_for(3, Some("4,6")), "3");
        assert_eq!(parse_gpu_list("0,2").unwrap(), vec![0, 2]);
        assert!(parse_gpu_list("0,x").is_err());
    }
}
