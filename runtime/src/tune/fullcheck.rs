//! Verification of a whole GEMM output against the cuBLAS reference, on all cores.
//!
//! [`RefChunks`] holds the reference (f64, on the host) cut into one chunk per core with each
//! chunk's `‖ref‖²` computed once, so a trial reads the reference once. Each chunk is checked
//! by [`verify_f64`] and the results are merged: counts, the largest error and its index are
//! exact; the relative error is recombined from each chunk's `‖d‖² = rel² · ‖ref‖²`, exact
//! whenever the chunk had no skipped (poisoned / non-finite) element — and any skipped element
//! fails the verification anyway.

use crate::dtype::Element;
use crate::verify::{Verification, verify_f64};

/// The reference, chunked, with per-chunk squared norms.
pub struct RefChunks {
    reference: Vec<f64>,
    chunk: usize,
    norms: Vec<f64>,
}

impl RefChunks {
    /// Chunks for this machine's core count (at least 64 Ki elements each).
    pub fn new(reference: Vec<f64>) -> RefChunks {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::with_threads(reference, threads)
    }

    /// Splits `reference` into chunks checked by `threads` threads.
    pub fn with_threads(reference: Vec<f64>, threads: usize) -> RefChunks {
        let chunk = reference.len().div_ceil(threads.max(1)).max(1 << 16);
        let norms = reference
            .chunks(chunk)
            .map(|r| r.iter().filter(|x| x.is_finite()).map(|x| x * x).sum())
            .collect();
        RefChunks {
            reference,
            chunk,
            norms,
        }
    }

    /// Elements.
    pub fn len(&self) -> usize {
        self.reference.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.reference.is_empty()
    }

    /// Compares `out` with the reference (see the module doc).
    pub fn verify<T: Element>(&self, out: &[T], tolerance: f64) -> Verification {
        if out.len() != self.reference.len() {
            return failed(out.len(), tolerance);
        }
        let parts: Vec<(usize, Option<Verification>, f64)> = std::thread::scope(|s| {
            let handles: Vec<_> = out
                .chunks(self.chunk)
                .zip(self.reference.chunks(self.chunk))
                .zip(&self.norms)
                .enumerate()
                .map(|(i, ((o, r), &n))| {
                    let offset = i * self.chunk;
                    s.spawn(move || (offset, verify_f64(o, r, tolerance).ok(), n))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or((0, None, 0.0)))
                .collect()
        });
        let mut total = failed(0, tolerance);
        total.poisoned = 0;
        let (mut diff2, mut ref2) = (0.0, 0.0);
        for (offset, v, r2) in parts {
            let Some(v) = v else {
                return failed(out.len(), tolerance);
            };
            total.elements += v.elements;
            total.poisoned += v.poisoned;
            total.nans += v.nans;
            total.infs += v.infs;
            total.ref_nonfinite += v.ref_nonfinite;
            if let Some(p) = v.first_poisoned {
                let p = p + offset;
                total.first_poisoned = Some(total.first_poisoned.map_or(p, |q: usize| q.min(p)));
            }
            if v.max_abs_error > total.max_abs_error {
                total.max_abs_error = v.max_abs_error;
                total.max_abs_index = v.max_abs_index + offset;
            }
            let rel2 = v.rel_error * v.rel_error;
            diff2 += if r2 > 0.0 { rel2 * r2 } else { rel2 };
            ref2 += r2;
        }
        total.rel_error = if ref2 > 0.0 {
            (diff2 / ref2).sqrt()
        } else {
            diff2.sqrt()
        };
        total
    }
}

/// A failed verification (every element counted as poisoned).
fn failed(elements: usize, tolerance: f64) -> Verification {
    Verification {
        elements,
        rel_error: f64::INFINITY,
        tolerance,
        max_abs_error: 0.0,
        max_abs_index: 0,
        poisoned: elements,
        nans: 0,
        infs: 0,
        ref_nonfinite: 0,
        first_poisoned: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::host_random;
    use half::f16;

    #[test]
    fn chunked_verification_matches_the_serial_one() {
        let n = (1 << 19) + 77;
        let reference: Vec<f64> = host_random::<f16>(n, 5)
            .iter()
            .map(|v| v.to_f64())
            .collect();
        let mut out: Vec<f16> = reference
            .iter()
            .enumerate()
            .map(|(i, &x)| f16::from_f64(x * (1.0 + 1e-3 * (i % 7) as f64)))
            .collect();
        for threads in [1, 3, 8] {
            let rc = RefChunks::with_threads(reference.clone(), threads);
            let serial = verify_f64(&out, &reference, 1e-2).unwrap();
            let par = rc.verify(&out, 1e-2);
            assert_eq!(par.passed(), serial.passed());
            assert!(
                (par.rel_error - serial.rel_error).abs() <= 1e-9 * serial.rel_error,
                "{threads}: {} vs {}",
                par.rel_error,
                serial.rel_error
            );
            assert_eq!(par.max_abs_index, serial.max_abs_index);
            assert_eq!(par.max_abs_error, serial.max_abs_error);
            assert_eq!(par.elements, n);
        }
        let rc = RefChunks::with_threads(reference.clone(), 4);
        out[300_001] = f16::poison();
        out[n - 1] = f16::INFINITY;
        out[5] = f16::poison();
        let par = rc.verify(&out, 1e-2);
        assert_eq!((par.poisoned, par.infs), (2, 1));
        assert_eq!(par.first_poisoned, Some(5));
        assert!(!par.passed());
        assert!(
            !rc.verify(&out[1..], 1e-2).passed(),
            "length mismatch fails"
        );
    }
}
