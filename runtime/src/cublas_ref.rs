//! cuBLAS reference GEMMs for verifying tessel kernels.
//!
//! tessel's GEMM is `out[M,N] = lhs[M,K] · rhs[N,K]^T` with all three tensors row-major ("NT").
//! cuBLAS is column-major: a row-major `X[R,C]` buffer *is* the column-major matrix `X^T[C,R]`
//! with leading dimension `C`. So we ask cuBLAS for `out^T[N,M] = rhs[N,K] · lhs[M,K]^T`:
//!
//! | cuBLAS | value | why |
//! |---|---|---|
//! | A | `rhs` buffer, `opA = T`, `lda = K` | the buffer is `rhs^T[K,N]` column-major; `T` gives `rhs[N,K]` |
//! | B | `lhs` buffer, `opB = N`, `ldb = K` | the buffer is `lhs^T[K,M]` column-major, which is what we need |
//! | C | `out` buffer, `ldc = N` | column-major `out^T[N,M]` is row-major `out[M,N]` |
//! | m, n, k | `N, M, K` | rows of `op(A)`, columns of `op(B)`, inner |
//!
//! `C = A · B` row-major (`A[M,K]`, `B[K,N]`, "NN"): `C^T[N,M] = B^T · A^T`, i.e. cuBLAS
//! `A = B buffer (opN, lda = N)`, `B = A buffer (opN, ldb = K)`, `m, n, k = N, M, K`, `ldc = N`.
//! [`plan_nt`] / [`plan_nn`] compute these; the unit tests run them through a host emulation
//! of column-major GEMM and compare with a row-major host GEMM.
//!
//! Precision: f16/bf16 inputs use `cublasGemmEx` with `CUBLAS_COMPUTE_32F` (f16/bf16/f32
//! output) or `CUBLAS_COMPUTE_16F` (f16 input and output only). f32 uses
//! `CUBLAS_COMPUTE_32F_PEDANTIC`: true f32 math, never TF32.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cublas::CudaBlas;
use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};
use cudarc::driver::CudaStream;

use crate::device::{Device, panic_message};
use crate::dtype::{DType, Element};
use crate::locate::{self, LocateError};
use crate::tensor::{DeviceTensor, TensorMut, TensorRef};

/// Accumulation precision of the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmCompute {
    /// f32 accumulation (`CUBLAS_COMPUTE_32F`, or `_PEDANTIC` for f32 inputs).
    F32,
    /// f16 accumulation (`CUBLAS_COMPUTE_16F`; f16 in and out only).
    F16,
}

/// A transpose flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// As stored.
    N,
    /// Transposed.
    T,
}

/// Which user tensor a cuBLAS operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// `lhs` (NT) or `A` (NN).
    Left,
    /// `rhs` (NT) or `B` (NN).
    Right,
}

/// The arguments of one column-major cuBLAS GEMM `C = op(A) · op(B)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnMajorGemm {
    /// Which user tensor is cuBLAS's A.
    pub a: Operand,
    /// Which user tensor is cuBLAS's B.
    pub b: Operand,
    /// op(A).
    pub transa: Op,
    /// op(B).
    pub transb: Op,
    /// Rows of op(A) and C.
    pub m: usize,
    /// Columns of op(B) and C.
    pub n: usize,
    /// Inner dimension.
    pub k: usize,
    /// Leading dimension of A.
    pub lda: usize,
    /// Leading dimension of B.
    pub ldb: usize,
    /// Leading dimension of C.
    pub ldc: usize,
}

/// How `A` and `B` of a GEMM are stored (row-major buffers): `N` as the math names them,
/// `T` transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// `A` stored `[M, K]` (N) or `[K, M]` (T).
    pub a: Op,
    /// `B` stored `[K, N]` (N) or `[N, K]` (T).
    pub b: Op,
}

impl Layout {
    /// `A · B`, all row-major.
    pub const NN: Layout = Layout { a: Op::N, b: Op::N };
    /// `A · Bᵀ` (tessel's `lhs[M, K]`, `rhs[N, K]`).
    pub const NT: Layout = Layout { a: Op::N, b: Op::T };
    /// `Aᵀ · B`.
    pub const TN: Layout = Layout { a: Op::T, b: Op::N };
    /// `Aᵀ · Bᵀ`.
    pub const TT: Layout = Layout { a: Op::T, b: Op::T };
    /// All four.
    pub const ALL: [Layout; 4] = [Layout::NN, Layout::NT, Layout::TN, Layout::TT];

    /// `NN`, `NT`, `TN` or `TT`.
    pub fn name(self) -> &'static str {
        match (self.a, self.b) {
            (Op::N, Op::N) => "NN",
            (Op::N, Op::T) => "NT",
            (Op::T, Op::N) => "TN",
            (Op::T, Op::T) => "TT",
        }
    }

    /// The stored shapes of `A` and `B` for a problem `M × N × K`.
    pub fn shapes(self, m: usize, n: usize, k: usize) -> ([usize; 2], [usize; 2]) {
        let a = match self.a {
            Op::N => [m, k],
            Op::T => [k, m],
        };
        let b = match self.b {
            Op::N => [k, n],
            Op::T => [n, k],
        };
        (a, b)
    }

    /// The column-major cuBLAS call computing row-major `C[M, N]` in this layout: cuBLAS
    /// computes `Cᵀ[N, M] = op(B) · op(A)` on the same buffers (a row-major `X[R, C]` is the
    /// column-major `Xᵀ` with leading dimension `C`).
    pub fn cublas_plan(self, m: usize, n: usize, k: usize) -> ColumnMajorGemm {
        let (transa, lda) = match self.b {
            Op::N => (Op::N, n),
            Op::T => (Op::T, k),
        };
        let (transb, ldb) = match self.a {
            Op::N => (Op::N, k),
            Op::T => (Op::T, m),
        };
        ColumnMajorGemm {
            a: Operand::Right,
            b: Operand::Left,
            transa,
            transb,
            m: n,
            n: m,
            k,
            lda,
            ldb,
            ldc: n,
        }
    }
}

/// `out[M,N] = lhs[M,K] · rhs[N,K]^T`, all row-major (see the module doc).
pub fn plan_nt(m: usize, n: usize, k: usize) -> ColumnMajorGemm {
    ColumnMajorGemm {
        a: Operand::Right,
        b: Operand::Left,
        transa: Op::T,
        transb: Op::N,
        m: n,
        n: m,
        k,
        lda: k,
        ldb: k,
        ldc: n,
    }
}

/// `C[M,N] = A[M,K] · B[K,N]`, all row-major (see the module doc).
pub fn plan_nn(m: usize, n: usize, k: usize) -> ColumnMajorGemm {
    ColumnMajorGemm {
        a: Operand::Right,
        b: Operand::Left,
        transa: Op::N,
        transb: Op::N,
        m: n,
        n: m,
        k,
        lda: n,
        ldb: k,
        ldc: n,
    }
}

/// Reference errors.
#[derive(Debug, thiserror::Error)]
pub enum RefError {
    /// cuBLAS or the driver library is missing.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// Shapes that do not fit the GEMM.
    #[error("reference GEMM shape mismatch: {0}")]
    Shape(String),
    /// A type combination cuBLAS does not offer.
    #[error(
        "reference GEMM: {input} inputs with {output} output and {compute:?} accumulation is not supported ({hint})"
    )]
    Unsupported {
        /// Input dtype.
        input: DType,
        /// Output dtype.
        output: DType,
        /// Requested accumulation.
        compute: GemmCompute,
        /// What is supported.
        hint: &'static str,
    },
    /// A dimension does not fit cuBLAS's 32-bit ints.
    #[error("reference GEMM: dimension {0} exceeds i32")]
    TooLarge(usize),
    /// cuBLAS returned an error.
    #[error("cuBLAS {call} failed: {status}")]
    Cublas {
        /// The call.
        call: &'static str,
        /// cuBLAS status.
        status: String,
    },
}

/// Checks an input/output/compute combination against what `cublasGemmEx` offers.
pub fn check_types(input: DType, output: DType, compute: GemmCompute) -> Result<(), RefError> {
    use DType::*;
    let ok = matches!(
        (input, output, compute),
        (F16, F16 | F32, GemmCompute::F32)
            | (F16, F16, GemmCompute::F16)
            | (BF16, BF16 | F32, GemmCompute::F32)
            | (F32, F32, GemmCompute::F32)
    );
    if ok {
        Ok(())
    } else {
        Err(RefError::Unsupported {
            input,
            output,
            compute,
            hint: "f16 -> f16/f32 with F32, f16 -> f16 with F16, bf16 -> bf16/f32 with F32, f32 -> f32 with F32",
        })
    }
}

/// `(M, N, K)` of `lhs[M,K] · rhs[N,K]^T → out[M,N]`, checking the shapes.
pub fn nt_dims(
    lhs: &[usize],
    rhs: &[usize],
    out: &[usize],
) -> Result<(usize, usize, usize), RefError> {
    match (lhs, rhs, out) {
        ([m, k], [n, k2], [m2, n2]) if k == k2 && m == m2 && n == n2 => Ok((*m, *n, *k)),
        _ => Err(RefError::Shape(format!(
            "need lhs[M,K], rhs[N,K], out[M,N]; got lhs{lhs:?}, rhs{rhs:?}, out{out:?}"
        ))),
    }
}

/// `(M, N, K)` of `a[M,K] · b[K,N] → c[M,N]`, checking the shapes.
pub fn nn_dims(a: &[usize], b: &[usize], c: &[usize]) -> Result<(usize, usize, usize), RefError> {
    match (a, b, c) {
        ([m, k], [k2, n], [m2, n2]) if k == k2 && m == m2 && n == n2 => Ok((*m, *n, *k)),
        _ => Err(RefError::Shape(format!(
            "need a[M,K], b[K,N], c[M,N]; got a{a:?}, b{b:?}, c{c:?}"
        ))),
    }
}

/// `(M, N, K)` of a GEMM in `layout`, checking the shapes of `A`, `B` and `C`.
pub fn layout_dims(
    layout: Layout,
    a: &[usize],
    b: &[usize],
    c: &[usize],
) -> Result<(usize, usize, usize), RefError> {
    let bad = || {
        let (an, bn) = match (layout.a, layout.b) {
            (Op::N, Op::N) => ("[M,K]", "[K,N]"),
            (Op::N, Op::T) => ("[M,K]", "[N,K]"),
            (Op::T, Op::N) => ("[K,M]", "[K,N]"),
            (Op::T, Op::T) => ("[K,M]", "[N,K]"),
        };
        RefError::Shape(format!(
            "{} layout needs a{an}, b{bn}, c[M,N]; got a{a:?}, b{b:?}, c{c:?}",
            layout.name()
        ))
    };
    let ([m, n], [a0, a1]) = (
        <[usize; 2]>::try_from(c).map_err(|_| bad())?,
        <[usize; 2]>::try_from(a).map_err(|_| bad())?,
    );
    let k = match layout.a {
        Op::N => a1,
        Op::T => a0,
    };
    let (sa, sb) = layout.shapes(m, n, k);
    if a != sa || b != sb {
        return Err(bad());
    }
    Ok((m, n, k))
}

fn cuda_type(d: DType) -> cudaDataType {
    match d {
        DType::F16 => cudaDataType::CUDA_R_16F,
        DType::BF16 => cudaDataType::CUDA_R_16BF,
        DType::F32 => cudaDataType::CUDA_R_32F,
        DType::F8E4M3 => cudaDataType::CUDA_R_8F_E4M3,
        DType::F8E5M2 => cudaDataType::CUDA_R_8F_E5M2,
        DType::S8 => cudaDataType::CUDA_R_8I,
        DType::U8 => cudaDataType::CUDA_R_8U,
        DType::S16 => cudaDataType::CUDA_R_16I,
        DType::U16 => cudaDataType::CUDA_R_16U,
        DType::U32 => cudaDataType::CUDA_R_32U,
        DType::S32 => cudaDataType::CUDA_R_32I,
    }
}

fn op(o: Op) -> cublasOperation_t {
    match o {
        Op::N => cublasOperation_t::CUBLAS_OP_N,
        Op::T => cublasOperation_t::CUBLAS_OP_T,
    }
}

fn to_i32(v: usize) -> Result<i32, RefError> {
    i32::try_from(v).map_err(|_| RefError::TooLarge(v))
}

/// A cuBLAS handle bound to the device's stream.
#[derive(Debug)]
pub struct CublasRef {
    blas: CudaBlas,
    _stream: Arc<CudaStream>,
}

impl CublasRef {
    /// Creates the handle (probing libcublas first).
    pub fn new(dev: &Device) -> Result<Self, RefError> {
        locate::probe_cublas()?;
        let stream = dev.stream().clone();
        let s = stream.clone();
        let blas = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || CudaBlas::new(s)))
            .map_err(|p| RefError::Cublas {
                call: "cublasCreate",
                status: panic_message(p),
            })?
            .map_err(|e| RefError::Cublas {
                call: "cublasCreate",
                status: format!("{e:?}"),
            })?;
        Ok(Self {
            blas,
            _stream: stream,
        })
    }

    /// `out = lhs · rhs^T` (row-major NT) with the given accumulation.
    pub fn gemm_nt<I: Element, O: Element>(
        &self,
        lhs: &DeviceTensor<I>,
        rhs: &DeviceTensor<I>,
        out: &mut DeviceTensor<O>,
        compute: GemmCompute,
    ) -> Result<(), RefError> {
        check_types(I::DTYPE, O::DTYPE, compute)?;
        let (m, n, k) = nt_dims(lhs.shape(), rhs.shape(), out.shape())?;
        let plan = plan_nt(m, n, k);
        self.run(
            &plan,
            lhs.device_ptr(),
            rhs.device_ptr(),
            out.device_ptr(),
            I::DTYPE,
            O::DTYPE,
            compute,
        )
    }

    /// `c = a · b` (row-major NN), any supported types.
    pub fn gemm_nn<I: Element, O: Element>(
        &self,
        a: &DeviceTensor<I>,
        b: &DeviceTensor<I>,
        c: &mut DeviceTensor<O>,
        compute: GemmCompute,
    ) -> Result<(), RefError> {
        check_types(I::DTYPE, O::DTYPE, compute)?;
        let (m, n, k) = nn_dims(a.shape(), b.shape(), c.shape())?;
        let plan = plan_nn(m, n, k);
        self.run(
            &plan,
            a.device_ptr(),
            b.device_ptr(),
            c.device_ptr(),
            I::DTYPE,
            O::DTYPE,
            compute,
        )
    }

    /// `C[M, N] = op(A) · op(B)` with `A` and `B` stored as `layout` says (any of NN, NT, TN,
    /// TT; see the `reference` module), any supported types.
    pub fn gemm<I: Element, O: Element>(
        &self,
        layout: Layout,
        a: &DeviceTensor<I>,
        b: &DeviceTensor<I>,
        c: &mut DeviceTensor<O>,
        compute: GemmCompute,
    ) -> Result<(), RefError> {
        self.gemm_views(layout, a.view(), b.view(), c.view_mut(), compute)
    }

    /// [`CublasRef::gemm`] over tensor views (cudarc buffers, raw memory).
    pub fn gemm_views<I: Element, O: Element>(
        &self,
        layout: Layout,
        a: TensorRef<'_, I>,
        b: TensorRef<'_, I>,
        c: TensorMut<'_, O>,
        compute: GemmCompute,
    ) -> Result<(), RefError> {
        check_types(I::DTYPE, O::DTYPE, compute)?;
        let (m, n, k) = layout_dims(layout, a.shape(), b.shape(), c.shape())?;
        let plan = layout.cublas_plan(m, n, k);
        self.run(
            &plan,
            a.device_ptr(),
            b.device_ptr(),
            c.device_ptr(),
            I::DTYPE,
            O::DTYPE,
            compute,
        )
    }

    /// f32 `out = lhs · rhs^T`, pedantic f32 (no TF32).
    pub fn sgemm_nt(
        &self,
        lhs: &DeviceTensor<f32>,
        rhs: &DeviceTensor<f32>,
        out: &mut DeviceTensor<f32>,
    ) -> Result<(), RefError> {
        self.gemm_nt(lhs, rhs, out, GemmCompute::F32)
    }

    /// f32 `c = a · b`, pedantic f32 (no TF32).
    pub fn sgemm_nn(
        &self,
        a: &DeviceTensor<f32>,
        b: &DeviceTensor<f32>,
        c: &mut DeviceTensor<f32>,
    ) -> Result<(), RefError> {
        self.gemm_nn(a, b, c, GemmCompute::F32)
    }

    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        plan: &ColumnMajorGemm,
        left: u64,
        right: u64,
        c: u64,
        input: DType,
        output: DType,
        compute: GemmCompute,
    ) -> Result<(), RefError> {
        let ptr = |o: Operand| match o {
            Operand::Left => left,
            Operand::Right => right,
        };
        let compute_type = match (compute, input) {
            (GemmCompute::F16, _) => cublasComputeType_t::CUBLAS_COMPUTE_16F,
            (GemmCompute::F32, DType::F32) => cublasComputeType_t::CUBLAS_COMPUTE_32F_PEDANTIC,
            (GemmCompute::F32, _) => cublasComputeType_t::CUBLAS_COMPUTE_32F,
        };
        // alpha/beta have the compute type's precision.
        let (alpha32, beta32) = (1.0f32, 0.0f32);
        let (alpha16, beta16) = (half::f16::ONE, half::f16::ZERO);
        let (alpha, beta): (*const c_void, *const c_void) = match compute {
            GemmCompute::F16 => (
                (&alpha16 as *const half::f16).cast(),
                (&beta16 as *const half::f16).cast(),
            ),
            GemmCompute::F32 => (
                (&alpha32 as *const f32).cast(),
                (&beta32 as *const f32).cast(),
            ),
        };
        let (m, n, k) = (to_i32(plan.m)?, to_i32(plan.n)?, to_i32(plan.k)?);
        let (lda, ldb, ldc) = (to_i32(plan.lda)?, to_i32(plan.ldb)?, to_i32(plan.ldc)?);
        let call = || {
            // SAFETY: pointers are live device buffers whose sizes match the checked shapes;
            // alpha/beta point at host scalars of the compute type (host pointer mode).
            unsafe {
                cudarc::cublas::result::gemm_ex(
                    *self.blas.handle(),
                    op(plan.transa),
                    op(plan.transb),
                    m,
                    n,
                    k,
                    alpha,
                    ptr(plan.a) as *const c_void,
                    cuda_type(input),
                    lda,
                    ptr(plan.b) as *const c_void,
                    cuda_type(input),
                    ldb,
                    beta,
                    c as *mut c_void,
                    cuda_type(output),
                    ldc,
                    compute_type,
                    cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                )
            }
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(call))
            .map_err(|p| RefError::Cublas {
                call: "cublasGemmEx",
                status: panic_message(p),
            })?
            .map_err(|e| RefError::Cublas {
                call: "cublasGemmEx",
                status: format!("{e:?}"),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::SplitMix64;

    /// Host emulation of column-major `C = op(A) · op(B)` on flat buffers.
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

    fn rand(len: usize, seed: u64) -> Vec<f64> {
        let mut r = SplitMix64::new(seed);
        (0..len).map(|_| r.next_unit() - 0.5).collect()
    }

    #[test]
    fn nt_plan_matches_row_major_reference() {
        let (m, n, k) = (5, 3, 7);
        let (lhs, rhs) = (rand(m * k, 1), rand(n * k, 2));
        let p = plan_nt(m, n, k);
        let pick = |o| if o == Operand::Left { &lhs } else { &rhs };
        let got = colmajor(&p, pick(p.a), pick(p.b));
        for r in 0..m {
            for c in 0..n {
                let want: f64 = (0..k).map(|l| lhs[r * k + l] * rhs[c * k + l]).sum();
                assert!((got[r * n + c] - want).abs() < 1e-12, "out[{r},{c}]");
            }
        }
    }

    #[test]
    fn nn_plan_matches_row_major_reference() {
        let (m, n, k) = (4, 6, 5);
        let (a, b) = (rand(m * k, 3), rand(k * n, 4));
        let p = plan_nn(m, n, k);
        let pick = |o| if o == Operand::Left { &a } else { &b };
        let got = colmajor(&p, pick(p.a), pick(p.b));
        for r in 0..m {
            for c in 0..n {
                let want: f64 = (0..k).map(|l| a[r * k + l] * b[l * n + c]).sum();
                assert!((got[r * n + c] - want).abs() < 1e-12, "c[{r},{c}]");
            }
        }
    }

    #[test]
    fn type_combinations() {
        use DType::*;
        assert!(check_types(F16, F16, GemmCompute::F32).is_ok());
        assert!(check_types(F16, F16, GemmCompute::F16).is_ok());
        assert!(check_types(F16, F32, GemmCompute::F32).is_ok());
        assert!(check_types(BF16, BF16, GemmCompute::F32).is_ok());
        assert!(check_types(F32, F32, GemmCompute::F32).is_ok());
        assert!(check_types(BF16, BF16, GemmCompute::F16).is_err());
        assert!(check_types(F16, F32, GemmCompute::F16).is_err());
        assert!(check_types(F32, F16, GemmCompute::F32).is_err());
    }

    #[test]
    fn shape_checks() {
        assert_eq!(nt_dims(&[8, 4], &[6, 4], &[8, 6]).unwrap(), (8, 6, 4));
        assert!(nt_dims(&[8, 4], &[6, 5], &[8, 6]).is_err());
        assert!(nt_dims(&[8, 4], &[6, 4], &[6, 8]).is_err());
        assert!(nt_dims(&[8, 4, 1], &[6, 4], &[8, 6]).is_err());
        assert_eq!(nn_dims(&[8, 4], &[4, 6], &[8, 6]).unwrap(), (8, 6, 4));
        assert!(nn_dims(&[8, 4], &[6, 4], &[8, 6]).is_err());
        assert!(matches!(to_i32(1 << 40), Err(RefError::TooLarge(_))));
        assert_eq!(
            layout_dims(Layout::TN, &[4, 8], &[4, 6], &[8, 6]).unwrap(),
            (8, 6, 4)
        );
        assert_eq!(
            layout_dims(Layout::TT, &[4, 8], &[6, 4], &[8, 6]).unwrap(),
            (8, 6, 4)
        );
        let e = layout_dims(Layout::TT, &[4, 8], &[4, 6], &[8, 6]).unwrap_err();
        assert!(
            e.to_string().contains("TT layout needs a[K,M], b[N,K]"),
            "{e}"
        );
        assert!(layout_dims(Layout::NN, &[8, 4, 1], &[4, 6], &[8, 6]).is_err());
    }
}
