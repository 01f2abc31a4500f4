//! `tessel emit FILE.co [--set NAME=V]`: the CUDA C++, with an explicit instantiation for the
//! configuration.

use super::source::{Failure, KernelArgs, Loaded};

/// Runs `emit`.
pub fn run(args: &KernelArgs) -> Result<String, Failure> {
    let k = Loaded::load(args)?;
    let kernel = dsl_core::lower::lower(&k.module, &k.info).map_err(|d| k.diagnostics(&d))?;
    Ok(codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &kernel,
        source: &k.file,
        instance: Some(k.template_values()),
    }))
}
