//! SASS: disassemble a cubin with `nvdisasm` and query the instructions.
//!
//! [`disassemble`] writes the cubin to a temporary file and runs `nvdisasm -c -ndf` (code
//! sections only, no data-flow annotations); the executable is found by
//! [`crate::locate::find_nvdisasm`]. The query helpers are pure functions over the text, whose
//! instruction lines look like
//!
//! ```text
//!         /*0110*/                   FFMA R7, R0, UR6, R7 ;
//!         /*01d0*/              @!P0 BRA `(.L_x_0) ;
//! ```
//!
//! An *opcode* is the first token after the optional predicate (`HGMMA.64x64x16.F32`); its
//! *mnemonic* is the part before the first dot (`HGMMA`).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::locate::{self, LocateError};

/// Errors from running nvdisasm.
#[derive(Debug, thiserror::Error)]
pub enum SassError {
    /// nvdisasm not found.
    #[error(transparent)]
    NotFound(#[from] LocateError),
    /// Temp file or process I/O failed.
    #[error("{what} ({path}): {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file or program involved.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// nvdisasm exited with an error.
    #[error("{program} failed with {status}: {stderr}")]
    Failed {
        /// The executable.
        program: PathBuf,
        /// Exit status.
        status: std::process::ExitStatus,
        /// Its standard error.
        stderr: String,
    },
}

/// Disassembles a cubin to SASS text.
pub fn disassemble(cubin: &[u8]) -> Result<String, SassError> {
    run_nvdisasm(cubin, &["-c", "-ndf"])
}

/// Disassembles a cubin compiled with `-lineinfo`, each instruction run preceded by its source
/// location with the inlining chain (`nvdisasm -gi`):
///
/// ```text
///         //## File "k.cu", line 65 inlined at "k.cu", line 306
///         //## File "k.cu", line 306
///         /*02d0*/               @P2 PRMT R13, RZ, 0x7610, R13 ;
/// ```
///
/// The innermost location comes first, the function's own line last. A cubin without line
/// information disassembles as with [`disassemble`].
pub fn disassemble_with_line_info(cubin: &[u8]) -> Result<String, SassError> {
    run_nvdisasm(cubin, &["-c", "-ndf", "-gi"])
}

fn run_nvdisasm(cubin: &[u8], args: &[&str]) -> Result<String, SassError> {
    let program = locate::find_nvdisasm()?;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "tessel-sass-{}-{}.cubin",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, cubin).map_err(|source| SassError::Io {
        what: "writing the cubin for nvdisasm",
        path: path.clone(),
        source,
    })?;
    let output = Command::new(&program).args(args).arg(&path).output();
    let _ = std::fs::remove_file(&path);
    let output = output.map_err(|source| SassError::Io {
        what: "running nvdisasm",
        path: program.clone(),
        source,
    })?;
    if !output.status.success() {
        return Err(SassError::Failed {
            program,
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// One decoded instruction line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// Byte offset inside its function.
    pub offset: u32,
    /// Guard predicate (`@!P0`), if any.
    pub predicate: Option<&'a str>,
    /// Full opcode with modifiers (`HGMMA.64x64x16.F32`).
    pub opcode: &'a str,
    /// Operand text (without the trailing `;`).
    pub operands: &'a str,
}

impl Instruction<'_> {
    /// The opcode without modifiers (`HGMMA`).
    pub fn mnemonic(&self) -> &str {
        self.opcode.split('.').next().unwrap_or(self.opcode)
    }
}

/// Decodes one line, if it is an instruction line.
pub fn parse_line(line: &str) -> Option<Instruction<'_>> {
    let t = line.trim_start();
    let rest = t.strip_prefix("/*")?;
    let (off, body) = rest.split_once("*/")?;
    let offset = u32::from_str_radix(off.trim(), 16).ok()?;
    let body = body.trim();
    let body = body.strip_suffix(';').unwrap_or(body).trim_end();
    let (predicate, body) = match body.strip_prefix('@') {
        Some(_) => {
            let (p, r) = body.split_once(char::is_whitespace)?;
            (Some(p), r.trim_start())
        }
        None => (None, body),
    };
    let (opcode, operands) = match body.split_once(char::is_whitespace) {
        Some((o, r)) => (o, r.trim()),
        None => (body, ""),
    };
    // Data directives (`.byte`, `.word`) in non-code sections are not instructions.
    if opcode.is_empty() || opcode.starts_with('.') {
        return None;
    }
    Some(Instruction {
        offset,
        predicate,
        opcode,
        operands,
    })
}

/// All instructions in `sass`, in order.
pub fn instructions(sass: &str) -> impl Iterator<Item = Instruction<'_>> {
    sass.lines().filter_map(parse_line)
}

/// Number of instructions whose opcode is `op` or starts with `op.`:
/// `count(s, "HGMMA")` counts every HGMMA shape, `count(s, "UTMALDG.2D")` only 2-D loads.
pub fn count(sass: &str, op: &str) -> usize {
    instructions(sass)
        .filter(|i| {
            i.opcode == op
                || (i.opcode.len() > op.len()
                    && i.opcode.starts_with(op)
                    && i.opcode.as_bytes()[op.len()] == b'.')
        })
        .count()
}

/// True when the code touches local memory (`LDL`/`STL`: spills or a stack-allocated array).
pub fn has_local_memory(sass: &str) -> bool {
    instructions(sass).any(|i| matches!(i.mnemonic(), "LDL" | "STL"))
}

/// The set of mnemonics used.
pub fn instruction_set(sass: &str) -> BTreeSet<String> {
    instructions(sass)
        .map(|i| i.mnemonic().to_string())
        .collect()
}

/// The SASS of one function (by lowered name): the text of its `.text.<name>` section.
pub fn function_sass<'a>(sass: &'a str, lowered_name: &str) -> Option<&'a str> {
    let header = format!("\t.section\t.text.{lowered_name},");
    let start = sass.find(&header)?;
    let rest = &sass[start + header.len()..];
    let end = rest.find("\t.section\t").unwrap_or(rest.len());
    Some(&sass[start..start + header.len() + end])
}

/// The basic blocks of `sass` (one function's text), in order: a block starts at a label (a
/// branch target) and ends after a branch, call, return or exit. ptxas schedules each block on
/// its own, so instructions meant to overlap must share one.
pub fn basic_blocks(sass: &str) -> Vec<Vec<Instruction<'_>>> {
    let mut blocks: Vec<Vec<Instruction<'_>>> = vec![Vec::new()];
    for line in sass.lines() {
        if let Some(i) = parse_line(line) {
            let ends = matches!(
                i.mnemonic(),
                "BRA" | "BRX" | "JMP" | "CALL" | "RET" | "EXIT"
            );
            blocks.last_mut().expect("one block").push(i);
            if ends {
                blocks.push(Vec::new());
            }
        } else if line
            .trim()
            .strip_suffix(':')
            .is_some_and(|l| l.starts_with(".L"))
        {
            blocks.push(Vec::new());
        }
    }
    blocks.retain(|b| !b.is_empty());
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    const SASS: &str = "\
//--------------------- .text.k --------------------------
\t.section\t.text.k,\"ax\",@progbits
k:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   HGMMA.64x64x16.F32 R24, gdesc[UR4], RZ, !UPT ;
        /*0020*/                   HGMMA.64x64x16.F32 R24, gdesc[UR8], R24 ;
        /*0030*/              @!P0 BRA `(.L_x_0) ;
        /*0040*/                   STL [R1], R2 ;
        /*0050*/                   UTMALDG.2D [UR8], [UR4] ;
        /*0060*/                   NOP;
        /*0070*/                   EXIT ;
//--------------------- .text.other --------------------------
\t.section\t.text.other,\"ax\",@progbits
        /*0000*/                   FFMA R7, R0, UR6, R7 ;
        /*0044*/ \t.dword\tk
";

    #[test]
    fn parses_predicates_and_operandless_opcodes() {
        let ins: Vec<_> = instructions(SASS).collect();
        assert_eq!(ins.len(), 9);
        assert_eq!(ins[3].predicate, Some("@!P0"));
        assert_eq!(ins[3].opcode, "BRA");
        assert_eq!(ins[6].opcode, "NOP");
        assert_eq!(ins[6].operands, "");
        assert_eq!(ins[1].mnemonic(), "HGMMA");
        assert_eq!(ins[1].offset, 0x10);
    }

    #[test]
    fn counts_by_opcode_prefix_at_dot_boundaries() {
        assert_eq!(count(SASS, "HGMMA"), 2);
        assert_eq!(count(SASS, "HGMMA.64x64x16.F32"), 2);
        assert_eq!(count(SASS, "HGMM"), 0);
        assert_eq!(count(SASS, "UTMALDG"), 1);
        assert_eq!(count(SASS, "UTMALDG.2D"), 1);
        assert_eq!(count(SASS, "FFMA"), 1);
    }

    #[test]
    fn local_memory_and_instruction_set() {
        assert!(has_local_memory(SASS));
        assert!(!has_local_memory(
            "        /*0000*/    FFMA R1, R2, R3, R4 ;"
        ));
        let set = instruction_set(SASS);
        for m in [
            "LDC", "HGMMA", "BRA", "STL", "UTMALDG", "NOP", "EXIT", "FFMA",
        ] {
            assert!(set.contains(m), "{m} missing from {set:?}");
        }
        assert!(!set.iter().any(|m| m.starts_with('.')));
    }

    #[test]
    fn splits_basic_blocks_at_labels_and_after_branches() {
        let text = "\
        /*0000*/                   MOV R1, RZ ;
.L_x_1:
        /*0010*/                   FFMA R2, R3, R4, R2 ;
        /*0020*/              @P0 BRA `(.L_x_2) ;
        /*0030*/                   FFMA R5, R3, R4, R5 ;
.L_x_2:
        /*0040*/                   ISETP.NE.AND P1, PT, R1, RZ, PT ;
        /*0050*/              @P1 BRA `(.L_x_1) ;
        /*0060*/                   EXIT ;
";
        let b = basic_blocks(text);
        let ops: Vec<Vec<&str>> = b
            .iter()
            .map(|b| b.iter().map(|i| i.mnemonic()).collect())
            .collect();
        assert_eq!(
            ops,
            vec![
                vec!["MOV"],
                vec!["FFMA", "BRA"],
                vec!["FFMA"],
                vec!["ISETP", "BRA"],
                vec!["EXIT"]
            ]
        );
        assert!(basic_blocks("").is_empty());
    }

    #[test]
    fn splits_functions() {
        let k = function_sass(SASS, "k").unwrap();
        assert_eq!(count(k, "HGMMA"), 2);
        assert_eq!(count(k, "FFMA"), 0);
        let other = function_sass(SASS, "other").unwrap();
        assert_eq!(count(other, "FFMA"), 1);
        assert!(function_sass(SASS, "missing").is_none());
    }
}
