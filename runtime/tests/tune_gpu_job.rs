//! The general tuner's worker side on a real GPU: a job's tensors, each kind of reference (CPU
//! function, closure over device tensors, cuBLAS in the NN layout), a trial that verifies and
//! times, a trial against a wrong reference that fails, and the re-check after the timing
//! rounds.
//!
//! Without a GPU every test prints `SKIPPED: no GPU` and passes; `TESSEL_REQUIRE_GPU=1` makes a
//! missing GPU a failure. Run on a GPU machine:
//! `TESSEL_REQUIRE_GPU=1 cargo test --release -p tessel-runtime --test tune_gpu_job`.

use std::sync::Arc;

use dsl_core::check::Config;
use dsl_core::def::{KernelDef, Variant};
use tessel_runtime::cache::ModuleCache;
use tessel_runtime::device::Device;
use tessel_runtime::dsl::{Instance, Prepared};
use tessel_runtime::dtype::DType;
use tessel_runtime::timing::TimingConfig;
use tessel_runtime::tune::job::{Fill, GemmLayout, HostTensor, Job, Reference};
use tessel_runtime::tune::job_worker::JobSession;
use tessel_runtime::tune::record::{FailureKind, Phase};

static KT_NAIVE: KernelDef = KernelDef {
    name: "kt_naive",
    dsl: include_str!("../../kernels/kt_naive.co"),
    file: Some("kernels/kt_naive.co"),
    cuda: "",
    ir: "",
    params: &[],
    tunables: &[],
};

const M: usize = 128;
const N: usize = 96;
const K: usize = 64;

fn gpu() -> bool {
    let required = std::env::var("TESSEL_REQUIRE_GPU").is_ok_and(|v| v == "1");
    match Device::open(0) {
        Ok(_) => true,
        Err(e) if required => panic!("TESSEL_REQUIRE_GPU=1 but no GPU: {e}"),
        Err(e) => {
            eprintln!("SKIPPED: no GPU ({e})");
            false
        }
    }
}

fn host_gemm(t: &[HostTensor]) -> Vec<f64> {
    let mut c = vec![0.0; M * N];
    for i in 0..M {
        for j in 0..N {
            c[i * N + j] = (0..K)
                .map(|p| t[0].data[i * K + p] * t[1].data[p * N + j])
                .sum();
        }
    }
    c
}

fn job(reference: Reference) -> Job {
    Job::new("kt", &KT_NAIVE, "K=64 M=128 N=96")
        .input(&[M, K], DType::F32, Fill::Random { seed: 1 })
        .input(&[K, N], DType::F32, Fill::Random { seed: 2 })
        .output(&[M, N], DType::F32)
        .reference(reference)
        .tolerance(1e-4, 1e-4)
        .flops(2.0 * (M * N * K) as f64)
}

/// The kernel's own defaults (the hand-written `KernelDef` above lists no tunables; the
/// parsed module has them).
fn defaults() -> Config {
    let p = Prepared::get(&KT_NAIVE, Variant::default()).expect("kt_naive parses");
    Config::defaults(&p.module)
}

fn tc() -> TimingConfig {
    TimingConfig {
        warmup: 1,
        runs: 20,
    }
}

#[test]
fn every_kind_of_reference_verifies_a_correct_kernel() {
    if !gpu() {
        return;
    }
    let device_ref = Reference::Device(Arc::new(|dev, args, reference| {
        // The default config of the same kernel, written into the reference buffer.
        let p = Prepared::get(&KT_NAIVE, Variant::default()).map_err(|e| e.to_string())?;
        let mut t = args.to_vec();
        t[2] = reference.clone();
        let problem = p.bind(&t).map_err(|e| e.to_string())?;
        let cache = ModuleCache::in_memory();
        let inst = Instance::new(dev, &cache, p.clone(), &defaults(), &problem)
            .map_err(|e| e.to_string())?;
        let a = inst.args(&t).map_err(|e| e.to_string())?;
        inst.launch(&a).map_err(|e| e.to_string())
    }));
    for r in [
        Reference::Host(Arc::new(host_gemm)),
        Reference::Cublas(GemmLayout::Nn),
        device_ref,
    ] {
        let what = format!("{r:?}");
        let mut s = JobSession::new(job(r), None, 0).unwrap();
        let cfg: Config = defaults();
        let rec = s.trial(cfg.values.clone(), Phase::Full, &tc(), true);
        assert_eq!(rec.failure, None, "{what}: {:?}", rec.error);
        assert!(rec.verification.as_ref().unwrap().passed, "{what}");
        assert!(rec.median_ms().unwrap() > 0.0, "{what}");
        let (timed, errors) = s.retime(&[cfg.values.clone()], 2, &tc()).unwrap();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(timed.len(), 1);
        assert!(timed[0].2, "{what}: verified again after the rounds");
    }
}

#[test]
fn a_wrong_reference_fails_the_trial() {
    if !gpu() {
        return;
    }
    let zeros = Reference::Host(Arc::new(|_: &[HostTensor]| vec![0.0; M * N]));
    let mut s = JobSession::new(job(zeros), None, 0).unwrap();
    let rec = s.trial(defaults().values, Phase::Full, &tc(), true);
    assert_eq!(
        rec.failure,
        Some(FailureKind::WrongResult),
        "{:?}",
        rec.error
    );
    assert!(rec.time.is_none());
}
