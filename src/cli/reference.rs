//! The reference `tessel run` checks a kernel against, read from its signature: two inputs and
//! an output (the last parameter) whose dimension names describe a contraction
//! `out[…] = Σ a[…] · b[…]` over the dimensions the output lacks — a GEMM in any layout, a
//! GEMV, a batched product. Row-major GEMMs in the NT and NN layouts go to cuBLAS (full output,
//! and a timing to compare with); every other contraction is recomputed in f64 on the host at
//! sampled outputs.

use std::collections::BTreeMap;

/// A contraction over named dimensions, row-major tensors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contraction {
    /// Dimensions of the first input, outermost first.
    pub a: Vec<String>,
    /// Dimensions of the second input.
    pub b: Vec<String>,
    /// Dimensions of the output.
    pub out: Vec<String>,
    /// Dimensions summed over: in an input, not in the output.
    pub summed: Vec<String>,
    /// Every dimension's size.
    pub sizes: BTreeMap<String, usize>,
}

/// Which cuBLAS call computes a contraction, when one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmLayout {
    /// `out[M,N] = a[M,K] · b[N,K]ᵀ`.
    Nt,
    /// `out[M,N] = a[M,K] · b[K,N]`.
    Nn,
}

impl Contraction {
    /// The contraction these dimension lists describe, or why they describe none.
    pub fn new(
        a: &[String],
        b: &[String],
        out: &[String],
        sizes: &BTreeMap<String, usize>,
    ) -> Result<Contraction, String> {
        for (what, dims) in [("first input", a), ("second input", b), ("output", out)] {
            for (i, d) in dims.iter().enumerate() {
                if dims[..i].contains(d) {
                    return Err(format!("the {what} repeats dimension `{d}`"));
                }
                if !sizes.contains_key(d) {
                    return Err(format!("dimension `{d}` of the {what} has no size"));
                }
            }
        }
        if let Some(d) = out.iter().find(|d| !a.contains(d) && !b.contains(d)) {
            return Err(format!(
                "output dimension `{d}` appears in neither input, so the output is not a contraction of them"
            ));
        }
        let mut summed: Vec<String> = Vec::new();
        for d in a.iter().chain(b) {
            if !out.contains(d) && !summed.contains(d) {
                summed.push(d.clone());
            }
        }
        let sizes = out
            .iter()
            .chain(&summed)
            .map(|d| (d.clone(), sizes[d]))
            .collect();
        Ok(Contraction {
            a: a.to_vec(),
            b: b.to_vec(),
            out: out.to_vec(),
            summed,
            sizes,
        })
    }

    /// Elements of the output.
    pub fn out_len(&self) -> usize {
        self.out.iter().map(|d| self.sizes[d]).product()
    }

    /// Terms summed per output (`K` for a GEMM).
    pub fn depth(&self) -> usize {
        self.summed.iter().map(|d| self.sizes[d]).product()
    }

    /// `2 ·` output elements `·` depth: a multiply and an add per term.
    pub fn flops(&self) -> f64 {
        2.0 * self.out_len() as f64 * self.depth() as f64
    }

    /// The cuBLAS layout, for a row-major GEMM that cuBLAS computes as is.
    pub fn gemm_layout(&self) -> Option<GemmLayout> {
        let [m, n] = self.out.as_slice() else {
            return None;
        };
        let [k] = self.summed.as_slice() else {
            return None;
        };
        if self.a != [m.clone(), k.clone()] {
            return None;
        }
        if self.b == [n.clone(), k.clone()] {
            Some(GemmLayout::Nt)
        } else if self.b == [k.clone(), n.clone()] {
            Some(GemmLayout::Nn)
        } else {
            None
        }
    }

    /// For a tensor with dimensions `dims` (row-major): the offset of the output point `out`
    /// (coordinates in `self.out` order), and the stride of each summed dimension (0 when the
    /// tensor lacks it).
    fn offsets(&self, dims: &[String], out: &[usize]) -> (usize, Vec<usize>) {
        let mut stride = 1;
        let mut base = 0;
        let mut summed = vec![0; self.summed.len()];
        for d in dims.iter().rev() {
            if let Some(i) = self.out.iter().position(|o| o == d) {
                base += stride * out[i];
            } else if let Some(j) = self.summed.iter().position(|x| x == d) {
                summed[j] = stride;
            }
            stride *= self.sizes[d];
        }
        (base, summed)
    }

    /// The output at flat index `index`, in f64, from the inputs in f64.
    pub fn at(&self, a: &[f64], b: &[f64], index: usize) -> f64 {
        let mut point = vec![0; self.out.len()];
        let mut rest = index;
        for (i, d) in self.out.iter().enumerate().rev() {
            point[i] = rest % self.sizes[d];
            rest /= self.sizes[d];
        }
        let (mut ao, a_step) = self.offsets(&self.a, &point);
        let (mut bo, b_step) = self.offsets(&self.b, &point);
        let extents: Vec<usize> = self.summed.iter().map(|d| self.sizes[d]).collect();
        let mut at = vec![0; extents.len()];
        let mut sum = 0.0;
        for _ in 0..self.depth() {
            sum += a[ao] * b[bo];
            // The next summed point, the last dimension fastest.
            for j in (0..extents.len()).rev() {
                at[j] += 1;
                ao += a_step[j];
                bo += b_step[j];
                if at[j] < extents[j] {
                    break;
                }
                ao -= a_step[j] * extents[j];
                bo -= b_step[j] * extents[j];
                at[j] = 0;
            }
        }
        sum
    }

    /// Up to `max` output indices, all of them when there are no more, else a deterministic
    /// sample that includes the first and last.
    pub fn sample(&self, max: usize, seed: u64) -> Vec<usize> {
        let len = self.out_len();
        if len <= max {
            return (0..len).collect();
        }
        let mut rng = tessel_runtime::dtype::SplitMix64::new(seed);
        let mut v: Vec<usize> = (0..max.saturating_sub(2))
            .map(|_| (rng.next_u64() % len as u64) as usize)
            .collect();
        v.push(0);
        v.push(len - 1);
        v.sort_unstable();
        v.dedup();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn sizes(v: &[(&str, usize)]) -> BTreeMap<String, usize> {
        v.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    }

    #[test]
    fn gemm_layouts_are_recognized() {
        let sz = sizes(&[("M", 3), ("N", 4), ("K", 5)]);
        let c = |a: &[&str], b: &[&str]| Contraction::new(&s(a), &s(b), &s(&["M", "N"]), &sz);
        assert_eq!(
            c(&["M", "K"], &["N", "K"]).unwrap().gemm_layout(),
            Some(GemmLayout::Nt)
        );
        assert_eq!(
            c(&["M", "K"], &["K", "N"]).unwrap().gemm_layout(),
            Some(GemmLayout::Nn)
        );
        let tn = c(&["K", "M"], &["K", "N"]).unwrap();
        assert_eq!(tn.gemm_layout(), None);
        assert_eq!(tn.summed, s(&["K"]));
        assert_eq!(tn.flops(), 2.0 * 3.0 * 4.0 * 5.0);
    }

    #[test]
    fn values_match_a_hand_computed_product() {
        // a[K=2, M=2] (transposed), b[K=2, N=3]: out[m, n] = Σ_k a[k, m] · b[k, n].
        let sz = sizes(&[("M", 2), ("N", 3), ("K", 2)]);
        let c = Contraction::new(&s(&["K", "M"]), &s(&["K", "N"]), &s(&["M", "N"]), &sz).unwrap();
        let a = [1.0, 2.0, 3.0, 4.0]; // k0: m0=1 m1=2; k1: m0=3 m1=4
        let b = [1.0, 10.0, 100.0, 2.0, 20.0, 200.0];
        let got: Vec<f64> = (0..6).map(|i| c.at(&a, &b, i)).collect();
        assert_eq!(got, [7.0, 70.0, 700.0, 10.0, 100.0, 1000.0]);
        // A GEMV: y[M] = A[M, K] · x[K].
        let sz = sizes(&[("M", 2), ("K", 3)]);
        let g = Contraction::new(&s(&["M", "K"]), &s(&["K"]), &s(&["M"]), &sz).unwrap();
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(
            [g.at(&a, &[1.0, 1.0, 2.0], 0), g.at(&a, &[1.0, 1.0, 2.0], 1)],
            [9.0, 21.0]
        );
        assert_eq!(g.gemm_layout(), None);
    }

    #[test]
    fn two_summed_dimensions_match_a_direct_sum() {
        // out[M] = Σ_{K, J} a[K, M, J] · b[J, K]
        let sz = sizes(&[("M", 3), ("K", 4), ("J", 5)]);
        let c = Contraction::new(&s(&["K", "M", "J"]), &s(&["J", "K"]), &s(&["M"]), &sz).unwrap();
        assert_eq!(c.summed, s(&["K", "J"]));
        let a: Vec<f64> = (0..60).map(|x| (x as f64).sin()).collect();
        let b: Vec<f64> = (0..20).map(|x| (x as f64).cos()).collect();
        for m in 0..3 {
            let mut want = 0.0;
            for k in 0..4 {
                for j in 0..5 {
                    want += a[(k * 3 + m) * 5 + j] * b[j * 4 + k];
                }
            }
            assert!((c.at(&a, &b, m) - want).abs() < 1e-12, "m={m}");
        }
    }

    #[test]
    fn signatures_that_are_not_contractions_are_refused() {
        let sz = sizes(&[("M", 2), ("N", 3), ("K", 2)]);
        let e = Contraction::new(&s(&["M", "K"]), &s(&["K"]), &s(&["M", "N"]), &sz).unwrap_err();
        assert!(e.contains("`N` appears in neither input"), "{e}");
        let e = Contraction::new(&s(&["M", "M"]), &s(&["K"]), &s(&["M"]), &sz).unwrap_err();
        assert!(e.contains("repeats dimension `M`"), "{e}");
        let e = Contraction::new(&s(&["M", "Q"]), &s(&["Q"]), &s(&["M"]), &sz).unwrap_err();
        assert!(e.contains("`Q` of the first input has no size"), "{e}");
    }

    #[test]
    fn samples_are_all_outputs_or_a_spread() {
        let sz = sizes(&[("M", 100), ("N", 100), ("K", 1)]);
        let c = Contraction::new(&s(&["M", "K"]), &s(&["N", "K"]), &s(&["M", "N"]), &sz).unwrap();
        assert_eq!(c.sample(20_000, 1).len(), 10_000);
        let v = c.sample(64, 1);
        assert!(v.len() <= 64 && v.len() > 32);
        assert_eq!((v[0], *v.last().unwrap()), (0, 9_999));
    }
}
