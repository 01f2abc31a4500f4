//! The kernel body writer: walks the lowered nodes, prints each as one or more C++ lines (with
//! its indentation, `// dsl:LINE` and note), and records what the text needs — the helpers it
//! calls — while it walks, so that the prelude is chosen from the IR and not from the text.

use dsl_core::lower::Line;
use std::collections::BTreeSet;

/// The written body and what it needs.
pub struct Body {
    /// The body's lines, indented relative to the kernel's braces.
    pub lines: Vec<String>,
    /// The helpers (`tsl_…` functions) the body calls.
    pub calls: BTreeSet<String>,
}

pub fn write(body: &[Line]) -> Body {
    let mut out = Body {
        lines: Vec::with_capacity(body.len()),
        calls: BTreeSet::new(),
    };
    for l in body {
        for c in l.op.calls() {
            out.calls.insert(c.name.clone());
        }
        out.lines.push(line(l));
    }
    out
}

/// `  code  // dsl:LINE  note`.
fn line(l: &Line) -> String {
    let mut s = "  ".repeat(l.indent);
    s.push_str(&l.op.to_string());
    match (l.dsl_line, &l.note) {
        (Some(d), Some(n)) => s.push_str(&format!("  // dsl:{d}  {n}")),
        (Some(d), None) => s.push_str(&format!("  // dsl:{d}")),
        (None, Some(n)) => s.push_str(&format!("  // {n}")),
        (None, None) => {}
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use dsl_core::lower::{CExpr, Call, Op};

    #[test]
    fn nodes_print_with_indent_line_and_note_and_calls_are_recorded() {
        let body = [
            Line {
                dsl_line: Some(3),
                ..Line::new(
                    0,
                    Op::For {
                        var: "k".into(),
                        init: CExpr::int(0),
                        bound: CExpr::var("K"),
                        step: None,
                    },
                )
            },
            Line {
                note: Some("why".into()),
                ..Line::new(
                    1,
                    Op::Call(
                        Call::new("tsl_f")
                            .targs([CExpr::int(4)])
                            .args([CExpr::var("a"), CExpr::var("b")]),
                    ),
                )
            },
            Line::new(0, Op::End),
        ];
        let b = write(&body);
        assert_eq!(
            b.lines,
            [
                "for (int k = 0; k < K; ++k) {  // dsl:3",
                "  tsl_f<4>(a, b);  // why",
                "}"
            ]
        );
        assert_eq!(b.calls.into_iter().collect::<Vec<_>>(), ["tsl_f"]);
    }
}
