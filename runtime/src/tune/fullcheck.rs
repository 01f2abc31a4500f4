//! Verification of a whole GEMM output against the cuBLAS reference, on the GPU.
//!
//! The reference stays on the device (cuBLAS's output, in the output's element type). One
//! small kernel compares every element of a trial's output with it and writes one partial
//! result per block; the host merges the few hundred partials. The counts are those of
//! [`crate::verify::verify_f64`] element for element — poisoned outputs, NaNs, infinities,
//! non-finite references — and so are the largest error and its (first) index; the relative
//! error is `‖out − ref‖ / ‖ref‖` over the finite elements, summed in f64. Comparing on the
//! GPU takes well under a millisecond at 8192², where downloading the output and comparing it
//! on the host took longer than timing the kernel.

use cudarc::driver::CudaSlice;

use crate::cache::ModuleCache;
use crate::device::{Device, guard};
use crate::dtype::{DType, Element};
use crate::launch::{KernelArg, LaunchConfig, LoadedModule};
use crate::nvrtc::{Arch, CompileRequest};
use crate::tensor::DeviceTensor;
use crate::verify::Verification;

/// The comparison kernel, written without CUDA headers (NVRTC gets none): element bits are
/// widened to f32 by hand (`cvt.f32.f16` for f16, a shift for bf16), then compared in f64.
/// `KIND`: 0 f16, 1 bf16, 2 f32.
const SOURCE: &str = r#"
struct tsl_part {
  double diff2, ref2, max_abs;
  unsigned long long max_index, poisoned, first_poisoned, nans, infs, ref_nonfinite;
};

template <int KIND, typename B>
__device__ __forceinline__ float tsl_widen(B b) {
  if (KIND == 0) {
    float f;
    unsigned short h = (unsigned short)b;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
  }
  if (KIND == 1) return __uint_as_float(((unsigned)b) << 16);
  return __uint_as_float((unsigned)b);
}

__device__ __forceinline__ bool tsl_finite(float f) {
  return (__float_as_uint(f) & 0x7f800000u) != 0x7f800000u;
}

template <int KIND, typename B>
__global__ void __launch_bounds__(256) tessel_fullcheck(
    const B* __restrict__ out, const B* __restrict__ ref, unsigned long long n,
    unsigned poison, tsl_part* parts) {
  tsl_part p = {0.0, 0.0, 0.0, 0ull, 0ull, ~0ull, 0ull, 0ull, 0ull};
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    B o = out[i];
    if ((unsigned)o == poison) {
      p.poisoned++;
      if (i < p.first_poisoned) p.first_poisoned = i;
      continue;
    }
    float x = tsl_widen<KIND>(o);
    if (!tsl_finite(x)) {
      if (__float_as_uint(x) & 0x007fffffu) p.nans++; else p.infs++;
      continue;
    }
    float r = tsl_widen<KIND>(ref[i]);
    if (!tsl_finite(r)) {
      p.ref_nonfinite++;
      continue;
    }
    double d = (double)x - (double)r;
    if (d < 0.0) d = -d;
    p.diff2 += d * d;
    p.ref2 += (double)r * (double)r;
    if (d > p.max_abs) {
      p.max_abs = d;
      p.max_index = i;
    }
  }
  __shared__ tsl_part s[256];
  s[threadIdx.x] = p;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      tsl_part& a = s[threadIdx.x];
      const tsl_part& b = s[threadIdx.x + w];
      a.diff2 += b.diff2;
      a.ref2 += b.ref2;
      if (b.max_abs > a.max_abs || (b.max_abs == a.max_abs && b.max_abs > 0.0 && b.max_index < a.max_index)) {
        a.max_abs = b.max_abs;
        a.max_index = b.max_index;
      }
      a.poisoned += b.poisoned;
      if (b.first_poisoned < a.first_poisoned) a.first_poisoned = b.first_poisoned;
      a.nans += b.nans;
      a.infs += b.infs;
      a.ref_nonfinite += b.ref_nonfinite;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) parts[blockIdx.x] = s[0];
}
"#;

/// Blocks of the comparison (a few per SM; each thread strides over the output).
const BLOCKS: u32 = 1056;
const THREADS: u32 = 256;
/// 64-bit words of one `tsl_part`.
const PART_WORDS: usize = 9;

/// The NVRTC request of the comparison for `dtype` on `arch`, and the name expression of its
/// kernel.
/// `None` for the 8-bit and integer element types, which the tuner's GEMM targets never output.
pub fn compile_request(dtype: DType, arch: Arch) -> Option<(CompileRequest, String)> {
    let (kind, bits) = match dtype {
        DType::F16 => (0, "unsigned short"),
        DType::BF16 => (1, "unsigned short"),
        DType::F32 => (2, "unsigned"),
        DType::F8E4M3
        | DType::F8E5M2
        | DType::S8
        | DType::U8
        | DType::S16
        | DType::U16
        | DType::U32
        | DType::S32 => return None,
    };
    let expr = format!("tessel_fullcheck<{kind}, {bits}>");
    Some((
        CompileRequest::new(SOURCE, arch).name_expression(expr.clone()),
        expr,
    ))
}

/// The compiled comparison and its partials buffer, built once per worker.
pub struct DeviceCheck {
    kernel: crate::launch::Kernel,
    parts: CudaSlice<u64>,
    /// Kept alive: the kernel belongs to it.
    _module: LoadedModule,
}

impl DeviceCheck {
    /// Compiles (through `cache`) and loads the comparison for elements of type `dtype`.
    pub fn new(dev: &Device, cache: &ModuleCache, dtype: DType) -> Result<Self, String> {
        let e = |x: &dyn std::fmt::Display| format!("full-output check: {x}");
        let arch = dev
            .info()
            .tessel_arch()
            .ok_or_else(|| e(&"unsupported GPU architecture"))?;
        let (req, expr) = compile_request(dtype, arch)
            .ok_or_else(|| e(&format!("no device comparison of {dtype} outputs")))?;
        let (module, _) = cache.get_or_compile(&req).map_err(|x| e(&x))?;
        let lowered = module
            .lowered_name(&expr)
            .ok_or_else(|| e(&format!("no lowered name for `{expr}`")))?
            .to_string();
        let loaded = LoadedModule::load(dev, &module.cubin).map_err(|x| e(&x))?;
        let kernel = loaded.kernel(&lowered).map_err(|x| e(&x))?;
        let parts = guard("cuMemAlloc", || {
            dev.stream()
                .alloc_zeros::<u64>(BLOCKS as usize * PART_WORDS)
        })
        .map_err(|x| e(&x))?;
        Ok(DeviceCheck {
            kernel,
            parts,
            _module: loaded,
        })
    }

    /// Compares `out` with `reference` (same shape) under `tolerance`.
    pub fn verify<T: Element>(
        &mut self,
        dev: &Device,
        out: &DeviceTensor<T>,
        reference: &DeviceTensor<T>,
        tolerance: f64,
    ) -> Result<Verification, String> {
        let e = |x: &dyn std::fmt::Display| format!("full-output check: {x}");
        if out.len() != reference.len() {
            return Err(e(&"the output and the reference differ in length"));
        }
        let poison = match T::DTYPE.size_bytes() {
            // SAFETY: 2-byte bits are a u16, 4-byte bits a u32 (`Element::Bits`).
            2 => u32::from(unsafe {
                std::mem::transmute_copy::<T::Bits, u16>(&T::poison().to_bits())
            }),
            _ => unsafe { std::mem::transmute_copy::<T::Bits, u32>(&T::poison().to_bits()) },
        };
        let parts_ptr = {
            use cudarc::driver::DevicePtr;
            let (p, _sync) = self.parts.device_ptr(dev.stream());
            p
        };
        let cfg = LaunchConfig {
            grid: (BLOCKS, 1, 1),
            block: (THREADS, 1, 1),
            dynamic_smem_bytes: 0,
        };
        let args = [
            KernelArg::Ptr(out.device_ptr()),
            KernelArg::Ptr(reference.device_ptr()),
            KernelArg::U64(out.len() as u64),
            KernelArg::U32(poison),
            KernelArg::Ptr(parts_ptr),
        ];
        // SAFETY: the arguments match `tessel_fullcheck`'s parameters: two element arrays of
        // `n` elements, `n`, the poison bits, and BLOCKS partials.
        unsafe { self.kernel.launch(&cfg, &args) }.map_err(|x| e(&x))?;
        let words =
            guard("cuMemcpyDtoH", || dev.stream().clone_dtoh(&self.parts)).map_err(|x| e(&x))?;
        Ok(merge(&words, out.len(), tolerance))
    }
}

/// Merges the per-block partials into one [`Verification`].
fn merge(words: &[u64], elements: usize, tolerance: f64) -> Verification {
    let mut v = Verification {
        elements,
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
    for p in words.chunks_exact(PART_WORDS) {
        diff2 += f64::from_bits(p[0]);
        ref2 += f64::from_bits(p[1]);
        let max_abs = f64::from_bits(p[2]);
        let index = p[3] as usize;
        if max_abs > v.max_abs_error
            || (max_abs == v.max_abs_error && max_abs > 0.0 && index < v.max_abs_index)
        {
            v.max_abs_error = max_abs;
            v.max_abs_index = index;
        }
        v.poisoned += p[4] as usize;
        if p[5] != u64::MAX {
            let first = p[5] as usize;
            v.first_poisoned = Some(v.first_poisoned.map_or(first, |q| q.min(first)));
        }
        v.nans += p[6] as usize;
        v.infs += p[7] as usize;
        v.ref_nonfinite += p[8] as usize;
    }
    v.rel_error = if ref2 > 0.0 {
        (diff2 / ref2).sqrt()
    } else {
        diff2.sqrt()
    };
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(
        diff2: f64,
        ref2: f64,
        max_abs: f64,
        index: u64,
        poisoned: u64,
        first: u64,
    ) -> [u64; 9] {
        [
            diff2.to_bits(),
            ref2.to_bits(),
            max_abs.to_bits(),
            index,
            poisoned,
            first,
            1,
            2,
            3,
        ]
    }

    #[test]
    fn partials_merge_like_one_pass() {
        let mut words = Vec::new();
        words.extend(part(1.0, 4.0, 0.5, 10, 0, u64::MAX));
        words.extend(part(3.0, 12.0, 0.5, 3, 2, 40));
        words.extend(part(0.0, 0.0, 0.0, 0, 1, 7));
        let v = merge(&words, 100, 1e-2);
        assert_eq!(v.rel_error, (4.0f64 / 16.0).sqrt());
        // Ties keep the first index, as a single pass over the elements would.
        assert_eq!((v.max_abs_error, v.max_abs_index), (0.5, 3));
        assert_eq!((v.poisoned, v.first_poisoned), (3, Some(7)));
        assert_eq!((v.nans, v.infs, v.ref_nonfinite), (3, 6, 9));
        assert!(!v.passed());
    }

    #[test]
    fn a_clean_output_passes() {
        let words = part(1e-8, 1.0, 1e-4, 5, 0, u64::MAX);
        let mut w = words.to_vec();
        w[6..9].copy_from_slice(&[0, 0, 0]);
        let v = merge(&w, 10, 1e-3);
        assert!(v.passed(), "{v}");
    }
}
