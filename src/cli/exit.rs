//! Exit codes of the `tessel` command (the example binaries use the same table).
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | success |
//! | 1 | the kernel failed a check (a DSL diagnostic) or its output failed verification |
//! | 2 | usage error: bad arguments, an unreadable file, an unknown tunable |
//! | 3 | no GPU: no CUDA driver or no usable device (`run`, `tune`) |
//! | 4 | any other runtime error: NVRTC missing or failing, a CUDA or cuBLAS error, I/O |

/// Success.
pub const OK: i32 = 0;
/// The kernel failed a check (a DSL diagnostic) or its output failed verification.
pub const FAILED: i32 = 1;
/// Bad arguments, an unreadable input file, an unknown tunable.
pub const USAGE: i32 = 2;
/// No CUDA driver or no usable GPU.
pub const NO_GPU: i32 = 3;
/// Any other runtime error (NVRTC missing or failing, CUDA, cuBLAS, I/O).
pub const RUNTIME: i32 = 4;

/// The table as `--help` prints it.
pub const HELP: &str = "Exit codes:
  0  success
  1  the kernel failed a check, or its output failed verification
  2  usage error (bad arguments, unreadable file, unknown tunable)
  3  no GPU (no CUDA driver or no usable device)
  4  other runtime error (NVRTC missing or failing, CUDA, cuBLAS, I/O)";
