//! `tessel check FILE.co [--set NAME=V]`: parse and check; one line on success.

use super::source::{Failure, KernelArgs, Loaded};

/// Runs `check`.
pub fn run(args: &KernelArgs) -> Result<String, Failure> {
    let k = Loaded::load(args)?;
    Ok(format!(
        "{}: ok ({} threads per block, {} bytes of shared memory)\n",
        k.file, k.info.threads_per_block, k.info.smem_bytes
    ))
}
