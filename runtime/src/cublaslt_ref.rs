//! The strongest vendor reference for a GEMM: cuBLASLt with its heuristic's top algorithms,
//! each timed, beside `cublasGemmEx`.
//!
//! A user of torch or CUTLASS who asks "how fast can this GEMM go on this GPU" gets the faster of
//! `cublasGemmEx` (the default algorithm) and `cublasLtMatmul` with the best of the algorithms
//! that `cublasLtMatmulAlgoGetHeuristic` proposes for a 32 MiB workspace. [`LtRef::candidates`]
//! returns those proposals for one GEMM; the caller times each with the same timer it uses for
//! its own kernel ([`LtRef::run`] launches one) and keeps the fastest, reporting its
//! [`AlgoDesc`] so a table can say which algorithm won.
//!
//! The GEMM is described exactly as for `cublasGemmEx` ([`ColumnMajorGemm`], from
//! [`crate::cublas_ref::plan_nt`] / [`crate::cublas_ref::plan_nn`]): the same operand swap turns
//! tessel's row-major tensors into cuBLAS's column-major view.

use std::ffi::c_void;
use std::mem::size_of;
use std::sync::Arc;

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublaslt::sys::{
    self, cublasComputeType_t, cublasLtMatmulAlgo_t, cublasLtMatmulAlgoConfigAttributes_t,
    cublasLtMatmulDescAttributes_t, cublasLtMatmulHeuristicResult_t,
    cublasLtMatmulPreferenceAttributes_t, cudaDataType,
};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};

use crate::cublas_ref::{ColumnMajorGemm, GemmCompute, Op, Operand, RefError, check_types};
use crate::device::{Device, panic_message};
use crate::dtype::DType;
use crate::locate;

/// The workspace cuBLASLt may use: NVIDIA's recommendation for Hopper.
pub const WORKSPACE_BYTES: usize = 32 << 20;

/// What a cuBLASLt algorithm is, read back from its opaque descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlgoDesc {
    /// `CUBLASLT_ALGO_CONFIG_ID`.
    pub id: i32,
    /// `CUBLASLT_ALGO_CONFIG_TILE_ID` (a `cublasLtMatmulTile_t`).
    pub tile: u32,
    /// `CUBLASLT_ALGO_CONFIG_STAGES_ID` (a `cublasLtMatmulStages_t`).
    pub stages: u32,
    /// `CUBLASLT_ALGO_CONFIG_SPLITK_NUM` (1: no split-K).
    pub split_k: i32,
    /// `CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID` (a `cublasLtClusterShape_t`).
    pub cluster: u32,
}

impl std::fmt::Display for AlgoDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "lt algo {} tile {} stages {} cluster {} split-k {}",
            self.id, self.tile, self.stages, self.cluster, self.split_k
        )
    }
}

/// One algorithm the heuristic proposed for a GEMM.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// Its rank in the heuristic's list (0: the heuristic's first choice).
    pub rank: usize,
    /// The opaque cuBLASLt algorithm, passed back to `cublasLtMatmul`.
    pub algo: cublasLtMatmulAlgo_t,
    /// Workspace `cublasLtMatmul` needs with this algorithm, bytes.
    pub workspace_bytes: usize,
    /// The heuristic's wave count estimate.
    pub waves: f32,
    /// Its id, tile, stages, split-K and cluster shape, read back from `algo`.
    pub desc: AlgoDesc,
}

/// A cuBLASLt handle, a workspace and the descriptors of one GEMM problem.
pub struct LtRef {
    handle: sys::cublasLtHandle_t,
    workspace: CudaSlice<u8>,
    stream: Arc<CudaStream>,
    gemm: Option<Problem>,
    gemm8: Option<Problem8>,
}

/// Descriptors of one 8-bit GEMM problem.
struct Problem8 {
    key: (ColumnMajorGemm, DType, DType, Scales, bool),
    d: Descriptors,
}

/// Per-tensor scales of an fp8 GEMM, `D = scale_a · scale_b · (A · B)`: device addresses of one
/// f32 each (cuBLASLt's `A_SCALE_POINTER` / `B_SCALE_POINTER`), or none (s8, or scale 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scales {
    /// Device address of A's f32 scale (cuBLASLt's A: see [`ColumnMajorGemm::a`]).
    pub a: u64,
    /// Device address of B's f32 scale.
    pub b: u64,
}

/// Whether `(input, output)` is an 8-bit GEMM cuBLASLt runs: e4m3/e5m2 → f16/bf16/f32 (f32
/// compute), s8 → s32 (s32 compute).
pub fn check_types_8bit(input: DType, output: DType) -> Result<(), RefError> {
    use DType::*;
    if matches!(
        (input, output),
        (F8E4M3 | F8E5M2, F16 | BF16 | F32) | (S8, S32)
    ) {
        Ok(())
    } else {
        Err(RefError::Unsupported {
            input,
            output,
            compute: GemmCompute::F32,
            hint: "8-bit GEMMs: f8_e4m3/f8_e5m2 -> f16/bf16/f32, s8 -> s32",
        })
    }
}

/// Descriptors of one GEMM problem.
struct Problem {
    key: (ColumnMajorGemm, DType, DType, GemmCompute),
    d: Descriptors,
}

/// The matmul descriptor and the three matrix layouts of a problem (owned; destroyed on drop,
/// also when only some were created).
struct Descriptors {
    desc: sys::cublasLtMatmulDesc_t,
    a: sys::cublasLtMatrixLayout_t,
    b: sys::cublasLtMatrixLayout_t,
    c: sys::cublasLtMatrixLayout_t,
}

impl Drop for Descriptors {
    fn drop(&mut self) {
        // SAFETY: each non-null descriptor was created by cuBLASLt and is destroyed once, here.
        unsafe {
            for l in [self.a, self.b, self.c] {
                if !l.is_null() {
                    let _ = sys::cublasLtMatrixLayoutDestroy(l);
                }
            }
            if !self.desc.is_null() {
                let _ = sys::cublasLtMatmulDescDestroy(self.desc);
            }
        }
    }
}

/// Sets one attribute of a matmul descriptor to the value `v` points at.
fn set_attribute<T>(
    desc: sys::cublasLtMatmulDesc_t,
    attr: sys::cublasLtMatmulDescAttributes_t,
    v: &T,
) -> Result<(), RefError> {
    // SAFETY: `v` is a live value of the attribute's documented type and size.
    let s = unsafe {
        sys::cublasLtMatmulDescSetAttribute(desc, attr, (v as *const T).cast(), size_of::<T>())
    };
    status("cublasLtMatmulDescSetAttribute", s)
}

/// The descriptors of `g` with these element types: the matmul descriptor (compute and scale
/// type, `op(A)` / `op(B)`) and the layouts of A, B and C.
fn descriptors(
    g: &ColumnMajorGemm,
    input: DType,
    output: DType,
    compute_type: cublasComputeType_t,
    scale_type: cudaDataType,
) -> Result<Descriptors, RefError> {
    let mut d = Descriptors {
        desc: std::ptr::null_mut(),
        a: std::ptr::null_mut(),
        b: std::ptr::null_mut(),
        c: std::ptr::null_mut(),
    };
    // SAFETY: out-pointer.
    let s = lt("cublasLtMatmulDescCreate", || unsafe {
        sys::cublasLtMatmulDescCreate(&mut d.desc, compute_type, scale_type)
    })?;
    status("cublasLtMatmulDescCreate", s)?;
    use cublasLtMatmulDescAttributes_t as A;
    set_attribute(
        d.desc,
        A::CUBLASLT_MATMUL_DESC_TRANSA,
        &(lt_op(g.transa) as i32),
    )?;
    set_attribute(
        d.desc,
        A::CUBLASLT_MATMUL_DESC_TRANSB,
        &(lt_op(g.transb) as i32),
    )?;
    let layout =
        |l: &mut sys::cublasLtMatrixLayout_t, t: DType, (rows, cols): (u64, u64), ld: usize| {
            // SAFETY: out-pointer.
            let s =
                unsafe { sys::cublasLtMatrixLayoutCreate(l, lt_type(t), rows, cols, ld as i64) };
            status("cublasLtMatrixLayoutCreate", s)
        };
    layout(&mut d.a, input, stored(g.transa, g.m, g.k), g.lda)?;
    layout(&mut d.b, input, stored(g.transb, g.k, g.n), g.ldb)?;
    layout(&mut d.c, output, (g.m as u64, g.n as u64), g.ldc)?;
    Ok(d)
}

/// Enqueues one `cublasLtMatmul` of `d` (C = alpha · op(A) · op(B) + beta · C, C in place) with
/// a candidate algorithm and the workspace.
///
/// # Safety
/// The pointers are live device buffers shaped as `d` says; `alpha` and `beta` point at host
/// scalars of the descriptor's scale type.
#[allow(clippy::too_many_arguments)]
unsafe fn matmul(
    handle: sys::cublasLtHandle_t,
    stream: sys::cudaStream_t,
    d: &Descriptors,
    (alpha, beta): (*const c_void, *const c_void),
    (a, b, out): (u64, u64, u64),
    candidate: &Candidate,
    workspace: u64,
) -> Result<(), RefError> {
    // SAFETY: the caller's contract.
    let s = lt("cublasLtMatmul", || unsafe {
        sys::cublasLtMatmul(
            handle,
            d.desc,
            alpha,
            a as *const c_void,
            d.a,
            b as *const c_void,
            d.b,
            beta,
            out as *const c_void,
            d.c,
            out as *mut c_void,
            d.c,
            &candidate.algo,
            workspace as *mut c_void,
            WORKSPACE_BYTES,
            stream,
        )
    })?;
    status("cublasLtMatmul", s)
}

impl Drop for LtRef {
    fn drop(&mut self) {
        self.gemm = None;
        self.gemm8 = None;
        // SAFETY: the handle was created in `new` and is destroyed once.
        unsafe {
            let _ = sys::cublasLtDestroy(self.handle);
        }
    }
}

fn status(call: &'static str, s: sys::cublasStatus_t) -> Result<(), RefError> {
    if s == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(RefError::Cublas {
            call,
            status: format!("{s:?}"),
        })
    }
}

/// Runs one cuBLASLt call, turning a panic of the dynamic loader (library missing) into an error.
fn lt<T>(call: &'static str, f: impl FnOnce() -> T) -> Result<T, RefError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| RefError::Cublas {
        call,
        status: panic_message(p),
    })
}

fn lt_type(d: DType) -> cudaDataType {
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

fn lt_op(o: Op) -> cublasOperation_t {
    match o {
        Op::N => cublasOperation_t::CUBLAS_OP_N,
        Op::T => cublasOperation_t::CUBLAS_OP_T,
    }
}

/// The compute and scale types of a request, as `cublasGemmEx` would use them.
fn compute_types(input: DType, compute: GemmCompute) -> (cublasComputeType_t, cudaDataType) {
    match (compute, input) {
        (GemmCompute::F16, _) => (
            cublasComputeType_t::CUBLAS_COMPUTE_16F,
            cudaDataType::CUDA_R_16F,
        ),
        (GemmCompute::F32, DType::F32) => (
            cublasComputeType_t::CUBLAS_COMPUTE_32F_PEDANTIC,
            cudaDataType::CUDA_R_32F,
        ),
        (GemmCompute::F32, _) => (
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType::CUDA_R_32F,
        ),
    }
}

/// Rows and columns of a column-major operand as stored, for its layout descriptor.
fn stored(op: Op, rows: usize, cols: usize) -> (u64, u64) {
    match op {
        Op::N => (rows as u64, cols as u64),
        Op::T => (cols as u64, rows as u64),
    }
}

impl LtRef {
    /// Creates the handle and the workspace on the device's stream (probing libcublasLt first).
    pub fn new(dev: &Device) -> Result<Self, RefError> {
        locate::probe_cublas()?;
        let stream = dev.stream().clone();
        let mut handle = std::ptr::null_mut();
        // SAFETY: `handle` is a valid out-pointer.
        let s = lt("cublasLtCreate", || unsafe {
            sys::cublasLtCreate(&mut handle)
        })?;
        status("cublasLtCreate", s)?;
        let workspace =
            stream
                .alloc_zeros::<u8>(WORKSPACE_BYTES)
                .map_err(|e| RefError::Cublas {
                    call: "cuMemAlloc (workspace)",
                    status: e.to_string(),
                })?;
        Ok(Self {
            handle,
            workspace,
            stream,
            gemm: None,
            gemm8: None,
        })
    }

    /// Builds (or reuses) the descriptors of one problem.
    fn problem(
        &mut self,
        g: &ColumnMajorGemm,
        input: DType,
        output: DType,
        compute: GemmCompute,
    ) -> Result<&Problem, RefError> {
        check_types(input, output, compute)?;
        let key = (*g, input, output, compute);
        if self.gemm.as_ref().is_some_and(|p| p.key == key) {
            return Ok(self.gemm.as_ref().expect("checked above"));
        }
        self.gemm = None;
        let (compute_type, scale_type) = compute_types(input, compute);
        let d = descriptors(g, input, output, compute_type, scale_type)?;
        self.gemm = Some(Problem { key, d });
        Ok(self.gemm.as_ref().expect("just set"))
    }

    /// The heuristic's top `count` algorithms for this problem, each with what it is.
    pub fn candidates(
        &mut self,
        g: &ColumnMajorGemm,
        input: DType,
        output: DType,
        compute: GemmCompute,
        count: usize,
    ) -> Result<Vec<Candidate>, RefError> {
        let handle = self.handle;
        let p = self.problem(g, input, output, compute)?;
        heuristic(handle, p.d.desc, p.d.a, p.d.b, p.d.c, count)
    }

    /// Enqueues `C = op(A) · op(B)` with one candidate on the device's stream. `left`, `right`
    /// and `out` are the user's tensors (see [`Operand`]).
    ///
    /// # Safety
    /// The pointers must be live device buffers whose sizes match the problem the candidate was
    /// proposed for, and `problem` must be the one passed to [`LtRef::candidates`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn run(
        &mut self,
        g: &ColumnMajorGemm,
        input: DType,
        output: DType,
        compute: GemmCompute,
        candidate: &Candidate,
        left: u64,
        right: u64,
        out: u64,
    ) -> Result<(), RefError> {
        let handle = self.handle;
        let stream = self.stream.cu_stream() as sys::cudaStream_t;
        self.problem(g, input, output, compute)?;
        let (ws_ptr, _sync) = self.workspace.device_ptr(&self.stream);
        let p = self.gemm.as_ref().expect("problem() just built it");
        let ptr = |o: Operand| match o {
            Operand::Left => left,
            Operand::Right => right,
        };
        let (a32, b32) = (1.0f32, 0.0f32);
        let (a16, b16) = (half::f16::ONE, half::f16::ZERO);
        let (alpha, beta): (*const c_void, *const c_void) = match compute {
            GemmCompute::F16 => (
                (&a16 as *const half::f16).cast(),
                (&b16 as *const half::f16).cast(),
            ),
            GemmCompute::F32 => ((&a32 as *const f32).cast(), (&b32 as *const f32).cast()),
        };
        // SAFETY: the caller's contract; alpha/beta point at host scalars of the scale type.
        unsafe {
            matmul(
                handle,
                stream,
                &p.d,
                (alpha, beta),
                (ptr(g.a), ptr(g.b), out),
                candidate,
                ws_ptr,
            )
        }
    }
}

impl LtRef {
    /// Builds (or reuses) the descriptors of one 8-bit problem: fp8 inputs with f32 compute and
    /// scale type, the per-tensor scale pointers and `FAST_ACCUM` (`fast`: sum in the tensor
    /// cores' own precision; off: cuBLASLt promotes partial sums to f32); or s8 inputs with s32
    /// compute. cuBLASLt's 8-bit GEMMs take A transposed and B not ("TN"), which is what
    /// [`crate::cublas_ref::plan_nt`] gives for tessel's `lhs[M,K] · rhs[N,K]ᵀ`.
    fn problem8(
        &mut self,
        g: &ColumnMajorGemm,
        input: DType,
        output: DType,
        scales: Scales,
        fast: bool,
    ) -> Result<&Problem8, RefError> {
        check_types_8bit(input, output)?;
        let key = (*g, input, output, scales, fast);
        if self.gemm8.as_ref().is_some_and(|p| p.key == key) {
            return Ok(self.gemm8.as_ref().expect("checked above"));
        }
        self.gemm8 = None;
        let int = input == DType::S8;
        let (compute_type, scale_type) = if int {
            (
                cublasComputeType_t::CUBLAS_COMPUTE_32I,
                cudaDataType::CUDA_R_32I,
            )
        } else {
            (
                cublasComputeType_t::CUBLAS_COMPUTE_32F,
                cudaDataType::CUDA_R_32F,
            )
        };
        let d = descriptors(g, input, output, compute_type, scale_type)?;
        if !int {
            use cublasLtMatmulDescAttributes_t as A;
            let (pa, pb) = (scales.a as *const c_void, scales.b as *const c_void);
            set_attribute(d.desc, A::CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &pa)?;
            set_attribute(d.desc, A::CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &pb)?;
            set_attribute(d.desc, A::CUBLASLT_MATMUL_DESC_FAST_ACCUM, &(fast as i8))?;
        }
        self.gemm8 = Some(Problem8 { key, d });
        Ok(self.gemm8.as_ref().expect("just set"))
    }

    /// The heuristic's top `count` algorithms for an 8-bit GEMM (see [`LtRef::candidates`]).
    pub fn candidates_8bit(
        &mut self,
        g: &ColumnMajorGemm,
        input: DType,
        output: DType,
        scales: Scales,
        fast: bool,
        count: usize,
    ) -> Result<Vec<Candidate>, RefError> {
        let handle = self.handle;
        let p = self.problem8(g, input, output, scales, fast)?;
        heuristic(handle, p.d.desc, p.d.a, p.d.b, p.d.c, count)
    }

    /// Enqueues the 8-bit GEMM `C = op(A) · op(B)` (times the scales) with one candidate.
    ///
    /// # Safety
    /// As [`LtRef::run`]; the scale addresses must be live device f32s.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn run_8bit(
        &mut self,
        g: &ColumnMajorGemm,
        input: DType,
        output: DType,
        scales: Scales,
        fast: bool,
        candidate: &Candidate,
        left: u64,
        right: u64,
        out: u64,
    ) -> Result<(), RefError> {
        let handle = self.handle;
        let stream = self.stream.cu_stream() as sys::cudaStream_t;
        self.problem8(g, input, output, scales, fast)?;
        let (ws_ptr, _sync) = self.workspace.device_ptr(&self.stream);
        let p = self.gemm8.as_ref().expect("problem8() just built it");
        let ptr = |o: Operand| match o {
            Operand::Left => left,
            Operand::Right => right,
        };
        let (af, bf) = (1.0f32, 0.0f32);
        let (ai, bi) = (1i32, 0i32);
        let (alpha, beta): (*const c_void, *const c_void) = if input == DType::S8 {
            ((&ai as *const i32).cast(), (&bi as *const i32).cast())
        } else {
            ((&af as *const f32).cast(), (&bf as *const f32).cast())
        };
        // SAFETY: the caller's contract; alpha/beta point at host scalars of the scale type.
        unsafe {
            matmul(
                handle,
                stream,
                &p.d,
                (alpha, beta),
                (ptr(g.a), ptr(g.b), out),
                candidate,
                ws_ptr,
            )
        }
    }
}

/// The heuristic's top `count` algorithms for a described problem, each with what it is.
fn heuristic(
    handle: sys::cublasLtHandle_t,
    desc: sys::cublasLtMatmulDesc_t,
    a: sys::cublasLtMatrixLayout_t,
    b: sys::cublasLtMatrixLayout_t,
    c: sys::cublasLtMatrixLayout_t,
    count: usize,
) -> Result<Vec<Candidate>, RefError> {
    let mut pref = std::ptr::null_mut();
    let mut results = vec![
            // SAFETY: a plain C struct of integers; all-zero is a valid value to be overwritten.
            unsafe { std::mem::zeroed::<cublasLtMatmulHeuristicResult_t>() };
            count.max(1)
        ];
    let mut found = 0i32;
    // SAFETY: out-pointers and attribute values are live locals of the documented types; the
    // result array holds `count` entries.
    unsafe {
        status(
            "cublasLtMatmulPreferenceCreate",
            sys::cublasLtMatmulPreferenceCreate(&mut pref),
        )?;
        let ws = WORKSPACE_BYTES as u64;
        let set = sys::cublasLtMatmulPreferenceSetAttribute(
            pref,
            cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            (&ws as *const u64).cast(),
            size_of::<u64>(),
        );
        let get = sys::cublasLtMatmulAlgoGetHeuristic(
            handle,
            desc,
            a,
            b,
            c,
            c,
            pref,
            results.len() as i32,
            results.as_mut_ptr(),
            &mut found,
        );
        let _ = sys::cublasLtMatmulPreferenceDestroy(pref);
        status("cublasLtMatmulPreferenceSetAttribute", set)?;
        status("cublasLtMatmulAlgoGetHeuristic", get)?;
    }
    results.truncate(found.max(0) as usize);
    Ok(results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.state == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS)
        .map(|(rank, r)| Candidate {
            rank,
            algo: r.algo,
            workspace_bytes: r.workspaceSize,
            waves: r.wavesCount,
            desc: describe(&r.algo),
        })
        .collect())
}

/// Reads an algorithm's configuration attributes (zero where one cannot be read).
fn describe(algo: &cublasLtMatmulAlgo_t) -> AlgoDesc {
    let read = |attr: cublasLtMatmulAlgoConfigAttributes_t, bytes: usize| -> u64 {
        let mut v = 0u64;
        let mut written = 0usize;
        // SAFETY: `v` has room for `bytes` ≤ 8 bytes; the algo is a valid heuristic result.
        let s = unsafe {
            sys::cublasLtMatmulAlgoConfigGetAttribute(
                algo,
                attr,
                (&mut v as *mut u64).cast(),
                bytes,
                &mut written,
            )
        };
        if s == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            v
        } else {
            0
        }
    };
    use cublasLtMatmulAlgoConfigAttributes_t as A;
    AlgoDesc {
        id: read(A::CUBLASLT_ALGO_CONFIG_ID, 4) as i32,
        tile: read(A::CUBLASLT_ALGO_CONFIG_TILE_ID, 4) as u32,
        stages: read(A::CUBLASLT_ALGO_CONFIG_STAGES_ID, 4) as u32,
        split_k: read(A::CUBLASLT_ALGO_CONFIG_SPLITK_NUM, 4) as i32,
        cluster: read(A::CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, 4) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cublas_ref::{plan_nn, plan_nt};

    #[test]
    fn stored_shape_follows_the_transpose() {
        // NT: cuBLAS A is rhs[N,K] stored as K x N (op T), B is lhs stored as K x M (op N).
        let g = plan_nt(128, 256, 64);
        assert_eq!(stored(g.transa, g.m, g.k), (64, 256));
        assert_eq!(stored(g.transb, g.k, g.n), (64, 128));
        // NN: A is b[K,N] stored as N x K (op N), B is a[M,K] stored as K x M.
        let g = plan_nn(128, 256, 64);
        assert_eq!(stored(g.transa, g.m, g.k), (256, 64));
        assert_eq!(stored(g.transb, g.k, g.n), (64, 128));
    }

    #[test]
    fn compute_types_match_gemm_ex() {
        assert_eq!(
            compute_types(DType::F32, GemmCompute::F32).0,
            cublasComputeType_t::CUBLAS_COMPUTE_32F_PEDANTIC
        );
        assert_eq!(
            compute_types(DType::F16, GemmCompute::F16),
            (
                cublasComputeType_t::CUBLAS_COMPUTE_16F,
                cudaDataType::CUDA_R_16F
            )
        );
        assert_eq!(
            compute_types(DType::BF16, GemmCompute::F32),
            (
                cublasComputeType_t::CUBLAS_COMPUTE_32F,
                cudaDataType::CUDA_R_32F
            )
        );
    }
}
