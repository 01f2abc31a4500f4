//! The one place [`crate::kernel::Autotuned`] reads the tuner's cache: the cached winner of a
//! kernel for a device and a launch's tensor shapes.

use std::path::Path;

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};

use crate::device::DeviceInfo;
use crate::nvrtc;
use crate::tune::Shape;
use crate::tune::store::{self, CacheKey, TuneStore};
use crate::tune::target::Target;

/// The tuner's winner for `def` on `device` at the problem these tensor shapes give, if the
/// cache holds one. The cache is keyed by a GEMM shape `lhs[M, K]`, `rhs[N, K]`, `out[M, N]`
/// (three 2-D tensors); other kernels, and any failure to read the cache, give `None` (the
/// caller then uses the default configuration).
pub fn cached_winner(
    def: &'static KernelDef,
    device: &DeviceInfo,
    shapes: &[&[usize]],
    cache_dir: &Path,
) -> Option<Config> {
    let shape = match shapes {
        [[m, k], [n, _], [_, _]] => Shape::new(*m, *n, *k),
        _ => return None,
    };
    let target = Target::dsl(def, Variant::default()).ok()?;
    let key = CacheKey {
        format: store::FORMAT,
        gpu_name: device.name.clone(),
        compute_capability: device.compute_capability,
        driver_version: device.driver_version,
        nvrtc_version: nvrtc::nvrtc_version().ok()?,
        kernel: target.name().to_string(),
        source_hash: target.source_hash(),
        shape,
        dtypes: target.dtypes(),
    };
    let st = TuneStore::open(cache_dir, key, false);
    let winner = st.winner?;
    Some(Config {
        values: winner.config.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::record::WinnerRecord;

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
    fn a_cached_winner_answers_its_own_shape_only() {
        let nvrtc_version = match nvrtc::nvrtc_version() {
            Ok(v) => v,
            Err(e) if crate::locate::nvrtc_required() => panic!("NVRTC required: {e}"),
            Err(e) => {
                eprintln!("SKIPPED a_cached_winner_answers_its_own_shape_only: {e}");
                return;
            }
        };
        let device = DeviceInfo {
            ordinal: 0,
            name: "Test GPU".into(),
            compute_capability: (9, 0),
            arch: "sm_90a".into(),
            driver_version: 13000,
            sm_count: 132,
            max_smem_per_block_optin: 232_448,
        };
        let dir = std::env::temp_dir().join(format!("tessel-autotune-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let target = Target::dsl(&V0, Variant::default()).unwrap();
        let key = CacheKey {
            format: store::FORMAT,
            gpu_name: device.name.clone(),
            compute_capability: device.compute_capability,
            driver_version: device.driver_version,
            nvrtc_version,
            kernel: target.name().to_string(),
            source_hash: target.source_hash(),
            shape: Shape::new(256, 128, 64),
            dtypes: target.dtypes(),
        };
        TuneStore::open(&dir, key, true)
            .set_winner(WinnerRecord {
                config: [("TILE_M".to_string(), 8), ("TILE_N".to_string(), 16)].into(),
                median_ms: 1.0,
                tflops: None,
                finalists: Vec::new(),
                noise_band: 0.02,
                selection: "test".into(),
                cublas: None,
            })
            .unwrap();
        let shapes: [&[usize]; 3] = [&[256, 64], &[128, 64], &[256, 128]];
        let got = cached_winner(&V0, &device, &shapes, &dir).unwrap();
        assert_eq!((got.get("TILE_M"), got.get("TILE_N")), (Some(8), Some(16)));
        // Another shape, another GPU, a non-GEMM signature: nothing cached.
        let other: [&[usize]; 3] = [&[512, 64], &[128, 64], &[512, 128]];
        assert!(cached_winner(&V0, &device, &other, &dir).is_none());
        let h200 = DeviceInfo {
            name: "Other GPU".into(),
            ..device.clone()
        };
        assert!(cached_winner(&V0, &h200, &shapes, &dir).is_none());
        assert!(cached_winner(&V0, &device, &[&[256], &[256]], &dir).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
