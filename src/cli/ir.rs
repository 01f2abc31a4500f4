//! `tessel ir FILE.co [--set NAME=V]`: the checked IR, then the configuration's facts.

use super::source::{Failure, KernelArgs, Loaded};

/// Runs `ir`.
pub fn run(args: &KernelArgs) -> Result<String, Failure> {
    let k = Loaded::load_language(args)?;
    let cfg: Vec<String> = k
        .config
        .values
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    let consts: Vec<String> = k
        .info
        .constants
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    Ok(format!(
        "{}// config: {}\n// constants: {}\n// threads per block: {}, shared memory: {} bytes\n",
        k.module,
        cfg.join(" "),
        consts.join(" "),
        k.info.threads_per_block,
        k.info.smem_bytes
    ))
}
