//! The device copy bandwidth the bandwidth-bound rows (GEMV, the bench's copy row) are
//! measured against.

use tessel_runtime::device::Device;

/// Device-to-device copy bandwidth (bytes read + written per second, TB/s) over `bytes`.
pub fn copy_bandwidth(dev: &Device, bytes: usize) -> Result<f64, String> {
    let e = |x: &dyn std::fmt::Display| x.to_string();
    let stream = dev.stream();
    let src = stream.alloc_zeros::<u8>(bytes).map_err(|x| e(&x))?;
    let mut dst = stream.alloc_zeros::<u8>(bytes).map_err(|x| e(&x))?;
    let tc = tessel_runtime::timing::TimingConfig {
        warmup: 3,
        runs: 20,
    };
    let t = tessel_runtime::timing::time_gpu(dev, &tc, None, || stream.memcpy_dtod(&src, &mut dst))
        .map_err(|x| e(&x))?;
    Ok(2.0 * bytes as f64 / (t.median_ms * 1e-3) / 1e12)
}
