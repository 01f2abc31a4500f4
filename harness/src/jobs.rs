//! The tuned examples' sweeps as jobs of the one tuner ([`tessel_runtime::tune::Tuner::job`]):
//! each SGEMM rung and GEMV kernel becomes a [`Job`] with its reference (cuBLAS NN for the
//! f32 GEMMs, a CPU f64 GEMV for the GEMVs), swept with the local strategy (an even stride,
//! then the neighbors of the fastest) in fault-isolated workers, cached in the tune cache under
//! the key a launch derives from its tensors.
//!
//! A program that tunes these jobs calls [`serve`] first thing in `main`: a copy of it
//! re-launched as a worker serves the trials there and exits.

use std::sync::Arc;

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};
use dsl_core::ir;
use tessel_runtime::dtype::DType;
use tessel_runtime::tune::job::{
    Fill, GemmLayout, HostTensor, Job, JobBuilder, Reference, parse_key,
};
use tessel_runtime::tune::{self, Budget, Strategy, TuneError, TuneOptions, TuneSource, Tuner};

/// The job name of an SGEMM rung.
fn sgemm_name(def: &KernelDef) -> String {
    format!("sgemm:{}", def.name)
}

/// The job name of a GEMV kernel in a dtype.
fn gemv_name(def: &KernelDef, dtype: DType) -> String {
    format!("gemv:{}:{dtype}", def.name)
}

/// f32 `c[M,N] = a[M,K] · b[K,N]` with kernel `def`, key `K=… M=… N=…`, against cuBLAS NN.
pub fn sgemm_job(def: &'static KernelDef, key: &str) -> Result<Job, String> {
    let d = parse_key(key)?;
    let get = |n: &str| d.get(n).copied().ok_or(format!("key `{key}` lacks {n}"));
    let (m, n, k) = (get("M")?, get("N")?, get("K")?);
    // f32 sums of k products of values in [-1, 1]: a few ulps of √k-sized partial sums per
    // step, in whatever order the kernel adds them.
    let atol = k as f64 * (k as f64).sqrt() * DType::F32.unit_roundoff();
    Ok(Job::new(&sgemm_name(def), def, key)
        .input(&[m, k], DType::F32, Fill::Random { seed: 1 })
        .input(&[k, n], DType::F32, Fill::Random { seed: 2 })
        .output(&[m, n], DType::F32)
        .reference(Reference::Cublas(GemmLayout::Nn))
        .tolerance(atol, 1e-5)
        .flops(2.0 * (m * n * k) as f64))
}

/// `y[N] = W[N,K] · x[K]` with kernel `def` in `dtype` (f32 accumulation), key `K=… N=…`,
/// against a CPU f64 GEMV of the same (rounded) inputs.
pub fn gemv_job(def: &'static KernelDef, dtype: DType, key: &str) -> Result<Job, String> {
    let d = parse_key(key)?;
    let get = |n: &str| d.get(n).copied().ok_or(format!("key `{key}` lacks {n}"));
    let (n, k) = (get("N")?, get("K")?);
    let variant = match dtype {
        DType::BF16 => Variant {
            input: Some(ir::DType::BF16),
            acc: None,
        },
        _ => Variant::default(),
    };
    Ok(Job::new(&gemv_name(def, dtype), def, key)
        .variant(variant)
        .input(&[n, k], dtype, Fill::Random { seed: 11 })
        .input(&[k], dtype, Fill::Random { seed: 12 })
        .output(&[n], dtype)
        .reference(Reference::Host(Arc::new(move |t: &[HostTensor]| {
            let (w, x) = (&t[0].data, &t[1].data);
            (0..n)
                .map(|i| {
                    w[i * k..(i + 1) * k]
                        .iter()
                        .zip(x)
                        .map(|(a, b)| a * b)
                        .sum()
                })
                .collect()
        })))
        // The output is rounded to `dtype`: one of its ulps, relative; a little absolute
        // slack for outputs near zero.
        .tolerance(1e-3, 2.0 * dtype.unit_roundoff())
        .flops(2.0 * (n * k) as f64))
}

/// In a worker process: serves trials of the DSL `sources` (the GEMM tuner's) and of the
/// SGEMM and GEMV jobs of these kernels, then exits. Otherwise returns at once.
pub fn serve(sources: &[TuneSource], sgemm: &[&'static KernelDef], gemv: &[&'static KernelDef]) {
    let mut builders: Vec<(String, Box<JobBuilder>)> = Vec::new();
    for &def in sgemm {
        builders.push((sgemm_name(def), Box::new(move |key| sgemm_job(def, key))));
    }
    for &def in gemv {
        for dtype in [DType::F16, DType::BF16] {
            builders.push((
                gemv_name(def, dtype),
                Box::new(move |key| gemv_job(def, dtype, key)),
            ));
        }
    }
    let refs: Vec<(&str, &JobBuilder)> = builders
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_ref()))
        .collect();
    tune::worker_main(sources, &refs);
}

/// Sets a job's key to the one a launch derives from its tensors (`K=… M=… N=…`).
pub fn keyed(build: impl Fn(&str) -> Result<Job, String>, dims: &str) -> Result<Job, String> {
    let key = build(dims)?.dims_key()?;
    build(&key)
}

/// Tunes `job` with the local strategy and at most `budget` configs (the cached winner when
/// the same sweep already ran); prints the top of the table. Returns the winner (if any
/// config verified) and whether it came from the cache.
pub fn tune_job(job: Job, budget: usize) -> Result<Option<(Config, bool)>, String> {
    let name = job.name.clone();
    let opts = TuneOptions {
        strategy: Strategy::Local,
        budget: Some(Budget::Count(budget.max(1))),
        progress: Some(crate::progress::stderr()),
        ..TuneOptions::default()
    };
    let out = Tuner::job(job, opts)
        .and_then(|t| t.run())
        .map_err(|e| match e {
            TuneError::NoGpu(m) => format!("no GPU to run on ({m})"),
            other => other.to_string(),
        })?;
    println!(
        "sweep    {name} [{}]: {} legal, {} trials{}; cache {}",
        out.problem,
        out.filter.legal,
        out.trials.len(),
        if out.from_cache {
            " (answered from the cache)"
        } else {
            ""
        },
        out.cache_path.display()
    );
    print!("{}", out.table(5));
    for w in &out.warnings {
        eprintln!("sweep    warning: {w}");
    }
    Ok(out.winner.map(|w| {
        (
            Config {
                values: w.config.clone(),
            },
            out.from_cache,
        )
    }))
}
