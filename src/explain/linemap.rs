//! Line mapping: `.cu` line → DSL line (the emitter's `// dsl:LINE` tags) and SASS instruction
//! → `.cu` lines (the line table `nvdisasm -gi` prints, inlining chains included) → DSL line.

use std::collections::{BTreeMap, BTreeSet};

use tessel_runtime::sass;

/// One SASS instruction and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SassInstruction {
    /// Byte offset in the function.
    pub offset: u32,
    /// The instruction as nvdisasm prints it, without the offset (`@!P0 BRA `(.L_x_0) ;`).
    pub text: String,
    /// Full opcode (`HGMMA.64x192x16.F16`).
    pub opcode: String,
    /// `.cu` lines of its location, innermost (a helper's line) first, the kernel's own line
    /// last; empty when the line table says nothing.
    pub chain: Vec<u32>,
    /// The DSL line it implements, if any.
    pub dsl: Option<u32>,
    /// True when `dsl` was inferred: the line table gave only a helper line without its call
    /// site, and every other instruction from that helper line came from this one DSL line.
    pub inferred: bool,
}

impl SassInstruction {
    /// The opcode without modifiers (`HGMMA`).
    pub fn mnemonic(&self) -> &str {
        self.opcode.split('.').next().unwrap_or(&self.opcode)
    }
}

/// The DSL line of each `.cu` line (index = line − 1): the number after `// dsl:`.
pub fn dsl_tags(cuda: &str) -> Vec<Option<u32>> {
    cuda.lines().map(dsl_tag).collect()
}

fn dsl_tag(line: &str) -> Option<u32> {
    let at = line.find("// dsl:")?;
    let digits: String = line[at + 7..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// `.cu` line numbers in a `//## File "x.cu", line 65 inlined at "x.cu", line 126` comment:
/// the location first, then the call site. Locations in another file than `file` (a name
/// ending the quoted path; empty: any) are dropped: NVRTC's built-in headers have lines too.
fn location_lines(comment: &str, file: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let mut rest = comment;
    while let Some(q) = rest.find('"') {
        let after = &rest[q + 1..];
        let Some(end) = after.find('"') else { break };
        let path = &after[..end];
        rest = &after[end + 1..];
        let Some(num) = rest.trim_start().strip_prefix(", line ") else {
            continue;
        };
        let digits: String = num.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse()
            && (file.is_empty() || path == file || path.ends_with(&format!("/{file}")))
        {
            out.push(n);
        }
    }
    out
}

/// The source file of a function's `nvdisasm -gi` text: the file of its own lines (a location
/// without `inlined at`), which is the program NVRTC compiled. Empty when there is no line
/// table.
pub fn program_file(text: &str) -> String {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("//##"))
        .filter(|c| !c.contains("inlined at"))
        .find_map(|c| {
            let a = c.find('"')?;
            let b = c[a + 1..].find('"')?;
            Some(c[a + 1..a + 1 + b].to_string())
        })
        .unwrap_or_default()
}

/// The instructions of one function's `nvdisasm -gi` text with their location chains (lines
/// of the source named `file` only), and the labels as (index of the instruction that follows,
/// label).
///
/// nvdisasm prints a run of `//##` comments before the instructions whose location changes:
/// one per inlining level, innermost first, the function's own line last. The run holds until
/// the next one.
pub fn parse_sass(text: &str, file: &str) -> (Vec<SassInstruction>, Vec<(usize, String)>) {
    let mut instrs = Vec::new();
    let mut labels = Vec::new();
    let mut chain: Vec<u32> = Vec::new();
    let mut in_run = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(c) = t.strip_prefix("//##") {
            if !in_run {
                chain.clear();
                in_run = true;
            }
            for n in location_lines(c, file) {
                if chain.last() != Some(&n) {
                    chain.push(n);
                }
            }
            continue;
        }
        in_run = false;
        if let Some(i) = sass::parse_line(line) {
            let text = t
                .split_once("*/")
                .map(|(_, r)| r.trim().to_string())
                .unwrap_or_default();
            instrs.push(SassInstruction {
                offset: i.offset,
                text,
                opcode: i.opcode.to_string(),
                chain: dedup_keep_order(&chain),
                dsl: None,
                inferred: false,
            });
        } else if let Some(l) = t.strip_suffix(':')
            && l.starts_with(".L")
        {
            labels.push((instrs.len(), l.to_string()));
        }
    }
    (instrs, labels)
}

fn dedup_keep_order(v: &[u32]) -> Vec<u32> {
    let mut seen = BTreeSet::new();
    v.iter().copied().filter(|x| seen.insert(*x)).collect()
}

/// Sets each instruction's DSL line: the tag of the outermost tagged `.cu` line of its chain.
/// An instruction whose chain has no tagged line (ptxas sometimes records a helper's line
/// without the call site) takes the DSL line that every chain through that helper line leads
/// to, when there is exactly one.
pub fn attribute(
    mut instrs: Vec<SassInstruction>,
    cuda_dsl: &[Option<u32>],
) -> Vec<SassInstruction> {
    let tag = |l: u32| -> Option<u32> { cuda_dsl.get((l as usize).checked_sub(1)?).copied()? };
    let mut via: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for i in &mut instrs {
        i.dsl = i.chain.iter().rev().find_map(|&l| tag(l));
        if let Some(d) = i.dsl {
            for &l in &i.chain {
                if tag(l).is_none() {
                    via.entry(l).or_default().insert(d);
                }
            }
        }
    }
    for i in &mut instrs {
        if i.dsl.is_some() {
            continue;
        }
        let mut found: BTreeSet<u32> = BTreeSet::new();
        for l in &i.chain {
            if let Some(ds) = via.get(l) {
                found.extend(ds);
            }
        }
        if found.len() == 1 {
            i.dsl = found.into_iter().next();
            i.inferred = true;
        }
    }
    instrs
}

#[cfg(test)]
mod tests {
    use super::*;

    const CU: &str = "\
helper line 1
helper line 2
  a = b;  // dsl:10
  c = helper();  // dsl:14  note
prologue
";

    const SASS: &str = "\
\t//## File \"/x/k.cu\", line 5
        /*0000*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;
\t//## File \"/x/k.cu\", line 3
        /*0010*/                   S2R R3, SR_TID.X ;
.L_x_0:
\t//## File \"/x/k.cu\", line 2 inlined at \"/x/k.cu\", line 4
\t//## File \"/x/k.cu\", line 4
        /*0020*/                   HFMA2 R0, R1.H0_H0, R2.H0_H0, R0.H0_H0 ;
        /*0030*/              @!P0 LDG.E.U16 R4, [R6.64] ;
\t//## File \"/x/k.cu\", line 2
        /*0040*/                   HFMA2 R0, R1.H0_H0, R2.H0_H0, R0.H0_H0 ;
\t//## File \"/x/k.cu\", line 1
        /*0050*/                   EXIT ;
";

    #[test]
    fn tags_and_chains() {
        let tags = dsl_tags(CU);
        assert_eq!(tags, vec![None, None, Some(10), Some(14), None]);
        assert_eq!(program_file(SASS), "/x/k.cu");
        assert_eq!(program_file("no table"), "");
        let (instrs, labels) = parse_sass(SASS, &program_file(SASS));
        assert_eq!(instrs.len(), 6);
        assert_eq!(labels, vec![(2, ".L_x_0".to_string())]);
        assert_eq!(instrs[2].chain, vec![2, 4]);
        assert_eq!(
            instrs[3].chain,
            vec![2, 4],
            "a run holds for the following instructions"
        );
        assert_eq!(instrs[3].text, "@!P0 LDG.E.U16 R4, [R6.64] ;");
        let a = attribute(instrs, &tags);
        let dsl: Vec<Option<u32>> = a.iter().map(|i| i.dsl).collect();
        assert_eq!(
            dsl,
            vec![None, Some(10), Some(14), Some(14), Some(14), None]
        );
        assert!(a[4].inferred && !a[2].inferred);
        assert_eq!(a[2].mnemonic(), "HFMA2");
    }

    #[test]
    fn lines_of_other_files_are_dropped() {
        let c = " File \"/x/k.cu\", line 7 inlined at \"/x/k.cu\", line 9";
        assert_eq!(location_lines(c, "k.cu"), vec![7, 9]);
        assert_eq!(location_lines(c, "other.cu"), Vec::<u32>::new());
        let mixed = " File \"builtin.h\", line 300 inlined at \"/x/k.cu\", line 9";
        assert_eq!(location_lines(mixed, "k.cu"), vec![9]);
        assert_eq!(location_lines(mixed, ""), vec![300, 9]);
        assert_eq!(location_lines(c, "x/k.cu"), vec![7, 9]);
        assert_eq!(
            location_lines(" File \"/x/kk.cu\", line 3", "k.cu"),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn a_helper_line_reached_from_two_dsl_lines_is_not_guessed() {
        let cu = "helper\n  x();  // dsl:3\n  y();  // dsl:4\n";
        let sass = "\
\t//## File \"k.cu\", line 1 inlined at \"k.cu\", line 2
\t//## File \"k.cu\", line 2
        /*0000*/                   FFMA R1, R2, R3, R1 ;
\t//## File \"k.cu\", line 1 inlined at \"k.cu\", line 3
\t//## File \"k.cu\", line 3
        /*0010*/                   FFMA R1, R2, R3, R1 ;
\t//## File \"k.cu\", line 1
        /*0020*/                   FFMA R1, R2, R3, R1 ;
";
        let (i, _) = parse_sass(sass, "");
        let a = attribute(i, &dsl_tags(cu));
        assert_eq!(a[0].dsl, Some(3));
        assert_eq!(a[1].dsl, Some(4));
        assert_eq!(a[2].dsl, None);
    }
}
