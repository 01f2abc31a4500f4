//! The general tuner's [`Job`] for a kernel the GEMM tuner does not take (f32, NN or TN
//! layouts, a GEMV, any contraction `tessel run` verifies): tensors sized from the signature
//! and `--shape`, inputs random as `tessel run` fills them, and the reference `tessel run`
//! uses — cuBLAS for row-major NT / NN GEMMs of one input dtype, else the contraction in f64
//! on the host (every output).

use std::sync::Arc;

use dsl_core::def::KernelDef;
use tessel_runtime::cublas_ref::{GemmCompute, check_types};
use tessel_runtime::dsl::Prepared;
use tessel_runtime::dtype::DType;
use tessel_runtime::tune::job::{Fill, GemmLayout, HostTensor, Job, Reference};

use super::exit;
use super::gpu::ProblemArgs;
use super::reference;
use super::run::signature;
use super::source::{Failure, Loaded};

/// The name `tessel tune` registers its job builder under (its workers rebuild the job from
/// their own command line, which is the parent's).
pub const JOB_NAME: &str = "tessel_tune";

/// The job for the kernel `k` (as `def`) on the problem and dtypes of `problem`, keyed by the
/// problem-size key a launch derives from its tensors.
pub fn build(k: &Loaded, def: &'static KernelDef, problem: &ProblemArgs) -> Result<Job, Failure> {
    let variant = problem.variant();
    let prepared = Prepared::get(def, variant).map_err(|e| Failure::new(exit::FAILED, e))?;
    let sig = signature(k, &prepared, problem)?;
    if let Some((_, name, _)) = sig.scalars.first() {
        return Err(Failure::new(
            exit::RUNTIME,
            format!(
                "tessel tune does not bind scalar parameters yet (`{name}`); `tessel run --scalar {name}=…` runs the kernel"
            ),
        ));
    }
    let c = sig.contraction;
    let last = sig.params.len() - 1;
    let (input, output) = (sig.params[0].1, sig.params[last].1);
    let acc = DType::from_ir(tessel_runtime::tune::target::acc_dtype(&prepared.module))
        .unwrap_or(DType::F32);
    let mut job = Job::new(JOB_NAME, def, "").variant(variant);
    for (i, (_, dtype, shape)) in sig.params.iter().enumerate() {
        job = if i < last {
            job.input(shape, *dtype, Fill::Random { seed: i as u64 + 1 })
        } else {
            job.output(shape, *dtype)
        };
    }
    // cuBLAS accumulates in f32 here, as the job's cuBLAS reference does.
    let cublas = c
        .gemm_layout()
        .filter(|_| sig.params[0].1 == sig.params[1].1)
        .filter(|_| check_types(input, output, GemmCompute::F32).is_ok())
        .map(|l| match l {
            reference::GemmLayout::Nt => GemmLayout::Nt,
            reference::GemmLayout::Nn => GemmLayout::Nn,
        });
    let flops = c.flops();
    let depth = c.depth();
    let reference = match cublas {
        Some(layout) => Reference::Cublas(layout),
        None => Reference::Host(Arc::new(move |t: &[HostTensor]| {
            (0..c.out_len())
                .map(|i| c.at(&t[0].data, &t[1].data, i))
                .collect()
        })),
    };
    // `tessel run`'s tolerance bounds the error relative to the output's norm; the job compares
    // element by element, so the same bound applies relative to each element (rtol) and to the
    // typical magnitude of a sum of `depth` products of values in [-1, 1], √depth / 3 (atol,
    // with headroom for the largest of many elements).
    let tol = tessel_runtime::run::kernel_tolerance(&prepared.module, input, acc, output, depth);
    let mut job = job
        .reference(reference)
        .tolerance(tol * (depth as f64).sqrt(), tol)
        .flops(flops);
    job.key = job.dims_key().map_err(|e| Failure::new(exit::RUNTIME, e))?;
    Ok(job)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::gpu::kernel_def;
    use crate::cli::source::KernelArgs;
    use tessel_runtime::tune::job::Role;

    fn job(file: &str, shape: &[(&str, i64)], dtype: Option<&str>) -> Job {
        let problem = ProblemArgs {
            kernel: KernelArgs {
                file: format!("{}/kernels/{file}", env!("CARGO_MANIFEST_DIR")),
                sets: Vec::new(),
                function: None,
            },
            shape: shape.iter().map(|(d, v)| (d.to_string(), *v)).collect(),
            dtype: dtype.map(|d| dsl_core::ir::DType::from_name(d).unwrap()),
            acc: None,
        };
        let k = Loaded::load(&problem.kernel).unwrap();
        build(&k, kernel_def(&k), &problem).unwrap_or_else(|f| panic!("{}", f.text))
    }

    fn shapes(j: &Job) -> Vec<(Vec<usize>, DType, bool)> {
        j.tensors
            .iter()
            .map(|t| (t.shape.clone(), t.dtype, matches!(t.role, Role::Output)))
            .collect()
    }

    #[test]
    fn an_f32_nn_gemm_is_checked_by_cublas_nn() {
        let j = job(
            "sgemm_k8_warptile.co",
            &[("M", 256), ("N", 128), ("K", 64)],
            None,
        );
        assert_eq!(
            shapes(&j),
            [
                (vec![256, 64], DType::F32, false),
                (vec![64, 128], DType::F32, false),
                (vec![256, 128], DType::F32, true),
            ]
        );
        assert!(matches!(
            j.reference,
            Some(Reference::Cublas(GemmLayout::Nn))
        ));
        assert_eq!(j.key, "K=64 M=256 N=128");
        assert_eq!(j.name, JOB_NAME);
        assert_eq!(j.flops, Some(2.0 * 256.0 * 128.0 * 64.0));
        // f32 out: `tessel run`'s floor of 1e-5.
        assert_eq!(j.rtol, 1e-5);
        assert!(j.validate().is_ok());
    }

    #[test]
    fn a_gemv_is_checked_on_the_host_in_its_dtype_variant() {
        let j = job("gemv_direct.co", &[("N", 8), ("K", 4)], Some("bf16"));
        assert_eq!(
            shapes(&j),
            [
                (vec![8, 4], DType::BF16, false),
                (vec![4], DType::BF16, false),
                (vec![8], DType::BF16, true),
            ]
        );
        assert_eq!(j.key, "K=4 N=8");
        assert_eq!(j.flops, Some(2.0 * 8.0 * 4.0));
        assert!(j.validate().is_ok());
        let Some(Reference::Host(f)) = &j.reference else {
            panic!("{:?}", j.reference);
        };
        let w = HostTensor {
            shape: vec![8, 4],
            data: (0..32).map(|x| x as f64).collect(),
        };
        let x = HostTensor {
            shape: vec![4],
            data: vec![1.0, 0.0, 0.0, 2.0],
        };
        let y = f(&[w, x]);
        let want: Vec<f64> = (0..8)
            .map(|i| (4 * i) as f64 + 2.0 * (4 * i + 3) as f64)
            .collect();
        assert_eq!(y, want);
    }
}
