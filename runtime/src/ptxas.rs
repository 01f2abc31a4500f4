//! Parsing the `ptxas -v` report that NVRTC appends to its program log
//! (`--ptxas-options=-v`), per compiled function.
//!
//! The lines it reads (ptxas 13.0):
//!
//! ```text
//! ptxas info    : Compiling entry function '_Z4axpyILi4EEvPf' for 'sm_90a'
//! ptxas info    : Function properties for _Z4axpyILi4EEvPf
//! ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
//! ptxas info    : Used 30 registers, used 1 barriers, 8192 bytes smem
//! ```
//!
//! Every "Compiling entry function" / "Function properties for" line names the function the
//! following lines describe. Absent fields stay 0. Lines with a `C7xxx` diagnostic code
//! ("Potential Performance Loss") are collected by [`perf_warnings`].

/// What ptxas reported for one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelResources {
    /// The lowered (mangled) function name.
    pub name: String,
    /// Target named in "Compiling entry function … for 'sm_90a'", if any.
    pub arch: Option<String>,
    /// True for `__global__` entry functions ("Compiling entry function").
    pub is_entry: bool,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of register spill stores.
    pub spill_stores: u32,
    /// Bytes of register spill loads.
    pub spill_loads: u32,
    /// Bytes of stack frame (local memory) per thread.
    pub stack_frame: u32,
    /// Static shared memory bytes (dynamic shared memory is not counted by ptxas).
    pub smem_bytes: u32,
    /// Named barriers used.
    pub barriers: u32,
}

impl KernelResources {
    /// True when the function spills or uses a stack frame (local memory traffic).
    pub fn uses_local_memory(&self) -> bool {
        self.spill_stores > 0 || self.spill_loads > 0 || self.stack_frame > 0
    }
}

/// Parses every function described in a ptxas `-v` log. Lines that do not match are ignored;
/// a log without `-v` output gives an empty list.
pub fn parse_ptxas_log(log: &str) -> Vec<KernelResources> {
    let mut out: Vec<KernelResources> = Vec::new();
    let mut current: Option<usize> = None;
    for raw in log.lines() {
        let line = raw.trim();
        if let Some(rest) = line
            .split_once("Compiling entry function '")
            .map(|(_, r)| r)
        {
            let Some((name, tail)) = rest.split_once('\'') else {
                continue;
            };
            let arch = tail
                .split_once("for '")
                .and_then(|(_, r)| r.split_once('\''))
                .map(|(a, _)| a.to_string());
            let idx = entry_index(&mut out, name);
            out[idx].is_entry = true;
            if arch.is_some() {
                out[idx].arch = arch;
            }
            current = Some(idx);
        } else if let Some(name) = line
            .split_once("Function properties for ")
            .map(|(_, r)| r.trim())
        {
            current = Some(entry_index(&mut out, name));
        } else if line.contains("bytes stack frame") {
            if let Some(i) = current {
                let r = &mut out[i];
                r.stack_frame = number_before(line, "bytes stack frame").unwrap_or(0);
                r.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
                r.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
            }
        } else if line.contains("Used ")
            && line.contains(" registers")
            && let Some(i) = current
        {
            let r = &mut out[i];
            let used = line.split_once("Used ").map(|(_, r)| r).unwrap_or("");
            r.registers = number_before(used, "registers").unwrap_or(0);
            r.barriers = number_before(line, "barriers").unwrap_or(0);
            r.smem_bytes = number_before(line, "bytes smem").unwrap_or(0);
        }
    }
    out
}

fn entry_index(out: &mut Vec<KernelResources>, name: &str) -> usize {
    if let Some(i) = out.iter().position(|r| r.name == name) {
        return i;
    }
    out.push(KernelResources {
        name: name.to_string(),
        ..KernelResources::default()
    });
    out.len() - 1
}

/// The integer right before `marker` (`"4 bytes spill stores"` → 4), if any.
fn number_before(line: &str, marker: &str) -> Option<u32> {
    let pos = line.find(marker)?;
    let head = line[..pos].trim_end();
    let digits: String = head
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

/// Lines of the log carrying a ptxas performance diagnostic code (`C7xxx`), e.g. C7508
/// (setmaxnreg ignored), C7511 (wgmma serialized), C7517/C7519 (injected waits/arrives).
pub fn perf_warnings(log: &str) -> Vec<&str> {
    log.lines()
        .map(str::trim)
        .filter(|l| {
            l.match_indices("(C7")
                .any(|(i, _)| l[i + 3..].chars().take(3).all(|c| c.is_ascii_digit()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z4axpyILi4EEvPf' for 'sm_80'
ptxas info    : Function properties for _Z4axpyILi4EEvPf
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 30 registers, used 1 barriers, 8192 bytes smem, 368 bytes cmem[0]
ptxas info    : Compiling entry function 'plain' for 'sm_80'
ptxas info    : Function properties for plain
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, 356 bytes cmem[0]
ptxas warning : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to determine register count at entry
";

    #[test]
    fn parses_each_function() {
        let r = parse_ptxas_log(LOG);
        assert_eq!(r.len(), 2);
        let a = &r[0];
        assert_eq!(a.name, "_Z4axpyILi4EEvPf");
        assert_eq!(a.arch.as_deref(), Some("sm_80"));
        assert!(a.is_entry);
        assert_eq!(
            (
                a.registers,
                a.spill_stores,
                a.spill_loads,
                a.stack_frame,
                a.smem_bytes,
                a.barriers
            ),
            (30, 4, 12, 8, 8192, 1)
        );
        assert!(a.uses_local_memory());
        let b = &r[1];
        assert_eq!(b.name, "plain");
        assert_eq!((b.registers, b.smem_bytes, b.barriers), (8, 0, 0));
        assert!(!b.uses_local_memory());
    }

    #[test]
    fn log_without_verbose_output_is_empty() {
        assert!(parse_ptxas_log("").is_empty());
        assert!(parse_ptxas_log("kernel.cu(3): warning: unused variable\n").is_empty());
    }

    #[test]
    fn device_functions_without_entry_line_are_recorded() {
        let log = "ptxas info    : Function properties for _Z6helperv\n    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
        let r = parse_ptxas_log(log);
        assert_eq!(r.len(), 1);
        assert!(!r[0].is_entry);
        assert_eq!(r[0].stack_frame, 16);
    }

    #[test]
    fn finds_c75xx_warnings() {
        let w = perf_warnings(LOG);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("C7508"));
        assert!(perf_warnings("(C7x) nothing").is_empty());
    }

    #[test]
    fn number_before_handles_missing_numbers() {
        assert_eq!(number_before("Used 12 registers", "registers"), Some(12));
        assert_eq!(number_before("registers", "registers"), None);
        assert_eq!(number_before("abc", "registers"), None);
    }
}
