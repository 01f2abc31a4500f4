//! A GEMM with planted faults, to prove the tuner's fault isolation: one tunable value writes
//! far out of bounds (an illegal-address fault, which poisons the CUDA context), another waits
//! on an mbarrier nobody arrives on (a hang). The rest is a correct naive GEMM
//! `out[M,N] = lhs[M,K] · rhs[N,K]^T` (f16 in and out, f32 accumulation), so it goes through
//! the same worker, watchdog, verification and timing as any kernel.
//!
//! | `FAULT` | behaviour |
//! |---|---|
//! | 0 | correct |
//! | 1 | thread 0 of block 0 stores 2 TiB past `out`: `CUDA_ERROR_ILLEGAL_ADDRESS` |
//! | 2 | every thread waits on phase 0 of a fresh mbarrier: never completes. A safety net traps after 60 s of wall-clock time, long after any watchdog, so a GPU is never held forever |
//!
//! `TILE` (8, 16, 32) is the square thread-block edge.

use dsl_core::def::TunableDef;

use super::record::ConfigMap;
use super::target::{CudaTemplate, Shape};
use crate::launch::LaunchConfig;

const SOURCE: &str = r#"
// tessel tuner self-test: a naive GEMM with planted faults (see runtime/src/tune/planted.rs).
__device__ __forceinline__ float tsl_h2f(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
__device__ __forceinline__ unsigned short tsl_f2h(float f) {
  unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ unsigned long long tsl_now_ns() {
  unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}

template <int FAULT, int TILE>
__global__ void tsl_planted_gemm(const unsigned short* lhs, const unsigned short* rhs,
                                 unsigned short* out, int M, int N, int K) {
  if (FAULT == 1 && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0) {
    volatile unsigned short* far = out + (1ull << 40);
    *far = 0;
  }
  if (FAULT == 2) {
    __shared__ __align__(8) unsigned long long bar;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(addr), "r"(1));
    }
    __syncthreads();
    unsigned long long start = tsl_now_ns();
    unsigned done = 0;
    while (!done) {
      asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(addr), "r"(0) : "memory");
      if (tsl_now_ns() - start > 60ull * 1000000000ull) __trap();
    }
  }
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.f;
  for (int k = 0; k < K; ++k) acc += tsl_h2f(lhs[(size_t)row * K + k]) * tsl_h2f(rhs[(size_t)col * K + k]);
  out[(size_t)row * N + col] = tsl_f2h(acc);
}
"#;

fn launch(cfg: &ConfigMap, shape: &Shape) -> LaunchConfig {
    let tile = cfg.get("TILE").copied().unwrap_or(16).clamp(1, 32) as u32;
    LaunchConfig {
        grid: (
            (shape.n as u32).div_ceil(tile),
            (shape.m as u32).div_ceil(tile),
            1,
        ),
        block: (tile, tile, 1),
        dynamic_smem_bytes: 0,
    }
}

fn restrictions(_: &ConfigMap, shape: &Shape) -> Result<(), String> {
    if shape.m.max(shape.n).max(shape.k) > i32::MAX as usize {
        return Err("dims must fit in an int".into());
    }
    Ok(())
}

/// The planted-fault GEMM (`FAULT` × `TILE`).
pub static PLANTED: CudaTemplate = CudaTemplate {
    name: "planted_faults",
    source: SOURCE,
    function: "tsl_planted_gemm",
    tunables: &[
        TunableDef {
            name: "FAULT",
            domain: &[0, 1, 2],
            default: 0,
        },
        TunableDef {
            name: "TILE",
            domain: &[8, 16, 32],
            default: 16,
        },
    ],
    launch,
    restrictions,
};
