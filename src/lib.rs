//! tessel: a Rust-embedded tile DSL in the style of Croqtile.
//!
//! Write a GEMM kernel in Croqtile syntax inside [`gemm_kernel!`] (or in a `.co` file with
//! `gemm_kernel!(file = "…")`); the macro parses and checks it at compile time (errors point at
//! the DSL token) and emits readable CUDA C++ whose tunables are template parameters. The
//! [`runtime`] compiles it with NVRTC, launches it, verifies it against cuBLAS, times it and
//! tunes it.
//!
//! Crates (package / library): `tessel-core` / [`dsl_core`] (parser, IR, checks, lowering) →
//! `tessel-codegen` / [`codegen_cuda`] (emission) → `tessel-runtime` / [`runtime`] (NVRTC,
//! launch, cuBLAS, tuner); `tessel-macros` is the thin macro glue. This crate is published as
//! `tessel-dsl`; depend on it as `tessel = { package = "tessel-dsl", version = "0.1" }` so that
//! the paths the macro expands to (`::tessel::…`) resolve. [`cli`] is the `tessel` command.

#![warn(missing_docs)]

pub use codegen_cuda;
pub use dsl_core;
pub use dsl_core::check::{Config, KernelInfo, Problem};
pub use dsl_core::def::{KernelDef, ParamDef, TunableDef};
pub use dsl_core::ir::{DType, MemSpace};
pub use dsl_core::{Diagnostic, Diagnostics};
pub use dsl_macros::gemm_kernel;
pub use half;
pub use tessel_runtime as runtime;

pub mod cli;
pub mod explain;

/// What a program that launches tessel kernels needs in scope:
/// `use tessel::prelude::*;`.
pub mod prelude {
    pub use crate::gemm_kernel;
    pub use crate::half::{bf16, f16};
    pub use crate::runtime::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
    pub use crate::runtime::device::Device;
    pub use crate::runtime::dsl::DslError;
    pub use crate::runtime::kernel::{Autotuned, CompiledKernel, LaunchArg};
    pub use crate::runtime::tensor::{DeviceTensor, TensorMut, TensorRef};
    pub use crate::{Config, KernelDef};
}
