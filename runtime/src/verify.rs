//! Comparing a kernel's output with a reference, on the host, in f64.
//!
//! A [`Verification`] records:
//! * the relative Frobenius error `‖out − ref‖ / ‖ref‖` over the elements where both are finite
//!   (`‖out − ref‖` alone when `‖ref‖ = 0`);
//! * `poisoned`: output elements still holding the poison bits (never written, see
//!   [`crate::dtype`]); `nans` / `infs`: other non-finite outputs; `ref_nonfinite`;
//! * the largest absolute difference and its flat index.
//!
//! It passes when nothing is poisoned or non-finite and the relative error is within the
//! tolerance.
//!
//! **Tolerances** ([`gemm_tolerance`]): `max(2·u_out + u_acc·√K, floor)`, with `u` the unit
//! roundoff (f16 2^-11, bf16 2^-8, f32 2^-24) and floor 1e-5 for f32 outputs, else 0.
//! `2·u_out` covers the final rounding of both the kernel and the reference; `u_acc·√K` the
//! random-walk growth of accumulation error over K terms in the accumulator's precision.
//!
//! | inputs → output, accumulator | K = 512 | K = 4096 | K = 8192 |
//! |---|---|---|---|
//! | f16 → f16, f32 acc | 9.8e-4 | 9.8e-4 | 9.8e-4 |
//! | bf16 → bf16, f32 acc | 7.8e-3 | 7.8e-3 | 7.8e-3 |
//! | f16 → f16, f16 acc | 1.2e-2 | 3.2e-2 | 4.5e-2 |
//! | f32 → f32, f32 acc | 1e-5 | 1e-5 | 1e-5 |
//! | e4m3/e5m2 → f16, f32 acc | 2.4e-3 | 4.9e-3 | 6.5e-3 |
//! | e4m3/e5m2 → f16, f16 acc | 1.1e-2 | 3.1e-2 | 4.5e-2 |
//! | s8 → s32, s32 acc | 0 (exact) | 0 | 0 |
//!
//! **8-bit inputs.** Both sides read the same fp8 codes and an fp8 × fp8 product is exact in
//! f32 (4 + 4 significand bits), so the input rounding does not enter. What differs is the
//! accumulation: Hopper's fp8 tensor cores add the products of one wgmma in an internal
//! accumulator of about 14 bits before the sum lands in the f32 registers (measured by
//! DeepGEMM, which is why it promotes partial sums to f32 every few k-steps), while cuBLASLt's
//! fp8 kernels promote. So for 8-bit float inputs with an f32 accumulator the model takes
//! `u_acc = 2^-14` instead of f32's 2^-24: the random-walk bound `u_acc·√K` of a 14-bit sum.
//! An s8 GEMM is exact in s32 (|sum| ≤ K·127² < 2^31 for K < 133 000) on both sides, so its
//! tolerance is 0: any difference is a bug.
//!
//! These are loose enough for any correct summation order and tight enough for real bugs: a
//! wrong layout, a missing tile or a stale accumulator gives errors of order 0.1–1, and unwritten
//! elements are caught exactly by the poison count.

use std::fmt;

use crate::dtype::{DType, Element};

/// Relative Frobenius tolerance for a GEMM (see the module doc).
pub fn gemm_tolerance(input: DType, accumulate: DType, output: DType, k: usize) -> f64 {
    // fp8 tensor cores sum each wgmma's products in about 14 bits (see the module doc).
    let fp8 = matches!(input, DType::F8E4M3 | DType::F8E5M2);
    let u_acc = if fp8 {
        accumulate.unit_roundoff().max(2f64.powi(-14))
    } else {
        accumulate.unit_roundoff()
    };
    let model = 2.0 * output.unit_roundoff() + u_acc * (k as f64).sqrt();
    let floor = if output == DType::F32 { 1e-5 } else { 0.0 };
    model.max(floor)
}

/// [`gemm_tolerance`] for f32 operands multiplied on tensor cores as tf32 (10-bit mantissa,
/// unit roundoff u = 2⁻¹¹) against a reference that keeps them f32: each product carries the
/// rounding of both operands, a relative error of at most 2u with a random sign, so the
/// norm-wise error of the sums is about 2u whatever K is (numerator and norm both grow as √K);
/// twice that bounds it.
pub fn tf32_gemm_tolerance(accumulate: DType, output: DType, k: usize) -> f64 {
    gemm_tolerance(DType::F32, accumulate, output, k) + 4.0 * 2f64.powi(-11)
}

/// The result of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Verification {
    /// Elements compared.
    pub elements: usize,
    /// `‖out − ref‖ / ‖ref‖` over finite pairs.
    pub rel_error: f64,
    /// The tolerance used.
    pub tolerance: f64,
    /// Largest `|out − ref|` over finite pairs.
    pub max_abs_error: f64,
    /// Flat index of that element.
    pub max_abs_index: usize,
    /// Outputs still poisoned (never written).
    pub poisoned: usize,
    /// Outputs that are NaN but not poison.
    pub nans: usize,
    /// Outputs that are ±inf.
    pub infs: usize,
    /// Reference elements that are not finite.
    pub ref_nonfinite: usize,
    /// Flat index of the first poisoned element, if any.
    pub first_poisoned: Option<usize>,
}

impl Verification {
    /// True when every element was written, all are finite and the error is within tolerance.
    pub fn passed(&self) -> bool {
        self.poisoned == 0
            && self.nans == 0
            && self.infs == 0
            && self.ref_nonfinite == 0
            && self.rel_error <= self.tolerance
    }
}

impl fmt::Display for Verification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: rel_err {:.3e} (tol {:.1e}), max_abs_err {:.3e} at [{}], poisoned {}/{}",
            if self.passed() { "PASS" } else { "FAIL" },
            self.rel_error,
            self.tolerance,
            self.max_abs_error,
            self.max_abs_index,
            self.poisoned,
            self.elements
        )?;
        if let Some(i) = self.first_poisoned {
            write!(f, " (first at [{i}])")?;
        }
        write!(f, ", NaN {}, Inf {}", self.nans, self.infs)?;
        if self.ref_nonfinite > 0 {
            write!(f, ", non-finite reference {}", self.ref_nonfinite)?;
        }
        Ok(())
    }
}

/// Verification errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// Output and reference differ in length.
    #[error("output has {out} elements but the reference has {reference}")]
    LengthMismatch {
        /// Output length.
        out: usize,
        /// Reference length.
        reference: usize,
    },
}

/// Compares `out` with a reference of any element type.
pub fn verify<T: Element, R: Element>(
    out: &[T],
    reference: &[R],
    tolerance: f64,
) -> Result<Verification, VerifyError> {
    let refs: Vec<f64> = reference.iter().map(|v| v.to_f64()).collect();
    verify_f64(out, &refs, tolerance)
}

/// Compares `out` with an f64 reference (e.g. [`host_gemm_nt`]).
pub fn verify_f64<T: Element>(
    out: &[T],
    reference: &[f64],
    tolerance: f64,
) -> Result<Verification, VerifyError> {
    if out.len() != reference.len() {
        return Err(VerifyError::LengthMismatch {
            out: out.len(),
            reference: reference.len(),
        });
    }
    let mut v = Verification {
        elements: out.len(),
        rel_error: 0.0,
        tolerance,
        max_abs_error: 0.0,
        max_abs_index: 0,
        poisoned: 0,
        nans: 0,
        infs: 0,
        ref_nonfinite: 0,
        first_poisoned: None,
    };
    let (mut diff2, mut ref2) = (0.0f64, 0.0f64);
    for (i, (o, &r)) in out.iter().zip(reference).enumerate() {
        let x = o.to_f64();
        if o.is_poison() {
            v.poisoned += 1;
            v.first_poisoned.get_or_insert(i);
            continue;
        }
        if x.is_nan() {
            v.nans += 1;
            continue;
        }
        if x.is_infinite() {
            v.infs += 1;
            continue;
        }
        if !r.is_finite() {
            v.ref_nonfinite += 1;
            continue;
        }
        let d = (x - r).abs();
        diff2 += d * d;
        ref2 += r * r;
        if d > v.max_abs_error {
            v.max_abs_error = d;
            v.max_abs_index = i;
        }
    }
    v.rel_error = if ref2 > 0.0 {
        (diff2 / ref2).sqrt()
    } else {
        diff2.sqrt()
    };
    Ok(v)
}

/// Host reference `out[M,N] = lhs[M,K] · rhs[N,K]^T` in f64 (for small problems and tests).
pub fn host_gemm_nt<T: Element>(lhs: &[T], rhs: &[T], m: usize, n: usize, k: usize) -> Vec<f64> {
    let l: Vec<f64> = lhs.iter().map(|v| v.to_f64()).collect();
    let r: Vec<f64> = rhs.iter().map(|v| v.to_f64()).collect();
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|p| l[i * k + p] * r[j * k + p]).sum();
        }
    }
    out
}

/// Host reference `c[M,N] = a[M,K] · b[K,N]` in f64.
pub fn host_gemm_nn<T: Element>(a: &[T], b: &[T], m: usize, n: usize, k: usize) -> Vec<f64> {
    let a: Vec<f64> = a.iter().map(|v| v.to_f64()).collect();
    let b: Vec<f64> = b.iter().map(|v| v.to_f64()).collect();
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j];
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::{E4M3, host_random};
    use half::f16;

    #[test]
    fn exact_match_passes_with_zero_error() {
        let a = host_random::<f32>(100, 1);
        let v = verify(&a, &a, 1e-6).unwrap();
        assert_eq!(v.rel_error, 0.0);
        assert!(v.passed());
        assert!(v.to_string().starts_with("PASS"));
    }

    #[test]
    fn relative_frobenius_error_is_computed_in_f64() {
        // out = ref + 0.01 on each of 4 elements of value 1: ‖d‖ = 0.02, ‖ref‖ = 2.
        let reference = [1.0f64; 4];
        let out = [1.01f32; 4];
        let v = verify_f64(&out, &reference, 1e-3).unwrap();
        assert!((v.rel_error - 0.01).abs() < 1e-6, "{}", v.rel_error);
        assert!(!v.passed());
        assert!((v.max_abs_error - 0.01).abs() < 1e-6);
        // Zero reference: absolute norm.
        let v = verify_f64(&[0.5f32, 0.0], &[0.0, 0.0], 1.0).unwrap();
        assert!((v.rel_error - 0.5).abs() < 1e-12);
    }

    #[test]
    fn counts_poison_nan_inf_separately() {
        let mut out = host_random::<f16>(10, 3);
        let reference: Vec<f64> = out.iter().map(|v| v.to_f64()).collect();
        out[2] = f16::poison();
        out[7] = f16::poison();
        out[4] = f16::from_bits(0x7FFF); // a computed NaN
        out[5] = f16::INFINITY;
        let v = verify_f64(&out, &reference, 1e-3).unwrap();
        assert_eq!((v.poisoned, v.nans, v.infs), (2, 1, 1));
        assert_eq!(v.first_poisoned, Some(2));
        assert_eq!(v.rel_error, 0.0, "finite elements still match");
        assert!(!v.passed());
        let s = v.to_string();
        assert!(
            s.starts_with("FAIL") && s.contains("poisoned 2/10 (first at [2])"),
            "{s}"
        );
    }

    #[test]
    fn length_mismatch_is_an_error() {
        assert_eq!(
            verify_f64(&[1.0f32], &[1.0, 2.0], 1e-3),
            Err(VerifyError::LengthMismatch {
                out: 1,
                reference: 2
            })
        );
    }

    #[test]
    fn tolerances_follow_the_documented_table() {
        use DType::*;
        let t = |i, a, o, k| gemm_tolerance(i, a, o, k);
        assert!((t(F16, F32, F16, 4096) - 9.77e-4).abs() < 1e-5);
        assert!((t(BF16, F32, BF16, 4096) - 7.81e-3).abs() < 1e-4);
        assert!((t(F16, F16, F16, 4096) - 3.22e-2).abs() < 1e-3);
        assert!((t(F16, F16, F16, 8192) - 4.5e-2).abs() < 1e-3);
        assert_eq!(t(F32, F32, F32, 4096), 1e-5);
        assert!(t(F16, F16, F16, 512) > t(F16, F32, F16, 512));
        assert!((t(F8E4M3, F32, F16, 512) - 2.36e-3).abs() < 1e-4);
        assert!((t(F8E4M3, F32, F16, 4096) - 4.88e-3).abs() < 1e-4);
        assert!((t(F8E5M2, F32, F16, 8192) - 6.5e-3).abs() < 1e-4);
        assert!((t(F8E4M3, F16, F16, 4096) - 3.22e-2).abs() < 1e-3);
        assert_eq!(t(S8, S32, S32, 8192), 0.0);
    }

    #[test]
    fn fp8_accumulation_error_is_within_tolerance_and_a_dropped_k_step_is_not() {
        // The kernel's sum: each 32-term k-step added in a 14-bit accumulator (products
        // rounded to 14 significant bits as they are summed), then into f32; the reference
        // exact. Output f16.
        let (m, n, k) = (8, 16, 4096);
        let lhs: Vec<f64> = E4M3
            .host_random(m * k, 1)
            .into_iter()
            .map(|c| E4M3.decode(c))
            .collect();
        let rhs: Vec<f64> = E4M3
            .host_random(n * k, 2)
            .into_iter()
            .map(|c| E4M3.decode(c))
            .collect();
        let r14 = |x: f64| {
            if x == 0.0 {
                return 0.0;
            }
            let e = x.abs().log2().floor() as i32 - 13;
            (x / 2f64.powi(e)).round() * 2f64.powi(e)
        };
        let tol = gemm_tolerance(DType::F8E4M3, DType::F32, DType::F16, k);
        let run = |steps: usize| -> (Vec<f16>, Vec<f64>) {
            let mut out = Vec::new();
            let mut exact = Vec::new();
            for i in 0..m {
                for j in 0..n {
                    let dot = |p: usize| lhs[i * k + p] * rhs[j * k + p];
                    let mut acc = 0f32;
                    for s in 0..steps {
                        let part = (s * 32..s * 32 + 32).fold(0.0, |a, p| r14(a + dot(p)));
                        acc += part as f32;
                    }
                    out.push(f16::from_f64(f64::from(acc)));
                    exact.push((0..k).map(dot).sum());
                }
            }
            (out, exact)
        };
        let (out, exact) = run(k / 32);
        let v = verify_f64(&out, &exact, tol).unwrap();
        assert!(v.passed(), "{v}");
        let (short, _) = run(k / 32 - 1);
        let v = verify_f64(&short, &exact, tol).unwrap();
        assert!(!v.passed(), "a dropped k-step must fail: {v}");
    }

    #[test]
    fn f16_rounding_of_an_exact_gemm_is_within_tolerance_and_a_bug_is_not() {
        let (m, n, k) = (16, 24, 64);
        let lhs = host_random::<f16>(m * k, 1);
        let rhs = host_random::<f16>(n * k, 2);
        let exact = host_gemm_nt(&lhs, &rhs, m, n, k);
        let rounded: Vec<f16> = exact.iter().map(|&x| f16::from_f64(x)).collect();
        let tol = gemm_tolerance(DType::F16, DType::F32, DType::F16, k);
        let v = verify_f64(&rounded, &exact, tol).unwrap();
        assert!(v.passed(), "{v}");
        // A dropped k-block (last 16 of 64 terms) must fail.
        let buggy: Vec<f16> = (0..m * n)
            .map(|idx| {
                let (i, j) = (idx / n, idx % n);
                let s: f64 = (0..48)
                    .map(|p| lhs[i * k + p].to_f64() * rhs[j * k + p].to_f64())
                    .sum();
                f16::from_f64(s)
            })
            .collect();
        assert!(!verify_f64(&buggy, &exact, tol).unwrap().passed());
    }

    #[test]
    fn host_gemms_agree() {
        // nt with rhs = b^T equals nn with b.
        let (m, n, k) = (3, 4, 5);
        let a = host_random::<f32>(m * k, 1);
        let b = host_random::<f32>(k * n, 2);
        let bt: Vec<f32> = (0..n * k).map(|i| b[(i % k) * n + i / k]).collect();
        let nn = host_gemm_nn(&a, &b, m, n, k);
        let nt = host_gemm_nt(&a, &bt, m, n, k);
        for (x, y) in nn.iter().zip(&nt) {
            assert!((x - y).abs() < 1e-12);
        }
    }
}
