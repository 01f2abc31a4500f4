//! Helpers the examples share: `--set` parsing, default configs, config text, timing rounds,
//! writing the instantiated `.cu`, and the one-sentence no-GPU answer.

use dsl_core::check::Config;
use dsl_core::def::KernelDef;
use tessel_runtime::dsl::{Prepared, module_cache};
use tessel_runtime::nvrtc::{Arch, CompileRequest};
use tessel_runtime::timing::Timing;

/// Timing rounds per side (interleaved: tessel, cuBLAS, tessel, …).
pub const ROUNDS: usize = 3;

/// `NAME=V`.
pub fn parse_set(v: &str) -> Result<(String, i64), String> {
    let (k, val) = v.split_once('=').ok_or("--set takes NAME=VALUE")?;
    let val = val
        .parse()
        .map_err(|_| format!("`{val}` is not an integer"))?;
    Ok((k.to_string(), val))
}

/// The kernel's default configuration with `sets` applied.
pub fn config_with(def: &KernelDef, sets: &[(String, i64)]) -> Result<Config, String> {
    let mut cfg = def.default_config();
    for (k, v) in sets {
        if !cfg.values.contains_key(k) {
            return Err(format!("`{k}` is not a tunable of `{}`", def.name));
        }
        cfg.values.insert(k.clone(), *v);
    }
    Ok(cfg)
}

/// `BM=128 BN=128 …` in declaration order.
pub fn config_text(def: &KernelDef, cfg: &Config) -> String {
    def.tunables
        .iter()
        .map(|t| format!("{}={}", t.name, cfg.get(t.name).unwrap_or(t.default)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Median of the rounds' medians; min and max over all rounds.
pub fn combine(rounds: &[Timing], flops: Option<f64>) -> Timing {
    let mut med: Vec<f64> = rounds.iter().map(|t| t.median_ms).collect();
    med.sort_by(|a, b| a.total_cmp(b));
    let median_ms = med[med.len() / 2];
    Timing {
        median_ms,
        min_ms: rounds
            .iter()
            .map(|t| t.min_ms)
            .fold(f64::INFINITY, f64::min),
        max_ms: rounds.iter().map(|t| t.max_ms).fold(0.0, f64::max),
        mean_ms: rounds.iter().map(|t| t.mean_ms).sum::<f64>() / rounds.len() as f64,
        runs: rounds.iter().map(|t| t.runs).sum(),
        tflops: flops.map(|f| f / (median_ms * 1e-3) / 1e12),
    }
}

/// The first line of a message.
pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

/// Writes `target/tessel/<example>/<kernel>.cu` for `cfg`; returns the path.
pub fn write_cuda(p: &Prepared, example: &str, cfg: &Config) -> Result<std::path::PathBuf, String> {
    let dir = crate::out::example_dir(example);
    let path = dir.join(format!("{}.cu", p.def.name));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(&path, p.instantiated_cuda(cfg))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// No GPU: compile the instance with NVRTC when possible, then one sentence.
pub fn no_gpu(p: &Prepared, cfg: &Config, why: &str) -> String {
    let arch = match p.kernel.path {
        dsl_core::lower::KernelPath::Hopper => Arch::Sm90a,
        dsl_core::lower::KernelPath::Simt => Arch::Sm80,
    };
    let expr = p.kernel.name_expression(&p.template_values(cfg));
    let req = CompileRequest::new(p.cuda.clone(), arch).name_expression(&expr);
    let compiled = match module_cache().get_or_compile(&req) {
        Ok(_) => format!("compiled `{expr}` for {} with NVRTC", arch.as_str()),
        Err(e) => format!("did not compile it ({})", first_line(&e.to_string())),
    };
    format!("no GPU to run on ({why}); wrote the .cu and {compiled}.")
}
