//! The one place [`crate::kernel::Autotuned`] reads the tuner's cache: the cached winner of a
//! kernel for a device and a launch's tensor shapes.

use std::collections::BTreeMap;
use std::path::Path;

use dsl_core::check::{Config, Problem};
use dsl_core::def::{KernelDef, Variant};

use crate::device::DeviceInfo;
use crate::tune::lookup;
use crate::tune::target::Target;

/// The problem-size key of a launch (`K=… M=… N=…`, the tuner's [`lookup::problem_key`]): each
/// parameter's symbolic dimensions bound to the launch's tensor shapes. `None` when the shapes
/// do not fit the signature (wrong count or rank, or one dimension bound to two sizes).
pub fn launch_key(def: &KernelDef, shapes: &[&[usize]]) -> Option<String> {
    if shapes.len() != def.params.len() {
        return None;
    }
    let mut dims = BTreeMap::new();
    for (p, s) in def.params.iter().zip(shapes) {
        if p.shape.len() != s.len() {
            return None;
        }
        for (name, v) in p.shape.iter().zip(s.iter()) {
            if name.parse::<i64>().is_ok() {
                continue;
            }
            let v = i64::try_from(*v).ok()?;
            if *dims.entry(name.to_string()).or_insert(v) != v {
                return None;
            }
        }
    }
    Some(lookup::problem_key(&Problem { dims }))
}

/// The tuner's winner for `def` on `device` at the problem these tensor shapes give, if the
/// cache folder holds a trusted one (a winner with a recorded passing trial): any kernel whose
/// dimensions the shapes bind. A winner found on this GPU is preferred; for kernels the GEMM
/// tuner takes, only a winner of today's source counts. Anything else gives `None` (the
/// caller then uses the default configuration).
pub fn cached_winner(
    def: &'static KernelDef,
    device: &DeviceInfo,
    shapes: &[&[usize]],
    cache_dir: &Path,
) -> Option<Config> {
    let key = launch_key(def, shapes)?;
    let source_hash = Target::dsl(def, Variant::default())
        .ok()
        .map(|t| t.source_hash());
    lookup::winner_in(
        cache_dir,
        def.name,
        &key,
        Some(&device.name),
        source_hash.as_deref(),
    )
}

/// Tunes `def` for the GEMM problem these shapes give (`M`, `N`, `K` from the launch key) with
/// `opts`, into `cache_dir`, and returns the winner; `None` when the GEMM tuner does not take
/// the kernel, the shapes bind no `M`/`N`/`K`, or the sweep fails or finds no winner (the
/// caller then uses the default configuration).
pub fn tune_now(
    def: &'static KernelDef,
    variant: Variant,
    shapes: &[&[usize]],
    cache_dir: &Path,
    mut opts: crate::tune::TuneOptions,
) -> Option<Config> {
    let key = launch_key(def, shapes)?;
    let dim = |name: &str| -> Option<usize> {
        key.split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| v.parse().ok())
    };
    let shape = crate::tune::Shape::new(dim("M")?, dim("N")?, dim("K")?);
    let target = Target::dsl(def, variant).ok()?;
    opts.cache_dir = Some(cache_dir.to_path_buf());
    let outcome = crate::tune::Tuner::new(target, shape, opts).run().ok()?;
    let w = outcome.winner?;
    Some(Config {
        values: w.config.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::record::{Phase, TimeStats, TrialRecord, VerifyRecord, WinnerRecord};
    use crate::tune::store::{self, CacheKey, TuneStore};
    use dsl_core::ir::{DType, MemSpace};

    static PARAMS: [dsl_core::def::ParamDef; 3] = [
        dsl_core::def::ParamDef {
            name: "lhs",
            dtype: DType::F16,
            space: MemSpace::Global,
            shape: &["M", "K"],
        },
        dsl_core::def::ParamDef {
            name: "rhs",
            dtype: DType::F16,
            space: MemSpace::Global,
            shape: &["N", "K"],
        },
        dsl_core::def::ParamDef {
            name: "output",
            dtype: DType::F16,
            space: MemSpace::Global,
            shape: &["M", "N"],
        },
    ];

    static V0: KernelDef = KernelDef {
        name: "v0_naive",
        dsl: include_str!("../../kernels/v0_naive.co"),
        file: Some("kernels/v0_naive.co"),
        cuda: "",
        ir: "",
        params: &PARAMS,
        tunables: &[],
    };

    fn device(name: &str) -> DeviceInfo {
        DeviceInfo {
            ordinal: 0,
            name: name.into(),
            compute_capability: (9, 0),
            arch: "sm_90a".into(),
            driver_version: 13000,
            sm_count: 132,
            max_smem_per_block_optin: 232_448,
        }
    }

    #[test]
    fn tuning_on_first_use_needs_shapes_that_bind_the_gemm_dims() {
        let dir = std::env::temp_dir().join(format!("tessel-tune-now-{}", std::process::id()));
        let opts = crate::tune::TuneOptions::default();
        // Shapes that do not fit the signature bind no M, N, K: nothing is tuned.
        assert_eq!(
            tune_now(&V0, Variant::default(), &[&[256], &[256]], &dir, opts),
            None
        );
    }

    #[test]
    fn the_launch_key_binds_every_dimension_once() {
        let ok: [&[usize]; 3] = [&[256, 64], &[128, 64], &[256, 128]];
        assert_eq!(launch_key(&V0, &ok).as_deref(), Some("K=64 M=256 N=128"));
        let clash: [&[usize]; 3] = [&[256, 64], &[128, 32], &[256, 128]];
        assert_eq!(launch_key(&V0, &clash), None);
        assert_eq!(launch_key(&V0, &[&[256], &[256]]), None);
    }

    #[test]
    fn a_cached_winner_answers_its_own_shape_only() {
        let dir = std::env::temp_dir().join(format!("tessel-autotune-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let shapes: [&[usize]; 3] = [&[256, 64], &[128, 64], &[256, 128]];
        let source_hash = Target::dsl(&V0, Variant::default())
            .map(|t| t.source_hash())
            .unwrap_or_default();
        let key = CacheKey {
            format: store::FORMAT,
            gpu_name: "Test GPU".into(),
            compute_capability: (9, 0),
            driver_version: 13000,
            nvrtc_version: (13, 0),
            kernel: V0.name.to_string(),
            source_hash,
            problem: launch_key(&V0, &shapes).unwrap(),
            dtypes: "f16 in, f16 acc, f16 out".into(),
            settings: "test".into(),
        };
        let config: crate::tune::record::ConfigMap =
            [("TILE_M".to_string(), 8), ("TILE_N".to_string(), 16)].into();
        let mut st = TuneStore::open(&dir, key, true);
        let mut t = TrialRecord::new(config.clone(), Phase::Full);
        t.time = Some(TimeStats {
            median_ms: 1.0,
            min_ms: 1.0,
            max_ms: 1.0,
            mean_ms: 1.0,
            runs: 20,
            tflops: None,
        });
        t.verification = Some(VerifyRecord {
            passed: true,
            rel_error: 0.0,
            tolerance: 1e-3,
            max_abs_error: 0.0,
            poisoned: 0,
            nans: 0,
            infs: 0,
            summary: "PASS".into(),
        });
        st.record(t).unwrap();
        st.set_winner(WinnerRecord {
            config,
            median_ms: 1.0,
            tflops: None,
            finalists: Vec::new(),
            noise_band: 0.02,
            selection: "test".into(),
            cublas: None,
            space: None,
        })
        .unwrap();
        let got = cached_winner(&V0, &device("Test GPU"), &shapes, &dir).unwrap();
        assert_eq!((got.get("TILE_M"), got.get("TILE_N")), (Some(8), Some(16)));
        // Another shape, or a signature the shapes do not fit: nothing cached.
        let other: [&[usize]; 3] = [&[512, 64], &[128, 64], &[512, 128]];
        assert!(cached_winner(&V0, &device("Test GPU"), &other, &dir).is_none());
        assert!(cached_winner(&V0, &device("Test GPU"), &[&[256], &[256]], &dir).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
