//! Support for tessel's example programs, the bench and the ladders: command lines (clap),
//! GEMM / SGEMM / GEMV measurement against cuBLAS, the printed tables and the process exit
//! codes. The examples' `main`s are thin calls into this crate; it is not a public API.
//!
//! Only binaries print; the runtime library returns values and errors.

pub mod bandwidth;
pub mod bench;
pub mod exit;
pub mod explain;
pub mod flags;
pub mod gemm;
pub mod gemm8;
pub mod gemv;
pub mod jobs;
pub mod ladder;
pub mod out;
pub mod progress;
pub mod regimes;
pub mod sgemm;
pub mod sweep;
pub mod tune;
pub mod user;
