//! `tessel check FILE.co [--set NAME=V]`: parse and check every `__co__` function of the file;
//! one line per function on success, then its notes (what no lowering handles yet, host C++
//! skipped) and its warnings (rendered like errors).

use super::exit;
use super::source::{Failure, KernelArgs, Loaded};

/// Runs `check`.
pub fn run(args: &KernelArgs) -> Result<String, Failure> {
    let each = Loaded::load_each(args)?;
    let several = each.len() > 1;
    let mut out = String::new();
    let mut failed = false;
    for (name, loaded) in each {
        match loaded {
            Ok(k) => {
                let label = if several {
                    format!("{}::{name}", k.file)
                } else {
                    k.file.clone()
                };
                // A thread count known only at launch (a note of the check) has no number here.
                let launch_threads = k
                    .notes
                    .iter()
                    .any(|d| d.code == dsl_core::check::codes::NOT_LOWERED_LAUNCH_THREADS);
                let threads = if launch_threads {
                    "threads per block set at launch".to_string()
                } else {
                    format!("{} threads per block", k.info.threads_per_block)
                };
                let smem = match k.info.launch_sized_smem(&k.module) {
                    Some(s) => format!(
                        "{} bytes of shared memory and {} bytes sized at launch",
                        k.info.smem_bytes,
                        s.to_cpp()
                    ),
                    None => format!("{} bytes of shared memory", k.info.smem_bytes),
                };
                out.push_str(&format!("{label}: ok ({threads}, {smem})\n"));
                for d in &k.notes {
                    out.push_str(&format!(
                        "note[{}]: {}:{}: {}\n",
                        d.code, k.file, d.span.start.line, d.message
                    ));
                }
                if !k.info.warnings.is_empty() {
                    out.push_str(&dsl_core::render::render_capped(
                        &k.file,
                        &k.text,
                        k.info.warnings.iter(),
                        dsl_core::render::MAX_RENDERED,
                    ));
                }
            }
            Err(f) if f.code == exit::FAILED && several => {
                out.push_str(&f.text);
                failed = true;
            }
            Err(f) => return Err(f),
        }
    }
    if failed {
        return Err(Failure {
            text: out,
            code: exit::FAILED,
        });
    }
    Ok(out)
}
