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
