//! Which reference verifies a kernel, read from its signature: a GEMM in any of the four
//! layouts (cuBLAS on the GPU, or the host in f64), a GEMV (host, f64), an element-wise kernel
//! (host, f64, with the caller's scalar function), or none.
//!
//! [`infer`] looks only at the parameters: their dims as written and which ones the kernel
//! writes. A GEMM writes one 2-D tensor `C[M, N]` and reads two 2-D tensors, `A` holding `M`
//! and `B` holding `N`, which share the remaining dim `K`:
//!
//! | layout | `A` stored | `B` stored | `C = ` |
//! |---|---|---|---|
//! | NN | `[M, K]` | `[K, N]` | `A · B` |
//! | NT | `[M, K]` | `[N, K]` | `A · Bᵀ` (tessel's own: `lhs[M, K]`, `rhs[N, K]`) |
//! | TN | `[K, M]` | `[K, N]` | `Aᵀ · B` |
//! | TT | `[K, M]` | `[N, K]` | `Aᵀ · Bᵀ` |
//!
//! A GEMV writes a 1-D `y[M]` and reads a 2-D `A` and a 1-D `x[K]`: `A[M, K]` is `y = A · x`,
//! `A[K, M]` is `y = Aᵀ · x`. An element-wise kernel has every parameter of one shape.
//! A signature that fits none of these, or fits one in more than one way (a square `[N, N]`
//! operand whose layout cannot be told), is [`Pattern::Unknown`]: no reference is guessed.

use crate::cublas_ref::Op;
use crate::dtype::DType;

pub use crate::cublas_ref::Layout;

/// What [`infer`] needs of one parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSig {
    /// The parameter's name as written in the kernel signature.
    pub name: String,
    /// Its dims as written (`"M"`, `"K"`).
    pub dims: Vec<String>,
    /// Its element type, when the runtime has one for it.
    pub dtype: Option<DType>,
    /// Whether the kernel writes it.
    pub written: bool,
}

/// The computation a signature describes (parameter indices into the signature).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `C[M, N] = op(A) · op(B)`.
    Gemm {
        /// Index of `A`.
        a: usize,
        /// Index of `B`.
        b: usize,
        /// Index of `C`.
        c: usize,
        /// How `A` and `B` are stored.
        layout: Layout,
    },
    /// `y[M] = op(A) · x[K]`.
    Gemv {
        /// Index of `A`.
        a: usize,
        /// Index of `x`.
        x: usize,
        /// Index of `y`.
        y: usize,
        /// `A` stored `[M, K]` (N) or `[K, M]` (T).
        op: Op,
    },
    /// Every parameter has the same shape; one is written.
    Elementwise {
        /// The read parameters, in order.
        inputs: Vec<usize>,
        /// The written one.
        output: usize,
    },
    /// Nothing that can be verified without the caller's own reference.
    Unknown,
}

/// The pattern of a signature (see the module doc).
pub fn infer(params: &[ParamSig]) -> Pattern {
    let written: Vec<usize> = (0..params.len()).filter(|&i| params[i].written).collect();
    let read: Vec<usize> = (0..params.len()).filter(|&i| !params[i].written).collect();
    let [out] = written.as_slice() else {
        return Pattern::Unknown;
    };
    let out = *out;
    let dims = |i: usize| params[i].dims.as_slice();
    if let (2, [p, q]) = (dims(out).len(), read.as_slice())
        && dims(*p).len() == 2
        && dims(*q).len() == 2
    {
        return gemm(params, *p, *q, out);
    }
    if let (1, [p, q]) = (dims(out).len(), read.as_slice()) {
        let ax = match (dims(*p).len(), dims(*q).len()) {
            (2, 1) => Some((*p, *q)),
            (1, 2) => Some((*q, *p)),
            _ => None,
        };
        if let Some((a, x)) = ax {
            return gemv(params, a, x, out);
        }
    }
    if !read.is_empty() && read.iter().all(|&i| dims(i) == dims(out)) {
        return Pattern::Elementwise {
            inputs: read,
            output: out,
        };
    }
    Pattern::Unknown
}

/// `y = op(A) · x`, if `A`'s dims are `[M, K]` or `[K, M]` with distinct `M` and `K`.
fn gemv(params: &[ParamSig], a: usize, x: usize, y: usize) -> Pattern {
    let (m, k) = (&params[y].dims[0], &params[x].dims[0]);
    if m == k {
        return Pattern::Unknown;
    }
    match params[a].dims.as_slice() {
        [r, c] if r == m && c == k => Pattern::Gemv { a, x, y, op: Op::N },
        [r, c] if r == k && c == m => Pattern::Gemv { a, x, y, op: Op::T },
        _ => Pattern::Unknown,
    }
}

/// A GEMM reading `p` and `q` into `out`, if exactly one assignment and layout fits.
fn gemm(params: &[ParamSig], p: usize, q: usize, out: usize) -> Pattern {
    let (m, n) = (&params[out].dims[0], &params[out].dims[1]);
    let mut found = Vec::new();
    for (a, b) in [(p, q), (q, p)] {
        for layout in Layout::ALL {
            let da = &params[a].dims;
            let db = &params[b].dims;
            let k_a = match layout.a {
                Op::N => (&da[0] == m).then_some(&da[1]),
                Op::T => (&da[1] == m).then_some(&da[0]),
            };
            let k_b = match layout.b {
                Op::N => (&db[1] == n).then_some(&db[0]),
                Op::T => (&db[0] == n).then_some(&db[1]),
            };
            if let (Some(ka), Some(kb)) = (k_a, k_b)
                && ka == kb
            {
                found.push(Pattern::Gemm {
                    a,
                    b,
                    c: out,
                    layout,
                });
            }
        }
    }
    match <[Pattern; 1]>::try_from(found) {
        Ok([one]) => one,
        Err(_) => Pattern::Unknown,
    }
}

/// Host `C[M, N] = op(A) · op(B)` in f64 over row-major buffers stored as `layout` says.
pub fn host_gemm(layout: Layout, a: &[f64], b: &[f64], m: usize, n: usize, k: usize) -> Vec<f64> {
    let at = |i: usize, p: usize| match layout.a {
        Op::N => a[i * k + p],
        Op::T => a[p * m + i],
    };
    let bt = |p: usize, j: usize| match layout.b {
        Op::N => b[p * n + j],
        Op::T => b[j * k + p],
    };
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| at(i, p) * bt(p, j)).sum();
        }
    }
    c
}

/// Host `y[M] = op(A) · x[K]` in f64; `A` stored `[M, K]` (`Op::N`) or `[K, M]` (`Op::T`).
pub fn host_gemv(op: Op, a: &[f64], x: &[f64], m: usize, k: usize) -> Vec<f64> {
    (0..m)
        .map(|i| {
            (0..k)
                .map(|p| {
                    let v = match op {
                        Op::N => a[i * k + p],
                        Op::T => a[p * m + i],
                    };
                    v * x[p]
                })
                .sum()
        })
        .collect()
}

/// Host element-wise reference: `out[i] = f(inputs[0][i], inputs[1][i], …)` in f64.
pub fn host_map(inputs: &[&[f64]], f: impl Fn(&[f64]) -> f64) -> Vec<f64> {
    let len = inputs.iter().map(|x| x.len()).min().unwrap_or(0);
    let mut args = vec![0.0; inputs.len()];
    (0..len)
        .map(|i| {
            for (v, x) in args.iter_mut().zip(inputs) {
                *v = x[i];
            }
            f(&args)
        })
        .collect()
}

impl Pattern {
    /// The host f64 reference of a GEMM or GEMV for these inputs (indexed like the signature;
    /// the output's entry is ignored) and shapes. `None` for element-wise and unknown kernels
    /// (use [`host_map`] with the kernel's own function) or when a buffer does not match its
    /// shape.
    pub fn host_reference(&self, data: &[&[f64]], shapes: &[&[usize]]) -> Option<Vec<f64>> {
        let len_ok = |i: usize| {
            let n: usize = shapes.get(i)?.iter().product();
            (data.get(i)?.len() == n).then_some(())
        };
        match *self {
            Pattern::Gemm { a, b, c, layout } => {
                len_ok(a)?;
                len_ok(b)?;
                let (m, n) = (shapes[c][0], shapes[c][1]);
                let k = match layout.a {
                    Op::N => shapes[a][1],
                    Op::T => shapes[a][0],
                };
                if layout.shapes(m, n, k) != (to2(shapes[a])?, to2(shapes[b])?) {
                    return None;
                }
                Some(host_gemm(layout, data[a], data[b], m, n, k))
            }
            Pattern::Gemv { a, x, y, op } => {
                len_ok(a)?;
                len_ok(x)?;
                let (m, k) = (shapes[y][0], shapes[x][0]);
                let want = match op {
                    Op::N => [m, k],
                    Op::T => [k, m],
                };
                (to2(shapes[a])? == want).then(|| host_gemv(op, data[a], data[x], m, k))
            }
            Pattern::Elementwise { .. } | Pattern::Unknown => None,
        }
    }

    /// The contraction length (`K`) for tolerances, from the shapes.
    pub fn reduction_len(&self, shapes: &[&[usize]]) -> Option<usize> {
        match *self {
            Pattern::Gemm { a, layout, .. } => shapes.get(a).and_then(|s| match layout.a {
                Op::N => s.get(1).copied(),
                Op::T => s.first().copied(),
            }),
            Pattern::Gemv { x, .. } => shapes.get(x).and_then(|s| s.first().copied()),
            Pattern::Elementwise { .. } => Some(1),
            Pattern::Unknown => None,
        }
    }
}

fn to2(s: &[usize]) -> Option<[usize; 2]> {
    <[usize; 2]>::try_from(s).ok()
}

/// The pattern of a kernel definition (parsed, checked and lowered to learn what it writes).
pub fn infer_def(def: &'static dsl_core::def::KernelDef) -> Result<Pattern, crate::dsl::DslError> {
    let p = crate::dsl::Prepared::get(def, Default::default())?;
    Ok(infer(&signature(&p)))
}

/// The [`ParamSig`]s of a prepared kernel.
pub fn signature(p: &crate::dsl::Prepared) -> Vec<ParamSig> {
    let m = &p.module;
    m.kernel
        .params
        .iter()
        .enumerate()
        .map(|(i, prm)| ParamSig {
            name: prm.name.name.clone(),
            dims: prm.shape.iter().map(|&d| m.expr_to_string(d)).collect(),
            dtype: crate::dtype::DType::from_ir(prm.dtype),
            written: p.kernel.written_params.contains(&i),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cublas_ref::{ColumnMajorGemm, Operand};
    use crate::dtype::SplitMix64;

    fn sig(name: &str, dims: &[&str], written: bool) -> ParamSig {
        ParamSig {
            name: name.into(),
            dims: dims.iter().map(|d| d.to_string()).collect(),
            dtype: Some(DType::F16),
            written,
        }
    }

    fn rand(len: usize, seed: u64) -> Vec<f64> {
        let mut r = SplitMix64::new(seed);
        (0..len).map(|_| r.next_unit() - 0.5).collect()
    }

    #[test]
    fn gemm_layouts_are_read_from_the_signature() {
        let cases = [
            (["M", "K"], ["K", "N"], Layout::NN),
            (["M", "K"], ["N", "K"], Layout::NT),
            (["K", "M"], ["K", "N"], Layout::TN),
            (["K", "M"], ["N", "K"], Layout::TT),
        ];
        for (a, b, want) in cases {
            let s = [
                sig("a", &a, false),
                sig("b", &b, false),
                sig("c", &["M", "N"], true),
            ];
            assert_eq!(
                infer(&s),
                Pattern::Gemm {
                    a: 0,
                    b: 1,
                    c: 2,
                    layout: want
                },
                "{}",
                want.name()
            );
            // Any names, any parameter order: the roles come from the dims.
            let s = [
                sig("out", &["rows", "cols"], true),
                sig(
                    "right",
                    &b.map(|d| {
                        if d == "N" {
                            "cols"
                        } else if d == "K" {
                            "red"
                        } else {
                            d
                        }
                    }),
                    false,
                ),
                sig(
                    "left",
                    &a.map(|d| {
                        if d == "M" {
                            "rows"
                        } else if d == "K" {
                            "red"
                        } else {
                            d
                        }
                    }),
                    false,
                ),
            ];
            assert_eq!(
                infer(&s),
                Pattern::Gemm {
                    a: 2,
                    b: 1,
                    c: 0,
                    layout: want
                }
            );
        }
    }

    /// A kernel of `kernels/` as a definition (what `gemm_kernel!(file = …)` makes).
    macro_rules! def {
        ($name:literal) => {{
            static DEF: dsl_core::def::KernelDef = dsl_core::def::KernelDef {
                name: $name,
                dsl: include_str!(concat!("../../kernels/", $name, ".co")),
                file: Some(concat!("kernels/", $name, ".co")),
                cuda: "",
                ir: "",
                params: &[],
                tunables: &[],
            };
            &DEF
        }};
    }

    #[test]
    fn the_shipped_kernels_get_their_references() {
        let nt = Pattern::Gemm {
            a: 0,
            b: 1,
            c: 2,
            layout: Layout::NT,
        };
        let nn = Pattern::Gemm {
            a: 0,
            b: 1,
            c: 2,
            layout: Layout::NN,
        };
        assert_eq!(infer_def(def!("v0_naive")).unwrap(), nt);
        assert_eq!(infer_def(def!("v4_tuned")).unwrap(), nt);
        assert_eq!(infer_def(def!("sgemm_k1_naive")).unwrap(), nn);
        assert_eq!(infer_def(def!("sgemm_k8_warptile")).unwrap(), nn);
        assert_eq!(infer_def(def!("kt_tiled")).unwrap(), nn);
        let gemv = Pattern::Gemv {
            a: 0,
            x: 1,
            y: 2,
            op: Op::N,
        };
        assert_eq!(infer_def(def!("gemv_direct")).unwrap(), gemv);
        assert_eq!(infer_def(def!("gemv_staged")).unwrap(), gemv);
    }

    #[test]
    fn ambiguous_or_foreign_signatures_get_no_reference() {
        // A square operand: NN and TN both fit.
        let s = [
            sig("a", &["N", "N"], false),
            sig("b", &["N", "N"], false),
            sig("c", &["N", "N"], true),
        ];
        assert_eq!(infer(&s), Pattern::Unknown);
        // Inner dims that disagree.
        let s = [
            sig("a", &["M", "K"], false),
            sig("b", &["J", "N"], false),
            sig("c", &["M", "N"], true),
        ];
        assert_eq!(infer(&s), Pattern::Unknown);
        // Two outputs.
        let s = [
            sig("a", &["M", "K"], false),
            sig("b", &["M", "K"], true),
            sig("c", &["M", "N"], true),
        ];
        assert_eq!(infer(&s), Pattern::Unknown);
    }

    #[test]
    fn gemv_and_elementwise_signatures() {
        let s = [
            sig("a", &["M", "K"], false),
            sig("x", &["K"], false),
            sig("y", &["M"], true),
        ];
        assert_eq!(
            infer(&s),
            Pattern::Gemv {
                a: 0,
                x: 1,
                y: 2,
                op: Op::N
            }
        );
        let s = [
            sig("x", &["K"], false),
            sig("a", &["K", "M"], false),
            sig("y", &["M"], true),
        ];
        assert_eq!(
            infer(&s),
            Pattern::Gemv {
                a: 1,
                x: 0,
                y: 2,
                op: Op::T
            }
        );
        let s = [
            sig("x", &["N"], false),
            sig("y", &["N"], false),
            sig("z", &["N"], true),
        ];
        assert_eq!(
            infer(&s),
            Pattern::Elementwise {
                inputs: vec![0, 1],
                output: 2
            }
        );
    }

    #[test]
    fn host_gemm_in_every_layout_is_the_transposed_nn_product() {
        let (m, n, k) = (5, 4, 3);
        let (a, b) = (rand(m * k, 1), rand(k * n, 2));
        let nn = host_gemm(Layout::NN, &a, &b, m, n, k);
        // Transposed copies: at[K, M], bt[N, K].
        let at: Vec<f64> = (0..k * m).map(|x| a[(x % m) * k + x / m]).collect();
        let bt: Vec<f64> = (0..n * k).map(|x| b[(x % k) * n + x / k]).collect();
        for (layout, aa, bb) in [
            (Layout::NT, &a, &bt),
            (Layout::TN, &at, &b),
            (Layout::TT, &at, &bt),
        ] {
            let got = host_gemm(layout, aa, bb, m, n, k);
            for (x, y) in got.iter().zip(&nn) {
                assert!((x - y).abs() < 1e-12, "{}", layout.name());
            }
        }
        // By hand: [[1, 2]] · [[3], [4]] = [[11]].
        assert_eq!(
            host_gemm(Layout::NN, &[1.0, 2.0], &[3.0, 4.0], 1, 1, 2),
            vec![11.0]
        );
    }

    /// Column-major `C = op(A) · op(B)` on flat buffers, as cuBLAS defines it.
    fn colmajor(p: &ColumnMajorGemm, a: &[f64], b: &[f64]) -> Vec<f64> {
        let mut c = vec![f64::NAN; p.ldc * p.n];
        for j in 0..p.n {
            for i in 0..p.m {
                let mut s = 0.0;
                for l in 0..p.k {
                    let av = match p.transa {
                        Op::N => a[i + l * p.lda],
                        Op::T => a[l + i * p.lda],
                    };
                    let bv = match p.transb {
                        Op::N => b[l + j * p.ldb],
                        Op::T => b[j + l * p.ldb],
                    };
                    s += av * bv;
                }
                c[i + j * p.ldc] = s;
            }
        }
        c
    }

    #[test]
    fn cublas_plans_of_every_layout_match_the_host_reference() {
        let (m, n, k) = (6, 5, 4);
        for layout in Layout::ALL {
            let (sa, sb) = layout.shapes(m, n, k);
            let (a, b) = (rand(sa[0] * sa[1], 3), rand(sb[0] * sb[1], 4));
            let p = layout.cublas_plan(m, n, k);
            let pick = |o| if o == Operand::Left { &a } else { &b };
            let got = colmajor(&p, pick(p.a), pick(p.b));
            let want = host_gemm(layout, &a, &b, m, n, k);
            for (x, y) in got.iter().zip(&want) {
                assert!((x - y).abs() < 1e-12, "{}", layout.name());
            }
        }
        assert_eq!(
            Layout::NT.cublas_plan(7, 8, 9),
            crate::cublas_ref::plan_nt(7, 8, 9)
        );
        assert_eq!(
            Layout::NN.cublas_plan(7, 8, 9),
            crate::cublas_ref::plan_nn(7, 8, 9)
        );
    }

    #[test]
    fn host_gemv_and_the_pattern_reference() {
        let (m, k) = (3, 4);
        let a = rand(m * k, 5);
        let x = rand(k, 6);
        let y = host_gemv(Op::N, &a, &x, m, k);
        let at: Vec<f64> = (0..k * m).map(|i| a[(i % m) * k + i / m]).collect();
        let yt = host_gemv(Op::T, &at, &x, m, k);
        for i in 0..m {
            let want: f64 = (0..k).map(|p| a[i * k + p] * x[p]).sum();
            assert!((y[i] - want).abs() < 1e-12 && (yt[i] - want).abs() < 1e-12);
        }
        let p = Pattern::Gemv {
            a: 0,
            x: 1,
            y: 2,
            op: Op::N,
        };
        let got = p
            .host_reference(&[&a, &x, &[]], &[&[m, k], &[k], &[m]])
            .unwrap();
        assert_eq!(got, y);
        assert_eq!(p.reduction_len(&[&[m, k], &[k], &[m]]), Some(k));
        // Shapes that do not fit the pattern: no reference.
        assert!(
            p.host_reference(&[&a, &x, &[]], &[&[k, m], &[k], &[m]])
                .is_none()
        );
        let g = Pattern::Gemm {
            a: 0,
            b: 1,
            c: 2,
            layout: Layout::TN,
        };
        let (sa, sb) = Layout::TN.shapes(2, 3, 4);
        let (ga, gb) = (rand(8, 7), rand(12, 8));
        let r = g
            .host_reference(&[&ga, &gb, &[]], &[&sa, &sb, &[2, 3]])
            .unwrap();
        assert_eq!(r, host_gemm(Layout::TN, &ga, &gb, 2, 3, 4));
        assert_eq!(g.reduction_len(&[&sa, &sb, &[2, 3]]), Some(4));
        assert_eq!(
            host_map(&[&[1.0, 2.0], &[3.0, 4.0]], |v| v[0] * v[1]),
            vec![3.0, 8.0]
        );
    }
}
